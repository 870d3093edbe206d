#!/usr/bin/env bash
# Tests of the test harness itself: it must fail, and say why, on a failing
# KUnit assertion, a kernel splat, a hung guest, and it must never leave a
# qemu process behind.
#   test-harness.sh host   judgement of canned console logs and KTAP
#   test-harness.sh vm     the same, for real, in QEMU guests
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$RWX_ROOT/tools/lib.sh"
. "$RWX_ROOT/tools/vm-suite.sh"
logs=$RWX_ROOT/tools/tests/logs
evaluate=$RWX_ROOT/tools/evaluate-run.py

# check_judgement NAME WANT_STATUS PATTERN STATUS OUTPUT: a judgement that
# exited STATUS and printed OUTPUT must have exited WANT_STATUS and (if
# PATTERN) printed a line matching PATTERN.
check_judgement() {
	local name=$1 want=$2 pattern=$3 rc=$4 out=$5
	if [ "$rc" != "$want" ]; then
		fail "$name" "judgement exited $rc, wanted $want: $(echo "$out" | tr '\n' '|')"
	elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" <<< "$out"; then
		fail "$name" "judgement lacks /$pattern/: $(echo "$out" | tr '\n' '|')"
	else
		pass "$name"
	fi
}

# expect_judgement NAME WANT_STATUS PATTERN evaluate-args...: judge canned
# input now.
expect_judgement() {
	local name=$1 want=$2 pattern=$3 out rc
	shift 3
	out=$(python3 "$evaluate" "$@" 2>&1)
	rc=$?
	check_judgement "$name" "$want" "$pattern" "$rc" "$out"
}

