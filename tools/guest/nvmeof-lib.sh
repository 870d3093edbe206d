# Sourced by guest scripts: an NVMe-oF target (nvmet-rdma) and host
# (nvme-rdma) on one guest, configured through configfs and nvme-cli.
NVMEOF_NQN=nqn.2026-11.org.example:rwx-test
NVMEOF_HOSTNQN=nqn.2026-11.org.example:rwx-host
NVMEOF_PORT=4420
NVMET_CFG=/sys/kernel/config/nvmet
. "$RWX_ROOT/tools/guest/engine-lib.sh"

nvmeof_fail() {
	echo "nvmeof: FAILED $*"
	exit 1
}

# Modules but the target's: the kernel's own from RWX_MODROOT or the host's
# /lib/modules, the engine from its path.  Options of modules (ib_core.force_mr=1) come
# from the kernel command line.
nvmeof_modules() {
	bind_modroot || return 1
	modprobe -q configfs
	grep -q ' /sys/kernel/config ' /proc/mounts ||
		mount -t configfs configfs /sys/kernel/config || return 1
	modprobe rdma_cm || return 1
	modprobe null_blk nr_devices=1 memory_backed=1 gb=1 bs=512 || return 1
	modprobe nvmet || return 1
	if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
		# shellcheck disable=SC2086
		insmod "$RWX_ENGINE_MODULE" ${RWX_ENGINE_PARAMS:-} || return 1
	fi
	if [ -n "${RWX_TAKEOVER_MISMATCH_MODULE:-}" ]; then
		takeover_refused "$RWX_TAKEOVER_MISMATCH_MODULE" || return 1
	fi
	if [ -n "${RWX_TAKEOVER_MODULE:-}" ]; then
		takeover_on || return 1
	fi
	modprobe nvme-rdma || return 1
	# ib_core's force_mr is not in sysfs: the command line sets it.
	if grep -qw ib_core.force_mr=1 /proc/cmdline; then
		echo "nvmeof: ib_core force_mr=1: QPs get an MR pool"
	fi
}

# nvmeof_target_load [KO]: the engine-built nvmet-rdma.ko at KO, or
# without one the kernel's own (ib_core's rdma_rw).
nvmeof_target_load() {
	if [ -n "$1" ]; then
		insmod "$1" || return 1
		echo "nvmeof: target nvmet-rdma on the engine ($(modinfo -F rdma_rwx "$1"))"
	else
		modprobe nvmet-rdma || return 1
		echo "nvmeof: target nvmet-rdma of the kernel (ib_core rdma_rw)"
	fi
}

nvmeof_target_unload() {
	rmmod nvmet_rdma || { echo "nvmeof: rmmod nvmet_rdma failed"; return 1; }
}

nvmeof_modules_unload() {
	local m
	for m in nvme_rdma nvme_fabrics nvmet_rdma nvmet null_blk scsi_debug; do
		[ -d /sys/module/$m ] || continue
		rmmod $m || { echo "nvmeof: rmmod $m failed"; return 1; }
	done
	if [ -e "$RWX_KLP" ]; then
		takeover_off || return 1
	fi
	if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
		engine_live_check || return 1
		rmmod rdma_rwx || { echo "nvmeof: rmmod rdma_rwx failed"; return 1; }
	fi
}

# The namespace's disk: memory-backed null_blk, or with RWX_PI=1 a
# scsi_debug disk with T10-PI (pi_disk), 80 MiB; sets NVMEOF_NS_DEV,
# NVMEOF_NS_WHAT.
nvmeof_ns_disk() {
	NVMEOF_NS_DEV=/dev/nullb0 NVMEOF_NS_WHAT="memory-backed null_blk"
	[ "${RWX_PI:-0}" = 1 ] || return 0
	pi_disk 80 || return 1
	NVMEOF_NS_DEV=$PI_DISK NVMEOF_NS_WHAT="scsi_debug, T10-PI type 1 with DIX"
}

