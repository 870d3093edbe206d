# Sourced by guest scripts: what the engine did (its debugfs counters), and
# kmemleak around a test.  RWX_LOG_PREFIX names the script in messages.
# The engine's counters (debugfs), one "<prefix>: engine NAME VALUE" line each.
RWX_COUNTERS=/sys/kernel/debug/rdma_rwx/counters
engine_counters() {
	[ -n "${RWX_ENGINE_MODULE:-}" ] || return 0
	sed "s/^/${RWX_LOG_PREFIX:-nvmeof}: engine /" $RWX_COUNTERS
}

engine_counter() {
	[ -r $RWX_COUNTERS ] || echo "${RWX_LOG_PREFIX:-nvmeof}: no $RWX_COUNTERS (engine not loaded?)" >&2
	awk -v n="$1" '$1 == n {print $2}' $RWX_COUNTERS
}

# Plain contexts the engine set up so far, on any path.
engine_contexts() {
	echo $(($(engine_counter init_sge_single) + $(engine_counter init_sge_multi) + $(engine_counter init_mr)))
}

# Failed engine calls, all causes together.
RWX_ERROR_COUNTERS="err_eagain err_enospc err_einval err_enomem err_other"
engine_errors() {
	local c sum=0
	for c in $RWX_ERROR_COUNTERS; do
		sum=$((sum + $(engine_counter $c)))
	done
	echo $sum
}

# No engine call failed; otherwise name each failing cause.
engine_no_errors() {
	local c rc=0
	for c in $RWX_ERROR_COUNTERS; do
		[ "$(engine_counter $c)" = 0 ] && continue
		echo "${RWX_LOG_PREFIX:-nvmeof}: engine $c = $(engine_counter $c)"
		rc=1
	done
	return $rc
}

# engine_expect_paths sge|mr|sge+mr: the contexts the engine set up took
# that path (and only it), and none failed.
engine_expect_paths() {
	local sge mr
	sge=$(($(engine_counter init_sge_single) + $(engine_counter init_sge_multi)))
	mr=$(engine_counter init_mr)
	case $1 in
	sge) [ "$sge" -gt 0 ] && [ "$mr" = 0 ] ;;
	mr) [ "$mr" -gt 0 ] && [ "$sge" = 0 ] ;;
	sge+mr) [ "$sge" -gt 0 ] && [ "$mr" -gt 0 ] ;;
	*) false ;;
	esac || {
		echo "${RWX_LOG_PREFIX:-nvmeof}: engine paths: $sge SGE and $mr MR contexts, expected $1"
		return 1
	}
	engine_no_errors || return 1
	echo "${RWX_LOG_PREFIX:-nvmeof}: engine paths as expected ($1): $sge SGE contexts," \
	     "$mr MR contexts ($(engine_counter mrs_registered) MRs)"
}

# The live takeover (drivers/takeover): the distribution's own ULPs on the
# engine through ib_core's rdma_rw functions.
RWX_KLP=/sys/kernel/livepatch/rdma_rwx_takeover

# rdma-rwx(8), the admin's command (userspace/tools/rdma-rwx.c, built by
# make check's userspace suite): it switches the takeover and waits for
# each transition (180 s at most; under load one took 84 s).
RWX_ADMIN=${RWX_ADMIN:-$RWX_ROOT/userspace/build/tools/rdma-rwx}

# takeover_enable: RWX_TAKEOVER_MODULE loaded (after the engine), enabled,
# its transition over; says why not.  rdma-rwx runs at a real-time
# priority: the transition's end patches the scheduler's static calls
# (6.12's livepatch hooks cond_resched()) in the writer's context, and a
# loaded guest's runnable tasks preempted it there for 20-30 s a switch
# (10 s at SCHED_FIFO, the host as busy; 1-2.5 s on a quiet host).
takeover_enable() {
	local enabled transition
	chrt -f 1 "$RWX_ADMIN" takeover on -m "$RWX_TAKEOVER_MODULE" || return 1
	read -r enabled < $RWX_KLP/enabled
	read -r transition < $RWX_KLP/transition
	[ "$enabled" = 1 ] && [ "$transition" = 0 ] && return 0
	echo "${RWX_LOG_PREFIX:-nvmeof}: rdma-rwx says on, the patch is not done"
	return 1
}

# takeover_disable: disabled, its transition over, unloaded; says why not.
takeover_disable() {
	chrt -f 1 "$RWX_ADMIN" takeover off || return 1
	[ ! -e $RWX_KLP ] && [ ! -e /sys/module/rdma_rwx_takeover ] && return 0
	echo "${RWX_LOG_PREFIX:-nvmeof}: rdma-rwx says off, the patch or its module is still there"
	return 1
}

