# Sourced by the guest scripts of the SCSI and file ULPs (iser.sh, srp.sh,
# nfs.sh, smb.sh):
# logging, failing, commands that must succeed, module loading and
# unloading, and fio with verification.  Set RWX_LOG_PREFIX first, and
# define diagnose() to say what the script knows on failure.  On failure
# the script reports and exits without tearing down: the VM is thrown away.
usec() { echo $(( ${EPOCHREALTIME/./} )); }
T0=$(usec)
say() {
	local ms=$(( ($(usec) - T0) / 1000 ))
	echo "$RWX_LOG_PREFIX: [$(( ms / 1000 )).$(( ms % 1000 / 100 ))s] $*"
}

die() {
	echo "$RWX_LOG_PREFIX: FAILED $*"
	echo "$RWX_LOG_PREFIX: --- diagnostics"
	diagnose
	exit 1
}

# indent: the lines of stdin, as the script's own.
indent() { sed "s/^/$RWX_LOG_PREFIX:   /"; }

run() {	# run CMD...: run it, die with its output on failure
	local out
	if ! out=$("$@" 2>&1); then
		printf '%s\n' "$out" | tail -n 20 | indent
		die "$*"
	fi
	[ -n "$out" ] && printf '%s\n' "$out" | indent
	return 0
}

# held_report: what may hold a module that will not unload: the RDMA
# resources left, the engine's live contexts, the blocked tasks (console).
held_report() {
	rdma res show cm_id 2>&1 | indent
	rdma res show qp 2>&1 | indent
	rdma res show mr 2>&1 | wc -l | sed 's/^/MR lines: /' | indent
	[ -r /sys/kernel/debug/rdma_rwx/counters ] &&
		grep -E '^(contexts_live|shared|destroyed) ' /sys/kernel/debug/rdma_rwx/counters | indent
	echo w > /proc/sysrq-trigger
}

# rmmod_wait [-t SECONDS] MOD...: references drop asynchronously after a
# teardown (up to SECONDS, default 10, for each, by the clock: an rmmod
# that fails costs a guest under TCG a good part of a second)
rmmod_wait() {	# (builtins while it waits: every process costs under TCG)
	local m t refs secs=10
	[ "$1" = -t ] && secs=$2 && shift 2
	for m in "$@"; do
		[ -e "/sys/module/$m/initstate" ] || continue
		t=$(usec)
		# rmmod tried only once nothing holds the module (after a
		# fault NFSv4 lets go of nfsv4 40-50 s later)
		while :; do
			read -r refs < "/sys/module/$m/refcnt" 2> /dev/null || refs=0
			[ "$refs" = 0 ] && rmmod "$m" 2> /dev/null && break
			[ $(( $(usec) - t )) -ge $(( secs * 1000000 )) ] && break
			pause 0.2
		done
		if [ -e "/sys/module/$m/initstate" ]; then
			held_report
			die "rmmod $m: $(grep "^$m " /proc/modules) after $secs s"
		fi
		t=$(( ($(usec) - t) / 1000 ))
		[ $t -ge 500 ] && echo "$RWX_LOG_PREFIX:   rmmod $m took $t ms"
	done
	return 0
}

# umount_after_fault MNT: a forced unmount of a network mount whose server
# or link went away; refused as busy while the client's last requests
# wait out their soft timeouts (retried up to 120 s)
umount_after_fault() {
	local t out tries=1
	t=$(usec)
	until out=$(timeout 30 umount -f "$1" 2>&1); do
		if [ $(( $(usec) - t )) -ge 120000000 ]; then
			printf '%s\n' "$out" | indent
			die "umount -f $1: still refused 120 s after the fault"
		fi
		sleep 1
		tries=$((tries + 1))
	done
	echo "$RWX_LOG_PREFIX:   umount -f $1 took $(( ($(usec) - t) / 1000 )) ms, $tries tries"
}