# nvmeof_target_up ADDR: subsystem with namespace 1 on the namespace's disk
# (with RWX_PI=1 protection information enabled on it and on the port),
# port on ADDR:4420 over RDMA.
nvmeof_target_up() {
	local subsys=$NVMET_CFG/subsystems/$NVMEOF_NQN
	nvmeof_ns_disk || return 1
	mkdir "$subsys" &&
	echo 1 > "$subsys/attr_allow_any_host" &&
	{ [ "${RWX_PI:-0}" = 0 ] || echo 1 > "$subsys/attr_pi_enable"; } &&
	mkdir "$subsys/namespaces/1" &&
	echo -n "$NVMEOF_NS_DEV" > "$subsys/namespaces/1/device_path" &&
	echo 1 > "$subsys/namespaces/1/enable" &&
	nvmeof_port_add "$1" || return 1
	echo "nvmeof: target $NVMEOF_NQN, namespace 1 = $NVMEOF_NS_DEV ($(($(blockdev --getsize64 "$NVMEOF_NS_DEV") >> 20)) MiB, $NVMEOF_NS_WHAT), port rdma $1:$NVMEOF_PORT${RWX_PI:+ with PI}"
}

# nvmeof_port_add ADDR: the subsystem served on port 1, ADDR:4420 over RDMA
# (nvmeof_port_remove takes it away).
nvmeof_port_add() {
	local port=$NVMET_CFG/ports/1
	mkdir "$port" &&
	echo rdma > "$port/addr_trtype" &&
	echo ipv4 > "$port/addr_adrfam" &&
	echo "$1" > "$port/addr_traddr" &&
	echo $NVMEOF_PORT > "$port/addr_trsvcid" &&
	{ [ -z "${RWX_INLINE_DATA:-}" ] || echo "$RWX_INLINE_DATA" > "$port/param_inline_data_size"; } &&
	{ [ "${RWX_PI:-0}" = 0 ] || echo 1 > "$port/param_pi_enable"; } &&
	ln -s "$NVMET_CFG/subsystems/$NVMEOF_NQN" "$port/subsystems/$NVMEOF_NQN"
}

