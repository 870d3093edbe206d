# Guest script for make demo (stock Debian kernel): the demo ULP moves a
# multi-segment buffer through the engine by RDMA WRITE and READ, first on
# the SGE path, then on the MR path (the engine's force_mr=1; ib_core's
# force_mr=1 gives the QPs their MR pool on Soft-RoCE); then one T10-PI
# signature transfer on the test device.
set -eu
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
M=$RWX_MODDIR

modprobe ib_core force_mr=1
modprobe rdma_cm
rdma_setup rxe
insmod "$M/drivers/testing/loopback/rwx_loopback.ko"
for force_mr in 0 1; do
	echo "demo: rdma_rwx force_mr=$force_mr"
	insmod "$M/drivers/rwx/rdma_rwx.ko" force_mr=$force_mr
	insmod "$M/drivers/demo/rwx_demo.ko" addr=192.0.2.1
	rmmod rwx_demo
	rmmod rdma_rwx
done
# T10-PI: a signature transfer on the test device, whose integrity MRs do
# the T10-DIF work of a HCA (no soft device has integrity).
echo "demo: rdma_rwx signature (T10-PI) context on the test device"
insmod "$M/drivers/rwx/rdma_rwx.ko"
insmod "$M/drivers/testing/testdev/rwx_testdev.ko"
insmod "$M/drivers/demo/rwx_sig_demo.ko"
rmmod rwx_sig_demo
rmmod rwx_testdev
rmmod rdma_rwx
rmmod rwx_loopback
echo "demo: done"
