# Guest script for the harness self-test: code patched on one CPU while the
# other runs it.  Every tracepoint enable or disable rewrites its call sites
# (static keys and static calls: text_poke_bp(), an int3 first, an IPI to
# every CPU after each step) in __schedule() and the interrupt paths, which
# both CPUs run all the time.  A CPU that runs an int3 already patched
# away oopses ("Oops: int3"), and one that misses the IPIs stalls.  QEMU
# 7.2's multi-threaded TCG did both within seconds; 10.0.2's still oopses,
# rarely (twice in make check runs here), so the self-test runs the way the
# guests that patch code most do: both vCPUs in one TCG thread
# (tools/test-harness.sh, tools/qemu/run-vm.sh).
# A fixed number of rounds: a CPU that misses the IPIs stalls the script,
# which the guard (and the kernel's soft-lockup report) then fails.
set -eu
rounds_wanted=${RWX_PATCH_ROUNDS:-10}
tracing=/sys/kernel/tracing
mountpoint -q "$tracing" || mount -t tracefs nodev "$tracing"
events="sched/sched_switch sched/sched_wakeup irq"
cpus=$(nproc)
for cpu in $(seq 0 $((cpus - 1))); do
	taskset -c "$cpu" bash -c 'while :; do :; done' &
done
(while :; do sleep 0.001; done) &
start=$SECONDS
for round in $(seq "$rounds_wanted"); do
	for state in 1 0; do
		for event in $events; do
			echo "$state" > "$tracing/events/$event/enable"
		done
	done
done
kill $(jobs -p)
echo "code-patching: $round rounds of enabling and disabling $events on $cpus CPUs in $((SECONDS - start)) s"