# The RDMA device under test: RWX_DEV rxe (rxe0, RoCE, on 192.0.2.1), siw
# (siw0, iWARP, on 192.0.2.2) or testdev (rwxr0, the test device's RoCE
# port, on 192.0.2.3, with RWX_TESTDEV_MODULE and RWX_TESTDEV_SPEC), as
# tools/guest/rdma-setup.sh makes them.
# shellcheck disable=SC2034  # used by the scripts that source this
case ${RWX_DEV:-rxe} in
rxe) ULP_IBDEV=rxe0 ULP_ADDR=192.0.2.1 ULP_RDMA_MOD=rdma_rxe ;;
siw) ULP_IBDEV=siw0 ULP_ADDR=192.0.2.2 ULP_RDMA_MOD=siw ;;
testdev) ULP_IBDEV=rwxr0 ULP_ADDR=192.0.2.3 ULP_RDMA_MOD=rwx_testdev ;;
*) echo "$RWX_LOG_PREFIX: RWX_DEV must be rxe, siw or testdev"; exit 1 ;;
esac

# ulp_guest_setup: what a guest's ULP runs share: the test kernel's
# modules (RWX_MODROOT), kmemleak, ib_core and the RDMA/CM, and a 1 GB
# memory-backed /dev/nullb0 to serve.
ulp_guest_setup() {
	bind_modroot || die "bind mount over /lib/modules"
	kmemleak_start
	run modprobe -a ib_core rdma_cm
	run modprobe null_blk nr_devices=1 memory_backed=1 gb=1
	[ -b /dev/nullb0 ] || die "no /dev/nullb0"
}

# ulp_device_setup: the RDMA device under test, made unless it is there
# (a run's link-delete fault deletes it).
ulp_device_setup() {
	[ -e /sys/class/infiniband/$ULP_IBDEV ] && return 0
	rdma_setup "${RWX_DEV:-rxe}" > /dev/null || die "rdma_setup ${RWX_DEV:-rxe}"
}

# ulp_guest_teardown: the RDMA device and null_blk gone, no splat,
# kmemleak scanned.
ulp_guest_teardown() {
	if [ "${RWX_DEV:-rxe}" = testdev ]; then
		testdev_remove || die "removing $ULP_IBDEV"
	elif [ -e /sys/class/infiniband/$ULP_IBDEV ]; then
		run rdma link delete $ULP_IBDEV
	fi
	rmmod_wait $ULP_RDMA_MOD null_blk
	splat_check
	kmemleak_check
}

# setup_rdma_engine: ulp_guest_setup and the RDMA device, then the engine
# (RWX_ENGINE_MODULE, with RWX_ENGINE_PARAMS) when given.  In a chain of
# ULP runs on one guest (RWX_ULP_CHAIN=1, tools/guest/ulp-chain.sh) the
# chain has done all but the engine, which each run loads afresh (its
# counters then count that run only).
setup_rdma_engine() {
	if [ "${RWX_ULP_CHAIN:-0}" != 1 ]; then
		ulp_guest_setup
		ulp_device_setup
	fi
	say "rdma: $(rdma link show $ULP_IBDEV/1)"
	if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
		say "insmod $RWX_ENGINE_MODULE ${RWX_ENGINE_PARAMS:-}"
		# shellcheck disable=SC2086
		run insmod "$RWX_ENGINE_MODULE" ${RWX_ENGINE_PARAMS:-}
	fi
	# The live takeover: the kernel's own ULP on the engine.
	if [ -n "${RWX_TAKEOVER_MODULE:-}" ]; then
		takeover_on || die "rdma-rwx takeover on"
	fi
}

# engine_served WHO: with the engine and an engine-built ULP loaded (or
# the kernel's own under the takeover), the I/O went through the engine
# (contexts counted) on the path(s) that RWX_EXPECT_PATHS names (sge by
# default, engine_expect_paths) and no engine call failed; under the
# takeover rdma-rwx status shows the ULP taken over.
engine_served() {
	local ctxs
	engine_counters
	ctxs=$(engine_contexts)
	[ "$ctxs" -gt 0 ] || die "the engine set up no context: the I/O did not go through it"
	engine_expect_paths "${RWX_EXPECT_PATHS:-sge}" || die "engine paths or calls"
	if [ -n "${RWX_TAKEOVER_MODULE:-}" ]; then
		takeover_status "$ULP_NAME" || die "rdma-rwx status"
	fi
	say "the engine served the $1's RDMA: $ctxs contexts, no error"
}

