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
# The guest root is the host's, read-only: every piece of state iscsid and
# iscsiadm write lives in tmpfs (bind-mounted over /etc/iscsi).  The target
# is made in configfs directly, as targetcli would make it: under TCG its
# Python took 30-45 s of a debug guest to do it, 100 s on a loaded host.
# On failure the script reports and exits without tearing down: the VM is
# thrown away.
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
RWX_LOG_PREFIX=iser
. "$RWX_ROOT/tools/guest/engine-lib.sh"
. "$RWX_ROOT/tools/guest/ulp-lib.sh"

TGT_IQN=iqn.2003-01.org.linux-iscsi.rwx:iser-target
INI_IQN=iqn.2003-01.org.linux-iscsi.rwx:iser-initiator
ADDR=$ULP_ADDR
PORT=3260
PORTAL=$ADDR:$PORT
CFS_TPG=/sys/kernel/config/target/iscsi/$TGT_IQN/tpgt_1
OUT=${RWX_OUT:-/tmp}
STATE=/tmp/iser
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

# --- writable state over the read-only root
say "preparing writable state"
for tool in iscsid iscsiadm fio; do
	command -v $tool >/dev/null || die "$tool is not installed on the host (open-iscsi, fio)"
done
[ -d /etc/iscsi ] || die "/etc/iscsi missing on the host (open-iscsi)"
mkdir -p "$STATE/etc-iscsi" "$STATE/fio"
# iscsid is started by hand below, so no startup command for iscsiadm.
sed 's|^iscsid.startup = .*|iscsid.startup = /bin/true|' /etc/iscsi/iscsid.conf \
	> "$STATE/etc-iscsi/iscsid.conf"
echo "InitiatorName=$INI_IQN" > "$STATE/etc-iscsi/initiatorname.iscsi"
mount --bind "$STATE/etc-iscsi" /etc/iscsi || die "bind mount over /etc/iscsi"
mkdir -p /run/lock/iscsi

# --- modules and the RDMA device
say "loading modules"
setup_rdma_engine
run modprobe target_core_mod
run modprobe target_core_iblock
run modprobe iscsi_target_mod
load_ulp "${ISERT_MODULE:-}" ib_isert
isert_name=$ULP_NAME
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

# --- target: LIO in configfs: a block backstore, the target's portal
# group with an iSER portal, LUN 0 and the initiator's ACL
say "configuring the LIO target"
CFS=/sys/kernel/config/target
[ -d "$CFS" ] || mount -t configfs none /sys/kernel/config || die "mount configfs"
bs=$CFS/core/iblock_0/disk0
run mkdir -p "$bs"
echo "udev_path=$backing" > "$bs/control" || die "iblock control"
echo 1 > "$bs/enable" || die "iblock enable"
run mkdir -p "$CFS_TPG/np/$PORTAL" "$CFS_TPG/lun/lun_0" "$CFS_TPG/acls/$INI_IQN/lun_0"
echo 1 > "$CFS_TPG/np/$PORTAL/iser" || die "iSER on $PORTAL"
run ln -s "$bs" "$CFS_TPG/lun/lun_0/disk0"
run ln -s "$CFS_TPG/lun/lun_0" "$CFS_TPG/acls/$INI_IQN/lun_0/lun_0"
echo 0 > "$CFS_TPG/attrib/authentication" || die "authentication off"
echo "${RWX_PI:-0}" > "$CFS_TPG/attrib/t10_pi" || die "t10_pi ${RWX_PI:-0}"
echo 1 > "$CFS_TPG/enable" || die "enable tpg1"
[ "$(cat "$CFS_TPG/np/$PORTAL/iser" 2>/dev/null)" = 1 ] || die "portal $PORTAL has no iSER"
[ -e "$CFS_TPG/lun/lun_0" ] || die "no LUN 0"
[ -d "$CFS_TPG/acls/$INI_IQN" ] || die "no ACL for $INI_IQN"
[ "$(cat "$CFS_TPG/enable")" = 1 ] || die "tpg1 not enabled"
[ "$(cat "$CFS_TPG/attrib/authentication")" = 0 ] || die "authentication not off"
[ "$(cat "$CFS_TPG/attrib/t10_pi")" = "${RWX_PI:-0}" ] || die "t10_pi is not ${RWX_PI:-0}"
say "target ready: $TGT_IQN on $PORTAL (iser=1)"

# --- initiator: iscsid + iscsiadm over iSER
say "starting iscsid"
# Its own session: iscsid's shutdown does killpg(0, SIGTERM) (its -g gid,
# 0 by default), which would otherwise kill this script too.  In the
# foreground it writes no pid file: wait for its control socket.
# SCHED_IDLE: ib_isert (6.1 and 6.12 alike, not the engine) mishandles a
# logout response whose send is flushed: it releases the logout command
# while the command is still on its connection's list (WARNING in
# iscsit_release_cmd) and never finishes the logout.  The flush happens
# when the initiator disconnects before the target has seen the response's
# completion.  A HCA acknowledges in hardware long before iscsid can react
# to the response, but rxe acknowledges and completes in kernel work, which
# on the guest's one CPU competes with iscsid; at idle priority iscsid
# runs only once that work is done.
setsid chrt --idle 0 iscsid -f -d "${ISCSID_DEBUG:-1}" > "$OUT/iscsid.log" 2>&1 &
iscsid_pid=$!
for _ in {1..100}; do
	grep -q '@ISCSIADM_ABSTRACT_NAMESPACE' /proc/net/unix && break
	kill -0 $iscsid_pid 2>/dev/null || die "iscsid exited (see iscsid.log)"
	sleep 0.1
