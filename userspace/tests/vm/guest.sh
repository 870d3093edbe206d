#!/bin/bash
# Guest script for tools/qemu/run-vm.sh: librdmarwx on Soft-RoCE.
#
#   rxe0 on veth0 (192.0.2.1) via tools/guest/rdma-setup.sh, then
#   1. build/tests/rwx_vmtest            (tests/vm/README items 3-12)
#   2. build/asan/tests/rwx_vmtest       (item 13, if built)
#   3. interop with rdmacm-utils (item 2): rdma_server against
#      rwx_vmtest -C, rwx_vmtest -S against rdma_client
#   4. tests/vm/perf-smoke.sh            (item 1)
# RWX_VM_ASAN=0 skips step 2, RWX_VM_PERF=0 step 4.
#
# Build first on the host: make -C userspace vmtest
# Every part prints ok/FAIL/skip lines; the last line is the total,
# "N passed, N failed, N skipped", and the exit status is 0 only if
# nothing failed (a part that exits non-zero without a FAIL line counts
# as one failure).
set -u
root=${RWX_ROOT:?RWX_ROOT must name the project root}
U=$root/userspace
T=$U/build/tests/rwx_vmtest
TA=$U/build/asan/tests/rwx_vmtest
IP=192.0.2.1
out=/tmp/rwx_vm.$$
pass=0 fail=0 skip=0

count() {	# $1 label, $2 exit status; counts the lines of $out
	local p f s
	p=$(grep -c '^ok ' "$out") f=$(grep -c '^FAIL ' "$out")
	s=$(grep -c '^skip ' "$out")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$2" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $1: exited with status $2"
		fail=$((fail + 1))
	fi
}

run() {		# label, command...: run, show, count
	local label=$1 rc
	shift
	echo "# === $label"
	"$@" > "$out" 2>&1
	rc=$?
	cat "$out"
	count "$label" "$rc"
}

finish() {
	echo "$pass passed, $fail failed, $skip skipped"
	rm -f "$out" "$out".*
	[ "$fail" -eq 0 ]
	exit
}

# shellcheck disable=SC1091
. "$root/tools/guest/rdma-setup.sh"
ulimit -l unlimited
modprobe ib_uverbs 2>/dev/null
modprobe rdma_ucm 2>/dev/null
if ! rdma_setup rxe; then
	echo "FAIL setup: rdma_setup rxe"
	fail=1
	finish
fi
if [ ! -x "$T" ]; then
	echo "FAIL setup: $T not built (make -C userspace vmtest)"
	fail=1
	finish
fi
ls /dev/infiniband
t0=$(date +%s)

run "rwx_vmtest" timeout 300 "$T" -a "$IP"
if [ "${RWX_VM_ASAN:-1}" = 0 ]; then
	echo "# ASan pass not requested (RWX_VM_ASAN=0)"
elif [ -x "$TA" ]; then
	run "rwx_vmtest (ASan/UBSan)" env \
		ASAN_OPTIONS=abort_on_error=0:exitcode=66 \
		UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		timeout 300 "$TA" -a "$IP"
	# A sanitizer report is a failure even if every check passed.
	if grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' "$out"; then
		echo "FAIL rwx_vmtest (ASan/UBSan): sanitizer report"
		fail=$((fail + 1))
	fi
else
	echo "skip rwx_vmtest (ASan/UBSan): $TA not built"
	skip=$((skip + 1))
fi
echo "# rwx_vmtest runs took $(( $(date +%s) - t0 )) s"

# The interop pairs run on one CPU, both SCHED_FIFO at the same priority.
# rdma_client and rdma_server disconnect as soon as their exchange is done,
# and Linux 6.1's rxe drops the ACK of a message whose receiver's QP went
# to the error state before the ACK was sent, then retries a lost ACK
# forever (tools/rwx_conn.c has the details): the sender's completion never
# comes.  rxe runs the receiver's responder inside the sender's
# ibv_post_send(), completion first, ACK second, without sleeping; a task
# woken at the same real-time priority on the same CPU does not preempt
# the running one (even in a fully preemptible kernel), so the receiver
# runs only once the sender blocks, after the ACK.  Both sides block for
# their completions, so nothing else on the CPU starves.
ONE_CPU="chrt -f 1 taskset -c 0"

# shellcheck disable=SC1091
. "$U/tests/vm/wait-listen.sh"

# Interop, librdmarwx client against rdmacm-utils' rdma_server.
interop_srv() {
	$ONE_CPU rdma_server -p 7471 > "$out.srv" 2>&1 &
	local srv=$! rc
	wait_listen 7471 || echo "FAIL interop: nothing listens on port 7471 after 30 s"
	timeout 60 $ONE_CPU "$T" -a "$IP" -C 7471
	rc=$?
	if timeout 30 tail --pid="$srv" -f /dev/null; then
		wait "$srv"
	else
		kill "$srv" 2>/dev/null
	fi
	sed 's/^/# rdma_server: /' "$out.srv"
	if grep -q '^rdma_server: end 0$' "$out.srv"; then
		echo "ok interop: rdma_server ends with status 0"
	else
		echo "FAIL interop: rdma_server did not end with status 0"
	fi
	return "$rc"
}

# Interop, rdmacm-utils' rdma_client against a librdmarwx server.
interop_cli() {
	$ONE_CPU "$T" -S 7472 > "$out.srv" 2>&1 &
	local srv=$! rc
	wait_listen 7472 || echo "FAIL interop: nothing listens on port 7472 after 30 s"
	timeout 60 $ONE_CPU rdma_client -s "$IP" -p 7472 > "$out.cli" 2>&1
	sed 's/^/# rdma_client: /' "$out.cli"
	if grep -q '^rdma_client: end 0$' "$out.cli"; then
		echo "ok interop: rdma_client ends with status 0"
	else
		echo "FAIL interop: rdma_client did not end with status 0"
	fi
	if timeout 30 tail --pid="$srv" -f /dev/null; then
		wait "$srv"
		rc=$?
	else
		kill "$srv" 2>/dev/null
		rc=124
	fi
	cat "$out.srv"
	return "$rc"
}

if command -v rdma_server > /dev/null && command -v rdma_client > /dev/null
then
	run "interop: rwx client vs rdma_server" interop_srv
	run "interop: rdma_client vs rwx server" interop_cli
else
	echo "skip interop: rdmacm-utils not installed"
	skip=$((skip + 1))
fi

if [ "${RWX_VM_PERF:-1}" = 1 ]; then
	t0=$(date +%s)
	run "perf-smoke.sh" sh "$U/tests/vm/perf-smoke.sh" "$IP" \
		"$U/build/tools/rwx_perf"
	echo "# perf-smoke.sh took $(( $(date +%s) - t0 )) s"
else
	echo "# perf-smoke.sh not requested (RWX_VM_PERF=0)"
fi
finish