takeover_on() {
	takeover_enable || return 1
	echo "${RWX_LOG_PREFIX:-nvmeof}: takeover on: ib_core's rdma_rw runs on the engine"
}

takeover_off() {
	takeover_disable || return 1
	echo "${RWX_LOG_PREFIX:-nvmeof}: takeover off and unloaded"
}

# takeover_refused KO: KO, the takeover as built for another ib_core (its
# CRC of rdma_rw_ctx_init changed), is refused by the module loader and
# leaves nothing behind.
takeover_refused() {
	local out said
	if out=$("$RWX_ADMIN" takeover on -m "$1" 2>&1); then
		echo "${RWX_LOG_PREFIX:-nvmeof}: a takeover built for another ib_core was taken: $out"
		"$RWX_ADMIN" takeover off
		return 1
	fi
	said=$(dmesg | grep -m1 'rdma_rwx_takeover: disagrees about version of symbol rdma_rw_ctx_init')
	if [ -z "$said" ] || [ -e $RWX_KLP ] || [ -e /sys/module/rdma_rwx_takeover ]; then
		echo "${RWX_LOG_PREFIX:-nvmeof}: takeover for another ib_core: not refused as it should be: $out"
		return 1
	fi
	echo "${RWX_LOG_PREFIX:-nvmeof}: takeover built for another ib_core refused" \
	     "(rdma-rwx: $(echo "$out" | tail -n 1); kernel: ${said#*\] })"
}

# takeover_status ULP: rdma-rwx status says the takeover is on and ULP is
# on the engine through it; its JSON says the same.
takeover_status() {
	local out
	out=$("$RWX_ADMIN" status) || return 1
	echo "$out" | sed "s/^/${RWX_LOG_PREFIX:-nvmeof}: rdma-rwx status: /"
	if ! echo "$out" | grep -qx 'takeover: on' ||
	   ! echo "$out" | grep -qx "ulp $1: engine (taken over)" ||
	   ! "$RWX_ADMIN" -j status | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s["takeover"] == "on" and s["engine"]["loaded"], s
assert {"module": sys.argv[1], "route": "engine (taken over)"} in s["ulps"], s' "$1"; then
		echo "${RWX_LOG_PREFIX:-nvmeof}: rdma-rwx status does not show $1 taken over"
		return 1
	fi
}

# takeover_stat_busy DEV: rdma-rwx stat's rates over 2 s in which the
# engine set contexts up (up to 5 tries for one) show DEV setting contexts
# up, with no error.
takeover_stat_busy() {
	local out before
	# A window in which the engine set contexts up (its counter moved):
	# a load can pause longer than one, as NFS's fio laying its file out
	# through the page cache did on a loaded host (make check, session 37).
	for _ in 1 2 3 4 5; do
		before=$(engine_counter shared)
		out=$("$RWX_ADMIN" -j stat -d "$1" 2 1) || return 1
		[ "$(engine_counter shared)" -gt "$before" ] && break
	done
	echo "${RWX_LOG_PREFIX:-nvmeof}: rdma-rwx -j stat -d $1 2 1: $out"
	echo "$out" | python3 -c '
import json, sys
d = json.loads(sys.stdin.read())["devices"][0]
assert d["contexts_per_s"] > 0 and d["errors_per_s"] == 0, d' || {
		echo "${RWX_LOG_PREFIX:-nvmeof}: rdma-rwx stat shows no contexts on $1 under load"
		return 1
	}
}

# takeover_served: the ULP's contexts (all torn down by now) were set up by
# the engine in ib_core's encoding and destroyed by it, none of ib_core's
# came to it, no call failed.
takeover_served() {
	local shared done adopted
	shared=$(engine_counter shared)
	done=$(engine_counter shared_destroyed)
	adopted=$(engine_counter adopted)
	if [ "$shared" -gt 0 ] && [ "$done" = "$shared" ] && [ "$adopted" = 0 ] &&
	   engine_no_errors; then
		echo "${RWX_LOG_PREFIX:-nvmeof}: takeover served the kernel's own ULP: $shared contexts" \
		     "set up and destroyed by the engine, none of ib_core's"
		return 0
	fi
	echo "${RWX_LOG_PREFIX:-nvmeof}: takeover: $shared shared contexts, $done destroyed by the engine, $adopted adopted"
	return 1
}