host_tests() {
	local kunit_py
	kunit_py=$("$RWX_ROOT/tools/kernel/build-test-kernel.sh" --source)/tools/testing/kunit/kunit.py

	expect_judgement "clean log passes" 0 "" --log "$logs/clean.log" --rc 0
	expect_judgement "WARN fails" 1 $'^fail\t.*kernel WARNING: WARNING: CPU: 1 PID: 230 at kunit/selftest' \
		--log "$logs/warn.log" --rc 0
	expect_judgement "KASAN fails" 1 $'^fail\t.*KASAN report: BUG: KASAN: slab-out-of-bounds' \
		--log "$logs/kasan.log" --rc 0
	expect_judgement "lockdep fails" 1 $'^fail\t.*lockdep report: WARNING: possible circular' \
		--log "$logs/lockdep.log" --rc 0
	expect_judgement "kmemleak fails" 1 $'^fail\t.*kmemleak leak: ' --log "$logs/kmemleak.log" --rc 0
	expect_judgement "DMA-API report fails" 1 $'^fail\t.*DMA-API debug report: ' \
		--log "$logs/dma-api.log" --rc 0
	expect_judgement "BUG/oops fails" 1 $'^fail\t.*kernel BUG: BUG: kernel NULL pointer' \
		--log "$logs/bug.log" --rc 125
	expect_judgement "an RCU stall fails, naming the stalled CPU's place" 1 \
		$'^fail\tguest: no kernel splat\thang report: rcu: INFO: .*stalls.* \\(cpu 1: modprobe at smp_call_function_many_cond\\+0x12e/0x4f0\\)$' \
		--log "$logs/rcu-stall.log" --rc 124
	expect_judgement "an RCU stall on an idle CPU says so" 1 \
		$'^fail\tguest: no kernel splat\thang report: rcu: INFO: .*stalls.* \\(cpu 1: idle at default_idle\\+0x20/0x30\\)$' \
		--log "$logs/rcu-stall-idle.log" --rc 0
	expect_judgement "an RCU stall of tasks names no CPU (nor the next report's)" 1 \
		$'^fail\tguest: no kernel splat\thang report: rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:$' \
		--log "$logs/rcu-stall-tasks.log" --rc 0
	expect_judgement "a self-detected RCU stall fails" 1 \
		$'^fail\tguest: no kernel splat\thang report: rcu: INFO: rcu_preempt self-detected stall on CPU' \
		--log "$logs/rcu-self-stall.log" --rc 0
	expect_judgement "an expedited RCU stall fails" 1 \
		$'^fail\tguest: no kernel splat\thang report: rcu: INFO: rcu_preempt detected expedited stalls' \
		--log "$logs/rcu-self-stall.log" --rc 0
	expect_judgement "hung guest fails" 1 $'^fail\tguest\tguest timed out \\(hung\\)' \
		--log "$logs/clean.log" --rc 124
	expect_judgement "crashed guest fails" 1 $'^fail\tguest\tguest died before its script finished' \
		--log "$logs/bug.log" --rc 125
	expect_judgement "failing script fails" 1 $'^fail\tguest\tguest script exited with status 3' \
		--log "$logs/clean.log" --rc 3
	expect_judgement "all CPUs asked for online passes" 0 $'^pass\tguest: 2 CPUs online' \
		--log "$logs/clean.log" --rc 0 --cpus 2
	expect_judgement "fewer CPUs online than asked for fails" 1 \
		$'^fail\tguest: 2 CPUs online\t1 of 2 CPUs came up' --log "$logs/one-cpu.log" --rc 0 --cpus 2
	expect_judgement "no CPU count from run-vm.sh fails" 1 \
		$'^fail\tguest: CPUs online\trun-vm.sh did not say' --log "$logs/clean.log" --rc 0 --cpus 0
	expect_judgement "no CPU count from the guest fails" 1 \
		$'^fail\tguest: 2 CPUs online\tthe guest did not say' --log "$logs/kasan.log" --rc 0 --cpus 2
	# A failed run's excerpt (make check's summary prints it): from its
	# first splat on, else from its first failed step, else the log's end;
	# none for a run that passed.
	local ex
	ex=$(mktemp)
	python3 "$evaluate" --log "$logs/kasan.log" --rc 0 --excerpt "$ex" > /dev/null
	if head -n 1 "$ex" | grep -q '^BUG: KASAN: slab-out-of-bounds in rdma_rwx_ctx_init' &&
	   grep -q '^Write of size 8' "$ex"; then
		pass "a splat's excerpt starts at the report"
	else
		fail "a splat's excerpt starts at the report" "$(head -n 2 "$ex" | tr '\n' '|')"
	fi
	python3 "$evaluate" --log "$logs/clean.log" --rc 3 --excerpt "$ex" > /dev/null
	if [ "$(tail -n 1 "$ex")" = "RWX-GUEST-EXIT: 0" ]; then
		pass "a failed script's excerpt is the log's end"
	else
		fail "a failed script's excerpt is the log's end" "$(tail -n 1 "$ex")"
	fi
	python3 "$evaluate" --log "$logs/script-failed.log" --rc 1 --excerpt "$ex" > /dev/null
	if [ "$(head -n 1 "$ex")" = "nfs: FAILED server-stop under load" ]; then
		pass "a failed step's excerpt starts at its FAILED line"
	else
		fail "a failed step's excerpt starts at its FAILED line" "$(head -n 1 "$ex")"
	fi
	rm -f "$ex"
	python3 "$evaluate" --log "$logs/clean.log" --rc 0 --excerpt "$ex" > /dev/null
	if [ -e "$ex" ]; then
		fail "no excerpt of a run that passed" "$ex written"
	else
		pass "no excerpt of a run that passed"
	fi
	expect_judgement "KTAP: passing and skipped cases counted" 0 $'^skip\trwx_b.rwx_b_param.siw0' \
		--log "$logs/clean.log" --rc 0 --ktap "$logs/ktap-pass.ktap" --kunit-py "$kunit_py"
	expect_judgement "KTAP: two suites merged, every case reported" 0 $'^pass\trwx_a.rwx_a_case' \
		--log "$logs/clean.log" --rc 0 --ktap "$logs/ktap-pass.ktap" --kunit-py "$kunit_py"
	# 6.1's results of parameterised cases (the last parameter's line
	# alone): every suite after them must still be judged.
	expect_judgement "KTAP (6.1): a suite after headless parameters is judged" 1 \
		$'^fail\trwx_b.rwx_b_param\tKUnit test case FAIL' \
		--log "$logs/clean.log" --rc 0 --ktap "$logs/ktap-61-params.ktap" --kunit-py "$kunit_py"
	expect_judgement "KTAP (6.1): its other cases too" 1 $'^pass\trwx_b.rwx_b_plain' \
		--log "$logs/clean.log" --rc 0 --ktap "$logs/ktap-61-params.ktap" --kunit-py "$kunit_py"
	expect_judgement "KTAP: failing assertion fails by name" 1 $'^fail\trwx_demo.rwx_demo_fails\tKUnit test case FAIL' \
		--log "$logs/clean.log" --rc 0 --ktap "$logs/ktap-fail.ktap" --kunit-py "$kunit_py"
	expect_judgement "KTAP: truncated suite fails" 1 $'^fail\trwx_crash.case 2 \\(no result line\\)\tKUnit test case ERROR' \
		--log "$logs/clean.log" --rc 0 --ktap "$logs/ktap-truncated.ktap" --kunit-py "$kunit_py"
	expect_judgement "KTAP: no results fails" 1 $'^fail\tkunit\tno KUnit suite reported' \
		--log "$logs/clean.log" --rc 0 --ktap "$logs/ktap-empty.ktap" --kunit-py "$kunit_py"
	expect_judgement "KTAP: missing file fails" 1 $'^fail\tkunit\tno KTAP was collected' \
		--log "$logs/clean.log" --rc 0 --ktap "$logs/does-not-exist.ktap" --kunit-py "$kunit_py"
	ulp_cache_tests
}

