#!/bin/sh
# rdma-rwx(8) against made-up sysfs and debugfs trees (--root): what status
# and stat print of them, text and JSON, and every refusal.  The takeover's
# real switching is tested in a guest (tools/guest/nvmeof.sh).
# RDMA_RWX_BINS: the binaries to test (default: the plain build's).
# Output: one "ok"/"FAIL" line per check.  Run from userspace/.
set -u
bins=${RDMA_RWX_BINS:-build/tools/rdma-rwx}
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT

# expect NAME WANT_STATUS PATTERN command...: the command exits WANT_STATUS
# and its output (stdout and stderr) matches the extended regex PATTERN.
expect() {
	name=$1 want=$2 pattern=$3
	shift 3
	"$@" > "$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "FAIL rdma-rwx: $name: exit $rc, want $want: $(head -c 300 "$tmp/out" | tr '\n' '|')"
	elif ! grep -Eq -- "$pattern" "$tmp/out"; then
		echo "FAIL rdma-rwx: $name: no /$pattern/ in: $(head -c 300 "$tmp/out" | tr '\n' '|')"
	else
		echo "ok rdma-rwx: $name"
	fi
}

# lacks NAME PATTERN command...: the command exits 0 and no line of its
# output matches PATTERN.
lacks() {
	name=$1 pattern=$2
	shift 2
	"$@" > "$tmp/out" 2>&1
	rc=$?
	if [ "$rc" != 0 ]; then
		echo "FAIL rdma-rwx: $name: exit $rc: $(head -c 300 "$tmp/out" | tr '\n' '|')"
	elif grep -Eq -- "$pattern" "$tmp/out"; then
		echo "FAIL rdma-rwx: $name: /$pattern/ in: $(head -c 300 "$tmp/out" | tr '\n' '|')"
	else
		echo "ok rdma-rwx: $name"
	fi
}

counters() {	# FILE SGE_SINGLE BYTES_READ: a counters file as the engine writes it
	cat > "$1" <<EOF
init_sge_single $2
init_sge_multi 4
init_mr 3
init_sig 1
mrs_registered 6
sge_fallback 2
destroyed 10
err_eagain 1
err_enospc 0
err_einval 2
err_enomem 0
err_other 0
contexts_live 3
init_bvec 0
bytes_write 4096
bytes_read $3
shared 9
shared_destroyed 4
adopted 1
EOF
}

# A host with the engine, the takeover on, nvmet_rdma and rpcrdma taken
# over, ib_isert rebuilt against the engine, and two devices.
loaded=$tmp/loaded
mkdir -p "$loaded/sys/module/rdma_rwx/holders/ib_isert" \
	"$loaded/sys/module/nvmet_rdma" "$loaded/sys/module/ib_isert" \
	"$loaded/sys/module/rpcrdma" "$loaded/sys/module/rdma_rwx_takeover" \
	"$loaded/sys/kernel/livepatch/rdma_rwx_takeover" \
	"$loaded/sys/kernel/debug/rdma_rwx/devices/rxe0" \
	"$loaded/sys/kernel/debug/rdma_rwx/devices/siw0"
echo live > "$loaded/sys/module/rdma_rwx/initstate"
echo 0.1 > "$loaded/sys/module/rdma_rwx/version"
klp=$loaded/sys/kernel/livepatch/rdma_rwx_takeover
echo 1 > "$klp/enabled"
echo 0 > "$klp/transition"
dbg=$loaded/sys/kernel/debug/rdma_rwx
counters "$dbg/counters" 20 1048576
counters "$dbg/devices/rxe0/counters" 10 1048576
counters "$dbg/devices/siw0/counters" 0 0
empty=$tmp/empty
mkdir -p "$empty/sys/module"

for b in $bins; do
	t="$b"
	expect "$t --help" 0 '^Usage: rdma-rwx' "$b" --help
	expect "$t without a command" 2 '^Usage:' "$b"
	expect "$t bogus command" 2 '^Usage:' "$b" frobnicate
	expect "$t status with an argument" 2 '^Usage:' "$b" status now
	expect "$t stat interval 0" 2 '^Usage:' "$b" --root "$loaded" stat 0
	expect "$t stat with three numbers" 2 '^Usage:' "$b" --root "$loaded" stat 1 2 3
	expect "$t takeover sideways" 2 '^Usage:' "$b" takeover sideways
	expect "$t takeover off -m" 2 '^Usage:' "$b" takeover off -m x.ko
	expect "$t takeover on -t 0" 2 '^Usage:' "$b" takeover on -t 0
	expect "$t takeover on with an extra word" 2 '^Usage:' "$b" takeover on now
	expect "$t takeover without on or off" 2 '^Usage:' "$b" takeover

	expect "$t status, nothing loaded" 0 '^engine: not loaded$' "$b" --root "$empty" status
	expect "$t status, nothing loaded: takeover" 0 '^takeover: off$' "$b" --root "$empty" status
	expect "$t stat, nothing loaded" 1 'no engine counters at .*/sys/kernel/debug/rdma_rwx/devices' \
		"$b" --root "$empty" stat
	expect "$t takeover off, already off" 0 '^takeover: already off$' "$b" --root "$empty" takeover off
	expect "$t takeover on -m, engine not loaded" 1 'the engine \(rdma_rwx\) is not loaded' \
		"$b" --root "$empty" takeover on -m /nonexistent/rdma_rwx_takeover.ko

	expect "$t status: engine" 0 '^engine: loaded, version 0\.1$' "$b" --root "$loaded" status
	expect "$t status: takeover" 0 '^takeover: on$' "$b" --root "$loaded" status
	expect "$t status: nvmet_rdma taken over" 0 '^ulp nvmet_rdma: engine \(taken over\)$' \
		"$b" --root "$loaded" status
	expect "$t status: ib_isert rebuilt" 0 '^ulp ib_isert: engine \(rebuilt\)$' \
		"$b" --root "$loaded" status
	expect "$t status: rpcrdma taken over" 0 '^ulp rpcrdma: engine \(taken over\)$' \
		"$b" --root "$loaded" status
	expect "$t status: contexts" 0 "^contexts live: engine 3, in ib_core's encoding about 5, ib_core's own not counted$" \
		"$b" --root "$loaded" status
	lacks "$t status: no unloaded ULP" 'ib_srpt|ksmbd' "$b" --root "$loaded" status
	expect "$t status -j" 0 '^ok$' sh -c "\"$b\" -j --root \"$loaded\" status | python3 -c '
