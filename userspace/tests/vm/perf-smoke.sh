#!/bin/sh
# rwx_perf end to end on one host over Soft-RoCE.  Needs an rxe device on
# the interface that holds <ip>.  Usage: perf-smoke.sh <ip> [rwx_perf]
# Prints "ok"/"FAIL" per case; exits non-zero if any case failed.
set -u
ip=${1:?usage: perf-smoke.sh <ip> [path/to/rwx_perf]}
perf=${2:-$(dirname "$0")/../../build/tools/rwx_perf}
port=19515 fails=0

run() {	# name, options...
	name=$1; shift
	port=$((port + 1))
	"$perf" -p "$port" "$@" > /tmp/rwx_srv.$$ 2>&1 &
	srv=$!
	sleep 1
	if timeout 120 "$perf" -p "$port" "$@" "$ip" > /tmp/rwx_cli.$$ 2>&1 &&
	   wait "$srv" && grep -q 'BW average' /tmp/rwx_cli.$$; then
		echo "ok $name"
	else
		echo "FAIL $name"; cat /tmp/rwx_cli.$$ /tmp/rwx_srv.$$
		kill "$srv" 2>/dev/null
		fails=$((fails + 1))
	fi
}

for op in write read send; do
	run "$op 64B" --op "$op" -s 64 -n 2000
	run "$op 64KiB" --op "$op" -s 65536 -n 500 -t 16
	run "$op all sizes" --op "$op" -a -n 100 -t 1
done
rm -f /tmp/rwx_srv.$$ /tmp/rwx_cli.$$
[ "$fails" -eq 0 ]
