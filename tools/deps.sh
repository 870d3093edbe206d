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

apt_updated=0
apt_update_once() {
	[ "$apt_updated" = 1 ] && return 0
	apt-get update -qq
	apt_updated=1
}

BASE_PKGS="qemu-system-x86 busybox-static rdma-core ibverbs-providers
libibverbs-dev librdmacm-dev ibverbs-utils rdmacm-utils perftest iproute2
kmod cpio sparse python3 bc bison flex libelf-dev libssl-dev dwarves
xz-utils zstd rsync gcc make ccache"

# Fast path: nothing to do when every package we asked for last time is there
# and no newer kernel package has been seen (a warm run must not hit apt).
if [ -f "$STAMP_DIR/deps.list" ] && [ -z "${RWX_DEPS_REFRESH:-}" ] &&
   dpkg-query -W -f='${Status}\n' $(cat "$STAMP_DIR/deps.list") 2>/dev/null |
	grep -qv 'install ok installed' ; then
	:
elif [ -f "$STAMP_DIR/deps.list" ] && [ -z "${RWX_DEPS_REFRESH:-}" ]; then
	exit 0
fi

apt_update_once
H61=$(newest '^linux-headers-6\.1\.0-[0-9]+-amd64$')
H612=$(newest '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$')
I612=$(newest '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$')
SRC=$(newest '^linux-source-6\.12$')
for v in H61 H612 I612 SRC; do
	if [ -z "${!v}" ]; then
		echo "deps: no package found for $v in Debian's archive" >&2
		exit 1
	fi
done

PKGS="$BASE_PKGS $H61 $H612 $I612 $SRC"
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $PKGS
echo $PKGS > "$STAMP_DIR/deps.list"
echo "deps: installed $H61 $H612 $I612 $SRC"