import json, sys
s = json.load(sys.stdin)
assert s[\"engine\"] == {\"loaded\": True, \"version\": \"0.1\"}, s
assert s[\"takeover\"] == \"on\", s
assert s[\"ulps\"] == [{\"module\": \"nvmet_rdma\", \"route\": \"engine (taken over)\"},
		     {\"module\": \"ib_isert\", \"route\": \"engine (rebuilt)\"},
		     {\"module\": \"rpcrdma\", \"route\": \"engine (taken over)\"}], s
assert s[\"contexts_live\"] == {\"engine\": 3, \"ib_core_encoding_approx\": 5}, s
print(\"ok\")'"
	expect "$t takeover on, already on" 0 '^takeover: already on$' "$b" --root "$loaded" takeover on

	echo 1 > "$klp/transition"
	expect "$t status while switching on" 0 '^takeover: switching on$' "$b" --root "$loaded" status
	expect "$t ULP while switching" 0 '^ulp nvmet_rdma: switching$' "$b" --root "$loaded" status
	expect "$t takeover on while switching" 1 'takeover is switching on: wait for it to end' \
		"$b" --root "$loaded" takeover on
	echo 0 > "$klp/enabled"
	expect "$t status while switching off" 0 '^takeover: switching off$' "$b" --root "$loaded" status
	echo 0 > "$klp/transition"
	rm -r "$klp"
	expect "$t status, patch gone, module loaded" 0 '^takeover: off \(module still loaded\)$' \
		"$b" --root "$loaded" status
	expect "$t ULP on ib_core" 0 '^ulp nvmet_rdma: ib_core$' "$b" --root "$loaded" status
	expect "$t rebuilt ULP stays on the engine" 0 '^ulp ib_isert: engine \(rebuilt\)$' \
		"$b" --root "$loaded" status
	mkdir -p "$klp"
	echo 1 > "$klp/enabled"
	echo 0 > "$klp/transition"

	# rxe0: 10 + 4 SGE, 3 MR, 1 signature contexts; 2 fallbacks, 3 errors.
	expect "$t stat totals" 0 '^rxe0 +18 +1048576 +4096 +77\.8 +16\.7 +5\.6 +2 +3 +3$' \
		"$b" --root "$loaded" stat
	expect "$t stat: every device" 0 '^siw0 +8 ' "$b" --root "$loaded" stat
	expect "$t stat -d siw0" 0 '^siw0 +8 ' "$b" --root "$loaded" stat -d siw0
	lacks "$t stat -d siw0: siw0 alone" '^rxe0' "$b" --root "$loaded" stat -d siw0
	expect "$t stat -d unknown" 1 'no engine counters for device mlx5_0' \
		"$b" --root "$loaded" stat -d mlx5_0
	# Two 1 s reports; 0.3 s in, rxe0 sets up 10 more contexts and reads
	# 1 MiB more: the two reports' counts add up to exactly that.
	counters "$dbg/devices/rxe0/counters" 10 1048576
	(sleep 0.3; counters "$dbg/devices/rxe0/counters" 20 2097152) &
	expect "$t stat -j 1 2" 0 '^ok$' sh -c "\"$b\" -j --root \"$loaded\" stat -d rxe0 1 2 | python3 -c '
import json, sys
reports = [json.loads(line) for line in sys.stdin]
assert len(reports) == 2, reports
ctx = sum(r[\"devices\"][0][\"contexts_per_s\"] * r[\"interval_s\"] for r in reports)
rd = sum(r[\"devices\"][0][\"read_bytes_per_s\"] * r[\"interval_s\"] for r in reports)
assert abs(ctx - 10) < 0.2, ctx
assert abs(rd - 1048576) < 4096, rd
assert all(r[\"devices\"][0][\"live\"] == 3 for r in reports), reports
print(\"ok\")'"
	wait
	counters "$dbg/devices/rxe0/counters" 10 1048576
	expect "$t stat 1 1: a rate header" 0 '^DEV +ctx/s +rd_MB/s' "$b" --root "$loaded" stat 1 1
done
