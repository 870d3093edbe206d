# Guest script: the kernel's iSER target (LIO + ib_isert, configured through
# configfs) and the kernel's iSER initiator (open-iscsi + ib_iser) on one
# guest, over Soft-RoCE loopback (rxe0 on veth0 192.0.2.1) or the test
# device (RWX_DEV=testdev: rwxr0 on 192.0.2.3); fio verifies the data on the
# resulting SCSI disk.  Backstore: a memory-backed null_blk.
#
# Optional environment:
#   RWX_DEV            rxe (default) or testdev (tools/guest/ulp-lib.sh)
#   RWX_PI=1           protection information end to end (the device needs
#                      integrity handover: the test device's mlx5-pi set):
#                      the backstore a scsi_debug disk with T10-PI type 1 and
#                      DIX, t10_pi on the target portal group, ib_iser with
#                      pi_enable; after fio, iser_pi_checks
#   RWX_MODROOT        a modules_install root to bind over /lib/modules (the
#                      test kernel's own modules); unset: the host's
#   RWX_ENGINE_MODULE  path of rdma_rwx.ko, insmod'ed first; then the engine
#                      must have served the I/O (its counters) and hold no
#                      context at the end
#   ISERT_MODULE       path of an alternative ib_isert.ko, insmod'ed instead
#                      of `modprobe ib_isert` (its other dependencies are
#                      modprobe'd from its modinfo)
#   ISER_FIO_SIZE      MB per fio job (default 32)
#   ISCSID_DEBUG       iscsid -d level (default 1); its log is iscsid.log in
#                      the run's output directory
#
# The target and the initiator are tools/guest/iser-lib.sh's.  On failure
# the script reports and exits without tearing down: the VM is thrown
# away.
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
RWX_LOG_PREFIX=iser
. "$RWX_ROOT/tools/guest/engine-lib.sh"
. "$RWX_ROOT/tools/guest/ulp-lib.sh"
. "$RWX_ROOT/tools/guest/iser-lib.sh"

PORTAL=$ULP_ADDR:3260
OUT=${RWX_OUT:-/tmp}
STATE=$ISER_STATE
SIZE_MB=${ISER_FIO_SIZE:-32}

diagnose() {
	iscsiadm -m session -P 3 2>&1 | sed 's/^/iser:   session: /' || true
	[ -f "$OUT/iscsid.log" ] && tail -n 40 "$OUT/iscsid.log" | sed 's/^/iser:   iscsid: /'
	find "$CFS_TPG" -maxdepth 3 2>&1 | head -n 30 | sed 's/^/iser:   configfs: /'
	rdma link show 2>&1 | sed 's/^/iser:   /'
	dmesg | grep -iE 'isert|iser|iscsi|rxe|target|scsi' | tail -n 40 | sed 's/^/iser:   dmesg: /'
}

# pi_count WHO: the guard errors WHO (isert: the target, iser: the
# initiator) has reported so far.
pi_count() {
	dmesg | grep -c "$1: $1_check.*pi_status: PI error found type 0"
}

