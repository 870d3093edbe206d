# Guest script: load the engine and every KUnit module named in
# $RWX_KUNIT_MODULES (paths), collect their KTAP from debugfs into
# $RWX_OUT/kunit.ktap, unload, and scan for leaks.
#   RWX_ENGINE_MODULE   path of rdma_rwx.ko (optional)
#   RWX_ENGINE_PARAMS   its module parameters, e.g. force_mr=1
#   RWX_SUPPORT_MODULES paths of modules the suites need (loaded after the
#                       engine, before the suites; e.g. rwx_loopback.ko)
#   RWX_RDMA=0          do not set up rxe0/siw0
#   RWX_KMEMLEAK=0      do not scan for leaks
#   RWX_CHECK_LIVE=0    do not require every engine context destroyed at the
#                       end (its debugfs counters; for a test that leaks one)
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
. "$RWX_ROOT/tools/guest/engine-lib.sh"

rc=0
if [ "${RWX_RDMA:-1}" = 1 ]; then
	rdma_setup || { echo "kunit-run: RDMA device setup failed"; exit 2; }
fi

kmemleak=/sys/kernel/debug/kmemleak
if [ "${RWX_KMEMLEAK:-1}" = 1 ]; then
	[ -w $kmemleak ] || { echo "kunit-run: kmemleak is not available"; exit 2; }
	echo clear > $kmemleak
fi

# Let a test fail its own sleeping allocations (current->fail_nth), quietly;
# nothing fails unless a task asks.
failslab=/sys/kernel/debug/failslab
if [ -d $failslab ]; then
	echo N > $failslab/ignore-gfp-wait
	echo 0 > $failslab/verbose
fi

if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
	# shellcheck disable=SC2086
	insmod "$RWX_ENGINE_MODULE" ${RWX_ENGINE_PARAMS:-} ||
		{ echo "kunit-run: insmod $RWX_ENGINE_MODULE failed"; exit 3; }
fi
loaded=()
for ko in ${RWX_SUPPORT_MODULES:-} $RWX_KUNIT_MODULES; do
	echo "kunit-run: insmod $ko"
	if insmod "$ko"; then
		loaded+=("$(basename "$ko" .ko)")
	else
		echo "kunit-run: insmod $ko failed"
		rc=4
	fi
done

: > "$RWX_OUT/kunit.ktap"
for results in /sys/kernel/debug/kunit/*/results; do
	[ -f "$results" ] && cat "$results" >> "$RWX_OUT/kunit.ktap"
done

for ((i = ${#loaded[@]} - 1; i >= 0; i--)); do
	rmmod "${loaded[$i]}" || { echo "kunit-run: rmmod ${loaded[$i]} failed"; rc=5; }
done
if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
	live=$(awk '$1 == "contexts_live" {print $2}' /sys/kernel/debug/rdma_rwx/counters)
	if [ "${RWX_CHECK_LIVE:-1}" = 1 ] && [ "$live" != 0 ]; then
		echo "kunit-run: $live engine contexts still live after the suites"
		rc=6
	fi
	rmmod rdma_rwx || { echo "kunit-run: rmmod rdma_rwx failed"; rc=5; }
fi

# The leak scan (kmemleak_check, engine-lib.sh): reports go to the
# console, where the host's judgement finds them.
kmemleak_check
exit $rc
