#!/bin/bash
# PID 1 inside the QEMU guest, after the initramfs switched root to the
# host's read-only / .  Sets up a writable scratch space, runs the script
# named in the run's env.sh, reports its exit status and powers off.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp

# The host's /tmp goes under a writable tmpfs; keep it reachable first, as
# the project itself may live there (a CI clone, say).
mount -t tmpfs tmpfs /run
mkdir -p /run/host-tmp
mount --bind /tmp /run/host-tmp
mount -t tmpfs tmpfs /tmp
mount -t tmpfs tmpfs /var/tmp
mount -t debugfs debugfs /sys/kernel/debug
mkdir -p /dev/pts /dev/shm /tmp/out
mount -t devpts devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
ip link set lo up

export RWX_OUT=/tmp/out
rc=125

# hang_report: what the script is doing when the host is about to kill a
# run (its guard, rwx_guard= seconds): the chain of newest children from
# the script down ("rwx-guest: hung in: ...", which the judgement quotes),
# every process but the kernel's, the last one's kernel stack and the blocked tasks'.
hang_report() {
	local pid child chain=""
	pid=$(ps -o pid=,args= --ppid 1 | awk -v s="$RWX_SCRIPT" 'index($0, s) {print $1}' | tail -n 1)
	while [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ]; do
		chain="$chain${chain:+ > }$(tr '\0\n' '  ' < "/proc/$pid/cmdline" | cut -c1-80 | sed 's/ *$//')"
		child=$(cat /proc/"$pid"/task/*/children 2>/dev/null | tr ' ' '\n' | sort -n | tail -n 1)
		[ -n "$child" ] || break
		pid=$child
	done
	echo "rwx-guest: hung in: $chain"
	ps --deselect --ppid 2 -p 2 -o pid,ppid,stat,wchan:32,etime,args | cut -c1-160 |
		sed 's/^/rwx-guest: ps: /'
	[ -n "$pid" ] && sed 's/^/rwx-guest: stack: /' "/proc/$pid/stack"
	echo w > /proc/sysrq-trigger
}

# hang_watchdog: hang_report once the guard is nearly out (a fifth of it
# left, 15 to 60 s); the guest's clock follows the host's under TCG.
hang_watchdog() {
	local guard left up
	guard=$(sed -n 's/.*rwx_guard=\([0-9]*\).*/\1/p' /proc/cmdline)
	[ -n "$guard" ] || return 0
	left=$((guard / 5))
	[ "$left" -lt 15 ] && left=15
	[ "$left" -gt 60 ] && left=60
	up=$(cut -d. -f1 /proc/uptime)
	[ $((guard - left - up)) -gt 0 ] && sleep $((guard - left - up))
	hang_report
}

if mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 rwxout "$RWX_OUT"; then
	# shellcheck disable=SC1091
	. "$RWX_OUT/env.sh"
	# Host directories under /tmp the run needs, back at their own paths.
	for dir in ${RWX_HOST_DIRS:-}; do
		case $dir in
		/tmp/*)
			mkdir -p "$dir"
			mount --bind "/run/host-tmp/${dir#/tmp/}" "$dir" ;;
		esac
	done
	echo "rwx-guest: $(uname -r) running $RWX_SCRIPT"
	cpus_asked=$(sed -n 's/.*rwx_cpus=\([0-9]*\).*/\1/p' /proc/cmdline)
	echo "rwx-guest: $(getconf _NPROCESSORS_ONLN) of ${cpus_asked:-?} CPUs online ($(cat /sys/devices/system/cpu/online))"
	hang_watchdog &
	watchdog=$!
	bash "$RWX_SCRIPT"
	rc=$?
	pkill -P "$watchdog"
	kill "$watchdog"
	sync
	umount "$RWX_OUT"
else
	echo "rwx-guest: cannot mount the output share"
fi
echo "RWX-GUEST-EXIT: $rc"
# Reboot (QEMU runs with -no-reboot, so it exits): with acpi=noirq the
# guest could power off, but a reboot needs nothing of ACPI.  PID 1 must outlive it, as it tears down the 9p root under us:
# wait on a FIFO in tmpfs with a shell builtin, executing nothing.
mkfifo /run/rwx-halt
exec 3<>/run/rwx-halt
echo b > /proc/sysrq-trigger
while :; do read -r -t 600 -u 3 _; done
