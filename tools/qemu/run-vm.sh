#!/usr/bin/env bash
# Boot a kernel under QEMU (TCG) with the host's root shared read-only,
# run one script in the guest and return its exit status.
#
# usage: run-vm.sh -k BZIMAGE -i INITRAMFS -s SCRIPT -o OUTDIR
#                  [-t TIMEOUT_S] [-a KERNEL_ARGS] [-e VAR=VALUE]...
#                  [-n NETDEV -m MAC]
#
# Without -n the guest has no NIC.  With -n it has one virtio NIC with
# the MAC address MAC on QEMU's netdev NETDEV (its options, without an
# id), e.g. the "dgram" wire of two guests (tools/pair.sh).
#
# OUTDIR receives console.log (serial console: kernel and script output)
# and whatever the script writes to $RWX_OUT.  Exit status: the script's,
# or 124 when the guest did not finish within TIMEOUT_S, or 125 when it
# died before reporting one (panic, crash), or 126 when it twice did not
# boot as far as its script (below).  QEMU never outlives this script: it
# is killed on timeout, on any signal, and (via PDEATHSIG) even when this
# script itself is killed.
#
# A boot that fails before the guest starts its script has run none of the
# project's code: QEMU 10.0.2 itself aborting under multi-threaded TCG
# ("iotlb_to_section: Assertion `section_index < d->map.sections_nb'
# failed", during the guest's PCI enumeration), or the guest stalling
# ("rcu: INFO: rcu_preempt detected stalls") before it says how many CPUs
# came up, seen about once in 50 boots on a loaded host.  Such a boot is
# booted again, once: its logs stay as console.boot1.log and
# qemu.boot1.log, and boot-retried says why.  The guest must reach its
# script within RWX_BOOT_GUARD seconds (default 240; boots take 10-60 s)
# when that is shorter than TIMEOUT_S.  RWX_BOOT_FAIL_FIRST=1 (a harness
# self-test) gives the first boot no kernel, so that QEMU exits at once.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
timeout_s=600
append=""
envs=()
kernel="" initrd="" script="" outdir="" netdev="" mac=""
while getopts "k:i:s:o:t:a:e:n:m:" opt; do
	case $opt in
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	s) script=$OPTARG ;;
	o) outdir=$OPTARG ;;
	t) timeout_s=$OPTARG ;;
	a) append="$append $OPTARG" ;;
	e) envs+=("$OPTARG") ;;
	n) netdev=$OPTARG ;;
	m) mac=$OPTARG ;;
	*) echo "usage: see the head of $0" >&2; exit 2 ;;
	esac
done
for v in kernel initrd script outdir; do
	[ -n "${!v}" ] || { echo "run-vm: -${v:0:1} is required" >&2; exit 2; }
done
script=$(realpath "$script")
nic=(-nic none)
if [ -n "$netdev" ]; then
	[ -n "$mac" ] || { echo "run-vm: -n needs -m MAC" >&2; exit 2; }
	nic=(-netdev "$netdev,id=wire" -device "virtio-net-pci,netdev=wire,mac=$mac")
fi

mkdir -p "$outdir"
outdir=$(realpath "$outdir")
log=$outdir/console.log
: > "$log"
# The guest sees the host's / except /tmp (its own tmpfs): run a copy of
# the script from the output share, and tell it where the original was.
cp "$script" "$outdir/guest-script.sh"
{
	echo "export RWX_SCRIPT=/tmp/out/guest-script.sh"
	printf 'export RWX_SCRIPT_DIR=%q\n' "$(dirname "$script")"
	# The guest hides the host's /tmp: name the directories it must see.
	printf 'export RWX_HOST_DIRS=%q\n' "$(realpath "$here/../..") $(dirname "$script")"
	for e in "${envs[@]}"; do printf 'export %q\n' "$e"; done
} > "$outdir/env.sh"

# The qemu process's name: make check gives its guests one of their own,
# so that it can tell them from anybody else's.
vm_name=${RWX_VM_NAME:-rwxvm}

