# Sourced by guest scripts (iser.sh, pair.sh) after ulp-lib.sh: the
# kernel's iSER target (LIO + ib_isert) and its iSER initiator (open-iscsi
# + ib_iser).  The target is made in configfs directly, as targetcli would
# make it: under TCG its Python took 30-45 s of a debug guest to do it,
# 100 s on a loaded host.  The guest root is the host's, read-only: every
# piece of state iscsid and iscsiadm write lives in tmpfs (bind-mounted
# over /etc/iscsi).
TGT_IQN=iqn.2003-01.org.linux-iscsi.rwx:iser-target
INI_IQN=iqn.2003-01.org.linux-iscsi.rwx:iser-initiator
CFS=/sys/kernel/config/target
CFS_TPG=$CFS/iscsi/$TGT_IQN/tpgt_1
ISER_STATE=/tmp/iser

# iser_target_modules [ISERT_KO]: LIO, its block backstore and ib_isert
# (the engine-built ISERT_KO, or the kernel's own); ISERT_NAME is then the
# loaded ib_isert's name.
iser_target_modules() {
	run modprobe target_core_mod
	run modprobe target_core_iblock
	run modprobe iscsi_target_mod
	load_ulp "${1:-}" ib_isert
	ISERT_NAME=$ULP_NAME
}

# iser_target_up PORTAL BACKING: LIO in configfs - a block backstore on
# BACKING, the target's portal group with an iSER portal on PORTAL, LUN 0
# and the initiator's ACL (with RWX_PI=1, t10_pi on the portal group).
iser_target_up() {
	local portal=$1 bs=$CFS/core/iblock_0/disk0
	[ -d "$CFS" ] || mount -t configfs none /sys/kernel/config || die "mount configfs"
	run mkdir -p "$bs"
	echo "udev_path=$2" > "$bs/control" || die "iblock control"
	echo 1 > "$bs/enable" || die "iblock enable"
	run mkdir -p "$CFS_TPG/np/$portal" "$CFS_TPG/lun/lun_0" "$CFS_TPG/acls/$INI_IQN/lun_0"
	echo 1 > "$CFS_TPG/np/$portal/iser" || die "iSER on $portal"
	run ln -s "$bs" "$CFS_TPG/lun/lun_0/disk0"
	run ln -s "$CFS_TPG/lun/lun_0" "$CFS_TPG/acls/$INI_IQN/lun_0/lun_0"
	echo 0 > "$CFS_TPG/attrib/authentication" || die "authentication off"
	echo "${RWX_PI:-0}" > "$CFS_TPG/attrib/t10_pi" || die "t10_pi ${RWX_PI:-0}"
	echo 1 > "$CFS_TPG/enable" || die "enable tpg1"
	[ "$(cat "$CFS_TPG/np/$portal/iser" 2>/dev/null)" = 1 ] || die "portal $portal has no iSER"
	[ -e "$CFS_TPG/lun/lun_0" ] || die "no LUN 0"
	[ -d "$CFS_TPG/acls/$INI_IQN" ] || die "no ACL for $INI_IQN"
	[ "$(cat "$CFS_TPG/enable")" = 1 ] || die "tpg1 not enabled"
	[ "$(cat "$CFS_TPG/attrib/authentication")" = 0 ] || die "authentication not off"
	[ "$(cat "$CFS_TPG/attrib/t10_pi")" = "${RWX_PI:-0}" ] || die "t10_pi is not ${RWX_PI:-0}"
	say "target ready: $TGT_IQN on $portal (iser=1)"
}

# iser_target_down PORTAL: the configfs tree of iser_target_up removed.
iser_target_down() {
	local portal=$1
	say "clearing the target"
	echo 0 > "$CFS_TPG/enable" || die "disable tpg1"
	rm "$CFS_TPG/acls/$INI_IQN/lun_0/lun_0" "$CFS_TPG/lun/lun_0/disk0" || die "unlink LUN 0"
	rmdir "$CFS_TPG/acls/$INI_IQN/lun_0" "$CFS_TPG/acls/$INI_IQN" "$CFS_TPG/lun/lun_0" \
		"$CFS_TPG/np/$portal" "$CFS_TPG" "$CFS/iscsi/$TGT_IQN" "$CFS/iscsi" ||
		die "rmdir the iscsi configfs tree"
	rmdir "$CFS/core/iblock_0/disk0" "$CFS/core/iblock_0" || die "rmdir the backstore"
}

