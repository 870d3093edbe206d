#!/bin/bash
# rwx_perf against perftest's ib_write_bw / ib_read_bw / ib_send_bw, run
# by tools/guest/bench-userspace.sh with bash inside a root on tmpfs (no
# file I/O to the host while a run is timed).  Both tools with the same
# settings, both connecting through rdma_cm (perftest's -R), server and
# client in this guest on rxe0; each client run timed by this script's
# clock (bash's EPOCHREALTIME): from the moment its result header
# arrives to the moment its result row does (both tools print them right
# around the measured loop; start-up, connection setup and teardown stay
# outside), and for reference from its start to its exit.  Each size runs
# at ITERS and 2 x ITERS iterations: the difference of the two loop times
# is the cost of ITERS iterations, without what is constant inside the
# window (perftest's warm-up and CPU-frequency sampling, this script's
# own wake-ups).  perftest's whole run is no measure: its teardown waits
# on timers, so at 2 x ITERS it has been seen to take no longer than at
# ITERS.  Each with both posting APIs: "post" (ibv_post_send(): perftest
# --use_old_post_send, rwx_perf's QP from rdma_create_qp) and "wr"
# (ibv_wr_*: perftest's default, rwx_perf --new-send).  One line per run:
#   bench: userspace perf API OP SIZE TOOL ROUND ITERS LOOP_US CLIENT_US
# Settings (environment):
#   UP_ADDR     the server's address (192.0.2.1)
#   UP_OPS      operations ("write read send")
#   UP_SIZES    SIZE:ITERS pairs; each size runs ITERS and 2 x ITERS
#               iterations, whose difference is the cost of ITERS
#   UP_ROUNDS   rounds; odd rounds rwx_perf first, even rounds perftest
#   UP_APIS     posting APIs ("post wr")
#   UP_RWX_PERF rwx_perf's path
set -u
TX_DEPTH=128 CQ_MOD=64 RX_DEPTH=512 OUTS=16
port=20000
srv_log=/tmp/perf-server.log cli_log=/tmp/perf-client.log
fifo=/tmp/perf-client.fifo
mkfifo "$fifo" || exit 1

# listening PORT: wait (up to about 5 s) for an rdma_cm listener on PORT.
listening() {
	local i
	for ((i = 0; i < 500; i++)); do
		[[ $(rdma res show cm_id) =~ state\ LISTEN[^$'\n']*:$1( |$'\n'|$) ]] &&
			return 0
		sleep 0.01
	done
	return 1
}

# follow_client OP SERVER_PID CLIENT_PID < client output: copies the
# client's output and notes when its result header (printed right before
# the measured loop) and its result row (right after it) arrive:
# header_us, row_us.  The same for both tools:
#  - the client starts at nice 5 and gets nice 0 at its header: perftest
#    6.06's server closes the listener of its setup exchange and opens
#    another for the test's QP, and a client that connects in between is
#    rejected (and crashes), which was seen at equal priorities; with
#    three quarters of the CPU the server gets there first (a lower
#    priority still would stretch the setup handshakes, which the server
#    busy-polls);
#  - for WRITE and READ the server is stopped (SIGSTOP) from header to
#    row: it has no part in the transfers, but perftest's busy-polls its
#    rdma_cm exchange QP until the client's final handshake (which needs
#    it back), taking CPU from the client on this one-CPU guest, and even
#    at SCHED_IDLE a runnable process keeps the CPU from idling, which
#    was seen to speed the loop up by a tenth; rwx_perf's sleeps in
#    rdma_get_recv_comp().  SEND servers do the receiving and run
#    throughout.
follow_client() {
	local line passive=1
	[ "$1" = send ] && passive=0
	header_us="" row_us=""
	while IFS= read -r -t 600 line; do
		printf '%s\n' "$line"
		if [ -z "$header_us" ]; then
			[[ $line == *"#bytes"* ]] || continue
			header_us=${EPOCHREALTIME/./}
			[ $passive = 0 ] || kill -STOP "$2"
			renice -n 0 -p "$3" > /dev/null
		elif [ -z "$row_us" ] &&
		     [[ $line =~ ^\ *[0-9]+\ +[0-9]+\ +[0-9.]+ ]]; then
			row_us=${EPOCHREALTIME/./}
			[ $passive = 0 ] || kill -CONT "$2"
		fi
	done
	# End of output, or 600 s without a line: a hung client.  A server
	# still stopped would never end.
	kill "$3" 2> /dev/null
	kill -CONT "$2" 2> /dev/null
}

