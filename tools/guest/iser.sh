# Guest script: the kernel's iSER target (LIO + ib_isert, configured with
# targetcli-fb) and the kernel's iSER initiator (open-iscsi + ib_iser) on one
# guest, over Soft-RoCE loopback (rxe0 on veth0 192.0.2.1); fio verifies the
# data on the resulting SCSI disk.  Backstore: a memory-backed null_blk.
#
# Optional environment:
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
# The guest root is the host's, read-only: every piece of state targetcli,
# iscsid and iscsiadm write lives in tmpfs (bind-mounted over /etc/iscsi and
# /etc/rtslib-fb-target).  On failure the script reports and exits without
# tearing down: the VM is thrown away.
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
RWX_LOG_PREFIX=iser
. "$RWX_ROOT/tools/guest/engine-lib.sh"

TGT_IQN=iqn.2003-01.org.linux-iscsi.rwx:iser-target
INI_IQN=iqn.2003-01.org.linux-iscsi.rwx:iser-initiator
ADDR=192.0.2.1
PORT=3260
PORTAL=$ADDR:$PORT
TPG=/iscsi/$TGT_IQN/tpg1
CFS_TPG=/sys/kernel/config/target/iscsi/$TGT_IQN/tpgt_1
OUT=${RWX_OUT:-/tmp}
STATE=/tmp/iser
SIZE_MB=${ISER_FIO_SIZE:-32}
usec() { echo $(( ${EPOCHREALTIME/./} )); }
T0=$(usec)
say() {
	local ms=$(( ($(usec) - T0) / 1000 ))
	echo "iser: [$(( ms / 1000 )).$(( ms % 1000 / 100 ))s] $*"
}

diagnose() {
	echo "iser: --- diagnostics"
	iscsiadm -m session -P 3 2>&1 | sed 's/^/iser:   session: /' || true
	[ -f "$OUT/iscsid.log" ] && tail -n 40 "$OUT/iscsid.log" | sed 's/^/iser:   iscsid: /'
	[ -f "$STATE/targetcli.log" ] && tail -n 20 "$STATE/targetcli.log" | sed 's/^/iser:   targetcli: /'
	rdma link show 2>&1 | sed 's/^/iser:   /'
	dmesg | grep -iE 'isert|iser|iscsi|rxe|target|scsi' | tail -n 40 | sed 's/^/iser:   dmesg: /'
}
die() {
	echo "iser: FAILED $*"
	diagnose
	exit 1
}
run() {	# run CMD...: run it, die with its output on failure
	local out
	if ! out=$("$@" 2>&1); then
		printf '%s\n' "$out" | tail -n 20 | sed 's/^/iser:   /'
		die "$*"
	fi
	[ -n "$out" ] && printf '%s\n' "$out" | sed 's/^/iser:   /'
	return 0
}
# rmmod_wait MOD...: references drop asynchronously after a teardown
rmmod_wait() {	# (builtins only: every process costs under TCG)
	local m t
	for m in "$@"; do
		[ -e "/sys/module/$m/initstate" ] || continue
		t=$(usec)
		for _ in {1..50}; do
			rmmod "$m" 2>/dev/null && break
			sleep 0.2
		done
		[ -e "/sys/module/$m/initstate" ] && die "rmmod $m: $(grep "^$m " /proc/modules)"
		t=$(( ($(usec) - t) / 1000 ))
		[ $t -ge 500 ] && echo "iser:   rmmod $m took $t ms"
	done
	return 0
}

# --- writable state over the read-only root
say "preparing writable state"
for tool in targetcli iscsid iscsiadm fio dbus-daemon; do
	command -v $tool >/dev/null || die "$tool is not installed on the host (targetcli-fb, open-iscsi, fio)"
done
if [ ! -d /etc/iscsi ] || [ ! -d /etc/rtslib-fb-target ]; then
	die "/etc/iscsi or /etc/rtslib-fb-target missing on the host (open-iscsi, python3-rtslib-fb)"
