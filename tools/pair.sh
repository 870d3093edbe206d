#!/usr/bin/env bash
# Two guests on a wire: the NVMe-oF target in one guest, the host in
# another, on Debian's stock kernels, joined by QEMU's dgram netdev (the
# two QEMUs exchange Ethernet frames as datagrams on Unix sockets of their
# own: nothing outside this machine is addressed), Soft-RoCE on each end
# (vm-suite.sh's pair_vm_run).
#
# usage: pair.sh [TARGET_SERIES HOST_SERIES [engine|ib_core]]
#   default: 6.1 6.12 engine - the engine-built nvmet-rdma on 6.1 serving
#   a host on 6.12; ib_core: the kernel's own nvmet-rdma, the reference.
#   RWX_PAIR_PLAN: the host's steps (tools/guest/pair.sh; default
#   "fio"), e.g. "netem:loss1 portcycle reference netem:mixed engine kill".
# Installs and builds what is missing (tools/deps.sh, the module and
# nvmet-rdma against the target series' headers), boots both guests at
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
th=$(series_headers "$target_series") && series_headers "$host_series" > /dev/null || exit 2
mod=$RWX_BUILD/mod-$target_series ulps=$RWX_BUILD/ulps-$target_series
run_test "module, Debian $(basename "$th")" "$RWX_ROOT/tools/build-module.sh" "$th" "$mod" C=0 || exit 1
target_env=()
if [ "$side" = engine ]; then
	run_test "nvmet-rdma on the engine, $(basename "$th")" \
		"$RWX_ROOT/tools/build-ulps.sh" "$th" "$mod" "$ulps" nvmet-rdma || exit 1
	target_env=(-e "RWX_ENGINE_MODULE=$mod/drivers/rwx/rdma_rwx.ko"
		    -e "RWX_NVMET_RDMA=$ulps/nvmet-rdma/nvmet-rdma.ko")
fi

suite pair
name=pair-$target_series-$host_series-$side
# shellcheck disable=SC2046
pair_vm_run "$name" $(stock_boot "$target_series") $(stock_boot "$host_series") \
	"${RWX_PAIR_PLAN:-fio}" "${target_env[@]}" ||
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