# ulp_cache_tests: tools/build-ulps.sh's cache of built ULPs gives back
# the same module for the same inputs and builds again when the engine's
# exports change (a ULP records their CRCs): nvmet-rdma against Debian's
# 6.1 headers and make check's engine build for them, in a cache of its own.
ulp_cache_tests() {
	local t out ko crc sym
	if [ ! -f "$RWX_BUILD/mod-6.1/Module.symvers" ]; then
		fail "ULP cache" "no engine build in $RWX_BUILD/mod-6.1"
		return
	fi
	t=$(mktemp -d)
	build() {	# build ENGINE_DIR OUT: nvmet-rdma; its last line
		RWX_ULP_CACHE=$t/cache bash "$RWX_ROOT/tools/build-ulps.sh" "$(headers_61)" \
			"$1" "$t/$2" nvmet-rdma 2>&1 | tail -n 1
	}
	ko=nvmet-rdma/nvmet-rdma.ko
	out=$(build "$RWX_BUILD/mod-6.1" a)
	if [[ $out == *"from the cache"* ]] || [ ! -f "$t/a/$ko" ]; then
		fail "ULP cache: a first build compiles" "$out"
	else
		pass "ULP cache: a first build compiles"
	fi
	out=$(build "$RWX_BUILD/mod-6.1" b)
	if [[ $out == *"from the cache"* ]] && cmp -s "$t/a/$ko" "$t/b/$ko"; then
		pass "ULP cache: the same inputs give the cached module"
	else
		fail "ULP cache: the same inputs give the cached module" "$out"
	fi
	# The engine as if one export's type had changed: another CRC.
	mkdir "$t/engine"
	sym=rdma_rwx_ctx_init
	awk -v s=$sym 'BEGIN { OFS = "\t" } $2 == s { $1 = "0x12345678" } { print }' FS='\t' \
		"$RWX_BUILD/mod-6.1/Module.symvers" > "$t/engine/Module.symvers"
	out=$(build "$t/engine" c)
	crc=$(/sbin/modprobe --dump-modversions "$t/c/$ko" 2> /dev/null | awk -v s=$sym '$2 == s { print $1 }')
	if [[ $out != *"from the cache"* ]] && [ "$crc" = 0x12345678 ]; then
		pass "ULP cache: an engine export's new CRC builds again"
	else
		fail "ULP cache: an engine export's new CRC builds again" "$out; $sym CRC ${crc:-none}"
	fi
	rm -rf "$t"
}

# expect_vm_judgement NAME WANT_STATUS PATTERN STATUS: the judgement of
# vm_run NAME, which exited STATUS.
expect_vm_judgement() {
	check_judgement "$1" "$2" "$3" "$4" "$(cat "$RWX_BUILD/vm/$1/judgement")"
}

