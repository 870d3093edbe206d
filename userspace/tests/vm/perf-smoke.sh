#!/bin/sh
# rwx_perf end to end on one host over Soft-RoCE.  Needs an rxe device on
# the interface that holds <ip>.  Usage: perf-smoke.sh <ip> [rwx_perf]
#
# Each case runs a server and a client and checks: both exit 0, the client
# prints the perftest header and one well-formed row per size, and the
# server reports the test done.  Iterations are kept small: under TCG rxe moves a few MB/s.
# The client's limit is a guard against a hang, not a speed test: the
# all-sizes case moves 32 MiB (two of each size), which on the 6.1 debug
# test kernel on two CPUs beside three other guests ran at 0.1-0.2 MB/s
# (64 MiB, as it was, ran out the old 240 s).
# The client's timeout also catches a SEND test paced by RNR NAKs (it ran
# at ~2 messages/s before the server kept more receives posted and
# shortened its RNR timer).
# Prints "ok"/"FAIL" per case; exits non-zero if any case failed.
set -u
ip=${1:?usage: perf-smoke.sh <ip> [path/to/rwx_perf]}
perf=${2:-$(dirname "$0")/../../build/tools/rwx_perf}
port=19515 fails=0
# shellcheck disable=SC1091
. "$(dirname "$0")/wait-listen.sh"
cli=/tmp/rwx_cli.$$ srv_out=/tmp/rwx_srv.$$
HEADER='#bytes +#iterations +BW peak\[MB/sec\] +BW average\[MB/sec\] +MsgRate\[Mpps\]'

# check_rows FILE ROWS ITERS: the header, then ROWS rows of ITERS
# iterations each, every figure a number.  The figures themselves are not
# checked: under TCG they depend on the machine's load.
check_rows() {
	grep -Eq "$HEADER" "$1" || { echo "no perftest header"; return 1; }
	awk -v want="$2" -v iters="$3" '
		/^ *[0-9]+ +[0-9]+ / {
			rows++
			if ($2 != iters || NF != 5 ||
			    $3 !~ /^[0-9]+\.[0-9][0-9]$/ ||
			    $4 !~ /^[0-9]+\.[0-9][0-9]$/ ||
			    $5 !~ /^[0-9]+\.[0-9]+$/) {
				print "malformed row: " $0; bad = 1
			}
		}
		END {
			if (rows != want) {
				print rows + 0 " rows, expected " want; bad = 1
			}
			exit bad
		}' "$1"
}

run() {	# name, rows, iterations, options...
	name=$1 rows=$2 iters=$3
	shift 3
	port=$((port + 1))
	"$perf" -p "$port" "$@" > "$srv_out" 2>&1 &
	srv=$!
	wait_listen "$port"	# a client that finds no server fails below
	why=""
	if ! timeout 400 "$perf" -p "$port" "$@" "$ip" > "$cli" 2>&1; then
		why="client failed"
	elif ! timeout 30 tail --pid="$srv" -f /dev/null || ! wait "$srv"; then
		why="server failed"
	elif ! grep -q 'test with client done' "$srv_out"; then
		why="server did not report the test done"
	elif ! why=$(check_rows "$cli" "$rows" "$iters"); then
		[ -n "$why" ] || why="bad output"
	fi
	if [ -z "$why" ]; then
		echo "ok rwx_perf $name"
		sed 's/^/# /' "$cli"
	else
		echo "FAIL rwx_perf $name: $why"
		sed 's/^/# client: /' "$cli"
		sed 's/^/# server: /' "$srv_out"
		kill "$srv" 2>/dev/null
		fails=$((fails + 1))
	fi
}

# -a covers 2 B .. 8 MiB: 23 sizes.
for op in write read send; do
	run "$op 64 B x 1000" 1 1000 --op "$op" -s 64 -n 1000
	run "$op 64 KiB x 100, tx depth 16" 1 100 --op "$op" -s 65536 -n 100 -t 16
	run "$op all sizes x 2, tx depth 1" 23 2 --op "$op" -a -n 2 -t 1
done
rm -f "$srv_out" "$cli"
[ "$fails" -eq 0 ]
