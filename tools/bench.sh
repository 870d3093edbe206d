#!/usr/bin/env bash
# make bench: on Debian's stock 6.12 kernel with Soft-RoCE, on the SGE
# path and on the MR path (and, for the cost, signature contexts on the
# test device with integrity handover, rwx_testdev):
#  - cost: the CPU cost of an RW context (init, WR chain, destroy),
#    rdma_rwx against ib_core's rdma_rw_ctx in the same run, per list
#    shape and direction; ratio rdma_rwx/ib_core (below 1: the engine is
#    cheaper).  Measured twice under QEMU's -icount, where the guest's
#    clock counts instructions (deterministic: the two runs must agree),
#    and once under the normal clock, for reference; the first -icount
#    run of each path with tools/qemu/insn-profile.so attached, which
#    counts the instructions of each engine's rounds per function (the
#    per-function tables, tools/insn-profile.py); and, under -icount,
#    what the engine's trace events cost: rwx_bench with the engine built
#    with its events compiled out (RWX_NOTRACE=1, build/mod-6.12-notrace),
#    compiled in and off (the normal module) and on (every rwx:* event
#    into the ring buffer), one after the other in one guest per path;
#  - data: the NVMe-oF data path, fio through the engine-built nvmet-rdma
#    and through the distro's, alternating round by round; medians and
#    the ratio engine/ib_core (above 1: the engine moved more);
#  - userspace (once, not per path): librdmarwx against its anchors, under
#    -icount, posting through ibv_post_send and through ibv_wr_* builders:
#    rwx_perf against perftest's ib_write_bw / ib_read_bw /
#    ib_send_bw with the same settings, each client run timed from
#    outside at ITERS and 2 x ITERS iterations (the difference is the
#    cost of ITERS), the tools alternating round by round; medians and
#    the ratio rwx_perf/perftest (above 1: rwx_perf moved more); and one
#    rdma_post_write / rdma_post_send call of the library against
#    librdmacm's inline helper (userspace/bench/rwx_postbench): callgrind's
#    instructions per call and the time per call, ratio library/inline.
# A benchmark, not a test: nothing is asserted on time.  Under TCG
# absolute figures are emulated; compare the ratios.
#   RWX_BENCH_PARTS   "cost data userspace" (default), or any of them
#   RWX_BENCH_ROUNDS (default 5), RWX_BENCH_RUNTIME (s per fio run, default 4)
#   RWX_BENCH_DATA_ICOUNT=1  the data path under -icount too: IOPS in guest
#                     time, which repeat to within 1 % round to round
#                     (about 4x slower to run)
#   RWX_BENCH_WORKLOADS  the data path's fio workloads, RW:BS ... (default
#                     randread:4k randwrite:4k read:128k write:128k)
#   RWX_BENCH_SMOKE=1 make check's run: the SGE path and signature
#                     contexts only, one short icount cost run each, one
#                     short round of the trace events' cost (SGE path), one
#                     short data round and one short userspace round
#                     (64 B); checks that the pieces work and the tables
#                     come out, nothing more
#   RWX_BENCH_STEP    all (default), prepare (build what the guests need,
#                     then stop) or run (take it as built)
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RWX_ROOT
. "$RWX_ROOT/tools/lib.sh"
. "$RWX_ROOT/tools/vm-suite.sh"

# Operations per round under -icount (rwx_bench's fixed_ops).
BENCH_FIXED_OPS=16
# The per-function tables: list lengths (WRITE, offset 0).
profile_shapes=1,16,256
paths="sge mr sig" icount_runs="1 2" clock_run=1
# The trace events' cost: the paths, and rounds of the three variants
# (the order reversed every other round).
trace_paths="sge mr sig" trace_rounds=2
# The userspace part: SIZE:ITERS pairs, rwx_postbench's rounds and
# batches per round, callgrind's batches.
userspace_sizes="64:16000 65536:400" post_rounds=15 post_batches=32 cg_batches=8
if [ "${RWX_BENCH_SMOKE:-0}" = 1 ]; then
	BENCH_FIXED_OPS=2 paths="sge sig" icount_runs=1 clock_run=0
	profile_shapes=1
	trace_paths=sge trace_rounds=1
	userspace_sizes="64:2000" post_rounds=1 post_batches=2 cg_batches=1
	: "${RWX_BENCH_ROUNDS:=1}" "${RWX_BENCH_RUNTIME:=1}"
