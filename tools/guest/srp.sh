# Guest script: the kernel's SRP target (LIO + ib_srpt, configured through
# configfs as blktests' srp group does) and the kernel's SRP initiator
# (ib_srp, logged in through the RDMA/CM by writing its add_target file) on
# one guest, over Soft-RoCE (rxe0 on veth0 192.0.2.1) or Soft-iWARP (siw0
# on veth1 192.0.2.2); fio verifies the data on the resulting SCSI disk.  Backstore: a memory-backed
# null_blk.
#
# Optional environment:
#   RWX_DEV            rxe (default) or siw (not run yet)
#   RWX_MODROOT        a modules_install root to bind over /lib/modules (the
#                      test kernel's own modules); unset: the host's
#   RWX_ENGINE_MODULE  path of rdma_rwx.ko, insmod'ed first; then the engine
#                      must have served the I/O (its counters) and hold no
#                      context at the end
#   SRPT_MODULE        path of an engine-built ib_srpt.ko, insmod'ed instead
#                      of `modprobe ib_srpt`
#   RWX_ENGINE_PARAMS  its module parameters (force_mr=1)
#   RWX_EXPECT_PATHS   sge | mr | sge+mr: the engine's contexts must have
#                      taken that path (default sge)
#   SRP_FIO_SIZE       MB per fio job (default 16)
#   RWX_FAULT          after the data jobs, a fault under fio load:
#                      link-delete (the RDMA device removed) or server-stop
#                      (the target port disabled); the initiator's I/O must
#                      fail, and everything be torn down
#                      (needs RWX_ENGINE_MODULE: the load must show in the
#                      engine's counters before the fault)
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
RWX_LOG_PREFIX=srp
. "$RWX_ROOT/tools/guest/engine-lib.sh"
. "$RWX_ROOT/tools/guest/ulp-lib.sh"

CM_PORT=5555
CFS=/sys/kernel/config/target
SIZE_MB=${SRP_FIO_SIZE:-16}

diagnose() {
	rdma link show 2>&1 | indent
	ls /sys/class/infiniband_srp /sys/class/srp_remote_ports 2>&1 | indent
	find "$CFS/srpt" -maxdepth 3 2>&1 | head -n 30 | indent
	dmesg | grep -iE 'srp|rxe|siw|target|scsi|rdma' | tail -n 40 | sed "s/^/srp:   dmesg: /"
}

# --- modules and the RDMA device
say "loading modules"
command -v fio > /dev/null || die "fio is not installed on the host"
setup_rdma_engine
run modprobe target_core_mod
run modprobe target_core_iblock
load_ulp "${SRPT_MODULE:-}" ib_srpt
srpt_name=$ULP_NAME
run modprobe ib_srp
# No udev in the guest: the SCSI disk driver is not autoloaded.
run modprobe sd_mod

# --- target: a null_blk LUN on the port of the RDMA device, for the initiator's
# address, and the RDMA/CM port to listen on
say "configuring the LIO SRP target"
[ -d "$CFS" ] || mount -t configfs none /sys/kernel/config || die "mount configfs"
bs=$CFS/core/iblock_0/nullb0
run mkdir -p "$bs"
echo "udev_path=/dev/nullb0" > "$bs/control" || die "iblock control"
echo 1 > "$bs/enable" || die "iblock enable"
run mkdir "$CFS/srpt"
echo $CM_PORT > "$CFS/srpt/discovery_auth/rdma_cm_port" || die "rdma_cm_port $CM_PORT"
gid=$(cat /sys/class/infiniband/$ULP_IBDEV/ports/1/gids/0)
# The port's name: its GID's interface ID, as ib_srpt names RoCE ports.
tport=${gid#fe80:0000:0000:0000:}
tpg=$CFS/srpt/$tport/$tport
run mkdir -p "$tpg/lun/lun_0"
run ln -s "$bs" "$tpg/lun/lun_0/nullb0"
# RDMA/CM logins are named after the initiator's IP address.
run mkdir -p "$tpg/acls/$ULP_ADDR/lun_0"
run ln -s "$tpg/lun/lun_0" "$tpg/acls/$ULP_ADDR/lun_0/lun_0"
echo 1 > "$tpg/enable" || die "enable $tpg"
say "target ready: port $tport, LUN 0 = nullb0, RDMA/CM port $CM_PORT"

# --- initiator: ib_srp logs in through the RDMA/CM
ioc_guid=$(cat "/sys/module/$srpt_name/parameters/srpt_service_guid")
gid_hex=${gid//:/}
login="id_ext=$ioc_guid,ioc_guid=$ioc_guid,initiator_ext=${gid_hex:0:16}"
login="$login,src=$ULP_ADDR,dest=$ULP_ADDR:$CM_PORT"
say "login: $login"
echo "$login" > /sys/class/infiniband_srp/srp-$ULP_IBDEV-1/add_target || die "add_target"
wait_scsi_disk '/sys/class/scsi_host/host*/device/target*/*/block/*'
host=$(basename "$(readlink -f "$sys/device/../..")")
[ -e "/sys/class/scsi_host/$host/orig_dgid" ] || die "$dev is not on an SRP host ($host)"

# --- data: fio with crc32c verification, then a fault under load if asked
FIO_TARGET=$dev
fio_verify_set
if [ -n "${RWX_ENGINE_MODULE:-}" ] && [ -n "${SRPT_MODULE:-}${RWX_TAKEOVER_MODULE:-}" ]; then
	engine_served target
fi
srp_port_disable() { echo 0 > "$tpg/enable"; }
case ${RWX_FAULT:-} in
"") ;;
link-delete)
	fault_under_load "$dev" "rdma link delete $ULP_IBDEV" rdma link delete $ULP_IBDEV ||
		die "$RWX_FAULT under load" ;;
server-stop)
	fault_under_load "$dev" "disabling the target port" srp_port_disable ||
		die "$RWX_FAULT under load" ;;
*) die "unknown fault $RWX_FAULT" ;;
esac

# --- teardown, in reverse
say "logout"
for p in /sys/class/srp_remote_ports/port-*; do
	[ -e "$p/delete" ] && echo 1 > "$p/delete"
done
for _ in $(seq 100); do
	[ -e /sys/block/${dev#/dev/} ] || break
	sleep 0.2
done
[ -e /sys/block/${dev#/dev/} ] && die "$dev still there after the remote port was deleted"
say "clearing the target"
echo 0 > "$tpg/enable" || die "disable $tpg"
rm "$tpg/acls/$ULP_ADDR/lun_0/lun_0"
rmdir "$tpg/acls/$ULP_ADDR/lun_0" "$tpg/acls/$ULP_ADDR"
rm "$tpg/lun/lun_0/nullb0"
rmdir "$tpg/lun/lun_0" "$tpg" "$CFS/srpt/$tport" "$CFS/srpt" || die "rmdir the srpt configfs tree"
rmdir "$bs" "$CFS/core/iblock_0" || die "rmdir the backstore"
say "unloading modules"
# LIO loads every backstore module.
rmmod_wait ib_srp scsi_transport_srp "$srpt_name" target_core_iblock target_core_file \
	target_core_pscsi target_core_user uio target_core_mod
teardown_rdma_engine
echo "srp: passed"