# The runner is killed (TERM or KILL) while its guest runs: its qemu must
# not survive it.  (Other guests may run meanwhile: only this runner's
# qemu is watched.)
interrupt_test() {
	local sig=$1 out=$RWX_BUILD/vm/interrupt-$1 runner qemu=""
	local name="runner killed by SIG$sig leaves no qemu"
	rm -rf "$out"
	mkdir -p "$out"
	"$RWX_ROOT/tools/qemu/run-vm.sh" -k "$STOCK_KERNEL" -i "$STOCK_INITRD" \
		-s "$RWX_ROOT/tools/guest/hang.sh" -o "$out" -t 300 -e "RWX_ROOT=$RWX_ROOT" \
		> "$out/runner.log" 2>&1 &
	runner=$!
	for _ in $(seq 50); do
		qemu=$(pgrep -P "$runner" -x "${RWX_VM_NAME:-rwxvm}") && break
		sleep 0.2
	done
	if [ -z "$qemu" ]; then
		kill -KILL "$runner" 2>/dev/null
		fail "$name" "qemu never started"
		return
	fi
	sleep 2
	kill -"$sig" "$runner"
	wait "$runner" 2>/dev/null
	for _ in $(seq 25); do
		kill -0 "$qemu" 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 "$qemu" 2>/dev/null; then
		fail "$name" "qemu $qemu still runs"
		kill -KILL "$qemu"
	else
		pass "$name"
	fi
}

