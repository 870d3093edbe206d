# Guest script: load the engine and every KUnit module named in
# $RWX_KUNIT_MODULES (paths), collect their KTAP from debugfs into
# $RWX_OUT/kunit.ktap, unload, and scan for leaks.
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"

rc=0
rdma_setup || { echo "kunit-run: RDMA device setup failed"; exit 2; }

kmemleak=/sys/kernel/debug/kmemleak
[ -w $kmemleak ] && echo clear > $kmemleak

if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
	insmod "$RWX_ENGINE_MODULE" || { echo "kunit-run: insmod $RWX_ENGINE_MODULE failed"; exit 3; }
fi
loaded=()
for ko in $RWX_KUNIT_MODULES; do
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
	rmmod rdma_rwx || { echo "kunit-run: rmmod rdma_rwx failed"; rc=5; }
fi

# kmemleak only reports objects that stayed unreferenced across scans and
# are a few seconds old: scan, wait, scan.  Reports go to the console.
if [ -w $kmemleak ]; then
	echo scan > $kmemleak
	sleep 6
	echo scan > $kmemleak
	cat $kmemleak
fi
exit $rc
