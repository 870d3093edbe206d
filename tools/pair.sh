#!/usr/bin/env bash
# Two guests on a wire: the NVMe-oF target in one guest, the host in
# another, joined by QEMU's dgram netdev (the two QEMUs exchange Ethernet
# frames as datagrams on Unix sockets of their own: nothing outside this
# machine is addressed), Soft-RoCE on each end (vm-suite.sh's
# pair_vm_run).
#
# usage: pair.sh [TARGET HOST [engine|ib_core]]
#   TARGET: 6.1 or 6.12 (Debian's stock kernels), or debug-6.12: the 6.12
#   debug test kernel (tools/kernel), its contexts on the MR path
#   (force_mr) and kmemleak scanned after the teardown.  HOST: 6.1 or
#   6.12.  Default: 6.1 6.12 engine - the engine-built nvmet-rdma on 6.1
#   serving a host on 6.12; ib_core: the kernel's own nvmet-rdma, the
#   reference.
#   RWX_PAIR_PLAN: the host's steps (tools/guest/pair.sh; default
#   "fio"), e.g. "netem:loss1 portcycle reference netem:mixed engine kill".
#   RWX_PAIR_GUARD: each guest's hang guard in seconds (default 1200).
# Installs and builds what is missing (tools/deps.sh, the test kernel, the
# module, nvmet-rdma and ib_isert against the target's kernel), boots both guests at
# once (tools/guest/pair.sh), prints each one's judgement and ends with
# "N passed, N failed, N skipped"; exits non-zero on any failure.
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RWX_ROOT
RWX_RESULTS=${RWX_BUILD:-$RWX_ROOT/build}/pair-results.tsv
. "$RWX_ROOT/tools/lib.sh"
. "$RWX_ROOT/tools/vm-suite.sh"
export RWX_RESULTS RWX_BUILD RWX_CACHE

target_series=${1:-6.1} host_series=${2:-6.12} side=${3:-engine}
case $side in engine | ib_core) ;; *) echo "pair: engine or ib_core, not $side" >&2; exit 2 ;; esac

mkdir -p "$RWX_BUILD"
: > "$RWX_RESULTS"
RWX_VM_NAME=rwxpair-$$
export RWX_VM_NAME
trap 'kill $(jobs -p) 2>/dev/null; pkill -KILL -x "$RWX_VM_NAME" 2>/dev/null; exit 130' INT TERM HUP

suite build
bash "$RWX_ROOT/tools/deps.sh" > "$RWX_BUILD/pair-deps.log" 2>&1 ||
	{ cat "$RWX_BUILD/pair-deps.log"; exit 1; }
series_headers "$host_series" > /dev/null || exit 2
target_env=() build_args=(C=0)
case $target_series in
debug-6.12)
	run_test "test kernel (linux-source-6.12 + tools/kernel/test-kernel.config)" \
		bash -c '"$1"/tools/kernel/build-test-kernel.sh --series 6.12 > "$2"' _ \
		"$RWX_ROOT" "$RWX_BUILD/pair-kernel.path" || exit 1
	kdir=$(cat "$RWX_BUILD/pair-kernel.path") mod=$RWX_BUILD/mod-test ulps=$RWX_BUILD/ulps-test
	target_boot=("$kdir/arch/x86/boot/bzImage" "$(initramfs_for)")
	target_env=(-e "RWX_MODROOT=$kdir/modroot" -a ib_core.force_mr=1)
	[ "$side" = engine ] &&
		target_env+=(-e RWX_ENGINE_PARAMS=force_mr=1 -e RWX_EXPECT_PATHS=mr)
	build_args=(RWX_HARNESS_SELFTEST=1 C=0) ;;
*)
	kdir=$(series_headers "$target_series") || exit 2
	mod=$RWX_BUILD/mod-$target_series ulps=$RWX_BUILD/ulps-$target_series
	read -ra target_boot <<< "$(stock_boot "$target_series")" ;;
esac
run_test "module, $(basename "$kdir")" "$RWX_ROOT/tools/build-module.sh" "$kdir" "$mod" \
	"${build_args[@]}" || exit 1
if [ "$side" = engine ]; then
	run_test "nvmet-rdma and ib_isert on the engine, $(basename "$kdir")" \
		"$RWX_ROOT/tools/build-ulps.sh" "$kdir" "$mod" "$ulps" nvmet-rdma ib_isert || exit 1
	target_env+=(-e "RWX_ENGINE_MODULE=$mod/drivers/rwx/rdma_rwx.ko"
		     -e "RWX_NVMET_RDMA=$ulps/nvmet-rdma/nvmet-rdma.ko"
		     -e "RWX_ISERT_MODULE=$ulps/ib_isert/ib_isert.ko")
fi

suite pair
name=pair-$target_series-$host_series-$side
# shellcheck disable=SC2046
PAIR_GUARD=${RWX_PAIR_GUARD:-1200} pair_vm_run "$name" "${target_boot[@]}" \
	$(stock_boot "$host_series") "${RWX_PAIR_PLAN:-fio}" "${target_env[@]}" ||
	fail "$name" "a guest failed or did not run"
for role in target host; do
	if [ ! -f "$RWX_BUILD/vm/$name-$role/judgement" ]; then
		fail "$name-$role" "not run"
		continue
	fi
	vm_record "$name-$role"
	grep -E '^pair: ' "$RWX_BUILD/vm/$name-$role/console.log" | sed "s/^/   ($role) /"
done

p=$(awk -F'\t' '$3 == "pass"' "$RWX_RESULTS" | wc -l)
f=$(awk -F'\t' '$3 == "fail"' "$RWX_RESULTS" | wc -l)
s=$(awk -F'\t' '$3 == "skip"' "$RWX_RESULTS" | wc -l)
echo "$p passed, $f failed, $s skipped"
[ "$f" = 0 ]
