# Guest script for the harness self-test: code patched on one CPU while the
# other runs it.  Every tracepoint enable or disable rewrites its call sites
# (static keys and static calls: text_poke_bp(), an int3 first, an IPI to
# every CPU after each step) in __schedule() and the interrupt paths, which
# both CPUs run all the time.  A CPU that runs an int3 already patched
# away oopses ("Oops: int3"), and one that misses the IPIs stalls; QEMU
# 7.2's multi-threaded TCG did both within seconds.  The engine's SMP tests,
# the livepatch takeover and every guest's boot (jump labels flip at late
# init) rest on this working.
set -eu
seconds=${RWX_PATCH_SECONDS:-60}
tracing=/sys/kernel/tracing
mountpoint -q "$tracing" || mount -t tracefs nodev "$tracing"
events="sched/sched_switch sched/sched_wakeup irq"
cpus=$(nproc)
for cpu in $(seq 0 $((cpus - 1))); do
	taskset -c "$cpu" bash -c 'while :; do :; done' &
done
(while :; do sleep 0.001; done) &
rounds=0
end=$((SECONDS + seconds))
while [ "$SECONDS" -lt "$end" ]; do
	for state in 1 0; do
		for event in $events; do
			echo "$state" > "$tracing/events/$event/enable"
		done
	done
	rounds=$((rounds + 1))
done
kill $(jobs -p)
echo "code-patching: $rounds rounds of enabling and disabling $events on $cpus CPUs in $seconds s"
# A round is a few hundred patched sites; under a working TCG a round takes
# well under a second on two vCPUs.
[ "$rounds" -ge 10 ]
