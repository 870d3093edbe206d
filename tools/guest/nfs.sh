# Guest script: the kernel's NFS server (nfsd, its RDMA transport svcrdma
# in rpcrdma.ko) exporting a tmpfs over RDMA (port 20049) to the kernel's
# NFS client on the same guest (NFSv3 and NFSv4.2, proto=rdma), over
# Soft-RoCE (rxe0 on veth0 192.0.2.1) or Soft-iWARP (siw0 on veth1
# 192.0.2.2).  fio verifies data in files, a large file is copied both ways
# and compared, and the server's RDMA reads (client writes) and writes
# (client reads) must both show in the engine's counters.
#
# Optional environment:
#   RWX_DEV            rxe (default) or siw (not run yet)
#   RWX_MODROOT        a modules_install root to bind over /lib/modules (the
#                      test kernel's own modules); unset: the host's
#   RWX_ENGINE_MODULE  path of rdma_rwx.ko, insmod'ed first
#   RWX_ENGINE_PARAMS  its module parameters (force_mr=1)
#   RWX_EXPECT_PATHS   sge | mr | sge+mr: the engine's contexts must have
#                      taken that path (default sge)
#   RPCRDMA_MODULE     path of an engine-built rpcrdma.ko, insmod'ed instead
#                      of `modprobe rpcrdma`
#   NFS_FIO_SIZE       MB per fio job (default 16)
#   NFS_VERSIONS       the versions mounted for the data jobs (default
#                      "3 4.2"; the switches and faults use 4.2)
#   RWX_TAKEOVER_MODULE  the takeover (rdma_rwx_takeover.ko): the kernel's
#                      own rpcrdma on the engine; with RWX_TAKEOVER_SWITCHES
#                      the takeover is switched off and on that many times
#                      under a verify load (takeover_switch_under_load)
#   RWX_FAULT          after the data jobs, a fault under fio load on an
#                      NFSv4.2 soft mount: link-delete (the RDMA device
#                      removed) or server-stop (rpc.nfsd 0); the client's
#                      I/O must fail, and everything be torn down
#                      (needs RWX_ENGINE_MODULE: the load must show in the
#                      engine's counters before the fault)
#
# The guest root is the host's, read-only: nfs-utils' state (/var/lib/nfs,
# /etc/exports) lives in tmpfs bind-mounted over it.
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
RWX_LOG_PREFIX=nfs
. "$RWX_ROOT/tools/guest/engine-lib.sh"
. "$RWX_ROOT/tools/guest/ulp-lib.sh"

STATE=/tmp/nfs
EXPORT=/tmp/nfs/export
MNT=/tmp/nfs/mnt
NFS_RDMA_PORT=20049
SIZE_MB=${NFS_FIO_SIZE:-16}