# iser_pi_checks: protection information end to end (RWX_PI=1): the
# initiator's disk carries T10-DIF type 1, the engine (when it serves the
# target) set up signature contexts; then a guard damaged on the wire (the
# test device's pi_wire fault) on a write is caught by the target's
# integrity MR, on a read by the initiator's, and each is reported by its
# ULP and fails the I/O (SCSI does not retry a protection error): the
# damaged write reaches no block, the next read returns what was there.
iser_pi_checks() {
	local format sig blk=$STATE/pi-blk other=$STATE/pi-other isert iser
	read -r format < "$sys/integrity/format"
	case $format in
	T10-DIF-TYPE1-*) ;;
	*) die "PI: the initiator's ${dev#/dev/} has integrity '$format', not T10-DIF type 1" ;;
	esac
	if [ -n "${RWX_ENGINE_MODULE:-}" ] && [ -n "${ISERT_MODULE:-}${RWX_TAKEOVER_MODULE:-}" ]; then
		sig=$(engine_counter init_sig)
		[ "${sig:-0}" -gt 0 ] || die "PI: the engine set up no signature context"
		say "PI: $sig signature contexts by the engine"
	fi
	head -c 65536 /dev/urandom > "$blk"
	head -c 65536 /dev/urandom > "$other"
	run dd if="$blk" of="$dev" bs=64k seek=100 oflag=direct status=none
	isert=$(pi_count isert) iser=$(pi_count iser)
	echo "$ULP_IBDEV pi_wire 1" > /sys/kernel/debug/rwx_testdev/inject || die "inject pi_wire"
	dd if="$other" of="$dev" bs=64k seek=100 oflag=direct status=none 2>/dev/null &&
		die "PI: a write whose guard was damaged on the wire succeeded"
	[ "$(pi_count isert)" = $((isert + 1)) ] ||
		die "PI: the target reported $(($(pi_count isert) - isert)) guard errors for one damaged write"
	echo "$ULP_IBDEV pi_wire 1" > /sys/kernel/debug/rwx_testdev/inject || die "inject pi_wire"
	dd if="$dev" of=/dev/null bs=64k skip=100 count=1 iflag=direct status=none 2>/dev/null &&
		die "PI: a read whose guard was damaged on the wire succeeded"
	[ "$(pi_count iser)" = $((iser + 1)) ] ||
		die "PI: the initiator reported $(($(pi_count iser) - iser)) guard errors for one damaged read"
	dd if="$dev" bs=64k skip=100 count=1 iflag=direct status=none | cmp -s - "$blk" ||
		die "PI: the block under the failed write and read is not what was written before"
	say "PI: $format on ${dev#/dev/}; a guard damaged on the wire reported by the target (write) and the initiator (read), each I/O failed, the block intact"
}

# --- modules and the RDMA device
say "loading modules"
setup_rdma_engine
iser_target_modules "${ISERT_MODULE:-}"
if [ "${RWX_PI:-0}" = 1 ]; then
	run modprobe ib_iser pi_enable=1
	pi_disk 64 || die "no disk with T10-PI"
	backing=$PI_DISK
else
	run modprobe ib_iser
	backing=/dev/nullb0
fi
# No udev in the guest: the SCSI disk driver is not autoloaded.
run modprobe sd_mod

# --- target: LIO in configfs; initiator: iscsid + iscsiadm over iSER
iser_target_up "$PORTAL" "$backing"
iser_initiator_start "$OUT/iscsid.log"
iser_login "$PORTAL"

# --- data: fio with crc32c verification
cd "$STATE/fio" || die "cd $STATE/fio"
FIO_TARGET=$dev
fio_verify_set

# --- teardown, in reverse
if [ -n "${RWX_ENGINE_MODULE:-}" ] && [ -n "${ISERT_MODULE:-}${RWX_TAKEOVER_MODULE:-}" ]; then
	engine_served target
fi
[ "${RWX_PI:-0}" = 1 ] && iser_pi_checks
# The logout on one CPU: on two, iscsid at idle priority still runs
# beside rxe's completion work (iser_initiator_start's race; seen once in
# make check, WARNING in iscsit_release_cmd at the module unload).  CPU 1
# back after the teardown.
cpu1=/sys/devices/system/cpu/cpu1/online
if [ -w $cpu1 ] && [ "$(cat $cpu1)" = 1 ]; then
	echo 0 > $cpu1 || die "taking CPU 1 offline for the logout"
else
	cpu1=""
fi
iser_logout "$PORTAL"
iser_initiator_stop
iser_target_down "$PORTAL"
say "unloading modules ($(awk '$1 ~ /target|tcm|isert|iser|iscsi|srpt|vhost|rxe|null_blk|rdma|ib_/ {printf "%s ", $1}' /proc/modules))"
# LIO loads every backstore module, iscsid loads iscsi_tcp.
rmmod_wait "$ISERT_NAME" iscsi_target_mod \
	target_core_iblock target_core_file target_core_pscsi target_core_user uio \
	target_core_mod \
	ib_iser iscsi_tcp libiscsi_tcp libiscsi scsi_transport_iscsi scsi_debug
[ -z "$cpu1" ] || echo 1 > $cpu1 || die "bringing CPU 1 back"
teardown_rdma_engine
echo "iser: passed"