# takeover_engine_busy: the engine sets contexts up in ib_core's encoding
# (within 60 s).
takeover_engine_busy() {
	local base
	base=$(engine_counter shared)
	for _ in $(seq 60); do
		sleep 1
		[ "$(engine_counter shared)" -gt "$base" ] && return 0
	done
	echo "${RWX_LOG_PREFIX:-nvmeof}: the engine set no context up in 60 s"
	return 1
}

# device_mrs IBDEV: the MRs IBDEV holds (rdma resource tracking: the
# ULPs' MR pools among them).
device_mrs() {
	rdma resource show | awk -v dev="$1:" '$2 == dev {
		for (i = 3; i < NF; i++) if ($i == "mr") print $(i + 1) }'
}

# pause SECONDS: sleep without an exec (a read that times out on a FIFO
# no one writes; the guests have no /dev/fd for a process substitution):
# an exec costs a loaded debug guest a second or more.
pause() {
	local fifo=/tmp/rwx-pause.$$
	if [ -z "${PAUSE_FD:-}" ]; then
		mkfifo "$fifo" && exec {PAUSE_FD}<> "$fifo" && rm -f "$fifo" || return 1
	fi
	read -rt "$1" -u "$PAUSE_FD" _ || :
}

# takeover_switches N PID: the takeover turned off and on again N times at
# random intervals (0-0.9 s before each transition; RANDOM seeded from
# RWX_TAKEOVER_SEED or the clock, and said) while PID, the ULP's load,
# runs on: it must still run after each.  Says the transitions' times.
takeover_switches() {
	local n=$1 pid=$2 seed=${RWX_TAKEOVER_SEED:-$(date +%s)} i step t0 ms=()
	RANDOM=$seed
	for ((i = 1; i <= n; i++)); do
		for step in takeover_disable takeover_enable; do
			pause "0.$((RANDOM % 10))"
			t0=${EPOCHREALTIME/./}	# (no exec: each costs a loaded guest seconds)
			$step || { echo "${RWX_LOG_PREFIX:-nvmeof}: switch $i of $n: $step failed"; return 1; }
			ms+=($(((${EPOCHREALTIME/./} - t0) / 1000)))
			kill -0 "$pid" 2>/dev/null && continue
			echo "${RWX_LOG_PREFIX:-nvmeof}: switch $i of $n: the load ended at $step"
			return 1
		done
	done
	echo "${RWX_LOG_PREFIX:-nvmeof}: takeover off and on $n times (seed $seed), ${#ms[@]}" \
	     "transitions: $(printf '%s\n' "${ms[@]}" | sort -n |
		awk '{ v[NR] = $1 } END { printf "min %d, median %d, max %d ms", v[1], v[int((NR + 1) / 2)], v[NR] }')"
}

# verify_load_start TARGET [FIO OPTION...]: in the background, fio writing
# TARGET (a block device or a file; 32 MiB) in 16 KiB random writes at
# queue depth 16, with verify reads between (crc32c); VERIFY_LOAD_PID.
VERIFY_LOAD_LOG=/tmp/fio-verify-load.log
verify_load_start() {
	local target=$1
	shift
	(cd /tmp && exec fio --name=load --filename="$target" --size=32M \
		--ioengine=libaio --direct=1 --rw=randwrite --bs=16k --iodepth=16 \
		--verify=crc32c --verify_backlog=64 --verify_fatal=1 "$@" \
		> $VERIFY_LOAD_LOG 2>&1) &
	VERIFY_LOAD_PID=$!
}

# verify_load_stop: the load stopped (SIGINT); its data verified, no error
# (fio names a verify failure; the job's name must not hold "verify").
verify_load_stop() {
	kill -INT $VERIFY_LOAD_PID
	wait $VERIFY_LOAD_PID
	grep -q 'err= 0' $VERIFY_LOAD_LOG && ! grep -qi 'verify' $VERIFY_LOAD_LOG && return 0
	echo "${RWX_LOG_PREFIX:-nvmeof}: the fio verify load failed:"
	tail -8 $VERIFY_LOAD_LOG
	return 1
}

# Set once takeover_switch_under_load ran: ib_core has destroyed contexts
# the engine set up, so takeover_served's count no longer holds.
TAKEOVER_SWITCHED=0

# mrs_unchanged IBDEV BEFORE WHEN: IBDEV holds BEFORE MRs again (a pool
# MR freed or lost across the switches shows here; one not given back to
# its pool also makes ib_destroy_qp() warn at teardown).
mrs_unchanged() {
	local now
	now=$(device_mrs "$1")
	if [ -n "$2" ] && [ "$now" = "$2" ]; then
		echo "${RWX_LOG_PREFIX:-nvmeof}: $1 holds its $2 MRs again $3"
		return 0
	fi
	echo "${RWX_LOG_PREFIX:-nvmeof}: $1 holds ${now:-no count of} MRs $3, ${2:-no count} before"
	return 1
}