# engine_read_and_wrote: the server's RDMA went both ways (file servers:
# client writes are the server's RDMA READs, client reads its WRITEs).
engine_read_and_wrote() {
	[ "$(engine_counter bytes_read)" -gt 0 ] || die "no RDMA READ by the server"
	[ "$(engine_counter bytes_write)" -gt 0 ] || die "no RDMA WRITE by the server"
	say "the server's RDMA: $(engine_counter bytes_read) bytes read, $(engine_counter bytes_write) written"
}

# copy_both_ways MNT BACKING WHAT: a file of ULP_COPY_MB (default 64) MiB
# written through the mount MNT and compared in the server's BACKING
# directory, then read back through MNT and compared again.
copy_both_ways() {
	local src=/tmp/copy-both-ways mb=${ULP_COPY_MB:-64}
	run dd if=/dev/urandom of="$src" bs=1M count="$mb" status=none
	run dd if="$src" of="$1/big" bs=1M oflag=direct status=none
	run cmp "$src" "$2/big"
	run dd if="$1/big" of="$src.back" bs=1M iflag=direct status=none
	run cmp "$src" "$src.back"
	rm -f "$src" "$src.back" "$1/big"
	say "$3: $mb MiB written and read back, identical"
}

# teardown_rdma_engine: once the ULPs are unloaded, no engine context
# left and the engine gone, then ulp_guest_teardown (in a chain, the
# chain's at its end; a run checks for splats only).
teardown_rdma_engine() {
	# Under the takeover, with the ULP gone: every context was the engine's
	# (unless the takeover was switched under load meanwhile).
	if [ -e "$RWX_KLP" ]; then
		[ "$TAKEOVER_SWITCHED" = 1 ] || takeover_served || die "takeover contexts"
		takeover_off || die "rdma-rwx takeover off"
	fi
	if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
		engine_live_check || die "engine contexts left"
		rmmod_wait "$(modinfo -F name "$RWX_ENGINE_MODULE")"
	fi
	if [ "${RWX_ULP_CHAIN:-0}" = 1 ]; then
		splat_check
	else
		ulp_guest_teardown
	fi
	say "all steps done"
}

# load_ulp KO NAME: insmod KO (an engine-built ULP) after the modules it
# depends on, or modprobe NAME when KO is empty; ULP_NAME is then the
# loaded module's name.
load_ulp() {
	local ko=$1 dep
	ULP_NAME=$2
	if [ -z "$ko" ]; then
		run modprobe "$ULP_NAME"
		return
	fi
	for dep in $(modinfo -F depends "$ko" | tr , ' '); do
		grep -q "^$dep " /proc/modules || run modprobe "$dep"
	done
	say "insmod $ko"
	run insmod "$ko"
	ULP_NAME=$(modinfo -F name "$ko")
	[ -n "$ULP_NAME" ] || die "modinfo -F name $ko"
}

# wait_exit PID SECONDS WHAT: up to SECONDS for PID (a child) to exit, else
# fail naming WHAT.
wait_exit() {
	for _ in $(seq "$(($2 * 10))"); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$1" 2>/dev/null && die "$3 still running $2 s later"
	wait "$1" 2> /dev/null
	return 0
}