# nvmeof_pi_checks IBDEV: protection information end to end (RWX_PI=1):
# the controller has it, the host's namespace carries T10-DIF type 1, the
# engine (when it serves the target) set up signature contexts; then a
# guard damaged on the wire (the test device's pi_wire fault) on a host
# write and on a host read is caught by the receiving integrity MR and
# reported by the ULP that owns it (nvmet-rdma, nvme-rdma: "PI error
# found"), and the data moved by the retried command verifies.
nvmeof_pi_checks() {
	local ibdev=$1 ns=${NVMEOF_BDEV##*/} format sig errs blk=/tmp/pi-blk
	dmesg | grep -q "for NQN $NVMEOF_HOSTNQN T10-PI is enabled" || {
		echo "nvmeof: PI: the controller was made without T10-PI"
		return 1
	}
	read -r format < "/sys/block/$ns/integrity/format"
	if [ "$format" != T10-DIF-TYPE1-CRC ]; then
		echo "nvmeof: PI: the host's $ns has integrity '$format', not T10-DIF-TYPE1-CRC"
		return 1
	fi
	if [ -n "${RWX_ENGINE_MODULE:-}" ] && [ -n "${RWX_NVMET_RDMA:-}${RWX_TAKEOVER_MODULE:-}" ]; then
		sig=$(engine_counter init_sig)
		if [ "${sig:-0}" -le 0 ]; then
			echo "nvmeof: PI: the engine set up no signature context"
			return 1
		fi
		echo "nvmeof: PI: $sig signature contexts by the engine"
	fi
	head -c 65536 /dev/urandom > $blk
	errs=$(dmesg | grep -c 'PI error found type 0')
	echo "$ibdev pi_wire 1" > /sys/kernel/debug/rwx_testdev/inject || return 1
	dd if=$blk of="$NVMEOF_BDEV" bs=64k seek=100 oflag=direct status=none || {
		echo "nvmeof: PI: the write with a damaged guard was not retried to success"
		return 1
	}
	echo "$ibdev pi_wire 1" > /sys/kernel/debug/rwx_testdev/inject || return 1
	if ! dd if="$NVMEOF_BDEV" bs=64k skip=100 count=1 iflag=direct status=none | cmp -s - $blk; then
		echo "nvmeof: PI: the block written and read back through damaged guards differs"
		return 1
	fi
	errs=$(($(dmesg | grep -c 'PI error found type 0') - errs))
	if [ "$errs" != 2 ]; then
		echo "nvmeof: PI: $errs guard errors reported for 2 damaged wire images:"
		dmesg | grep 'PI error' | tail -4
		return 1
	fi
	echo "nvmeof: PI: T10-DIF-TYPE1-CRC on $ns; a guard damaged on the wire reported by the target (host write) and the host (host read), each retried, data intact"
}

nvmeof_target_down() {
	local port=$NVMET_CFG/ports/1 subsys=$NVMET_CFG/subsystems/$NVMEOF_NQN
	if [ -L "$port/subsystems/$NVMEOF_NQN" ]; then
		rm "$port/subsystems/$NVMEOF_NQN" || return 1
	fi
	if [ -d "$port" ]; then
		rmdir "$port" || return 1
	fi
	if [ -d "$subsys" ]; then
		echo 0 > "$subsys/namespaces/1/enable"
		rmdir "$subsys/namespaces/1" && rmdir "$subsys" || return 1
	fi
}

# nvmeof_host_connect ADDR [nvme connect options]: connect and wait for the
# namespace's block device; sets NVMEOF_BDEV.
nvmeof_host_connect() {
	local addr=$1
	shift
	nvme connect -t rdma -a "$addr" -s $NVMEOF_PORT -n $NVMEOF_NQN \
		-q $NVMEOF_HOSTNQN "$@" || return 1
	for _ in $(seq 100); do
		NVMEOF_BDEV=$(nvmeof_bdev)
		[ -b "$NVMEOF_BDEV" ] && break
		sleep 0.2
	done
	if [ ! -b "$NVMEOF_BDEV" ]; then
		echo "nvmeof: no block device for $NVMEOF_NQN (found '$NVMEOF_BDEV'):"
		ls -l /sys/block /dev/nvme* 2>&1
		return 1
	fi
	echo "nvmeof: host connected: $NVMEOF_BDEV ($(($(blockdev --getsize64 "$NVMEOF_BDEV") >> 20)) MiB, $(blockdev --getss "$NVMEOF_BDEV") B blocks)"
}

# The namespace's block device, once a controller of our subsystem is up:
# its first namespace (nvmeXn1; with native multipath nvmeXcYn1 is a
# hidden path under it).
nvmeof_bdev() {
	local ctrl ns
	for ctrl in /sys/class/nvme/nvme*; do
		[ "$(cat "$ctrl/subsysnqn" 2>/dev/null)" = $NVMEOF_NQN ] || continue
		for ns in /sys/block/nvme*n1; do
			# nvmeXcYn1 is a hidden path of a multipath head
			case ${ns##*/} in nvme*c*) continue ;; esac
			[ -e "$ns" ] && echo "/dev/${ns##*/}" && return
		done
	done
}

nvmeof_host_disconnect() {
	nvme disconnect -n $NVMEOF_NQN > /dev/null || { echo "nvmeof: nvme disconnect failed"; return 1; }
}

# nvmeof_fio JOBFILE [LABEL]: run fio on the namespace; prints one line per
# job, and with LABEL a "result" line for tools that compare runs.
nvmeof_fio() {
	local out=/tmp/fio.json rc
	(cd /tmp && fio --eta=never --output-format=json --output=$out \
		--filename="$NVMEOF_BDEV" "$1")
	rc=$?
	python3 "$RWX_ROOT/tools/guest/fio-summary.py" "$out" ${2:+"$2"} || rc=1
	[ $rc = 0 ] || echo "nvmeof: fio failed (exit $rc)"
	return $rc
}

# nvmeof_fault_run FAULT DEV: fio load on the namespace, then break the
# target under it - "link-delete" removes the RDMA device, "port-remove"
# the target's port.  The host must see I/O errors within a bounded time
# (it was connected with a short ctrl-loss-tmo), not hang.
nvmeof_fault_run() {
	case $1 in
	link-delete) fault_under_load "$NVMEOF_BDEV" "rdma link delete ${2}0" rdma link delete "${2}0" ;;
	port-remove) fault_under_load "$NVMEOF_BDEV" "removing the target port" nvmeof_port_remove ;;
	*) echo "nvmeof: unknown fault $1"; return 1 ;;
	esac
}

