#!/bin/bash
# PID 1 inside the QEMU guest, after the initramfs switched root to the
# host's read-only / and mounted the guest's writable places on it (tmpfs
# on /run, /tmp, /var/tmp, /dev/shm; the host's /tmp at /run/host-tmp;
# the run's directory at /tmp/out).
# Runs the script named in the run's env.sh, reports its exit status and
# powers off.  Shell builtins where they do: every exec of a dynamic binary
# costs a debug kernel under TCG about a second.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/tmp
export RWX_OUT=/tmp/out
rc=125

# The hang report runs on kernels where every exec takes seconds (the
# debug kernels on a loaded host): it uses shell builtins, and reads
# /proc/PID/stat (no lock of the task's) before /proc/PID/cmdline (read
# under the task's mmap lock, which a hung task may hold).

# hang_child PID: the newest child of PID (by /proc/*/stat, not
# /proc/PID/task/*/children, which the test kernels lack), in HANG_CHILD.
hang_child() {
	local stat rest
	HANG_CHILD=""
	for stat in /proc/[0-9]*/stat; do
		read -r rest 2> /dev/null < "$stat" || continue
		rest=${rest##*) }	# after "PID (comm) ": state ppid ...
		rest=${rest#* }
		[ "${rest%% *}" = "$1" ] || continue
		stat=${stat#/proc/}
		HANG_CHILD=${stat%/stat}
	done
}

# hang_chain PID cmdline|comm: "rwx-guest: hung in: ...", which the
# judgement quotes: the script's command and its newest child's, down to
# the last (in HANG_LAST); each by its name only, or by its command line.
hang_chain() {
	local pid=$1 chain="" part args
	while [ -n "$pid" ] && [ -d "/proc/$pid" ]; do
		if [ "$2" = cmdline ]; then
			mapfile -d '' -t args < "/proc/$pid/cmdline"
			part="${args[*]}"
			part=${part//[$'\t\n']/ }
			part=${part:0:80}
		else
			read -r part < "/proc/$pid/comm"
			part="[$part]"
		fi
		chain="$chain${chain:+ > }$part"
		HANG_LAST=$pid
		hang_child "$pid"
		pid=$HANG_CHILD
	done
	echo "rwx-guest: hung in: $chain"
}

# hang_report PID: what the script of PID is doing when the host is about
# to kill the run: the blocked tasks' kernel stacks (sysrq w, first: it
# needs no lock of any task), the chain by names then by command lines,
# the last process's kernel stack and every user process; then the chain
# again every 10 s (the judgement quotes the last, so a run still moving
# shows where it got).
hang_report() {
	local line
	echo w > /proc/sysrq-trigger
	hang_chain "$1" comm
	hang_chain "$1" cmdline
	while read -r line; do
		echo "rwx-guest: stack: $line"
	done < "/proc/$HANG_LAST/stack"
	timeout -s KILL 10 ps --deselect --ppid 2 -p 2 -o pid,ppid,stat,wchan:32,etime,args |
		cut -c1-160 | sed 's/^/rwx-guest: ps: /'
	while sleep 10; do
		hang_chain "$1" cmdline
	done
}

# hang_watchdog: hang_report on the script (its PID in /run/rwx-script.pid)
# once the run's guard (rwx_guard=, seconds; run-vm.sh leaves it out for
# -icount guests, whose clock is not the host's) is nearly out: a fifth of
# it left, 15 to 60 s.  Stopped by TERM.
hang_watchdog() {
	local guard left up pid=""
	trap 'kill $! 2> /dev/null; exit 0' TERM
	guard=${CMDLINE_ARGS[rwx_guard]:-}
	[ -n "$guard" ] || return 0
	left=$((guard / 5))
	[ "$left" -lt 15 ] && left=15
	[ "$left" -gt 60 ] && left=60
	read -r up _ < /proc/uptime
	up=${up%.*}
	if [ $((guard - left - up)) -gt 0 ]; then
		sleep $((guard - left - up)) &
		wait $!
	fi
	read -r pid 2> /dev/null < /run/rwx-script.pid
	if [ -z "$pid" ]; then
		echo "rwx-guest: hung in: guest-init.sh, before the script started"
		return 0
	fi
	hang_report "$pid" &
	wait $!
}

# The kernel command line's NAME=VALUE words, by name.
declare -A CMDLINE_ARGS
read -r -a words < /proc/cmdline
for word in "${words[@]}"; do
	case $word in *=*) CMDLINE_ARGS[${word%%=*}]=${word#*=} ;; esac
done

# count_cpus LIST: how many CPUs a list like "0-1,3" names, in CPU_COUNT.
count_cpus() {
	local part IFS=,
	CPU_COUNT=0
	for part in $1; do
		case $part in
		*-*) CPU_COUNT=$((CPU_COUNT + ${part#*-} - ${part%-*} + 1)) ;;
		*) CPU_COUNT=$((CPU_COUNT + 1)) ;;
		esac
	done
}

if [ -f "$RWX_OUT/env.sh" ]; then
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
	read -r release < /proc/sys/kernel/osrelease
	# kmemleak's own thread scans a minute after boot and then every ten
	# (each scan of a debug guest is 5-40 s of TCG time, in the middle of
	# the test): off.  The scripts scan when they judge leaks, twice at
	# their end (tools/guest/engine-lib.sh, kunit-run.sh).  (debugfs is
	# mounted by the initramfs.)
	if [ -w /sys/kernel/debug/kmemleak ]; then
		echo scan=off > /sys/kernel/debug/kmemleak
		echo "rwx-guest: kmemleak's scan thread off (the script scans)"
	fi
	echo "rwx-guest: $release running $RWX_SCRIPT"
	read -r online < /sys/devices/system/cpu/online
	count_cpus "$online"
	echo "rwx-guest: $CPU_COUNT of ${CMDLINE_ARGS[rwx_cpus]:-?} CPUs online ($online)"
	# The script runs in the foreground (a background job would ignore
	# SIGINT); its subshell says its PID for the watchdog, then becomes it.
	hang_watchdog &
	watchdog=$!
	(echo "$BASHPID" > /run/rwx-script.pid; exec bash "$RWX_SCRIPT")
	rc=$?
	kill "$watchdog" 2> /dev/null
	wait "$watchdog"
	sync
	umount "$RWX_OUT"
else
	echo "rwx-guest: the output share is not mounted (no env.sh in $RWX_OUT)"
fi
echo "RWX-GUEST-EXIT: $rc"
# Reboot (QEMU runs with -no-reboot, so it exits): with acpi=noirq the
# guest could power off, but a reboot needs nothing of ACPI.  PID 1 must outlive it, as it tears down the 9p root under us:
# wait on a FIFO in tmpfs with a shell builtin, executing nothing.
mkfifo /run/rwx-halt
exec 3<>/run/rwx-halt
echo b > /proc/sysrq-trigger
while :; do read -r -t 600 -u 3 _; done
