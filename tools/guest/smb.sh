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
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
RWX_LOG_PREFIX=smb
. "$RWX_ROOT/tools/guest/engine-lib.sh"
. "$RWX_ROOT/tools/guest/ulp-lib.sh"
. "$RWX_ROOT/tools/guest/smb-lib.sh"

SIZE_MB=${SMB_FIO_SIZE:-16}

diagnose() {
	rdma link show 2>&1 | indent
	grep ' cifs ' /proc/mounts | indent
	[ -f "$SMB_STATE/mountd.log" ] && tail -n 20 "$SMB_STATE/mountd.log" | sed "s/^/smb:   mountd: /"
	dmesg | grep -iE 'ksmbd|cifs|smb|rdma|rxe|siw' | tail -n 40 | sed "s/^/smb:   dmesg: /"
}

say "preparing the share and ksmbd's configuration"
smb_server_prepare || die "the share and ksmbd's configuration"

# --- modules and the RDMA device
say "loading modules"
setup_rdma_engine
load_ulp "${KSMBD_MODULE:-}" ksmbd
ksmbd_name=$ULP_NAME
smb_client_load || die "loading cifs"

# --- server: ksmbd.mountd starts the kernel server (TCP 445 and SMB Direct)
say "starting ksmbd"
smb_server_start || die "starting ksmbd"
rdma res show cm_id 2>&1 | indent

# --- client: cifs over SMB Direct
say "mounting //$ULP_ADDR/share with rdma"
smb_mount "$ULP_ADDR" || die "mounting //$ULP_ADDR/share with rdma"

FIO_TARGET=$SMB_MNT/fio
fio_verify_set
copy_both_ways "$SMB_MNT" "$SMB_SHARE" "SMB Direct"

# --- what went through the engine
if [ -n "${RWX_ENGINE_MODULE:-}" ] && [ -n "${KSMBD_MODULE:-}${RWX_TAKEOVER_MODULE:-}" ]; then
	engine_served server
	engine_read_and_wrote
fi

# --- a fault under load, if asked (cifs mounts soft by default: a request
# fails once the server is gone)
case ${RWX_FAULT:-} in
"") run umount "$SMB_MNT" ;;
link-delete)
	fault_under_load "$SMB_MNT/load" "rdma link delete $ULP_IBDEV" rdma link delete $ULP_IBDEV ||
		die "$RWX_FAULT under load"
	umount_after_fault "$SMB_MNT" ;;
server-stop)
	fault_under_load "$SMB_MNT/load" "ksmbd.control -s" ksmbd.control -s ||
		die "$RWX_FAULT under load"
	umount_after_fault "$SMB_MNT" ;;
*) die "unknown fault $RWX_FAULT" ;;
esac

# --- teardown
say "stopping ksmbd"
smb_server_stop || die "stopping ksmbd"
run umount "$SMB_SHARE"
rm -rf "$SMB_STATE"	# (a later run on this guest starts afresh: its user database)
say "unloading modules"
# cifs lets go of its module once its connection thread gives up
# reconnecting to a server that was stopped or lost: seconds (10 s was
# once too few after ksmbd.control -s).
rmmod_wait -t 60 cifs
rmmod_wait "$ksmbd_name"
teardown_rdma_engine
echo "smb: passed"