# nvmeof_device_fault FAULT IBDEV: the test device's FAULT (wr-error: a WR
# of the target's completes in error, its queue goes to the error state;
# map-fail: an MR mapping of the target's is refused) at the target's 16th
# such event from now, so mid-way through a fio verify run (armed for the
# target's PDs alone: the host shares the device): the fault must fire and
# be handled - the host reconnects after a WR error; a refused mapping
# where MRs are only preferred (RWX_EXPECT_PATHS sge+mr: max_sgl_rd) makes
# the engine fall back to SGEs, where they are required (mr) it fails the
# context, nvmet-rdma returns an error status and the host retries - and
# fio verifies every block.
nvmeof_device_fault() {
	local fault=${1/-/_} ibdev=$2 inject=/sys/kernel/debug/rwx_testdev/inject
	local errs fallbacks reconnects log=/tmp/fio-devfault.log
	errs=$(engine_errors)
	fallbacks=$(engine_counter sge_fallback)
	reconnects=$(dmesg | grep -c "Successfully reconnected")
	echo "$ibdev $fault 16 nvmet_rdma" > $inject || { echo "nvmeof: arming $fault failed"; return 1; }
	if ! (cd /tmp && fio --name=device-fault --filename="$NVMEOF_BDEV" --thread \
		--ioengine=libaio --direct=1 --rw=randwrite --bsrange=4k-256k --iodepth=16 \
		--size=16m --offset=64m --verify=crc32c --verify_fatal=1 --do_verify=1 > $log 2>&1); then
		echo "nvmeof: $1: fio verify failed across the fault"
		tail -n 15 $log
		return 1
	fi
	if ! grep -qx "$ibdev $fault fired" $inject; then
		echo "nvmeof: $1: the fault never fired"
		return 1
	fi
	case $fault in
	wr_error)
		reconnects=$(($(dmesg | grep -c "Successfully reconnected") - reconnects))
		[ $reconnects -ge 1 ] || { echo "nvmeof: $1: the host did not reconnect"; return 1; }
		echo "nvmeof: $1: a WR of the target's failed mid-I/O, its queue went to the error state, the host reconnected ($reconnects), fio verified 16 MiB" ;;
	map_fail)
		local want_errs=1 want_fallbacks=0 what="failed the context (1 error to nvmet-rdma), the host retried"
		[ "${RWX_EXPECT_PATHS:-}" = sge+mr ] &&
			want_errs=0 want_fallbacks=1 what="fell back to SGEs (1 context)"
		errs=$(($(engine_errors) - errs))
		fallbacks=$(($(engine_counter sge_fallback) - fallbacks))
		[ $errs = $want_errs ] && [ $fallbacks = $want_fallbacks ] || {
			echo "nvmeof: $1: $errs failed engine calls and $fallbacks SGE fallbacks, expected $want_errs and $want_fallbacks"
			return 1
		}
		echo "nvmeof: $1: the target's MR mapping refused mid-I/O, the engine $what, fio verified 16 MiB" ;;
	esac
}

nvmeof_port_remove() {
	rm "$NVMET_CFG/ports/1/subsystems/$NVMEOF_NQN" && rmdir "$NVMET_CFG/ports/1"
}

# --- more than one CPU (RWX_SMP=1): I/O queues, jobs on every CPU, the
# queue count changed on reconnect, CPUs taken offline under I/O.

# The host's controller of our subsystem (its sysfs directory).
nvmeof_ctrl() {
	local ctrl
	for ctrl in /sys/class/nvme/nvme*; do
		[ "$(cat "$ctrl/subsysnqn" 2>/dev/null)" = $NVMEOF_NQN ] && echo "$ctrl" && return
	done
}

# I/O queues of the host's controller (its queue_count less the admin queue).
nvmeof_io_queues() {
	echo $(($(cat "$(nvmeof_ctrl)/queue_count") - 1))
}

# nvmeof_expect_io_queues N WHY: the host's controller has N I/O queues.
nvmeof_expect_io_queues() {
	local q
	q=$(nvmeof_io_queues)
	[ "$q" = "$1" ] && return 0
	echo "nvmeof: smp: the host has $q I/O queues, expected $1 ($2)"
	return 1
}

# nvmeof_reconnect_with_qid_max N QUEUES: the target allows N I/O queues;
# the host reconnects and must come back live with QUEUES I/O queues
# (blktests nvme/048's queue count change on reconnect).  6.12's target
# drops the subsystem's controllers itself when attr_qid_max changes (the
# host then reconnects after its reconnect delay, and refuses a reset
# meanwhile); 6.1's does not, so the host resets its controller.
nvmeof_reconnect_with_qid_max() {
	local ctrl
	ctrl=$(nvmeof_ctrl)
	echo "$1" > "$NVMET_CFG/subsystems/$NVMEOF_NQN/attr_qid_max" || return 1
	echo 1 2>/dev/null > "$ctrl/reset_controller"
	# 60 s bound: a reconnect takes a few seconds even on a loaded host.
	for _ in $(seq 300); do
		sleep 0.2
		[ "$(cat "$ctrl/state")" = live ] && [ "$(nvmeof_io_queues)" = "$2" ] && return 0
	done
	echo "nvmeof: smp: controller $(basename "$ctrl") not live with $2 I/O queues 60 s after the target allowed $1 (state $(cat "$ctrl/state"), $(nvmeof_io_queues) I/O queues)"
	return 1
}

