# Guest script: the kernel's SMB server (ksmbd, with its SMB Direct
# transport) sharing a tmpfs to the kernel's SMB client (cifs) mounted with
# "rdma" on the same guest, over Soft-RoCE (rxe0 on veth0 192.0.2.1) or
# Soft-iWARP (siw0 on veth1 192.0.2.2).  fio verifies data in files, a
# large file is copied both ways and compared, and the engine's counters
# must show the server's RDMA.  Needs a kernel built with
# CONFIG_SMB_SERVER_SMBDIRECT and CONFIG_CIFS_SMB_DIRECT (the test
# kernels; Debian's own have neither).
#
# Optional environment:
#   RWX_DEV            rxe (default) or siw (not run yet)
#   RWX_MODROOT        a modules_install root to bind over /lib/modules (the
#                      test kernel's own modules); unset: the host's
#   RWX_ENGINE_MODULE  path of rdma_rwx.ko, insmod'ed first
#   RWX_ENGINE_PARAMS  its module parameters (force_mr=1)
#   RWX_EXPECT_PATHS   sge | mr | sge+mr: the engine's contexts must have
#                      taken that path (default sge)
#   KSMBD_MODULE       path of an engine-built ksmbd.ko, insmod'ed instead
#                      of `modprobe ksmbd`
#   SMB_FIO_SIZE       MB per fio job (default 16)
#   RWX_FAULT          after the data jobs, a fault under fio load:
#                      link-delete (the RDMA device removed) or server-stop
#                      (ksmbd.control -s); the client's I/O must fail, and
#                      everything be torn down
#                      (needs RWX_ENGINE_MODULE: the load must show in the
#                      engine's counters before the fault)
#
# The guest root is the host's, read-only: ksmbd-tools' configuration and
# user database live in tmpfs.
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
RWX_LOG_PREFIX=smb
. "$RWX_ROOT/tools/guest/engine-lib.sh"
. "$RWX_ROOT/tools/guest/ulp-lib.sh"

STATE=/tmp/smb
SHARE=/tmp/smb/share
MNT=/tmp/smb/mnt
SIZE_MB=${SMB_FIO_SIZE:-16}
USER_NAME=rwx
USER_PASS=rwx-test

diagnose() {
	rdma link show 2>&1 | indent
	grep ' cifs ' /proc/mounts | indent
	[ -f "$STATE/mountd.log" ] && tail -n 20 "$STATE/mountd.log" | sed "s/^/smb:   mountd: /"
	dmesg | grep -iE 'ksmbd|cifs|smb|rdma|rxe|siw' | tail -n 40 | sed "s/^/smb:   dmesg: /"
}

say "preparing the share and ksmbd's configuration"
for tool in ksmbd.mountd ksmbd.adduser ksmbd.control mount.cifs fio; do
	command -v $tool > /dev/null || die "$tool is not installed on the host (ksmbd-tools, cifs-utils, fio)"
done
mkdir -p "$STATE" "$SHARE" "$MNT"
mount -t tmpfs -o size=512m tmpfs "$SHARE" || die "tmpfs for the share"
cat > "$STATE/ksmbd.conf" <<EOF
[global]
	bind interfaces only = no
[share]
	path = $SHARE
	read only = no
	force user = root
EOF
# ksmbd-tools 3.5 (tools/deps.sh: 6.1's ksmbd needs it)
run ksmbd.adduser --config="$STATE/ksmbd.conf" --pwddb="$STATE/ksmbdpwd.db" -a -p "$USER_PASS" \
	"$USER_NAME"

# --- modules and the RDMA device
say "loading modules"
setup_rdma_engine
load_ulp "${KSMBD_MODULE:-}" ksmbd
ksmbd_name=$ULP_NAME
run modprobe cifs
# cifs sizes its QP's receive queue to its receive credits and may post
# them all, so that ib_drain_qp() at unmount finds no room for its marker
# (__ib_drain_rq: "failed to drain recv queue: -12", a WARN; rxe's queue
# holds exactly 255 for the default 255).  One credit fewer leaves rxe's
# queue (2^n - 1 entries) a free entry.  The client's bug, not the engine's.
echo 254 > /proc/fs/cifs/smbd_receive_credit_max || die "smbd_receive_credit_max"

# --- server: ksmbd.mountd starts the kernel server (TCP 445 and SMB Direct)
say "starting ksmbd"
ksmbd.mountd -n --config="$STATE/ksmbd.conf" --pwddb="$STATE/ksmbdpwd.db" > "$STATE/mountd.log" 2>&1 &
mountd_pid=$!
# SMB Direct listens through the RDMA/CM (port 445 on RoCE, 5445 on iWARP).
smbd_listening() {
	rdma res show cm_id 2> /dev/null | grep 'state LISTEN' | grep -q 'comm \[ksmbd\].*:\(445\|5445\) *$'
}
for _ in {1..150}; do
	smbd_listening && break
	sleep 0.2
done
rdma res show cm_id 2>&1 | indent
smbd_listening || die "ksmbd is not listening for SMB Direct"

# --- client: cifs over SMB Direct
say "mounting //$ULP_ADDR/share with rdma"
run timeout 120 mount -t cifs "//$ULP_ADDR/share" "$MNT" \
	-o "rdma,vers=3.1.1,username=$USER_NAME,password=$USER_PASS,cache=none"
grep " $MNT " /proc/mounts | indent
grep " $MNT " /proc/mounts | grep -q 'rdma' || die "the cifs mount is not over RDMA"

FIO_TARGET=$MNT/fio
fio_verify_set
copy_both_ways "$MNT" "$SHARE" "SMB Direct"

# --- what went through the engine
if [ -n "${RWX_ENGINE_MODULE:-}" ] && [ -n "${KSMBD_MODULE:-}${RWX_TAKEOVER_MODULE:-}" ]; then
	engine_served server
	engine_read_and_wrote
fi

# --- a fault under load, if asked (cifs mounts soft by default: a request
# fails once the server is gone)
case ${RWX_FAULT:-} in
"") run umount "$MNT" ;;
link-delete)
	fault_under_load "$MNT/load" "rdma link delete $ULP_IBDEV" rdma link delete $ULP_IBDEV ||
		die "$RWX_FAULT under load"
	umount_after_fault "$MNT" ;;
server-stop)
	fault_under_load "$MNT/load" "ksmbd.control -s" ksmbd.control -s ||
		die "$RWX_FAULT under load"
	umount_after_fault "$MNT" ;;
*) die "unknown fault $RWX_FAULT" ;;
esac

# --- teardown
say "stopping ksmbd"
kill -0 "$mountd_pid" 2> /dev/null && run ksmbd.control -s
wait_exit "$mountd_pid" 60 ksmbd.mountd
run umount "$SHARE"
rm -rf "$STATE"	# (a later run on this guest starts afresh: its user database)
say "unloading modules"
# cifs lets go of its module once its connection thread gives up
# reconnecting to a server that was stopped or lost: seconds (10 s was
# once too few after ksmbd.control -s).
rmmod_wait -t 60 cifs
rmmod_wait "$ksmbd_name"
teardown_rdma_engine
echo "smb: passed"