# iser_initiator_start LOG: writable state over the read-only root, and
# iscsid (ISCSID_PID), its log in LOG.
iser_initiator_start() {
	local tool
	say "preparing writable state"
	for tool in iscsid iscsiadm fio; do
		command -v $tool >/dev/null || die "$tool is not installed on the host (open-iscsi, fio)"
	done
	[ -d /etc/iscsi ] || die "/etc/iscsi missing on the host (open-iscsi)"
	mkdir -p "$ISER_STATE/etc-iscsi" "$ISER_STATE/fio"
	# iscsid is started by hand below, so no startup command for iscsiadm.
	sed 's|^iscsid.startup = .*|iscsid.startup = /bin/true|' /etc/iscsi/iscsid.conf \
		> "$ISER_STATE/etc-iscsi/iscsid.conf"
	echo "InitiatorName=$INI_IQN" > "$ISER_STATE/etc-iscsi/initiatorname.iscsi"
	mount --bind "$ISER_STATE/etc-iscsi" /etc/iscsi || die "bind mount over /etc/iscsi"
	mkdir -p /run/lock/iscsi
	say "starting iscsid"
	# Its own session: iscsid's shutdown does killpg(0, SIGTERM) (its -g
	# gid, 0 by default), which would otherwise kill this script too.  In
	# the foreground it writes no pid file: wait for its control socket.
	# SCHED_IDLE: ib_isert (6.1 and 6.12 alike, not the engine) mishandles
	# a logout response whose send is flushed: it releases the logout
	# command while the command is still on its connection's list (WARNING
	# in iscsit_release_cmd) and never finishes the logout.  The flush
	# happens when the initiator disconnects before the target has seen the
	# response's completion.  A HCA acknowledges in hardware long before
	# iscsid can react to the response, but rxe acknowledges and completes
	# in kernel work, which on the guest's one CPU competes with iscsid; at
	# idle priority iscsid runs only once that work is done.
	setsid chrt --idle 0 iscsid -f -d "${ISCSID_DEBUG:-1}" > "$1" 2>&1 &
	ISCSID_PID=$!
	for _ in {1..100}; do
		grep -q '@ISCSIADM_ABSTRACT_NAMESPACE' /proc/net/unix && break
		kill -0 $ISCSID_PID 2>/dev/null || die "iscsid exited (see its log)"
		sleep 0.1
	done
	grep -q '@ISCSIADM_ABSTRACT_NAMESPACE' /proc/net/unix || die "iscsid is not listening"
}

# iser_login PORTAL: a node record on the iser interface (SendTargets
# discovery would run over iSCSI/TCP, which is not what is under test),
# the login over iSER, and the disk it gives (dev, sys).
iser_login() {
	local portal=$1 sessions held=0 ctl
	say "node record for $TGT_IQN at $portal, transport iser"
	run iscsiadm -m node -o new -T "$TGT_IQN" -p "$portal" -I iser
	say "login over iSER"
	run iscsiadm -m node -T "$TGT_IQN" -p "$portal" --login
	sessions=$(iscsiadm -m session 2>&1)
	printf '%s:   %s\n' "$RWX_LOG_PREFIX" "$sessions"
	case $sessions in iser:*) ;; *) die "the session is not on the iser transport" ;; esac
	dmesg | grep -q 'iSCSI Initiator over iSER' || die "no iSER SCSI host in dmesg"
	wait_scsi_disk '/sys/class/iscsi_session/session*/device/target*/*/block/*'
	# Runtime PM stays on for the initiator's SCSI target and disk.
	# Debian's 6.1 can find the target's runtime-PM idle work still queued
	# when logout removes the target, and flushes it from the iSCSI control
	# workqueue (WQ_MEM_RECLAIM) while pm_wq is not: a WARNING in
	# check_flush_dependency, in the initiator, after a clean run (1 run in
	# about 10).  "on" holds a usage count, so no idle work is ever queued.
	for ctl in /sys/class/iscsi_session/session*/device/target*/power/control \
		   /sys/class/iscsi_session/session*/device/target*/*/power/control; do
		[ -w "$ctl" ] && echo on > "$ctl" && held=$((held + 1))
	done
	say "runtime PM held on for $held initiator SCSI devices"
}

# iser_logout PORTAL: the session logged out, the node record deleted.
iser_logout() {
	say "logout"
	run iscsiadm -m node -T "$TGT_IQN" -p "$1" --logout
	run iscsiadm -m node -o delete
}

# iser_initiator_stop: iscsid stopped (60 s at most).
iser_initiator_stop() {
	say "stopping iscsid"
	# Back at normal priority: at idle priority its exit can wait behind
	# whatever else runs (a run once hung here for 12 minutes).
	chrt --other -p 0 $ISCSID_PID
	kill $ISCSID_PID
	for _ in {1..600}; do
		kill -0 $ISCSID_PID 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $ISCSID_PID 2>/dev/null; then
		say "iscsid: $(tr '\n' ' ' < /proc/$ISCSID_PID/status | grep -o 'State:[^:]*')"
		cat /proc/$ISCSID_PID/stack 2>/dev/null
		die "iscsid did not exit within 60 s of SIGTERM"
	fi
	wait $ISCSID_PID 2>/dev/null
	grep -q '@ISCSIADM_ABSTRACT_NAMESPACE' /proc/net/unix && die "iscsid still listening"
	return 0
}