# nvmeof_hotplug_fio CPU: CPU taken offline and back 4 times while fio
# verify (tools/guest/fio/hotplug.fio) runs pass after pass; each time it
# stays offline until the engine has set up contexts meanwhile (I/O in
# flight across the switch).  Each pass verifies, the CPU is online at
# the end, and nothing waits unbounded.
nvmeof_hotplug_fio() {
	local online=/sys/devices/system/cpu/cpu$1/online pid cycles=0 rc=0 before
	[ -w "$online" ] || { echo "nvmeof: smp: CPU $1 cannot be taken offline (no $online)"; return 1; }
	rm -f /tmp/hotplug-done /tmp/fio-hotplug-*.log
	(pass=0
	 while [ $pass = 0 ] || [ ! -e /tmp/hotplug-done ]; do
		pass=$((pass + 1))
		nvmeof_fio "$RWX_ROOT/tools/guest/fio/hotplug.fio" > "/tmp/fio-hotplug-$pass.log" 2>&1 ||
			exit 1
	 done) &
	pid=$!
	while kill -0 $pid 2>/dev/null && [ $cycles -lt 4 ]; do
		before=$(engine_contexts)
		echo 0 > "$online" || { echo "nvmeof: smp: CPU $1 refused to go offline"; break; }
		for _ in $(seq 150); do		# 30 s
			sleep 0.2
			[ "$(engine_contexts)" -gt "$before" ] && break
		done
		echo 1 > "$online" || { echo "nvmeof: smp: CPU $1 refused to come back"; break; }
		if [ "$(engine_contexts)" -le "$before" ]; then
			echo "nvmeof: smp: no engine context set up in 30 s while CPU $1 was offline"
			break
		fi
		cycles=$((cycles + 1))
		sleep 0.5
	done
	touch /tmp/hotplug-done
	[ "$(cat "$online")" = 1 ] || echo 1 > "$online"
	if ! wait_gone $pid 300; then
		echo "nvmeof: smp: fio still running 300 s after the last CPU switch: hung"
		pkill -KILL -x fio
		rc=1
	fi
	wait $pid || rc=1
	cat /tmp/fio-hotplug-*.log
	if [ $rc != 0 ]; then
		echo "nvmeof: smp: fio verify failed while CPU $1 went offline and back"
		return 1
	fi
	if [ "$(cat "$online")" != 1 ] || [ $cycles != 4 ]; then
		echo "nvmeof: smp: CPU $1 offline and back $cycles times of 4 under I/O, online now: $(cat "$online")"
		return 1
	fi
	echo "nvmeof: smp: CPU $1 taken offline and back 4 times, engine contexts set up while it was offline each time, fio verify passed ($(ls /tmp/fio-hotplug-*.log | wc -l) passes)"
}

# nvmeof_smp_run: with every online CPU (at least 2): one I/O queue per
# CPU; fio jobs bound to every CPU at once; the queue count lowered to 1 and
# raised again by reconnects, with I/O verified each time; a CPU taken
# offline and back under verified I/O.
nvmeof_smp_run() {
	local ncpu qid_max
	ncpu=$(getconf _NPROCESSORS_ONLN)
	[ "$ncpu" -ge 2 ] || { echo "nvmeof: smp: $ncpu CPU online, 2 or more needed"; return 1; }
	export RWX_NCPU=$ncpu RWX_LAST_CPU=$((ncpu - 1))
	nvmeof_expect_io_queues "$ncpu" "one per CPU" || return 1
	echo "nvmeof: smp: $ncpu I/O queues for $ncpu CPUs"
	nvmeof_fio "$RWX_ROOT/tools/guest/fio/every-cpu.fio" || return 1
	echo "nvmeof: smp: fio verified with a job on each of $ncpu CPUs"

	qid_max=$(cat "$NVMET_CFG/subsystems/$NVMEOF_NQN/attr_qid_max")
	nvmeof_reconnect_with_qid_max 1 1 || return 1
	nvmeof_fio "$RWX_ROOT/tools/guest/fio/every-cpu.fio" || return 1
	nvmeof_reconnect_with_qid_max "$qid_max" "$ncpu" || return 1
	nvmeof_fio "$RWX_ROOT/tools/guest/fio/every-cpu.fio" || return 1
	echo "nvmeof: smp: queue count $ncpu -> 1 -> $ncpu on reconnect, fio verified each time"

	nvmeof_hotplug_fio "$RWX_LAST_CPU"
}
