#!/usr/bin/env bash
# make soak: the whole fault matrix of two guests on a wire (tools/pair.sh,
# tools/guest/pair.sh), where make check runs one case of each kind.
# Each pair serves iSER once, then runs every wire fault in turn under
# NVMe-oF fio verify - frames lost
# (1 % and 10 %), delayed with jitter, reordered, duplicated, all at once -
# then the target's port removed and re-added, the target switched to the
# kernel's own nvmet-rdma and back under a fault, the wire cut past the
# host's ctrl-loss-tmo, and the host's power cut mid-I/O:
#   6.1 -> 6.12        the engine on stock 6.1 serving a host on stock 6.12
#   6.12 -> 6.1        ... and the reverse
#   debug-6.12 -> 6.1  on the 6.12 debug kernel: MR path, kmemleak
#   6.1 -> 6.12 ib_core  the kernel's own nvmet-rdma throughout, the
#                      reference for the engine's rows
# Ends with "N passed, N failed, N skipped" over every pair; exits
# non-zero on any failure.  2653 s for the four from a fresh clone, builds
# included (2026-11-30, beside other work).
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
FAULTS="netem:loss1 netem:loss10 netem:jitter netem:reorder netem:duplicate netem:mixed portcycle"
ENGINE_PLAN="fio iser $FAULTS reference netem:mixed engine linkdown kill"
REFERENCE_PLAN="fio iser $FAULTS linkdown kill"
passed=0 failed=0 skipped=0
for pair in "6.1 6.12 engine" "6.12 6.1 engine" "debug-6.12 6.1 engine" "6.1 6.12 ib_core"; do
	plan=$ENGINE_PLAN
	case $pair in *ib_core) plan=$REFERENCE_PLAN ;; esac
	echo "== soak: $pair: $plan"
	out=$(RWX_PAIR_PLAN=$plan RWX_PAIR_GUARD=3000 bash "$RWX_ROOT/tools/pair.sh" $pair 2>&1)
	echo "$out"
	read -r p f s < <(echo "$out" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped$/\1 \2 \3/p' | tail -n 1)
	[ -n "${p:-}" ] || { p=0 f=1 s=0; echo "FAIL soak: $pair -- no summary"; }
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
