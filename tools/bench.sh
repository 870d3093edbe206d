#!/usr/bin/env bash
# make bench: on Debian's stock 6.12 kernel with Soft-RoCE, once on the SGE
# path and once on the MR path:
#  - the CPU cost of an RW context (init, WR chain, destroy), rdma_rwx
#    against ib_core's rdma_rw_ctx in the same run; ratio rdma_rwx/ib_core
#    (below 1: the engine is cheaper);
#  - the NVMe-oF data path: fio through the engine-built nvmet-rdma and
#    through the distro's, alternating round by round; medians and the
#    ratio engine/ib_core (above 1: the engine moved more).
# A benchmark, not a test: nothing is asserted on time.  Under TCG
# absolute figures are emulated; compare the ratios.
#   RWX_BENCH_ROUNDS (default 5), RWX_BENCH_RUNTIME (s per fio run, default 4)
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RWX_ROOT
. "$RWX_ROOT/tools/lib.sh"
. "$RWX_ROOT/tools/vm-suite.sh"

prepare_stock_612 || exit 1
"$RWX_ROOT/tools/build-ulps.sh" "$(headers_612)" "$RWX_BUILD/mod-6.12" \
	"$RWX_BUILD/ulps-6.12" nvmet-rdma > /dev/null || exit 1
release=$(stock_612_release)
status=0
for mr in 0 1; do
	name=bench-$([ "$mr" = 1 ] && echo mr || echo sge)
	echo "bench: $name, Debian $release under QEMU"
	vm_run "$name" "/boot/vmlinuz-$release" "$(initramfs_for "$release")" \
		"$RWX_ROOT/tools/guest/bench.sh" 1800 \
		-e "RWX_MODDIR=$RWX_BUILD/mod-6.12" -e "RWX_BENCH_MR=$mr" \
		-e "RWX_ULPDIR=$RWX_BUILD/ulps-6.12" \
		-e "RWX_BENCH_ROUNDS=${RWX_BENCH_ROUNDS:-5}" \
		-e "RWX_BENCH_RUNTIME=${RWX_BENCH_RUNTIME:-4}" > /dev/null
	out=$RWX_BUILD/vm/$name
	grep -E 'rwx_bench: |^bench: ' "$out/console.log" | grep -v '^bench: data [a-z]* [a-z]*-' |
		sed 's/^\[ *[0-9.]*\] //'
	if grep -q $'^fail' "$out/judgement"; then
		awk -F'\t' '$1 == "fail" {print "bench FAILED: " $2 ": " $3}' \
			"$out/judgement"
		status=1
	fi
done
echo
python3 "$RWX_ROOT/tools/bench-summary.py" "$RWX_BUILD"/vm/bench-{sge,mr}/console.log || status=1
exit $status