# takeover_switch_under_load TARGET IBDEV: fio writing TARGET (a block
# device or a file; 32 MiB) with verify reads between (crc32c), while the
# takeover is turned off and on again under it RWX_TAKEOVER_SWITCHES times
# (default 1), each with I/O in flight, so that contexts one side set up
# are torn down by the other; then fio is stopped (SIGINT).  The data must
# verify, the engine serve again after the last switch and nothing fail.
# The crossings are counted, not required: how many contexts are in
# flight at a switch is the scheduler's.
takeover_switch_under_load() {
	local target=$1 ibdev=$2 p=${RWX_LOG_PREFIX:-nvmeof}
	TAKEOVER_SWITCHED=1
	verify_load_start "$target" --loops=1000 --runtime=1800
	if ! takeover_engine_busy || ! takeover_stat_busy "$ibdev" ||
	   ! takeover_switches "${RWX_TAKEOVER_SWITCHES:-1}" $VERIFY_LOAD_PID || ! takeover_engine_busy; then
		echo "$p: the takeover did not go off and on again under load"
		kill $VERIFY_LOAD_PID 2>/dev/null
		tail -5 $VERIFY_LOAD_LOG
		return 1
	fi
	verify_load_stop || return 1
	engine_no_errors || return 1
	echo "$p: takeover off and on under fio verify: data verified;" \
	     "$(engine_counter shared) contexts set up by the engine in all," \
	     "$(($(engine_counter shared) - $(engine_counter shared_destroyed))) of them destroyed by ib_core," \
	     "$(engine_counter adopted) of ib_core's by the engine"
}

# The kernel's own modules from RWX_MODROOT (a modules_install root), over
# the host's /lib/modules; without RWX_MODROOT the host's serve.
bind_modroot() {
	[ -n "${RWX_MODROOT:-}" ] || return 0
	mount --bind "$RWX_MODROOT/lib/modules" /lib/modules
}

