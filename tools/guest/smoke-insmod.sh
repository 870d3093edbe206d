# Guest script (stock Debian kernel): load the module built against
# Debian's headers next to Debian's own ib_core and rdma_rxe, check it is
# live, and unload it cleanly.
set -eu
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
rdma_setup rxe
modprobe ib_core
insmod "$RWX_ENGINE_MODULE"
grep -q '^rdma_rwx ' /proc/modules
echo "smoke: rdma_rwx $(cat /sys/module/rdma_rwx/version) loaded on $(uname -r)"
rmmod rdma_rwx
! grep -q '^rdma_rwx ' /proc/modules
echo "smoke: rdma_rwx unloaded"
