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

# Stand-ins for modprobe, insmod and rmmod, first in PATH: they do to the
# made-up tree ($RWX_FAKE_ROOT) what the kernel would, and log their calls.
# STUB_TRANSITION=1 leaves the patch switching; STUB_FAIL=1 fails the load.
mkdir -p "$tmp/bin"
cat > "$tmp/bin/modprobe" <<'STUB'
#!/bin/sh
echo "$(basename "$0") $*" >> "$RWX_FAKE_ROOT/calls"
[ "${STUB_FAIL:-0}" = 1 ] && exit 1
klp=$RWX_FAKE_ROOT/sys/kernel/livepatch/rdma_rwx_takeover
mkdir -p "$klp" "$RWX_FAKE_ROOT/sys/module/rdma_rwx_takeover"
echo 1 > "$klp/enabled"
echo "${STUB_TRANSITION:-0}" > "$klp/transition"
echo 1 > "$RWX_FAKE_ROOT/sys/module/rdma_rwx_takeover/refcnt"
STUB
cp "$tmp/bin/modprobe" "$tmp/bin/insmod"
cat > "$tmp/bin/rmmod" <<'STUB'
#!/bin/sh
echo "rmmod $*" >> "$RWX_FAKE_ROOT/calls"
rm -r "$RWX_FAKE_ROOT/sys/module/rdma_rwx_takeover"
STUB
chmod +x "$tmp/bin/modprobe" "$tmp/bin/insmod" "$tmp/bin/rmmod"
stubbed() { env PATH="$tmp/bin:$PATH" RWX_FAKE_ROOT="$fake" "$@"; }
# kernel_disables: what the kernel does once 0 is written to enabled: the
# transition ends, the patch's directory goes, then the module is let go.
kernel_disables() {
	[ -d "$fake/sys/kernel/livepatch/rdma_rwx_takeover" ] || return
	for _ in $(seq 100); do
		[ "$(cat "$fake/sys/kernel/livepatch/rdma_rwx_takeover/enabled")" = 0 ] && break
		sleep 0.05
	done
	rm -r "$fake/sys/kernel/livepatch/rdma_rwx_takeover"
	sleep 0.3
	echo 0 > "$fake/sys/module/rdma_rwx_takeover/refcnt"
}

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

	# Switching, with the stand-ins: an engine, no takeover yet.
	fake=$tmp/fake
	rm -rf "$fake"
	mkdir -p "$fake/sys/module/rdma_rwx"
	echo live > "$fake/sys/module/rdma_rwx/initstate"
	expect "$t takeover on (modprobe)" 0 '^takeover: on \(switch took [0-9.]+ s\)$' \
		stubbed "$b" --root "$fake" takeover on
	expect "$t takeover on: modprobe ran" 0 '^modprobe rdma_rwx_takeover$' cat "$fake/calls"
	kernel_disables &
	expect "$t takeover off" 0 '^takeover: off \(switch took [0-9.]+ s\)$' \
		stubbed "$b" --root "$fake" takeover off
	wait
	expect "$t takeover off: rmmod once the module was let go" 0 \
		'^rmmod rdma_rwx_takeover$' tail -n 1 "$fake/calls"
	expect "$t takeover off: all gone" 0 '^takeover: off$' "$b" --root "$fake" status
	mkdir -p "$fake/sys/module/rdma_rwx_takeover"
	: > "$fake/calls"
	expect "$t takeover on, module still loaded: unloaded first" 0 '^takeover: on ' \
		stubbed "$b" --root "$fake" takeover on -m /some/rdma_rwx_takeover.ko
	expect "$t takeover on -m: rmmod, then insmod FILE" 0 \
		'^rmmod rdma_rwx_takeover\|insmod /some/rdma_rwx_takeover\.ko\|$' \
		sh -c "tr '\n' '|' < '$fake/calls'"
	rm -r "$fake/sys/kernel/livepatch/rdma_rwx_takeover" "$fake/sys/module/rdma_rwx_takeover"
	expect "$t takeover on, modprobe fails" 1 'modprobe rdma_rwx_takeover failed' \
		stubbed env STUB_FAIL=1 "$b" --root "$fake" takeover on
	expect "$t takeover on, transition never ends" 1 'takeover not on 1 s later \(state: switching on' \
		stubbed env STUB_TRANSITION=1 "$b" --root "$fake" takeover on -t 1
	expect "$t --root too long" 2 'at most 256' "$b" --root "$(printf '%0300d' 0)" status

	# rxe0: 10 + 4 SGE, 3 MR, 1 signature contexts; 2 fallbacks, 3 errors.
	expect "$t stat totals" 0 '^rxe0 +18 +1048576 +4096 +77\.8 +16\.7 +5\.6 +2 +3 +3$' \
		"$b" --root "$loaded" stat
	# An error cause the tool does not know by name counts too (err_*).
	cp "$dbg/devices/siw0/counters" "$tmp/siw0.counters"
	echo "err_etimedout 4" >> "$dbg/devices/siw0/counters"
	expect "$t stat: every err_* line is an error" 0 '^siw0 +8 .* 7 +3$' \
		"$b" --root "$loaded" stat -d siw0
	cp "$tmp/siw0.counters" "$dbg/devices/siw0/counters"
	expect "$t stat: every device" 0 '^siw0 +8 ' "$b" --root "$loaded" stat
	expect "$t stat -d siw0" 0 '^siw0 +8 ' "$b" --root "$loaded" stat -d siw0
	lacks "$t stat -d siw0: siw0 alone" '^rxe0' "$b" --root "$loaded" stat -d siw0
	expect "$t stat -d unknown" 1 'no engine counters for device mlx5_0' \
		"$b" --root "$loaded" stat -d mlx5_0
	expect "$t stat -j totals" 0 '^ok$' sh -c "\"$b\" -j --root \"$loaded\" stat | python3 -c '
