# Sourced by the guest scripts that run SMB Direct (smb.sh, pair.sh), after
# ulp-lib.sh: the kernel's SMB server (ksmbd, with its SMB Direct
# transport) sharing a tmpfs, and the kernel's SMB client (cifs) mounting
# it with "rdma".  Needs a kernel built with CONFIG_SMB_SERVER_SMBDIRECT
# and CONFIG_CIFS_SMB_DIRECT (the test kernels; Debian's own have
# neither).  The guest root is the host's, read-only: ksmbd-tools'
# configuration and user database live in tmpfs.  Each function says what
# failed and returns 1.

SMB_STATE=/tmp/smb
SMB_SHARE=$SMB_STATE/share
SMB_MNT=$SMB_STATE/mnt
SMB_USER=rwx
SMB_PASS=rwx-test

# smb_tools TOOL...: each installed on the host (ksmbd-tools, cifs-utils).
smb_tools() {
	local tool
	for tool in "$@"; do
		command -v "$tool" > /dev/null && continue
		echo "$RWX_LOG_PREFIX: $tool is not installed on the host (ksmbd-tools, cifs-utils, fio)"
		return 1
	done
}

# smb_server_prepare: the share (a tmpfs), ksmbd's configuration and its
# user.
smb_server_prepare() {
	smb_tools ksmbd.mountd ksmbd.adduser ksmbd.control || return 1
	mkdir -p "$SMB_STATE" "$SMB_SHARE" || return 1
	mount -t tmpfs -o size=512m tmpfs "$SMB_SHARE" || return 1
	cat > "$SMB_STATE/ksmbd.conf" <<-EOF
	[global]
		bind interfaces only = no
	[share]
		path = $SMB_SHARE
		read only = no
		force user = root
	EOF
	# ksmbd-tools 3.5 (tools/deps.sh: 6.1's ksmbd needs it)
	ksmbd.adduser --config="$SMB_STATE/ksmbd.conf" --pwddb="$SMB_STATE/ksmbdpwd.db" \
		-a -p "$SMB_PASS" "$SMB_USER" > "$SMB_STATE/adduser.log" 2>&1 && return 0
	cat "$SMB_STATE/adduser.log"
	return 1
}

# smb_listening: ksmbd's SMB Direct listener is up (through the RDMA/CM:
# port 445 on RoCE, 5445 on iWARP).
smb_listening() {
	rdma res show cm_id 2> /dev/null | grep 'state LISTEN' | grep -q 'comm \[ksmbd\].*:\(445\|5445\) *$'
}

# smb_server_start: ksmbd.mountd starts the kernel server (TCP 445 and
# SMB Direct); SMB_MOUNTD_PID.  Up to 30 s for its SMB Direct listener.
smb_server_start() {
	ksmbd.mountd -n --config="$SMB_STATE/ksmbd.conf" --pwddb="$SMB_STATE/ksmbdpwd.db" \
		> "$SMB_STATE/mountd.log" 2>&1 &
	SMB_MOUNTD_PID=$!
	for _ in {1..150}; do
		smb_listening && return 0
		sleep 0.2
	done
	echo "$RWX_LOG_PREFIX: ksmbd is not listening for SMB Direct"
	rdma res show cm_id 2>&1 | indent
	return 1
}

# smb_server_stop: ksmbd stopped (ksmbd.control -s) unless it was, its
# ksmbd.mountd gone within 60 s.
smb_server_stop() {
	kill -0 "$SMB_MOUNTD_PID" 2> /dev/null || return 0
	ksmbd.control -s > /dev/null || return 1
	wait_gone "$SMB_MOUNTD_PID" 60 && return 0
	echo "$RWX_LOG_PREFIX: ksmbd.mountd still running 60 s after ksmbd.control -s"
	return 1
}

# smb_client_load: cifs loaded, with one receive credit fewer than its
# default.  cifs sizes its QP's receive queue to its receive credits and
# may post them all, so that ib_drain_qp() at unmount finds no room for
# its marker (__ib_drain_rq: "failed to drain recv queue: -12", a WARN;
# rxe's queue holds exactly 255 for the default 255).  One credit fewer
# leaves rxe's queue (2^n - 1 entries) a free entry.  The client's bug,
# not the engine's.
smb_client_load() {
	smb_tools mount.cifs fio && modprobe cifs &&
		echo 254 > /proc/fs/cifs/smbd_receive_credit_max
}

# smb_mount ADDR: //ADDR/share mounted on SMB_MNT over SMB Direct (cifs
# mounts soft by default: a request fails once the server is gone).
smb_mount() {
	local out
	mkdir -p "$SMB_MNT" || return 1
	out=$(timeout 120 mount -t cifs "//$1/share" "$SMB_MNT" \
		-o "rdma,vers=3.1.1,username=$SMB_USER,password=$SMB_PASS,cache=none" 2>&1) ||
		{ printf '%s\n' "$out" | indent; return 1; }
	grep " $SMB_MNT " /proc/mounts | indent
	grep " $SMB_MNT " /proc/mounts | grep -q rdma && return 0
	echo "$RWX_LOG_PREFIX: the cifs mount is not over RDMA"
	return 1
}