qemu_pid=""
cleanup() {
	if [ -n "$qemu_pid" ] && kill -0 "$qemu_pid" 2>/dev/null; then
		kill -KILL "$qemu_pid" 2>/dev/null
		wait "$qemu_pid" 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM HUP

# The guest's clock: under TCG the guest's TSC counts at the host's rate
# (QEMU reads the host's TSC), but the guest can only calibrate it against
# the emulated PIT, which fails on a loaded host ("Unable to calibrate
# against PIT"), and its clocksource watchdog checks it against jiffies,
# which lose ticks on a loaded host and get the TSC marked unstable.  Either
# leaves the guest on the jiffies clocksource.  When the host kernel knows
# its TSC rate (tsc_known_freq: cpu MHz is that rate), pass it on
# (tsc_early_khz) and trust the TSC (tsc=reliable: no watchdog).
tsc_args=""
if grep -qm1 '^flags.* tsc_known_freq' /proc/cpuinfo; then
	tsc_args=" tsc_early_khz=$(awk -F': *' '/^cpu MHz/ {printf "%d", $2 * 1000; exit}' /proc/cpuinfo) tsc=reliable"
fi
# RWX_QEMU_ICOUNT=1 (make bench): the guest's clock counts instructions,
# one nanosecond each (-icount shift=0), so a time measured in the guest
# is an instruction count, the same on every run and every host.  icount
# needs a single TCG thread, so one CPU; sleep=off skips idle time at
# once.  The guest's TSC then counts those nanoseconds: 1 GHz.
# Every other guest runs on RWX_QEMU_SMP vCPUs (default 2, the machine's
# cores), one TCG thread each.  That needs QEMU 10 (tools/deps.sh): 7.2's
# multi-threaded TCG ran code one vCPU had patched on the other stale, an
# int3 the kernel had already patched away ("Oops: int3", text_poke_bp()),
# at boot and under livepatch transitions; tools/guest/code-patching.sh,
# a harness self-test, checked it; 10.0.2 still did it, rarely: in one of
# two 6.12 debug guests each switching the livepatch takeover 50 times
# (a thousand call sites rewritten a switch), and twice in make check's
# minute of toggled tracepoints.  RWX_QEMU_TCG_THREAD=single runs both
# vCPUs in one thread, where a write to code invalidates its translations
# before any vCPU runs again: for the guests that patch code most (every
# livepatch takeover switching on 6.12, whose switches rewrite the
# cond_resched() sites, the self-test, and testdev-sets-ref-6.12, whose
# sets load and unload modules over and over: check.sh).
# The guard goes to the guest for its hang report (guest-init.sh), but not
# under -icount: the guest's clock is then not the host's.
accel="tcg,thread=${RWX_QEMU_TCG_THREAD:-multi}" smp=${RWX_QEMU_SMP:-2} icount=() guard_arg=" rwx_guard=$timeout_s"
if [ -n "${RWX_QEMU_ICOUNT:-}" ]; then
	accel="tcg,thread=single" smp=1 guard_arg=""
	icount=(-icount shift=0,sleep=off,align=off)
	tsc_args=" tsc_early_khz=1000000 tsc=reliable"
fi
# RWX_QEMU_PLUGIN=SO,ARGS: a TCG plugin, e.g. tools/qemu/insn-profile.c's
# (make bench's profile; it needs the single TCG thread of RWX_QEMU_ICOUNT).
plugin=()
[ -n "${RWX_QEMU_PLUGIN:-}" ] && plugin=(-plugin "$RWX_QEMU_PLUGIN")
# acpi=noirq: under TCG, the debug kernel's AML interpreter times out
# routing PCI interrupts and virtio never gets one, so interrupts are routed
# by the MP table; but ACPI stays on for the CPUs, as SeaBIOS's MP table
# lists the boot CPU alone (with acpi=off every guest ran on one CPU).  The
# guest says how many CPUs came up (guest-init.sh); the judgement fails a
# run with fewer than were asked for (rwx_cpus=, evaluate-run.py --cpus).
# no5lvl: -cpu max offers LA57, and on 6.1 and 6.12 identify_cpu() zeroes
# the boot CPU's feature bits before reading them again; an interrupt in that
# window runs KASAN with pgtable_l5_enabled() false, which then takes every
# 5-level direct-map address for a wild access ("BUG: KASAN: wild-memory-
# access in rcu_is_watching" from identify_cpu, seen about once in tens of
# loaded boots).  4-level paging has no such window.
# No ACPI PCI hotplug (nothing here hotplugs a PCI device): its slot
# devices in the DSDT took the debug kernel's acpi_init from about 10 s to
# 20-24 s of each boot on a loaded host (initcall_debug).
# boot_guest KERNEL: start QEMU on KERNEL (in the background, qemu_pid).
boot_guest() {
	: > "$log"
	setpriv --pdeathsig KILL -- \
	qemu-system-x86_64 -name "$vm_name,process=$vm_name" \
	-accel "$accel" "${icount[@]}" "${plugin[@]}" -cpu "${RWX_QEMU_CPU:-max}" -smp "$smp" -m 1536M \
	-global PIIX4_PM.acpi-root-pci-hotplug=off \
	-global PIIX4_PM.acpi-pci-hotplug-with-bridge-support=off \
	-display none -monitor none -no-reboot \
	-serial "file:$log" \
	-kernel "$1" -initrd "$initrd" \
	-append "console=ttyS0 panic=-1 loglevel=7 acpi=noirq no5lvl$tsc_args rwx_cpus=$smp$guard_arg rwx_init=$here/guest-init.sh$append" \
	-virtfs local,path=/,mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap \
	-virtfs local,path="$outdir",mount_tag=rwxout,security_model=none \
	"${nic[@]}" </dev/null >"$outdir/qemu.log" 2>&1 &
qemu_pid=$!
}

# script_started: the guest said how many CPUs came up (guest-init.sh),
# which it does just before it runs the script.
script_started() {
	grep -q 'rwx-guest: [0-9]* of [0-9?]* CPUs online' "$log"
}

# wait_guest: until QEMU exits (0), the run's time is out (124), or the
# boot guard is out with the script not yet started (126).
wait_guest() {
	local start now started=0
	start=$(date +%s)
	[ "$boot_guard" -lt "$timeout_s" ] || started=1
	while kill -0 "$qemu_pid" 2>/dev/null; do
		now=$(date +%s)
		[ "$now" -ge $((start + timeout_s)) ] && return 124
		if [ "$started" = 0 ] && [ "$now" -ge $((start + boot_guard)) ]; then
			script_started || return 126
			started=1
		fi
		sleep 1
	done
	return 0
}

boot_guard=${RWX_BOOT_GUARD:-240}
rm -f "$outdir/boot-retried" "$outdir"/console.boot1.log "$outdir"/qemu.boot1.log
for boot in 1 2; do
	boot_kernel=$kernel
	[ "$boot" = 1 ] && [ -n "${RWX_BOOT_FAIL_FIRST:-}" ] && boot_kernel=/dev/null
	boot_guest "$boot_kernel"
	wait_guest
	status=$?
	cleanup
	qemu_pid=""
	[ "$boot" = 2 ] && break
	if [ "$status" = 126 ]; then
		why="the guest had not started its script after ${boot_guard} s"
	elif [ "$status" = 0 ] && ! script_started; then
		why="QEMU exited before the guest started its script: $(grep -v '^\s*$' "$outdir/qemu.log" | tail -n 1 | cut -c1-200)"
	else
		break
	fi
	mv "$log" "$outdir/console.boot1.log"
	mv "$outdir/qemu.log" "$outdir/qemu.boot1.log"
	echo "boot 1 failed, booted again: $why" > "$outdir/boot-retried"
	echo "run-vm: boot 1 failed ($why): booting again" >&2
done
# For the judgement (evaluate-run.py --cpus), written once the guest, which
# can write to $outdir, is gone.
echo "$smp" > "$outdir/cpus-asked"

case $status in
124)
	echo "run-vm: guest timed out after ${timeout_s}s (see $log)" >&2
	exit 124 ;;
126)
	echo "run-vm: the guest did not start its script within ${boot_guard}s, twice (see $log)" >&2
	exit 126 ;;
esac
rc=$(sed -n 's/^RWX-GUEST-EXIT: \([0-9]*\).*/\1/p' "$log" | tail -n 1)
if [ -z "$rc" ]; then
	echo "run-vm: guest died without reporting an exit status (see $log)" >&2
	tail -n 30 "$log" >&2
	exit 125
fi
exit "$rc"
