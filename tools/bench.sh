#!/usr/bin/env bash
# make bench: the CPU cost of an RW context (init, WR chain, destroy),
# rdma_rwx against ib_core's rdma_rw_ctx in the same run, on Debian's
# stock 6.12 kernel with Soft-RoCE: once on the SGE path, once on the MR
# path.  Prints the figures and the ratio rdma_rwx/ib_core (below 1: the
# engine is cheaper).  A benchmark, not a test: nothing is asserted on
# time.  Under TCG absolute times are emulated; compare the ratios.
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RWX_ROOT
. "$RWX_ROOT/tools/lib.sh"
. "$RWX_ROOT/tools/vm-suite.sh"

prepare_stock_612 || exit 1
release=$(stock_612_release)
status=0
for mr in 0 1; do
	name=bench-$([ "$mr" = 1 ] && echo mr || echo sge)
	echo "bench: $name, Debian $release under QEMU"
	vm_run "$name" "/boot/vmlinuz-$release" "$(initramfs_for "$release")" \
		"$RWX_ROOT/tools/guest/bench.sh" 900 \
		-e "RWX_MODDIR=$RWX_BUILD/mod-6.12" -e "RWX_BENCH_MR=$mr"
	out=$RWX_BUILD/vm/$name
	grep -E 'rwx_bench: |^bench: ' "$out/console.log" | sed 's/^\[ *[0-9.]*\] //'
	if grep -q $'^fail' "$out/judgement"; then
		awk -F'\t' '$1 == "fail" {print "bench FAILED: " $2 ": " $3}' \
			"$out/judgement"
		status=1
	fi
done
exit $status