vm_tests() {
	local M=$RWX_BUILD/mod-test/kunit/selftest bz=$KBUILD/arch/x86/boot/bzImage rc
	local E=$RWX_BUILD/mod-test
	local quick=(-a kmemleak=off -e RWX_RDMA=0 -e RWX_KMEMLEAK=0)

	# A failing KUnit case and a WARNING, in one boot (one boot fewer of
	# the debug kernel): each must fail it.
	VM_KTAP=1 vm_run selftest-kunit-fail "$bz" "$TEST_INITRD" \
		"$RWX_ROOT/tools/guest/kunit-run.sh" 300 "${quick[@]}" \
		-e "RWX_KUNIT_MODULES=$M/rwx_selftest_kunit_fail.ko $M/rwx_selftest_warn.ko"
	rc=$?
	expect_vm_judgement selftest-kunit-fail 1 \
		$'^fail\trwx_harness_selftest.rwx_selftest_fails\tKUnit test case FAIL' "$rc"
	grep -q $'^pass\trwx_harness_selftest.rwx_selftest_passes' \
		"$RWX_BUILD/vm/selftest-kunit-fail/judgement" &&
		pass "selftest-kunit-fail: the passing case still passes" ||
		fail "selftest-kunit-fail: the passing case still passes"
	check_judgement selftest-warn 1 \
		$'^fail\tselftest-kunit-fail: no kernel splat\tkernel WARNING: WARNING: CPU: [0-9]+ PID: [0-9]+ at .*rwx_selftest_warn' \
		"$rc" "$(cat "$RWX_BUILD/vm/selftest-kunit-fail/judgement")"

	# A leak: kmemleak's scans at the end of the run must report it.
	vm_run selftest-leak "$bz" "$TEST_INITRD" "$RWX_ROOT/tools/guest/kunit-run.sh" 300 \
		-e RWX_RDMA=0 -e "RWX_KUNIT_MODULES=$M/rwx_selftest_leak.ko"
	rc=$?
	expect_vm_judgement selftest-leak 1 \
		$'^fail\tselftest-leak: no kernel splat\tkmemleak leak: ' "$rc"

	# A QP destroyed before its context: the kernel's own check must fire.
	VM_KTAP=1 vm_run selftest-qp-first "$bz" "$TEST_INITRD" \
		"$RWX_ROOT/tools/guest/kunit-run.sh" 300 "${quick[@]}" \
		-e "RWX_ENGINE_MODULE=$E/drivers/rwx/rdma_rwx.ko" \
		-e "RWX_SUPPORT_MODULES=$E/drivers/testing/testdev/rwx_testdev.ko" \
		-e "RWX_KUNIT_MODULES=$M/rwx_selftest_qp_first.ko" -e RWX_CHECK_LIVE=0
	rc=$?
	expect_vm_judgement selftest-qp-first 1 \
		$'^fail\tselftest-qp-first: no kernel splat\tkernel WARNING: WARNING: CPU: [0-9]+ PID: [0-9]+ at drivers/infiniband/core/verbs.c' "$rc"
	grep -q "rwx_selftest_qp_first: context holds 1 MR(s)" \
		"$RWX_BUILD/vm/selftest-qp-first/console.log" &&
		pass "selftest-qp-first: the context held an MR when its QP went" ||
		fail "selftest-qp-first: the context held an MR when its QP went"

	# Debian's kernel boots in seconds: the hang and kill tests use it.
	# The judgement names what hung: the chain from the script down, which
	# the guest reports before its guard runs out (guest-init.sh).
	vm_run selftest-hang "$STOCK_KERNEL" "$STOCK_INITRD" "$RWX_ROOT/tools/guest/hang.sh" 45
	rc=$?
	expect_vm_judgement selftest-hang 1 \
		$'^fail\tselftest-hang\tguest timed out \\(hung\\) in: bash [^ ]+ > sleep 1000: see ' "$rc"
	grep -q "hang: guest script is running" "$RWX_BUILD/vm/selftest-hang/console.log" &&
		pass "selftest-hang: the guest was running its script when timed out" ||
		fail "selftest-hang: the guest was running its script when timed out" "boot did not finish in 45 s"

	# Code patched on one CPU while the other runs it (tracepoints toggled,
	# ten rounds, about a minute): no CPU may run the old code after the
	# patch, nor miss the IPIs.  In one TCG thread, as the guests that
	# patch code most run (tools/qemu/run-vm.sh says why).
	RWX_QEMU_TCG_THREAD=single vm_run selftest-code-patching "$STOCK_KERNEL" "$STOCK_INITRD" \
		"$RWX_ROOT/tools/guest/code-patching.sh" 300
	rc=$?
	expect_vm_judgement selftest-code-patching 0 $'^pass\tselftest-code-patching\t' "$rc"
	grep -q "^code-patching: 10 rounds .* on 2 CPUs in" \
		"$RWX_BUILD/vm/selftest-code-patching/console.log" &&
		pass "selftest-code-patching: tracepoints toggled on 2 CPUs" ||
		fail "selftest-code-patching: tracepoints toggled on 2 CPUs"

	# Two CPUs asked for, one let up (maxcpus=1): the run must fail.
	vm_run selftest-one-cpu "$STOCK_KERNEL" "$STOCK_INITRD" "$RWX_ROOT/tools/guest/idle.sh" 120 \
		-a maxcpus=1
	rc=$?
	expect_vm_judgement selftest-one-cpu 1 \
		$'^fail\tselftest-one-cpu: 2 CPUs online\t1 of 2 CPUs came up' "$rc"

	# A first boot whose QEMU exits before the guest's script starts (here:
	# no kernel) is booted again; the run is judged on the second boot.
	RWX_BOOT_FAIL_FIRST=1 vm_run selftest-boot-retry "$STOCK_KERNEL" "$STOCK_INITRD" \
		"$RWX_ROOT/tools/guest/idle.sh" 120
	rc=$?
	expect_vm_judgement selftest-boot-retry 0 $'^pass\tselftest-boot-retry\t' "$rc"
	grep -q '^boot 1 failed, booted again: QEMU exited before' \
		"$RWX_BUILD/vm/selftest-boot-retry/boot-retried" 2>/dev/null &&
		[ -s "$RWX_BUILD/vm/selftest-boot-retry/qemu.boot1.log" ] &&
		pass "selftest-boot-retry: boot 1's failure kept and told" ||
		fail "selftest-boot-retry: boot 1's failure kept and told"
	# A guest that has not started its script within the boot guard (3 s,
	# shorter than any boot) is stopped and booted again; twice fails.
	RWX_BOOT_GUARD=3 vm_run selftest-boot-stall "$STOCK_KERNEL" "$STOCK_INITRD" \
		"$RWX_ROOT/tools/guest/idle.sh" 120
	rc=$?
	expect_vm_judgement selftest-boot-stall 1 \
		$'^fail\tselftest-boot-stall\tguest did not start its script, booted twice' "$rc"

	interrupt_test TERM
	interrupt_test KILL
}

case ${1:-} in
host) host_tests ;;
vm) vm_tests ;;
*) echo "usage: $0 host|vm" >&2; exit 2 ;;
esac