# perf_run TOOL API OP SIZE ITERS: one server and one timed client; sets
# loop_us to the time from the client's result header to its result row
# and client_us to the client's whole run, in microseconds, or fails.
perf_run() {
	local tool=$1 api=$2 op=$3 size=$4 iters=$5 srv cli t0 t1 i rc=0 cmd
	local args=(-p $((++port)) -s "$size" -n "$iters" -t $TX_DEPTH -Q $CQ_MOD)
	if [ "$tool" = rwx_perf ]; then
		args+=(--op "$op" -N)
		[ "$op" = send ] && args+=(-r $RX_DEPTH)
		[ "$api" = wr ] && args+=(--new-send)
		cmd=("$UP_RWX_PERF" "${args[@]}")
	else
		# -I 0: no inline data (rwx_perf posts none); the old post
		# path, ibv_post_send(), or the new, ibv_wr_* (perftest's
		# default), as librdmarwx on the QP rwx_perf makes; -N: no
		# peak (its computation is quadratic in the iterations).
		args+=(-R -d rxe0 -F -N)
		[ "$api" = post ] && args+=(--use_old_post_send)
		case $op in
		write) args+=(-I 0) ;;
		read) args+=(-o $OUTS) ;;
		send) args+=(-I 0 -r $RX_DEPTH) ;;
		esac
		cmd=("ib_${op}_bw" "${args[@]}")
	fi
	"${cmd[@]}" > "$srv_log" 2>&1 &
	srv=$!
	if ! listening "$port"; then
		kill "$srv" 2> /dev/null
		wait "$srv"
		echo "no listener on port $port" >&2
		return 1
	fi
	# Line-buffered into a FIFO: this script sleeps in read(2) while
	# the client runs (nice and stdbuf exec the client: same PID).
	t0=${EPOCHREALTIME/./}
	nice -n 5 stdbuf -oL "${cmd[@]}" "$UP_ADDR" > "$fifo" 2>&1 &
	cli=$!
	follow_client "$op" "$srv" "$cli" < "$fifo" > "$cli_log"
	wait "$cli" || rc=$?
	t1=${EPOCHREALTIME/./}
	for ((i = 0; i < 3000; i++)); do
		kill -0 "$srv" 2> /dev/null || break
		sleep 0.01
	done
	if kill -0 "$srv" 2> /dev/null; then
		kill "$srv"
		rc=1
	fi
	wait "$srv" || rc=1
	[ -n "$row_us" ] || rc=1
	if [ "$rc" != 0 ]; then
		while IFS= read -r i; do
			echo "# $tool $op client: $i"
		done < "$cli_log"
		while IFS= read -r i; do
			echo "# $tool $op server: $i"
		done < "$srv_log"
		return 1
	fi
	loop_us=$((row_us - header_us)) client_us=$((t1 - t0))
}

for ((round = 1; round <= UP_ROUNDS; round++)); do
	tools="rwx_perf perftest"
	((round % 2)) || tools="perftest rwx_perf"
	for api in ${UP_APIS:-post wr}; do
		for pair in $UP_SIZES; do
			size=${pair%%:*} iters=${pair#*:}
			for op in $UP_OPS; do
				for tool in $tools; do
					for n in "$iters" $((2 * iters)); do
						perf_run "$tool" "$api" "$op" "$size" "$n" ||
							loop_us=FAILED client_us=FAILED
						echo "bench: userspace perf $api $op $size $tool $round $n $loop_us $client_us"
					done
				done
			done
		done
	done
done