# wait_scsi_disk GLOB: up to 30 s for a disk to appear at GLOB (a pattern of
# /sys/.../block/NAME paths); sets dev (/dev/NAME) and sys, and says what
# the disk is.
wait_scsi_disk() {
	local b
	dev=""
	for _ in $(seq 150); do
		for b in $1; do
			[ -e "$b" ] && dev=/dev/$(basename "$b")
		done
		[ -n "$dev" ] && [ -b "$dev" ] && break
		dev=""
		sleep 0.2
	done
	[ -n "$dev" ] || die "no SCSI disk appeared after login"
	sys=/sys/block/${dev#/dev/}
	say "disk $dev: $(cat "$sys/size") sectors, $(cat "$sys/device/vendor") $(cat "$sys/device/model")"
}

# fio_run JOB...: one fio process running the JOBs (each "--name=NAME
# OFFSET_MB FIO-ARGS..." as one word list, split on spaces) one after the
# other (stonewall), with crc32c verification on $FIO_TARGET (a block
# device or a file), $SIZE_MB per job unless its args set --size.  One
# process for several jobs: under TCG each fio start (64 shared libraries)
# costs 2-3 s of a guest's time.
fio_run() {
	local job name off args=() names=() what out
	for job in "$@"; do
		read -r name off _ <<< "$job"
		# shellcheck disable=SC2206  # the job's own arguments, split
		args+=($name --stonewall --offset="${off}M" --size="${SIZE_MB}M" ${job#"$name $off"})
		names+=("${name#--name=}")
	done
	what=${names[*]}
	say "fio $what"
	if ! out=$(fio --filename="$FIO_TARGET" --direct=1 --ioengine=libaio --verify=crc32c \
			--verify_fatal=1 --do_verify=1 --group_reporting "${args[@]}" 2>&1); then
		printf '%s\n' "$out" | tail -n 30 | indent
		die "fio $what"
	fi
	printf '%s\n' "$out" | grep -E '^\s+(read|write):|err=' | sed "s/^ */$RWX_LOG_PREFIX:   /"
}

# fio_verify_set: the data jobs every block ULP runs, over 6 * SIZE_MB:
# random and sequential, 512 B to 1 MiB, several queue depths, a re-read in
# a new fio run, and a job bound to each CPU.  The small-block jobs' time
# is per I/O (on a debug kernel under TCG about 50 ms a 4 KiB write at
# queue depth 16 and 50 ms a 512 B write at depth 1): with
# ULP_FIO_SMALL_KB, rand-4k writes that much and seq-512-qd1 a quarter
# of it (defaults SIZE_MB and 256 KiB).  ULP_FIO_SET=short keeps the three
# jobs that cover the sizes, both patterns, two queue depths and every CPU
# (rand-mixed-bs, seq-128k, every-cpu): for the runs whose difference is
# the path, not the data.
fio_verify_set() {
	local ncpu small=${ULP_FIO_SMALL_KB:-} full=1 jobs=()
	[ "${ULP_FIO_SET:-full}" = short ] && full=""
	ncpu=$(getconf _NPROCESSORS_ONLN)
	[ -n "$full" ] &&
		jobs+=("--name=rand-4k 0 --rw=randwrite --bs=4k --iodepth=16 --size=${small:-$((SIZE_MB * 1024))}k")
	jobs+=("--name=seq-128k $SIZE_MB --rw=write --bs=128k --iodepth=8")
	jobs+=("--name=rand-mixed-bs $((2 * SIZE_MB)) --rw=randwrite --bsrange=512-1m --iodepth=4")
	[ -n "$full" ] &&
		jobs+=("--name=seq-512-qd1 $((3 * SIZE_MB)) --rw=write --bs=512 --iodepth=1 --size=$((${small:-1024} / 4))k")
	# A job on every CPU at once, each bound to its own and writing its own
	# region: the target's contexts set up and torn down on every CPU.
	jobs+=("--name=every-cpu $((4 * SIZE_MB)) --rw=randwrite --bsrange=4k-256k --iodepth=8 --numjobs=$ncpu --offset_increment=${SIZE_MB}M --cpus_allowed=0-$((ncpu - 1)) --cpus_allowed_policy=split")
	fio_run "${jobs[@]}"
	say "fio every-cpu: $ncpu jobs, one on each CPU, verified"
	# What seq-128k wrote, read back in a new fio run: the data survived.
	[ -n "$full" ] &&
		fio_run "--name=seq-128k-reread $SIZE_MB --rw=write --bs=128k --iodepth=8 --verify_only"
	return 0
}

# splat_check: no WARNING, BUG or Oops in the kernel log.
splat_check() {
	if dmesg | grep -E '^(\[[ 0-9.]*\] )?(WARNING:|BUG:|Oops|general protection|kernel BUG)'; then
		die "kernel splat in dmesg"
	fi
}
