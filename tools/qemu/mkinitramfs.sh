#!/usr/bin/env bash
# Build a tiny initramfs: busybox plus, for a kernel whose 9p support is
# modular (Debian's), the modules needed to mount the host root over 9p.
# Its /init mounts the host's / read-only, the guest's own writable places
# on it, and switch_roots into it to run tools/qemu/guest-init.sh (named by
# rwx_init= on the kernel command line).
#
# usage: mkinitramfs.sh OUTPUT [KERNEL_RELEASE]
#   KERNEL_RELEASE: take the 9p modules from /lib/modules/KERNEL_RELEASE;
#                   leave it out for a kernel with 9p built in.
set -euo pipefail

out=$1
release=${2:-}
busybox=/bin/busybox
[ -x "$busybox" ] || { echo "mkinitramfs: busybox-static is not installed" >&2; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root"/{bin,dev,proc,sys,newroot,lib/modules}
cp "$busybox" "$root/bin/busybox"

: > "$root/lib/modules/load.order"
if [ -n "$release" ]; then
	# modprobe resolves the dependency order; copy each module uncompressed
	# so that busybox's insmod needs no decompressor.
	# virtio_pci first: Debian's 6.1 has it as a module (6.12 built in).
	for mod in virtio_pci 9pnet_virtio 9p; do
		modprobe -S "$release" --show-depends "$mod"
	done | awk '$1 == "insmod" {print $2}' | while read -r ko; do
		name=$(basename "$ko"); name=${name%.xz}; name=${name%.zst}
		[ -f "$root/lib/modules/$name" ] && continue
		case "$ko" in
		*.xz) xz -dc "$ko" > "$root/lib/modules/$name" ;;
		*.zst) zstd -qdc "$ko" > "$root/lib/modules/$name" ;;
		*) cp "$ko" "$root/lib/modules/$name" ;;
		esac
		echo "$name" >> "$root/lib/modules/load.order"
	done
	[ -s "$root/lib/modules/load.order" ] ||
		{ echo "mkinitramfs: no 9p modules found for $release" >&2; exit 1; }
fi

cat > "$root/init" <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/load.order); do
	insmod /lib/modules/$m || echo "initramfs: insmod $m failed"
done
if ! mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose \
		hostroot /newroot; then
	echo "initramfs: cannot mount the host root over 9p"
	echo b > /proc/sysrq-trigger
	sleep 60
fi
mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev
# The guest's writable places, mounted here by busybox: a debug kernel
# under TCG takes about a second for each exec of a dynamic binary from the
# 9p root, a fraction of that for this static one from memory.  The host's
# /tmp goes under a tmpfs of the guest's own, reachable first at
# /run/host-tmp, as the project itself may live there (a CI clone, say).
mount -t tmpfs tmpfs /newroot/run
mkdir -p /newroot/run/host-tmp
mount --bind /newroot/tmp /newroot/run/host-tmp
mount -t tmpfs tmpfs /newroot/tmp
mount -t tmpfs tmpfs /newroot/var/tmp
mount -t debugfs debugfs /newroot/sys/kernel/debug
mkdir -p /newroot/dev/pts /newroot/dev/shm /newroot/tmp/out
mount -t devpts devpts /newroot/dev/pts
mount -t tmpfs tmpfs /newroot/dev/shm
ip link set lo up
# The run's own directory on the host (console output aside): its env.sh
# says what to run; guest-init.sh reports a failed mount.
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 rwxout /newroot/tmp/out
# A project under the host's /tmp (a CI clone, say) is now under
# /run/host-tmp: guest-init.sh binds what the run needs back.
case $rwx_init in /tmp/*) rwx_init=/run/host-tmp/${rwx_init#/tmp/} ;; esac
exec switch_root /newroot /bin/bash "$rwx_init"
INIT
chmod +x "$root/init"

mkdir -p "$(dirname "$out")"
(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) | gzip -1 > "$out.tmp.$$"
mv "$out.tmp.$$" "$out"	# (two builds of one image at once: each its own file)