fi
mkdir -p "$STATE/etc-iscsi" "$STATE/rtslib" "$STATE/targetcli" "$STATE/fio"
# iscsid is started by hand below, so no startup command for iscsiadm.
sed 's|^iscsid.startup = .*|iscsid.startup = /bin/true|' /etc/iscsi/iscsid.conf \
	> "$STATE/etc-iscsi/iscsid.conf"
echo "InitiatorName=$INI_IQN" > "$STATE/etc-iscsi/initiatorname.iscsi"
mount --bind "$STATE/etc-iscsi" /etc/iscsi || die "bind mount over /etc/iscsi"
mount --bind "$STATE/rtslib" /etc/rtslib-fb-target || die "bind mount over /etc/rtslib-fb-target"
mkdir -p /run/lock/iscsi
export TARGETCLI_HOME=$STATE/targetcli
# targetcli asks the system D-Bus for tcmu-runner's backstores and dies when
# there is no bus at all: give it a private one, where nobody answers.
# (A bus from session.conf: a hand-written minimal config left GDBus's
# Hello unanswered until its 25 s timeout.)
dbus_pid=$(dbus-daemon --session --address="unix:path=$STATE/dbus.sock" \
	--fork --print-pid) || die "dbus-daemon"
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=$STATE/dbus.sock

# --- modules and the RDMA device
say "loading modules"
bind_modroot || die "bind mount over /lib/modules"
kmemleak_start
run modprobe null_blk nr_devices=1 memory_backed=1 gb=1
[ -b /dev/nullb0 ] || die "no /dev/nullb0"
run modprobe ib_core
run modprobe rdma_cm
rdma_setup rxe >/dev/null || die "rdma_setup rxe"
say "rdma: $(rdma link show | tr '\n' ' ')"
if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
	say "insmod $RWX_ENGINE_MODULE"
	run insmod "$RWX_ENGINE_MODULE"
fi
run modprobe target_core_mod
run modprobe target_core_iblock
run modprobe iscsi_target_mod
if [ -n "${ISERT_MODULE:-}" ]; then
	isert_name=$(modinfo -F name "$ISERT_MODULE") || die "modinfo $ISERT_MODULE"
	for dep in $(modinfo -F depends "$ISERT_MODULE" | tr , ' '); do
		grep -q "^$dep " /proc/modules || run modprobe "$dep"
	done
	say "insmod $ISERT_MODULE"
	run insmod "$ISERT_MODULE"
else
	isert_name=ib_isert
	run modprobe ib_isert
fi
run modprobe ib_iser
# No udev in the guest: the SCSI disk driver is not autoloaded.
run modprobe sd_mod

# --- target: LIO via targetcli, one batch (errors are checked in configfs)
say "configuring the LIO target with targetcli"
cat > "$STATE/targetcli.cmds" <<EOF
set global auto_save_on_exit=false auto_add_default_portal=false auto_cd_after_create=false
/backstores/block create name=nullb0 dev=/dev/nullb0
/iscsi create $TGT_IQN
$TPG/portals create $ADDR $PORT
$TPG/portals/$PORTAL enable_iser boolean=true
$TPG/luns create /backstores/block/nullb0
$TPG/acls create $INI_IQN
$TPG set attribute authentication=0
ls
exit
EOF
timeout 300 targetcli < "$STATE/targetcli.cmds" > "$STATE/targetcli.log" 2>&1
sed 's/^/iser:   /' "$STATE/targetcli.log"
[ "$(cat "$CFS_TPG/np/$PORTAL/iser" 2>/dev/null)" = 1 ] || die "portal $PORTAL has no iSER"
[ -e "$CFS_TPG/lun/lun_0" ] || die "no LUN 0"
[ -d "$CFS_TPG/acls/$INI_IQN" ] || die "no ACL for $INI_IQN"
[ "$(cat "$CFS_TPG/enable")" = 1 ] || die "tpg1 not enabled"
[ "$(cat "$CFS_TPG/attrib/authentication")" = 0 ] || die "authentication not off"
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

