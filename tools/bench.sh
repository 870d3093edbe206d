#!/usr/bin/env bash
# make bench: on Debian's stock 6.12 kernel with Soft-RoCE, on the SGE
# path and on the MR path:
#  - cost: the CPU cost of an RW context (init, WR chain, destroy),
#    rdma_rwx against ib_core's rdma_rw_ctx in the same run, per list
#    shape and direction; ratio rdma_rwx/ib_core (below 1: the engine is
#    cheaper).  Measured twice under QEMU's -icount, where the guest's
#    clock counts instructions (deterministic: the two runs must agree),
#    and once under the normal clock, for reference;
#  - data: the NVMe-oF data path, fio through the engine-built nvmet-rdma
#    and through the distro's, alternating round by round; medians and
#    the ratio engine/ib_core (above 1: the engine moved more).
# A benchmark, not a test: nothing is asserted on time.  Under TCG
# absolute figures are emulated; compare the ratios.
#   RWX_BENCH_PARTS   "cost data" (default), or either
#   RWX_BENCH_ROUNDS (default 5), RWX_BENCH_RUNTIME (s per fio run, default 4)
#   RWX_BENCH_SMOKE=1 make check's run: the SGE path only, one short icount
#                     cost run and one short data round; checks that the
#                     pieces work and the tables come out, nothing more
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RWX_ROOT
. "$RWX_ROOT/tools/lib.sh"
. "$RWX_ROOT/tools/vm-suite.sh"

# Operations per round under -icount (rwx_bench's fixed_ops).
BENCH_FIXED_OPS=16
paths="sge mr" icount_runs="1 2" clock_run=1
if [ "${RWX_BENCH_SMOKE:-0}" = 1 ]; then
	BENCH_FIXED_OPS=2 paths=sge icount_runs=1 clock_run=0
	: "${RWX_BENCH_ROUNDS:=1}" "${RWX_BENCH_RUNTIME:=1}"
fi

prepare_stock_612 || exit 1
"$RWX_ROOT/tools/build-ulps.sh" "$(headers_612)" "$RWX_BUILD/mod-6.12" \
	"$RWX_BUILD/ulps-6.12" nvmet-rdma > /dev/null || exit 1
release=$(stock_612_release)
parts=${RWX_BENCH_PARTS:-cost data}
status=0

# bench_guest NAME MR [run-vm.sh options...]: one bench guest; echoes its
# console log's bench lines, fails on a failed judgement.
bench_guest() {
	local name=$1 mr=$2 out=$RWX_BUILD/vm/$1
	shift 2
	echo "bench: $name, Debian $release under QEMU"
	vm_run "$name" "/boot/vmlinuz-$release" "$(initramfs_for "$release")" \
		"$RWX_ROOT/tools/guest/bench.sh" 1800 -e "RWX_BENCH_MR=$mr" \
		-e "RWX_MODDIR=$RWX_BUILD/mod-6.12" \
		-e "RWX_ULPDIR=$RWX_BUILD/ulps-6.12" "$@" > /dev/null
	grep -E 'rwx_bench: |^bench: ' "$out/console.log" |
		grep -v '^bench: data [a-z]* [a-z]*-' | sed 's/^\[ *[0-9.]*\] //'
	if grep -q $'^fail' "$out/judgement"; then
		awk -F'\t' '$1 == "fail" {print "bench FAILED: " $2 ": " $3}' \
			"$out/judgement"
		return 1
	fi
}

summary=()
for path in $paths; do
	mr=$([ "$path" = mr ] && echo 1 || echo 0)
	case " $parts " in *" cost "*)
		logs=()
		for run in $icount_runs; do
			RWX_QEMU_ICOUNT=1 bench_guest "bench-cost-$path-icount$run" "$mr" \
				-e RWX_BENCH_COST=1 -e "RWX_BENCH_FIXED_OPS=$BENCH_FIXED_OPS" ||
				status=1
			logs+=("$RWX_BUILD/vm/bench-cost-$path-icount$run/console.log")
		done
		if [ "$clock_run" = 1 ]; then
			bench_guest "bench-cost-$path-clock" "$mr" -e RWX_BENCH_COST=1 || status=1
			logs+=("$RWX_BUILD/vm/bench-cost-$path-clock/console.log")
		fi
		summary+=(--cost "$path" "${logs[@]}")
	esac
	case " $parts " in *" data "*)
		bench_guest "bench-data-$path" "$mr" -e RWX_BENCH_DATA=1 \
			-e "RWX_BENCH_ROUNDS=${RWX_BENCH_ROUNDS:-5}" \
			-e "RWX_BENCH_RUNTIME=${RWX_BENCH_RUNTIME:-4}" || status=1
		summary+=(--data "$RWX_BUILD/vm/bench-data-$path/console.log")
	esac
done
echo
python3 "$RWX_ROOT/tools/bench-summary.py" "${summary[@]}" || status=1
exit $status