# pi_disk MB: a scsi_debug disk of MB MiB that keeps T10-PI (DIF type 1,
# CRC guards, and DIX: the block layer's integrity data), for a target to
# serve with protection information; sets PI_DISK (/dev/sdX).
pi_disk() {
	local b
	PI_DISK=""
	modprobe sd_mod && modprobe scsi_debug dif=1 dix=1 dev_size_mb="$1" || return 1
	for _ in $(seq 100); do
		for b in /sys/block/sd*; do
			grep -qs scsi_debug "$b/device/model" && PI_DISK=/dev/${b##*/}
		done
		[ -n "$PI_DISK" ] && [ -b "$PI_DISK" ] && return 0
		sleep 0.2
	done
	echo "${RWX_LOG_PREFIX:-nvmeof}: no scsi_debug disk"
	return 1
}

# Every context the engine set up was destroyed again.
engine_live_check() {
	local live
	live=$(engine_counter contexts_live)
	[ "$live" = 0 ] && return 0
	echo "${RWX_LOG_PREFIX:-nvmeof}: $live engine contexts still live at teardown"
	return 1
}

kmemleak_start() {
	[ "${RWX_KMEMLEAK:-1}" = 1 ] && [ -w /sys/kernel/debug/kmemleak ] &&
		echo clear > /sys/kernel/debug/kmemleak
	return 0
}

# Scan once everything is torn down; reports go to the console, where the
# host's judgement finds them.  Twice: a scan only greys an object it sees
# for the first time (its checksum changed), so a new leak is reported by
# the second scan, which must start at least 5 s after the teardown
# (kmemleak reports no younger object).  A debug guest's first scan takes
# longer than that: no pause then.
kmemleak_check() {
	local t0 left
	[ "${RWX_KMEMLEAK:-1}" = 1 ] && [ -w /sys/kernel/debug/kmemleak ] || return 0
	t0=${EPOCHREALTIME/./}
	echo scan > /sys/kernel/debug/kmemleak
	left=$((5000000 - (${EPOCHREALTIME/./} - t0)))
	[ $left -le 0 ] || pause "$((left / 1000000)).$(printf %06d $((left % 1000000)))"
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
}

# wait_gone PID SECONDS: up to SECONDS for PID to exit; 1 if it still runs.
# WAITED: the seconds it waited.
wait_gone() {
	for WAITED in $(seq 0 "$2"); do
		kill -0 "$1" 2>/dev/null || return 0
		[ "$WAITED" -lt "$2" ] && sleep 1
	done
	return 1
}

FAULT_FILE_SIZE=$((16 << 20))

# fault_layout FILE: the load's file of FAULT_FILE_SIZE bytes laid out in
# 1 MiB writes (4 KiB at a time, cifs took about 150 s).  A network mount
# may lay it out before it is mounted soft for the fault: on a loaded
# host, a soft mount's server once answered a layout write too late.
fault_layout() {
	(cd /tmp && fio --name=layout --filename="$1" --size=$FAULT_FILE_SIZE --bs=1M --create_only=1) \
		> /tmp/fio-layout.log 2>&1 && return 0
	echo "${RWX_LOG_PREFIX:-nvmeof}: fio layout failed"
	cat /tmp/fio-layout.log
	return 1
}

# fault_under_load TARGET WHAT CMD...: a fio load (64 KiB random reads and
# writes at queue depth 16) on TARGET, a block device or a file (laid out
# first unless it is already), and once the engine is serving it (its
# counters: the engine must be loaded), CMD - the fault, WHAT, itself given
# 120 s.  The client's I/O must then fail (fio's "io_u error") within
# 120 s, not hang.  Says why and returns 1 otherwise.
fault_under_load() {
	local target=$1 what=$2 p=${RWX_LOG_PREFIX:-nvmeof} pid base first rc size=() t0=$SECONDS
	shift 2
	if [ ! -b "$target" ]; then
		# laid out before the load: a fault during fio's own layout
		# fails it before any I/O of the load
		size=(--size=$FAULT_FILE_SIZE)
		[ "$(stat -c %s "$target" 2>/dev/null)" = $FAULT_FILE_SIZE ] ||
			fault_layout "$target" || return 1
	fi
	base=$(engine_contexts)
	(cd /tmp && exec fio --name=load --filename="$target" "${size[@]}" --thread \
		--ioengine=libaio --direct=1 --rw=randrw --bs=64k --iodepth=16 \
		--time_based --runtime=300 > /tmp/fio-fault.log 2>&1) &
	pid=$!
	# I/O must be flowing through the engine before the fault: contexts
	# set up since fio started, and more of them after that.  Polled
	# each second: on a loaded host fio takes long to start (120 s is a
	# hang guard, not a speed test).
	first=$base
	for _ in $(seq 120); do
		sleep 1
		first=$(engine_contexts)
		[ "$first" -gt "$base" ] && break
	done
	for _ in $(seq 60); do
		sleep 1
		[ "$(engine_contexts)" -gt "$first" ] && break
	done
	kill -0 $pid 2>/dev/null || { echo "$p: fio load ended early"; cat /tmp/fio-fault.log; return 1; }
	if [ "$first" -le "$base" ] || [ "$(engine_contexts)" -le "$first" ]; then
		echo "$p: no I/O through the engine before the fault ($base before fio, $first, then $(engine_contexts) contexts)"
		kill -KILL $pid
		return 1
	fi
	echo "$p: under load $((SECONDS - t0)) s after the start: $(engine_counter contexts_live) engine contexts live," \
	     "$(engine_contexts) set up"
	echo "$p: $what under load"
	# The fault itself bounded too: a device removal or server stop that
	# blocks is a hang of its own.
	"$@" &
	local fault_pid=$!
	if ! wait_gone $fault_pid 120; then
		echo "$p: $what still running 120 s later: hung;" \
		     "$(engine_counter contexts_live) engine contexts live; its stack and the blocked tasks':"
		sed "s/^/$p:   /" /proc/$fault_pid/stack
		echo w > /proc/sysrq-trigger
		kill -KILL $pid
		return 1
	fi
	wait $fault_pid || { echo "$p: $what failed"; kill -KILL $pid; return 1; }
	if ! wait_gone $pid 120; then
		echo "$p: client I/O still running 120 s after $what: hung;" \
		     "$(engine_counter contexts_live) engine contexts live; the blocked tasks:"
		echo w > /proc/sysrq-trigger
		kill -KILL $pid
		return 1
	fi
	wait $pid
	rc=$?
	# fio reports a failed I/O as "io_u error"; anything else is not the
	# failure expected.
	if [ $rc = 0 ] || ! grep -q 'io_u error' /tmp/fio-fault.log; then
		echo "$p: fio exit $rc, expected I/O errors:"
		tail -5 /tmp/fio-fault.log
		return 1
	fi
	echo "$p: the client saw I/O errors after $WAITED s: $(grep -m1 'io_u error' /tmp/fio-fault.log)"
}