fi
parts=${RWX_BENCH_PARTS:-cost data userspace}

# What the guests need: the modules, the profile plugin, nvmet-rdma and
# the userspace binaries.  make check builds them first and runs the bench
# beside other guests, whose modules a rebuild must not replace.
prepare_bench() {
	prepare_stock_612 || return 1
	case " $parts " in *" cost "*)
		# The engine with its trace events compiled out, for their cost.
		"$RWX_ROOT/tools/build-module.sh" "$(headers_612)" \
			"$RWX_BUILD/mod-6.12-notrace" RWX_NOTRACE=1 || return 1
		mkdir -p "$RWX_BUILD/qemu"
		gcc -O2 -Wall -Wextra -Werror -shared -fPIC -fvisibility=hidden \
			-o "$RWX_BUILD/qemu/insn-profile.so" \
			"$RWX_ROOT/tools/qemu/insn-profile.c" || return 1
	esac
	case " $parts " in *" data "*)
		"$RWX_ROOT/tools/build-ulps.sh" "$(headers_612)" "$RWX_BUILD/mod-6.12" \
			"$RWX_BUILD/ulps-6.12" nvmet-rdma > /dev/null || return 1
	esac
	case " $parts " in *" userspace "*)
		make --no-print-directory -C "$RWX_ROOT/userspace" all bench \
			> "$RWX_BUILD/userspace-bench-build.log" 2>&1 || {
			tail -n 20 "$RWX_BUILD/userspace-bench-build.log"
			return 1
		}
	esac
}
step=${RWX_BENCH_STEP:-all}
if [ "$step" != run ]; then
	prepare_bench || exit 1
fi
[ "$step" = prepare ] && exit 0
release=$(stock_612_release)
status=0

# bench_guest NAME MR [run-vm.sh options...]: one bench guest; echoes its
# console log's bench lines, fails on a failed judgement.
bench_guest() {
	local name=$1 mr=$2 out=$RWX_BUILD/vm/$1
	shift 2
	echo "bench: $name, Debian $release under QEMU"
	vm_run "$name" "/boot/vmlinuz-$release" "$(initramfs_for "$release")" \
		"$RWX_ROOT/tools/guest/bench.sh" 1800 -e "RWX_BENCH_MR=$mr" \
		-e "RWX_MODDIR=$RWX_BUILD/mod-6.12" \
		-e "RWX_ULPDIR=$RWX_BUILD/ulps-6.12" "$@" > /dev/null
	grep -aE 'rwx_bench: |^bench: ' "$out/console.log" |
		grep -vE '^bench: (data [a-z]* [a-z]*-|userspace (perf|post (time|profile)) |trace [a-z]+ [0-9]+ rwx_bench: )' |
		sed 's/^\[ *[0-9.]*\] //'
	if grep -q $'^fail' "$out/judgement"; then
		awk -F'\t' '$1 == "fail" {print "bench FAILED: " $2 ": " $3}' \
			"$out/judgement"
		return 1
	fi
}