done
grep -q '@ISCSIADM_ABSTRACT_NAMESPACE' /proc/net/unix || die "iscsid is not listening"
# The node record by hand, on the iser interface: SendTargets discovery
# would run over iSCSI/TCP (iscsi_tcp), which is not what is under test.
say "node record for $TGT_IQN at $PORTAL, transport iser"
run iscsiadm -m node -o new -T "$TGT_IQN" -p "$PORTAL" -I iser
say "login over iSER"
run iscsiadm -m node -T "$TGT_IQN" -p "$PORTAL" --login
sessions=$(iscsiadm -m session 2>&1)
printf 'iser:   %s\n' "$sessions"
case $sessions in iser:*) ;; *) die "the session is not on the iser transport" ;; esac
dmesg | grep -q 'iSCSI Initiator over iSER' || die "no iSER SCSI host in dmesg"

wait_scsi_disk '/sys/class/iscsi_session/session*/device/target*/*/block/*'
# Runtime PM stays on for the initiator's SCSI target and disk.  Debian's
# 6.1 can find the target's runtime-PM idle work still queued when logout
# removes the target, and flushes it from the iSCSI control workqueue
# (WQ_MEM_RECLAIM) while pm_wq is not: a WARNING in check_flush_dependency,
# in the initiator, after a clean run (1 run in about 10).  "on" holds a
# usage count, so no idle work is ever queued.
held=0
for ctl in /sys/class/iscsi_session/session*/device/target*/power/control \
	   /sys/class/iscsi_session/session*/device/target*/*/power/control; do
	[ -w "$ctl" ] && echo on > "$ctl" && held=$((held + 1))
done
say "runtime PM held on for $held initiator SCSI devices"

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
# beside rxe's completion work (the race above; seen once in make check,
# WARNING in iscsit_release_cmd at the module unload).  CPU 1 back after
# the teardown.
cpu1=/sys/devices/system/cpu/cpu1/online
if [ -w $cpu1 ] && [ "$(cat $cpu1)" = 1 ]; then
	echo 0 > $cpu1 || die "taking CPU 1 offline for the logout"
else
	cpu1=""
fi
say "logout"
run iscsiadm -m node -T "$TGT_IQN" -p "$PORTAL" --logout
run iscsiadm -m node -o delete
say "stopping iscsid"
# Back at normal priority: at idle priority its exit can wait behind
# whatever else runs (a run once hung here for 12 minutes).
chrt --other -p 0 $iscsid_pid
kill $iscsid_pid
for _ in {1..600}; do
	kill -0 $iscsid_pid 2>/dev/null || break
	sleep 0.1
done
if kill -0 $iscsid_pid 2>/dev/null; then
	say "iscsid: $(tr '\n' ' ' < /proc/$iscsid_pid/status | grep -o 'State:[^:]*')"
	cat /proc/$iscsid_pid/stack 2>/dev/null
	die "iscsid did not exit within 60 s of SIGTERM"
fi
wait $iscsid_pid 2>/dev/null
grep -q '@ISCSIADM_ABSTRACT_NAMESPACE' /proc/net/unix && die "iscsid still listening"
say "clearing the target"
echo 0 > "$CFS_TPG/enable" || die "disable tpg1"
rm "$CFS_TPG/acls/$INI_IQN/lun_0/lun_0" "$CFS_TPG/lun/lun_0/disk0" || die "unlink LUN 0"
rmdir "$CFS_TPG/acls/$INI_IQN/lun_0" "$CFS_TPG/acls/$INI_IQN" "$CFS_TPG/lun/lun_0" \
	"$CFS_TPG/np/$PORTAL" "$CFS_TPG" "$CFS/iscsi/$TGT_IQN" "$CFS/iscsi" ||
	die "rmdir the iscsi configfs tree"
rmdir "$bs" "$CFS/core/iblock_0" || die "rmdir the backstore"
say "unloading modules ($(awk '$1 ~ /target|tcm|isert|iser|iscsi|srpt|vhost|rxe|null_blk|rdma|ib_/ {printf "%s ", $1}' /proc/modules))"
# LIO loads every backstore module, iscsid loads iscsi_tcp.
rmmod_wait "$isert_name" iscsi_target_mod \
	target_core_iblock target_core_file target_core_pscsi target_core_user uio \
	target_core_mod \
	ib_iser iscsi_tcp libiscsi_tcp libiscsi scsi_transport_iscsi scsi_debug
[ -z "$cpu1" ] || echo 1 > $cpu1 || die "bringing CPU 1 back"
teardown_rdma_engine
echo "iser: passed"