import json, sys
r = json.load(sys.stdin)
d = {x[\"dev\"]: x for x in r[\"devices\"]}
assert sorted(d) == [\"rxe0\", \"siw0\"], r
assert d[\"rxe0\"][\"contexts\"] == 18 and d[\"rxe0\"][\"read_bytes\"] == 1048576, r
assert d[\"rxe0\"][\"errors\"] == 3 and d[\"rxe0\"][\"fallbacks\"] == 2, r
assert d[\"rxe0\"][\"live\"] == 3 and d[\"siw0\"][\"contexts\"] == 8, r
print(\"ok\")'"
	# Two 2 s reports; 1.5 s in, rxe0 sets up 10 more contexts and reads
	# 1 MiB more: the two reports' counts add up to exactly that.
	counters "$dbg/devices/rxe0/counters" 10 1048576
	(sleep 1.5; counters "$dbg/devices/rxe0/counters" 20 2097152) &
	expect "$t stat -j 2 2" 0 '^ok$' sh -c "\"$b\" -j --root \"$loaded\" stat -d rxe0 2 2 | python3 -c '
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
	# The counters reset (written to) between samples: a counter that went
	# down (20 SGE contexts to 2, 2 MiB read to 4 KiB) counts from zero
	# again, not as a wrapped difference.
	(sleep 1.5; counters "$dbg/devices/rxe0/counters" 2 4096) &
	expect "$t stat across a reset" 0 '^ok$' sh -c "\"$b\" -j --root \"$loaded\" stat -d rxe0 2 2 | python3 -c '
import json, sys
reports = [json.loads(line) for line in sys.stdin]
ctx = sum(r[\"devices\"][0][\"contexts_per_s\"] * r[\"interval_s\"] for r in reports)
rd = sum(r[\"devices\"][0][\"read_bytes_per_s\"] * r[\"interval_s\"] for r in reports)
assert abs(ctx - 2) < 0.1 and abs(rd - 4096) < 16, reports
print(\"ok\")'"
	wait
	counters "$dbg/devices/rxe0/counters" 10 1048576
	expect "$t stat 1 1: a rate header" 0 '^DEV +ctx/s +rd_MiB/s' "$b" --root "$loaded" stat 1 1
done