diagnose() {
	rdma link show 2>&1 | indent
	grep -E ' nfs4? ' /proc/mounts | indent
	cat /proc/fs/nfsd/portlist 2>&1 | indent
	for f in "$STATE"/*.log; do
		[ -f "$f" ] && tail -n 20 "$f" | sed "s|^|nfs:   $(basename "$f"): |"
	done
	dmesg | grep -iE 'nfs|rpc|svcrdma|rdma|rxe|siw' | tail -n 40 | sed "s/^/nfs:   dmesg: /"
}

# --- writable state over the read-only root
say "preparing writable state"
for tool in rpc.nfsd rpc.mountd exportfs rpcbind mount.nfs fio; do
	command -v $tool > /dev/null || die "$tool is not installed on the host (nfs-kernel-server, fio)"
done
mkdir -p "$STATE/var-lib-nfs" "$EXPORT" "$MNT"
cp -a /var/lib/nfs/. "$STATE/var-lib-nfs/"
mount --bind "$STATE/var-lib-nfs" /var/lib/nfs || die "bind mount over /var/lib/nfs"
mount -t tmpfs -o size=512m tmpfs "$EXPORT" || die "tmpfs for the export"
# fsid=0: the export is NFSv4's root ("/"), so that mountd need not export
# the guest's own root (9p, which it cannot).
echo "$EXPORT 192.0.2.0/24(rw,no_root_squash,insecure,no_subtree_check,fsid=0)" > "$STATE/exports"
mount --bind "$STATE/exports" /etc/exports || die "bind mount over /etc/exports"

# --- modules and the RDMA device
say "loading modules"
setup_rdma_engine
load_ulp "${RPCRDMA_MODULE:-}" rpcrdma
rpcrdma_name=$ULP_NAME
run modprobe nfsd
run modprobe nfs
run modprobe nfsv3
run modprobe nfsv4

# --- server
say "starting the NFS server with an RDMA listener on port $NFS_RDMA_PORT"
mountpoint -q /proc/fs/nfsd || run mount -t nfsd nfsd /proc/fs/nfsd
# NFSv4's grace period would hold every OPEN for 90 s after the start.
echo 10 > /proc/fs/nfsd/nfsv4leasetime
echo 10 > /proc/fs/nfsd/nfsv4gracetime
rpcbind -w -f > "$STATE/rpcbind.log" 2>&1 &
rpcbind_pid=$!
for _ in {1..50}; do
	[ -S /run/rpcbind.sock ] && break
	sleep 0.1
done
[ -S /run/rpcbind.sock ] || die "rpcbind did not start"
run exportfs -ra
rpc.mountd -F > "$STATE/mountd.log" 2>&1 &
mountd_pid=$!
run rpc.nfsd 4
echo "rdma $NFS_RDMA_PORT" > /proc/fs/nfsd/portlist || die "rdma listener on $NFS_RDMA_PORT"
grep -q "^rdma $NFS_RDMA_PORT$" /proc/fs/nfsd/portlist || die "no rdma listener in /proc/fs/nfsd/portlist"
say "portlist: $(tr '\n' ' ' < /proc/fs/nfsd/portlist)"

# --- client: each NFS version mounted over RDMA, data verified
# nfs_mount VERS [OPTIONS]: mount the export at $MNT over RDMA, with
# OPTIONS added; it must say proto=rdma.
nfs_mount() {
	local opts="vers=$1,proto=rdma,port=$NFS_RDMA_PORT${2:+,$2}" path=/
	[ "$1" = 3 ] && opts="$opts,nolock,mountproto=tcp" path=$EXPORT
	run timeout 120 mount -t nfs -o "$opts" "$ULP_ADDR:$path" "$MNT"
	grep " $MNT " /proc/mounts | indent
	grep " $MNT " /proc/mounts | grep -q 'proto=rdma' || die "NFSv$1 mount is not over RDMA"
}

# NFSv4.2, the client's default, with the data jobs asked for and a large
# file copied both ways; NFSv3 with the short set only (the same
# transport, another protocol on it: its copy, 25 s of a debug guest, moved
# what v4.2's moves).
for vers in ${NFS_VERSIONS:-3 4.2}; do
	say "NFSv$vers over RDMA"
	nfs_mount $vers
	FIO_TARGET=$MNT/fio.$vers
	if [ $vers = 3 ]; then
		ULP_FIO_SET=short fio_verify_set
	else
		fio_verify_set
		copy_both_ways "$MNT" "$EXPORT" "NFSv$vers over RDMA"
	fi
	run umount "$MNT"
done

# --- what went through the engine
if [ -n "${RWX_ENGINE_MODULE:-}" ] && [ -n "${RPCRDMA_MODULE:-}${RWX_TAKEOVER_MODULE:-}" ]; then
	engine_served server
	engine_read_and_wrote
fi

# --- under the takeover, if asked: switched off and on under a verify
# load (RWX_TAKEOVER_SWITCHES times)
if [ -n "${RWX_TAKEOVER_MODULE:-}" ] && [ -n "${RWX_TAKEOVER_SWITCHES:-}" ]; then
	say "NFSv4.2 over RDMA, the takeover switched $RWX_TAKEOVER_SWITCHES times under fio verify"
	# The client adds MRs under load: its MRs and the server's go with
	# the mount's connection.
	mrs=$(device_mrs $ULP_IBDEV)
	nfs_mount 4.2
	takeover_switch_under_load "$MNT/switch" $ULP_IBDEV || die "the takeover switched under load"
	run umount "$MNT"
	mrs_unchanged $ULP_IBDEV "$mrs" "after the unmount" || die "MRs across the switches"
fi

# --- a fault under load, if asked: on a soft mount, where a request the
# server does not answer fails once two retries time out too, after 5,
# 10 and 15 s (a hard mount would retry forever; at 2 s, the server of a
# loaded guest once answered a write of the load's layout too late)
case ${RWX_FAULT:-} in
"") ;;
link-delete | server-stop)
	say "NFSv4.2 over RDMA, soft, with $RWX_FAULT under load"
	nfs_mount 4.2
	fault_layout "$MNT/load" || die "layout of the load's file"
	run umount "$MNT"
	nfs_mount 4.2 soft,timeo=50,retrans=2
	if [ "$RWX_FAULT" = link-delete ]; then
		fault_under_load "$MNT/load" "rdma link delete $ULP_IBDEV" rdma link delete $ULP_IBDEV
	else
		fault_under_load "$MNT/load" "rpc.nfsd 0" rpc.nfsd 0
	fi || die "$RWX_FAULT under load"
	umount_after_fault "$MNT" ;;
*) die "unknown fault $RWX_FAULT" ;;
esac

# --- teardown
say "stopping the NFS server"
# (stopped already by a server-stop fault: rpc.nfsd 0 would start its
# network state and client tracking again on the way)
[ "$(cat /proc/fs/nfsd/threads)" = 0 ] || run rpc.nfsd 0
run exportfs -ua
kill "$mountd_pid" "$rpcbind_pid"
wait_exit "$mountd_pid" 30 rpc.mountd
wait_exit "$rpcbind_pid" 30 rpcbind
run umount /proc/fs/nfsd
run umount "$EXPORT" /etc/exports /var/lib/nfs
rm -rf "$STATE"	# (a later run on this guest starts afresh)
say "unloading modules"
# After a fault the client lets go of nfsv4 once its last requests to the
# lost server have timed out (43-56 s seen; 50 tries once too few on 6.1).
unload_secs=10
[ -n "${RWX_FAULT:-}" ] && unload_secs=120
rmmod_wait -t $unload_secs nfsv4 nfsv3 nfs nfsd "$rpcrdma_name" lockd grace nfs_acl rpcsec_gss_krb5 \
	auth_rpcgss sunrpc
teardown_rdma_engine
echo "nfs: passed"
