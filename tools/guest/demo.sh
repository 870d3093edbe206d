# Guest script for make demo (Debian's stock kernel): Debian's own NVMe-oF
# target, nvmet-rdma, built from linux-source to run on the engine, serves
# a memory-backed namespace over Soft-RoCE to the kernel's nvme-rdma host
# on the same guest; fio writes and verifies data.  The same run follows
# with the distro's nvmet-rdma (ib_core's rdma_rw) for comparison.
#   RWX_MODDIR      the project's modules built against this kernel
#   RWX_ULPDIR      tools/build-ulps.sh's output for this kernel
#   RWX_DEMO_PATH   sge | mr (mr: boot with ib_core.force_mr=1; the engine
#                   gets force_mr=1).  On the sge boot the distro's
#                   nvmet-rdma is then taken over live (rdma-rwx takeover
#                   on, rdma-rwx stat before and after); on the mr boot
#                   the smaller examples follow: rwx_demo and a T10-PI
#                   transfer on the test device
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
. "$RWX_ROOT/tools/guest/nvmeof-lib.sh"
M=$RWX_MODDIR
path=${RWX_DEMO_PATH:-sge}
fail() { echo "demo: FAILED $*"; exit 1; }

echo "demo: === NVMe-oF on the engine, $path path ($(uname -r), Soft-RoCE rxe0) ==="
RWX_ENGINE_MODULE=$M/drivers/rwx/rdma_rwx.ko
RWX_ENGINE_PARAMS=$([ "$path" = mr ] && echo force_mr=1)
export RWX_ENGINE_MODULE RWX_ENGINE_PARAMS
rdma_setup rxe > /dev/null || fail "rxe setup"
nvmeof_modules || fail "loading modules"
# null_blk allocates its memory on first write: allocate it all now, or the
# first side measured pays for it.
dd if=/dev/zero of=/dev/nullb0 bs=1M count=128 oflag=direct status=none || fail "prefill"

# demo_side KO LABEL: serve the namespace with that nvmet-rdma (KO empty:
# the distro's), fio verify, tear down.
demo_side() {
	nvmeof_target_load "$1" || return 1
	echo 0 > $RWX_COUNTERS
	nvmeof_target_up 192.0.2.1 > /tmp/target.txt || return 1
	nvmeof_host_connect 192.0.2.1 > /tmp/host.txt || return 1
	nvmeof_fio "$RWX_ROOT/tools/guest/fio/demo.fio" "$2" > /tmp/fio.txt
	local rc=$?
	grep -E 'fio verified|result' /tmp/fio.txt
	[ $rc = 0 ] || { cat /tmp/fio.txt; return 1; }
	if [ -n "$1" ]; then
		echo "nvmeof: paths: $(engine_counter init_sge_single) single-SGE," \
			"$(engine_counter init_sge_multi) multi-SGE and" \
			"$(engine_counter init_mr) MR contexts ($(engine_counter mrs_registered) MRs)," \
			"$(engine_counter sge_fallback) fallbacks," \
			"$(engine_errors) errors"
	fi
	nvmeof_host_disconnect && nvmeof_target_down && nvmeof_target_unload
}

# In the order engine, ib_core, ib_core, engine: neither side always runs
# first.
demo_side "$RWX_ULPDIR/nvmet-rdma/nvmet-rdma.ko" "engine" || fail "NVMe-oF on the engine"
sed 's/^/nvmeof: /' /tmp/target.txt /tmp/host.txt | sed 's/nvmeof: nvmeof:/nvmeof:/'
demo_side "" "ib_core" || fail "NVMe-oF on the distro's nvmet-rdma"
demo_side "" "ib_core" || fail "NVMe-oF on the distro's nvmet-rdma"
demo_side "$RWX_ULPDIR/nvmet-rdma/nvmet-rdma.ko" "engine" || fail "NVMe-oF on the engine"

# rw CMD...: rdma-rwx CMD, shown with what it printed.
rw() {
	echo "demo: # rdma-rwx $*"
	"$RWX_ADMIN" "$@" > /tmp/rw.txt 2>&1
	local rc=$?
	sed '/^$/d; s/^/demo:   /' /tmp/rw.txt
	return $rc
}

# The distro's own nvmet-rdma, unmodified, taken over live while fio
# writes and verifies, then given back to ib_core: rdma-rwx's view of it.
demo_takeover() {
	echo "demo: === the distro's own nvmet-rdma taken over live (rdma-rwx takeover) ==="
	nvmeof_target_load "" > /dev/null && nvmeof_target_up 192.0.2.1 > /dev/null &&
		nvmeof_host_connect 192.0.2.1 > /dev/null || return 1
	echo 0 > $RWX_COUNTERS
	verify_load_start "$NVMEOF_BDEV" --time_based --runtime=600
	sleep 2
	echo "demo: fio writing and verifying on the distro's nvmet-rdma (ib_core's rdma_rw):"
	rw status && rw stat -d rxe0 2 1 || return 1
	rw takeover on -m "$M/drivers/takeover/rdma_rwx_takeover.ko" &&
		rw status && rw stat -d rxe0 2 1 || return 1
	rw takeover off && rw stat -d rxe0 2 1 || return 1
	echo "demo: since the counters were zeroed, totals:"
	rw stat -d rxe0 || return 1
	verify_load_stop || return 1
	echo "demo: fio's data verified across both switches"
	nvmeof_host_disconnect && nvmeof_target_down && nvmeof_target_unload
}
[ "$path" = sge ] && { demo_takeover || fail "the takeover"; }
nvmeof_modules_unload || fail "teardown"

if [ "$path" = mr ]; then
	echo "demo: === smaller examples: rwx_demo (MR path), T10-PI on the test device ==="
	insmod "$M/drivers/rwx/rdma_rwx.ko" force_mr=1 || fail "insmod rdma_rwx"
	insmod "$M/drivers/testing/loopback/rwx_loopback.ko" || fail "insmod rwx_loopback"
	insmod "$M/drivers/demo/rwx_demo.ko" addr=192.0.2.1 || fail "rwx_demo"
	rmmod rwx_demo
	# T10-PI: a signature transfer on the test device, whose integrity MRs
	# do the T10-DIF work of a HCA (no soft device has integrity).
	insmod "$M/drivers/testing/testdev/rwx_testdev.ko" || fail "insmod rwx_testdev"
	insmod "$M/drivers/demo/rwx_sig_demo.ko" || fail "rwx_sig_demo"
	rmmod rwx_sig_demo rwx_testdev rwx_loopback rdma_rwx
fi
echo "demo: done"
