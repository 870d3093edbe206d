#!/usr/bin/env bash
# Install everything the build and the tests need from Debian's archive.
# Kernel package versions are resolved at run time to the newest available,
# never pinned to a patch release that may leave the archive.
set -euo pipefail

STAMP_DIR=${RWX_CACHE:-/var/cache/rdma-rwx}
mkdir -p "$STAMP_DIR"

newest() {	# newest package whose name matches an anchored regex
	apt-cache search --names-only "$1" | awk '{print $1}' | sort -V | tail -n 1
}

all_installed() {
	local status
	status=$(dpkg-query -W -f='${Status}\n' "$@" 2>/dev/null) || return 1
	! grep -qv '^install ok installed$' <<< "$status"
}

BASE_PKGS="busybox-static rdma-core ibverbs-providers
libibverbs-dev librdmacm-dev ibverbs-utils rdmacm-utils perftest iproute2
kmod cpio sparse python3 bc bison flex libelf-dev libssl-dev dwarves
xz-utils zstd rsync gcc make patch util-linux groff-base pkgconf
nvme-cli fio targetcli-fb open-iscsi dbus-daemon valgrind
nfs-kernel-server cifs-utils
debhelper dh-dkms dkms lintian
trace-cmd linux-perf bpftrace
clang libclang-rt-14-dev"

# ksmbd-tools from bookworm-backports (3.5.2): 6.1.192's ksmbd refuses
# every share reply of bookworm's own 3.4.7, which leaves the reply's
# payload_sz at zero (ipc_validate_msg; 6.12.117 tolerates it), so no SMB
# tree connect - not even IPC$ - succeeds on 6.1 with it.
# QEMU from bookworm-backports (10.0): bookworm's 7.2 multi-threaded TCG
# runs code one vCPU has patched on another stale.  A 6.12 guest toggling
# tracepoints (tools/guest/code-patching.sh) oopsed on an int3 the kernel
# had already patched away within seconds, a 6.1 guest soft-locked in
# text_poke_bp()'s IPIs, and make check's guests died of it at boot (jump
# labels flip at late init); 10.0.2 ran 4 minutes of it on both kernels.
# Installed with backports as the target release, so that what they need
# from it comes along (10.0.2 needs backports' seabios, newer than
# bookworm's; naming each package/bookworm-backports left that out).
BPO_PKGS="ksmbd-tools qemu-system-x86 qemu-system-common qemu-system-data"
BPO_LIST=/etc/apt/sources.list.d/rdma-rwx-bookworm-backports.list
installed_at_least() {	# PACKAGE VERSION
	dpkg --compare-versions "$(dpkg-query -W -f='${Version}' "$1" 2>/dev/null)" ge "$2"
}
backports_installed() {
	installed_at_least ksmbd-tools 3.5.2 && installed_at_least qemu-system-x86 1:10.0
}

# A warm run must not touch apt: done when everything installed last time
# is still there.  RWX_DEPS_REFRESH=1 looks for newer kernel packages.
# A changed deps.sh (a new kind of package) runs apt again.
key=$(sha256sum "$0" | cut -c1-12)
if [ -z "${RWX_DEPS_REFRESH:-}" ] && [ -f "$STAMP_DIR/deps.list" ] &&
   [ "$(cat "$STAMP_DIR/deps.key" 2>/dev/null)" = "$key" ] &&
   all_installed $BASE_PKGS $(cat "$STAMP_DIR/deps.list") && backports_installed; then
	exit 0
fi

grep -rqs '^[^#]*bookworm-backports' /etc/apt/sources.list /etc/apt/sources.list.d/ ||
	echo "deb http://deb.debian.org/debian bookworm-backports main" > "$BPO_LIST"
apt-get update -qq
H61=$(newest '^linux-headers-6\.1\.0-[0-9]+-amd64$')
H612=$(newest '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$')
I612=$(newest '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$')
# The 6.1 image matching the newest 6.1 headers (a stock 6.1 guest).
I61=${H61/linux-headers-/linux-image-}-unsigned
SRC=$(newest '^linux-source-6\.12$')
SRC61=$(newest '^linux-source-6\.1$')
for v in H61 H612 I61 I612 SRC SRC61; do
	if [ -z "${!v}" ]; then
		echo "deps: no package found for $v in Debian's archive" >&2
		exit 1
	fi
done

PKGS="$BASE_PKGS $H61 $H612 $I61 $I612 $SRC $SRC61"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PKGS
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	-t bookworm-backports $BPO_PKGS
echo $PKGS > "$STAMP_DIR/deps.list"
echo "$key" > "$STAMP_DIR/deps.key"
echo "deps: installed $H61 $H612 $I61 $I612 $SRC $SRC61"
