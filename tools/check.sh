#!/usr/bin/env bash
# make check: every suite of the project.  Ends with one line
# "N passed, N failed, N skipped" and exits non-zero on any failure.
set -uo pipefail

RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RWX_ROOT
. "$RWX_ROOT/tools/lib.sh"
. "$RWX_ROOT/tools/vm-suite.sh"
export RWX_RESULTS RWX_BUILD RWX_CACHE

check_start=$SECONDS
mkdir -p "$RWX_BUILD"
: > "$RWX_RESULTS"

summary() {
	local p f s
	p=$(awk -F'\t' '$3 == "pass"' "$RWX_RESULTS" | wc -l)
	f=$(awk -F'\t' '$3 == "fail"' "$RWX_RESULTS" | wc -l)
	s=$(awk -F'\t' '$3 == "skip"' "$RWX_RESULTS" | wc -l)
	echo
	if [ "$f" != 0 ]; then
		echo "Failures:"
		awk -F'\t' '$3 == "fail" {printf "  %s: %s -- %s\n", $1, $2, $4}' "$RWX_RESULTS"
	fi
	echo "make check took $((SECONDS - check_start)) s"
	echo "$p passed, $f failed, $s skipped"
	[ "$f" = 0 ]
}

# Whatever happens, no guest outlives make check.
trap 'pkill -KILL -x rwxvm 2>/dev/null; exit 130' INT TERM HUP

suite deps
run_test "dependencies from Debian's archive" bash "$RWX_ROOT/tools/deps.sh" || { summary; exit 1; }

suite build
H61=$(headers_61) H612=$(headers_612)
run_test "module, W=1 C=1, Debian $(basename "$H61")" \
	"$RWX_ROOT/tools/build-module.sh" "$H61" "$RWX_BUILD/mod-6.1"
run_test "module, W=1 C=1, Debian $(basename "$H612")" \
	"$RWX_ROOT/tools/build-module.sh" "$H612" "$RWX_BUILD/mod-6.12"
stock_ok=$?

suite lint
bash "$RWX_ROOT/tools/lint.sh"

suite harness
bash "$RWX_ROOT/tools/test-harness.sh" host

suite test-kernel
if KBUILD=$("$RWX_ROOT/tools/kernel/build-test-kernel.sh"); then
	pass "test kernel (linux-source-6.12 + tools/kernel/test-kernel.config)"
	run_test "module and KUnit suites, W=1 C=1, test kernel" \
		"$RWX_ROOT/tools/build-module.sh" "$KBUILD" "$RWX_BUILD/mod-test" RWX_HARNESS_SELFTEST=1
	test_mods_ok=$?
else
	fail "test kernel (linux-source-6.12 + tools/kernel/test-kernel.config)" "build failed"
	test_mods_ok=1
fi

if [ "$test_mods_ok" = 0 ]; then
	export KBUILD
	KUNIT_PY=$(readlink -f "$KBUILD/source")/tools/testing/kunit/kunit.py
	export KUNIT_PY
	TEST_INITRD=$(initramfs_for)
	export TEST_INITRD
	M=$RWX_BUILD/mod-test

	suite kunit
	VM_KTAP=1 vm_run kunit "$KBUILD/arch/x86/boot/bzImage" "$TEST_INITRD" \
		"$RWX_ROOT/tools/guest/kunit-run.sh" 900 \
		-a "kmemleak=on" \
		-e "RWX_ENGINE_MODULE=$M/drivers/rwx/rdma_rwx.ko" \
		-e "RWX_KUNIT_MODULES=$M/kunit/rwx_verbs_kunit.ko"
	vm_record kunit

	suite harness-vm
	bash "$RWX_ROOT/tools/test-harness.sh" vm
else
	for s in kunit harness-vm; do
		suite $s
		fail "$s" "no test kernel or test modules to run"
	done
fi

suite smoke-debian-6.12
if [ "$stock_ok" = 0 ]; then
	rel=$(stock_612_release)
	vm_run smoke-6.12 "/boot/vmlinuz-$rel" "$(initramfs_for "$rel")" \
		"$RWX_ROOT/tools/guest/smoke-insmod.sh" 300 \
		-e "RWX_ENGINE_MODULE=$RWX_BUILD/mod-6.12/drivers/rwx/rdma_rwx.ko"
	vm_record smoke-6.12
else
	fail "smoke-6.12" "the module did not build against Debian 6.12"
fi

suite cleanup
if pgrep -x rwxvm >/dev/null; then
	fail "no qemu process left behind" "$(pgrep -a -x rwxvm | head -3)"
	pkill -KILL -x rwxvm
else
	pass "no qemu process left behind"
fi

summary
