# Guest script for make bench (stock Debian kernel), on rxe0:
#  RWX_BENCH_COST=1   rwx_bench, the cost of one RW context (with
#                     RWX_BENCH_FIXED_OPS=N: N operations a round, for a
#                     guest under -icount);
#  RWX_BENCH_DATA=1   the NVMe-oF data path (tools/guest/bench-nvmeof.sh);
#  RWX_BENCH_USERSPACE=1  librdmarwx against perftest and librdmacm's
#                     inline helpers (tools/guest/bench-userspace.sh).
# RWX_BENCH_MR=1 puts both engines on the MR path (ib_core.force_mr=1
# gives the QP its MR pool; the engine's force_mr=1), else the SGE path;
# RWX_BENCH_SIG=1 makes rwx_bench's contexts signature contexts, on a test
# device (rwx_testdev) with integrity handover.
set -eu
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
M=$RWX_MODDIR
mr=${RWX_BENCH_MR:-0}

modprobe ib_core force_mr="$mr"
modprobe rdma_cm
# The figures in the README were measured at rxe's path MTU 1024.
RWX_MTU=1500 rdma_setup rxe
if [ "${RWX_BENCH_COST:-0}" = 1 ]; then
	insmod "$M/drivers/testing/loopback/rwx_loopback.ko"
	insmod "$M/drivers/testing/testdev/rwx_testdev.ko"
	insmod "$M/drivers/rwx/rdma_rwx.ko" force_mr="$mr"
	echo "bench: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	insmod "$M/drivers/bench/rwx_bench.ko" addr=192.0.2.1 \
		fixed_ops="${RWX_BENCH_FIXED_OPS:-0}" sig="${RWX_BENCH_SIG:-0}"
	# A profiled run (tools/qemu/insn-profile.c): where the code was.
	[ "${RWX_BENCH_PROFILE:-0}" = 1 ] && cat /proc/kallsyms > "$RWX_OUT/kallsyms"
	rmmod rwx_bench rwx_testdev rwx_loopback rdma_rwx
fi
if [ "${RWX_BENCH_TRACE:-0}" = 1 ]; then
	T=/sys/kernel/tracing
	mountpoint -q $T || mount -t tracefs nodev $T
	insmod "$M/drivers/testing/loopback/rwx_loopback.ko"
	insmod "$M/drivers/testing/testdev/rwx_testdev.ko"
	echo "bench: clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	# Only the engine differs between the variants: rwx_bench, the
	# loopback and the test device are the normal build's (the NOTRACE
	# engine exports the symbols they use with the same CRCs).
	order="out off on"
	for round in $(seq "${RWX_BENCH_TRACE_ROUNDS:-1}"); do
		for variant in $order; do
			engine=$M/drivers/rwx/rdma_rwx.ko
			[ "$variant" = out ] &&
				engine=$RWX_NOTRACE_MODDIR/drivers/rwx/rdma_rwx.ko
			echo "bench: trace $variant $round: $engine"
			insmod "$engine" force_mr="$mr"
			if [ "$variant" = on ]; then
				echo > $T/trace
				echo 1 > $T/events/rwx/enable
			fi
			dmesg -C
			insmod "$M/drivers/bench/rwx_bench.ko" addr=192.0.2.1 \
				fixed_ops="${RWX_BENCH_FIXED_OPS:-0}" \
				sig="${RWX_BENCH_SIG:-0}"
			if [ "$variant" = on ]; then
				echo 0 > $T/events/rwx/enable
				# What the ring buffer took: the events were on.
				cat $T/per_cpu/cpu*/stats | awk -v r="$round" '
					$1 == "entries:" {e += $2} $1 == "overrun:" {o += $2}
					END {print "bench: trace on " r " events " e + o \
						" (" o " overwritten)"}'
				echo > $T/trace
			fi
			dmesg | grep -a 'rwx_bench: cost ' | sed 's/^\[ *[0-9.]*\] //' |
				sed "s/^/bench: trace $variant $round /"
			rmmod rwx_bench rdma_rwx
		done
		order=$(echo "$order" | tr ' ' '\n' | tac | tr '\n' ' ')
	done
	rmmod rwx_testdev rwx_loopback
fi
if [ "${RWX_BENCH_DATA:-0}" = 1 ]; then
	. "$RWX_ROOT/tools/guest/bench-nvmeof.sh"
	RWX_ENGINE_MODULE=$M/drivers/rwx/rdma_rwx.ko
	RWX_ENGINE_PARAMS=force_mr=$mr
	bench_nvmeof "$([ "$mr" = 1 ] && echo mr || echo sge)"
fi
if [ "${RWX_BENCH_USERSPACE:-0}" = 1 ]; then
	. "$RWX_ROOT/tools/guest/bench-userspace.sh"
	bench_userspace || { echo "bench: userspace failed"; exit 1; }
fi
echo "bench: done"