dev=""
for _ in $(seq 150); do
	for b in /sys/class/iscsi_session/session*/device/target*/*/block/*; do
		[ -e "$b" ] && dev=/dev/$(basename "$b")
	done
	[ -n "$dev" ] && [ -b "$dev" ] && break
	dev=""
	sleep 0.2
done
[ -n "$dev" ] || die "no SCSI disk appeared after login"
sys=/sys/block/${dev#/dev/}
say "disk $dev: $(cat "$sys/size") sectors, $(cat "$sys/device/vendor") $(cat "$sys/device/model")"
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
fio_job() {	# fio_job NAME OFFSET_MB FIO-ARGS...
	local name=$1 off=$2 out
	shift 2
	say "fio $name"
	if ! out=$(fio --name="$name" --filename="$dev" --direct=1 --ioengine=libaio \
			--offset="${off}M" --size="${SIZE_MB}M" --verify=crc32c \
			--verify_fatal=1 --do_verify=1 --group_reporting "$@" 2>&1); then
		printf '%s\n' "$out" | tail -n 30 | sed 's/^/iser:   /'
		die "fio $name"
	fi
	printf '%s\n' "$out" | grep -E '^\s+(read|write):|err=' | sed 's/^ */iser:   /'
}
fio_job rand-4k 0 --rw=randwrite --bs=4k --iodepth=16
fio_job seq-128k "$SIZE_MB" --rw=write --bs=128k --iodepth=8
# Read back what seq-128k wrote, in a new fio run: the data survived.
fio_job seq-128k-reread "$SIZE_MB" --rw=write --bs=128k --iodepth=8 --verify_only
fio_job rand-mixed-bs $((2 * SIZE_MB)) --rw=randwrite --bsrange=4k-512k --iodepth=8
# A job on every CPU at once, each bound to its own and writing its own
# region: the target's contexts set up and torn down on every CPU.
ncpu=$(getconf _NPROCESSORS_ONLN)
fio_job every-cpu $((4 * SIZE_MB)) --rw=randwrite --bsrange=4k-256k --iodepth=8 \
	--numjobs="$ncpu" --offset_increment="${SIZE_MB}M" --cpus_allowed="0-$((ncpu - 1))" \
	--cpus_allowed_policy=split
say "fio every-cpu: $ncpu jobs, one on each CPU, verified"

# --- teardown, in reverse
if [ -n "${RWX_ENGINE_MODULE:-}" ] && [ -n "${ISERT_MODULE:-}" ]; then
	engine_counters
	ctxs=$(engine_contexts)
	[ "$ctxs" -gt 0 ] || die "the engine set up no context: the I/O did not go through it"
	engine_no_errors || die "engine calls failed"
	say "the engine served the target's RDMA: $ctxs contexts, no error"
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
run timeout 300 targetcli clearconfig confirm=True
[ -z "$(find /sys/kernel/config/target/iscsi -maxdepth 1 -name 'iqn.*' 2>/dev/null)" ] ||
	die "iscsi targets left after clearconfig"
# A fabric's configfs group holds its module: rmdir what targetcli left.
for d in /sys/kernel/config/target/*/; do
	case $d in */core/) continue ;; esac
	rmdir "$d" || die "rmdir $d"
done
say "unloading modules ($(awk '$1 ~ /target|tcm|isert|iser|iscsi|srpt|vhost|rxe|null_blk|rdma|ib_/ {printf "%s ", $1}' /proc/modules))"
# rtslib loads every backstore module, iscsid loads iscsi_tcp.
rmmod_wait "$isert_name" iscsi_target_mod \
	target_core_iblock target_core_file target_core_pscsi target_core_user uio \
	target_core_mod \
	ib_iser iscsi_tcp libiscsi_tcp libiscsi scsi_transport_iscsi
kill "$dbus_pid"
if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
	engine_live_check || die "engine contexts left"
	rmmod_wait "$(modinfo -F name "$RWX_ENGINE_MODULE")"
fi
run rdma link delete rxe0
rmmod_wait rdma_rxe null_blk
if dmesg | grep -E '^(\[[ 0-9.]*\] )?(WARNING:|BUG:|Oops|general protection|kernel BUG)'; then
	die "kernel splat in dmesg"
fi
kmemleak_check
say "all steps done"
echo "iser: passed"