summary=() profiles=()
for path in $paths; do
	mr=$([ "$path" = mr ] && echo 1 || echo 0)
	sig=$([ "$path" = sig ] && echo 1 || echo 0)
	case " $parts " in *" cost "*)
		logs=()
		for run in $icount_runs; do
			out=$RWX_BUILD/vm/bench-cost-$path-icount$run plugin="" profile=0
			# The plugin leaves the guest's instructions as they are.
			if [ "$run" = 1 ]; then
				plugin=$RWX_BUILD/qemu/insn-profile.so,out=$out/profile
				profile=1 profiles+=("$path" "$out")
			fi
			RWX_QEMU_ICOUNT=1 RWX_QEMU_PLUGIN=$plugin \
				bench_guest "bench-cost-$path-icount$run" "$mr" \
				-e RWX_BENCH_COST=1 -e "RWX_BENCH_FIXED_OPS=$BENCH_FIXED_OPS" \
				-e "RWX_BENCH_SIG=$sig" -e "RWX_BENCH_PROFILE=$profile" ||
				status=1
			logs+=("$out/console.log")
		done
		if [ "$clock_run" = 1 ]; then
			bench_guest "bench-cost-$path-clock" "$mr" -e RWX_BENCH_COST=1 \
				-e "RWX_BENCH_SIG=$sig" || status=1
			logs+=("$RWX_BUILD/vm/bench-cost-$path-clock/console.log")
		fi
		summary+=(--cost "$path" "${logs[@]}")
		case " $trace_paths " in *" $path "*)
			RWX_QEMU_ICOUNT=1 bench_guest "bench-cost-trace-$path" "$mr" \
				-e RWX_BENCH_TRACE=1 \
				-e "RWX_NOTRACE_MODDIR=$RWX_BUILD/mod-6.12-notrace" \
				-e "RWX_BENCH_TRACE_ROUNDS=$trace_rounds" \
				-e "RWX_BENCH_FIXED_OPS=$BENCH_FIXED_OPS" \
				-e "RWX_BENCH_SIG=$sig" || status=1
			summary+=(--trace "$path" \
				  "$RWX_BUILD/vm/bench-cost-trace-$path/console.log")
		esac
	esac
	# Signature contexts need a device with integrity handover, which
	# only the test device is: no NVMe-oF data path for them.
	[ "$sig" = 1 ] && continue
	case " $parts " in *" data "*)
		# run-vm.sh takes any non-empty RWX_QEMU_ICOUNT as on.
		RWX_QEMU_ICOUNT=$([ "${RWX_BENCH_DATA_ICOUNT:-0}" = 1 ] && echo 1) \
			bench_guest "bench-data-$path" "$mr" -e RWX_BENCH_DATA=1 \
			-e "RWX_BENCH_ROUNDS=${RWX_BENCH_ROUNDS:-5}" \
			-e "RWX_BENCH_RUNTIME=${RWX_BENCH_RUNTIME:-4}" \
			${RWX_BENCH_WORKLOADS:+-e "RWX_BENCH_WORKLOADS=$RWX_BENCH_WORKLOADS"} ||
			status=1
		summary+=(--data "$RWX_BUILD/vm/bench-data-$path/console.log")
	esac
done
case " $parts " in *" userspace "*)
	RWX_QEMU_ICOUNT=1 bench_guest bench-userspace-icount 0 \
		-e RWX_BENCH_USERSPACE=1 -e "UP_OPS=write read send" \
		-e "UP_SIZES=$userspace_sizes" -e "UP_ROUNDS=${RWX_BENCH_ROUNDS:-5}" \
		-e "UP_POST_ROUNDS=$post_rounds" -e "UP_POST_BATCHES=$post_batches" \
		-e "UP_CG_BATCHES=$cg_batches" || status=1
	summary+=(--userspace "$RWX_BUILD/vm/bench-userspace-icount/console.log")
esac
echo
python3 "$RWX_ROOT/tools/bench-summary.py" "${summary[@]}" || status=1
# The per-function tables: instructions per context (init, WR chain,
# destroy) by function, rdma_rwx / ib_core / floor, the harness's own
# (rwx_bench_shape, the indirect calls' thunks) in all three.
set -- "${profiles[@]}"
while [ $# -ge 2 ]; do
	echo
	echo "bench: profile $1: instructions per context by function (rwx_bench under -icount)"
	python3 "$RWX_ROOT/tools/insn-profile.py" "$2/profile" "$2/kallsyms" \
		--ops "$BENCH_FIXED_OPS" --shapes "$profile_shapes" --dir WRITE \
		--offset 0 --min 1 | sed "s/^/bench: profile $1: /" || status=1
	shift 2
done
exit $status
