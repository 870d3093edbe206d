# Guest script: the kernel's NVMe-oF target (nvmet-rdma) serving a
# memory-backed namespace (null_blk) over one soft RDMA device to the
# kernel's nvme-rdma host on the same guest, with fio verifying the data.
#   RWX_DEV=rxe|siw|testdev  the device (rxe0 on 192.0.2.1, siw0 on
#                         192.0.2.2, the test device rwxr0 on 192.0.2.3 with
#                         RWX_TESTDEV_MODULE and RWX_TESTDEV_SPEC:
#                         tools/guest/rdma-setup.sh)
#   RWX_MODROOT           a modules_install root to bind over /lib/modules
#                         (the test kernel's own modules); unset: the host's
#   RWX_ENGINE_MODULE     rdma_rwx.ko (with RWX_ENGINE_PARAMS)
#   RWX_NVMET_RDMA        the engine-built nvmet-rdma.ko; unset: the
#                         kernel's own (ib_core's rdma_rw)
#   RWX_TAKEOVER_MODULE   rdma_rwx_takeover.ko, loaded after the engine: the
#                         kernel's own nvmet-rdma on the engine through
#                         ib_core (its contexts checked after fio), then
#                         the takeover off and on under a verify load
#                         (RWX_TAKEOVER_SWITCHES times, default 1), all
#                         switched by rdma-rwx (RWX_ADMIN)
#   RWX_TAKEOVER_MISMATCH_MODULE  the takeover as built for another ib_core
#                         (tools/modversion-mismatch.py): refused first
#   RWX_FIO_JOBS          fio job file (default: tools/guest/fio/verify.fio)
#   RWX_INLINE_DATA=0     no in-capsule data: every host write is an RDMA READ
#   RWX_EXPECT_PATHS      sge | mr | sge+mr: the engine's contexts must have
#                         taken these paths (its counters), with no error
#   RWX_FAULT             "" | link-delete | port-remove: break the target
#                         while fio runs, expect I/O errors and a clean teardown
#                         (link-delete under the takeover: rdma_rxe is then
#                         unloaded with the takeover on, before the ULP)
#   RWX_DEVICE_FAULT      wr-error | map-fail (RWX_DEV=testdev): after the
#                         verify run, the test device fails the target
#                         mid-I/O, the host recovers and fio verifies
#                         (nvmeof_device_fault)
#   RWX_SMP=1             after the verify run, the multi-CPU checks
#                         (nvmeof_smp_run: queues, every-CPU jobs, queue
#                         count on reconnect, CPU hotplug)
#   RWX_PI=1              protection information end to end: the namespace
#                         a scsi_debug disk with T10-PI type 1 and DIX,
#                         pi_enable on the subsystem and the port (the
#                         device needs integrity handover: the test device's
#                         mlx5-pi set); after fio, nvmeof_pi_checks
#   RWX_KMEMLEAK=0        do not scan for leaks at the end
# Prints "nvmeof: ..." lines; the last is "nvmeof: passed" on success.
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
. "$RWX_ROOT/tools/guest/nvmeof-lib.sh"

dev=${RWX_DEV:-rxe}
case $dev in
rxe) addr=192.0.2.1 ibdev=rxe0 ;;
siw) addr=192.0.2.2 ibdev=siw0 ;;
testdev) addr=192.0.2.3 ibdev=rwxr0 ;;
*) nvmeof_fail "unknown RWX_DEV $dev" ;;
esac

nvmeof_modules || nvmeof_fail "loading modules"
nvmeof_target_load "${RWX_NVMET_RDMA:-}" || nvmeof_fail "loading nvmet-rdma"
rdma_setup "$dev" > /dev/null || nvmeof_fail "setting up $ibdev"
kmemleak_start
nvmeof_target_up "$addr" || nvmeof_fail "target setup"
rc=0
case ${RWX_FAULT:-} in
"")
	# A reconnect (RWX_SMP's queue count change) within a second.
	nvmeof_host_connect "$addr" --reconnect-delay=1 || nvmeof_fail "nvme connect"
	nvmeof_fio "${RWX_FIO_JOBS:-$RWX_ROOT/tools/guest/fio/verify.fio}" || rc=1
	if [ "${RWX_SMP:-0}" = 1 ]; then
		nvmeof_smp_run || rc=1
	fi
	engine_counters
	if [ -n "${RWX_ENGINE_MODULE:-}" ] && [ -n "${RWX_NVMET_RDMA:-}${RWX_TAKEOVER_MODULE:-}" ]; then
		engine_expect_paths "${RWX_EXPECT_PATHS:-sge}" || rc=1
	fi
	if [ "${RWX_PI:-0}" = 1 ]; then
		nvmeof_pi_checks "$ibdev" || rc=1
	fi
	if [ -n "${RWX_TAKEOVER_MODULE:-}" ]; then
		takeover_served || rc=1
		takeover_status nvmet_rdma || rc=1
		# The target's and host's MR pools are made with their QPs.
		mrs=$(device_mrs "$ibdev")
		takeover_switch_under_load "$NVMEOF_BDEV" "$ibdev" &&
			mrs_unchanged "$ibdev" "$mrs" "after the switches" || rc=1
	fi
	# Last: the fault's engine error would fail the checks above.
	if [ -n "${RWX_DEVICE_FAULT:-}" ]; then
		nvmeof_device_fault "$RWX_DEVICE_FAULT" "$ibdev" || rc=1
	fi
	nvmeof_host_disconnect || rc=1
	;;
*)
	# Give up on a lost controller after 3 s, so that I/O fails soon.
	nvmeof_host_connect "$addr" --ctrl-loss-tmo=3 --reconnect-delay=1 ||
		nvmeof_fail "nvme connect"
	nvmeof_fault_run "$RWX_FAULT" "$dev" || rc=1
	nvmeof_host_disconnect > /dev/null 2>&1	# may be gone already
	# The device's driver unloaded under the takeover, the ULP still loaded.
	if [ -e "$RWX_KLP" ] && [ "$RWX_FAULT" = link-delete ] && [ -e /sys/module/rdma_rxe/refcnt ]; then
		if rmmod rdma_rxe; then
			echo "nvmeof: takeover on: rdma_rxe unloaded after its device was deleted under load"
		else
			echo "nvmeof: takeover on: rmmod rdma_rxe failed"
			rc=1
		fi
	fi
	;;
esac

nvmeof_target_down || rc=1
nvmeof_modules_unload || rc=1
if [ "$dev" = testdev ]; then
	testdev_remove || rc=1
fi
kmemleak_check || rc=1
[ $rc = 0 ] || nvmeof_fail "see above"
echo "nvmeof: passed"
