# Guest script (stock Debian 6.12 kernel, rxe0): the engine's per-device
# counters and its trace events over a known sequence of contexts.
# rwx_demo.ko (iters=2) moves its 16-segment, 1048064-byte list (offset 512)
# by RDMA WRITE three times, then by READ three times, each one context:
# init, post, destroy, on the SGE path (one WR of 16 SGEs).  Checked:
#  - tracefs (/sys/kernel/tracing) shows exactly those 18 events, in order,
#    with their fields;
#  - the counters of rxe0 (<debugfs>/rdma_rwx/devices/rxe0/counters) and
#    the global file moved by exactly that, every other counter not at all;
#    a reset zeroes them; with the events off nothing is traced;
#  - trace-cmd, perf and bpftrace see the same events (each skipped when
#    the tool is not installed);
#  - rdma link delete takes rxe0's file away; the global file keeps its
#    counts.
# Prints "ok NAME" / "FAIL NAME: why" / "skip NAME" lines under
# "# === part" headers; exits non-zero when a check failed.
#   RWX_MODDIR  the modules built against the kernel's headers
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
M=$RWX_MODDIR
T=/sys/kernel/tracing
D=/sys/kernel/debug/rdma_rwx
LEN=1048064	# the demo's list: 256 pages less its 512-byte offset
rc=0

ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; rc=1; }
skip() { echo "skip $1${2:+: $2}"; }
check() {	# check NAME WHY CMD...: ok when CMD succeeds
	local name=$1 why=$2
	shift 2
	if "$@"; then ok "$name"; else fail "$name" "$why"; fi
}
part() { echo "# === $1"; }

# counter FILE NAME
counter() { awk -v n="$2" '$1 == n {print $2}' "$1"; }

# expect_counters FILE NAME=VALUE...: those values, every other line 0
# (contexts_live included)
expect_counters() {
	local file=$1 want line name value bad=""
	shift
	want=" $* "
	while read -r name value; do
		case $want in
		*" $name="*) line=${want#* "$name"=}; line=${line%% *} ;;
		*) line=0 ;;
		esac
		[ "$value" = "$line" ] || bad="$bad $name=$value(want $line)"
	done < "$file"
	[ -z "$bad" ] || { echo "  $file:$bad"; return 1; }
}

demo() { insmod "$M/drivers/demo/rwx_demo.ko" addr=192.0.2.1 iters=2 && rmmod rwx_demo; }

# events FILE EVENT: that event's lines of a trace, "key=value ..." only
events() { grep -E " $2: " "$1" | sed "s/.* $2: //"; }

part setup
modprobe ib_core
modprobe rdma_cm
rdma_setup rxe || { echo "trace-events: rxe0 setup failed"; exit 2; }
mountpoint -q $T || mount -t tracefs nodev $T
insmod "$M/drivers/testing/loopback/rwx_loopback.ko" || exit 3
insmod "$M/drivers/rwx/rdma_rwx.ko" || exit 3
check "rxe0 has its counters file" "no $D/devices/rxe0/counters" \
	test -r $D/devices/rxe0/counters
check "the trace events are in tracefs" "no $T/events/rwx" \
	test -d $T/events/rwx/rwx_ctx_init -a -d $T/events/rwx/rwx_ctx_post -a \
	-d $T/events/rwx/rwx_ctx_destroy

part "trace events in tracefs"
echo > $T/trace
echo 1 > $T/events/rwx/enable
demo || fail "rwx_demo ran" "insmod rwx_demo failed"
echo 0 > $T/events/rwx/enable
cat $T/trace > /tmp/trace.txt
sed 's/^/  trace: /' /tmp/trace.txt | grep -v '^  trace: #' | head -n 20
# The order: init, post, destroy, three times WRITE then three times READ.
order=$(grep -oE ' rwx_ctx_(init|post|destroy): .* dir=(write|read)' /tmp/trace.txt |
	sed -E 's/ rwx_ctx_([a-z]+): .* dir=([a-z]+)/\1-\2/' | tr '\n' ' ')
want=$(for d in write write write read read read; do
	printf 'init-%s post-%s destroy-%s ' $d $d $d
done)
check "18 events, init/post/destroy per context, 3 WRITE then 3 READ" \
	"got: $order" test "$order" = "$want"
for d in write read; do
	check "rwx_ctx_init ($d): the fields of each" "$(events /tmp/trace.txt rwx_ctx_init | grep -c "dir=$d") lines" \
		test "$(events /tmp/trace.txt rwx_ctx_init | grep -c -x "device=rxe0 port=1 path=sge_multi dir=$d entries=16 wrs=1 bytes=$LEN result=0 bvec=0")" = 3
	check "rwx_ctx_post ($d): the fields of each" "wrong fields" \
		test "$(events /tmp/trace.txt rwx_ctx_post | grep -c -x "device=rxe0 port=1 path=sge_multi dir=$d entries=16 wrs=1 bytes=$LEN result=0")" = 3
	check "rwx_ctx_destroy ($d): the fields of each" "wrong fields" \
		test "$(events /tmp/trace.txt rwx_ctx_destroy | grep -c -x "device=rxe0 port=1 path=sge_multi dir=$d entries=16 wrs=1 bytes=$LEN result=0")" = 3
done

part counters
cat $D/devices/rxe0/counters | sed 's/^/  rxe0: /'
check "rxe0: 6 multi-SGE contexts, 6 destroyed, 3 x $LEN bytes each way, nothing else" \
	"other counts" expect_counters $D/devices/rxe0/counters init_sge_multi=6 \
	destroyed=6 bytes_write=$((3 * LEN)) bytes_read=$((3 * LEN))
check "the global file: the same" "other counts" expect_counters $D/counters \
	init_sge_multi=6 destroyed=6 bytes_write=$((3 * LEN)) bytes_read=$((3 * LEN))
echo 1 > $D/devices/rxe0/counters
check "rxe0 reset: every counter 0" "not zeroed" expect_counters $D/devices/rxe0/counters

part "events off"
echo > $T/trace
demo || fail "rwx_demo ran" "insmod rwx_demo failed"
check "nothing traced with the events off" "$(grep -c rwx_ctx $T/trace) lines" \
	test "$(grep -c rwx_ctx $T/trace)" = 0
check "rxe0 counted the run all the same" "init_sge_multi $(counter $D/devices/rxe0/counters init_sge_multi)" \
	test "$(counter $D/devices/rxe0/counters init_sge_multi)" = 6
echo 1 > $D/counters
check "global reset: every counter 0" "not zeroed" expect_counters $D/counters

part trace-cmd
if command -v trace-cmd > /dev/null; then
	(cd /tmp && trace-cmd record -q -e rwx -o /tmp/rwx.dat \
		insmod "$M/drivers/demo/rwx_demo.ko" addr=192.0.2.1 iters=2) > /dev/null 2>&1
	rmmod rwx_demo
	trace-cmd report -i /tmp/rwx.dat > /tmp/report.txt 2>/dev/null
	check "trace-cmd record/report: 6 inits, 6 posts, 6 destroys" \
		"$(grep -c rwx_ctx_ /tmp/report.txt) events" \
		test "$(events /tmp/report.txt rwx_ctx_init | grep -c "path=sge_multi")$(events /tmp/report.txt rwx_ctx_post | grep -c "result=0")$(events /tmp/report.txt rwx_ctx_destroy | grep -c "bytes=$LEN")" = 666
else
	skip "trace-cmd record/report" "trace-cmd not installed"
fi

part perf
if perf version > /dev/null 2>&1; then
	perf stat -x, -e rwx:rwx_ctx_init -e rwx:rwx_ctx_post -e rwx:rwx_ctx_destroy -a \
		-o /tmp/perf.txt -- bash -c "$(declare -f demo); M=$M; demo" > /dev/null 2>&1
	sed 's/^/  perf: /' /tmp/perf.txt
	check "perf stat: 6 of each event" "$(grep rwx /tmp/perf.txt | tr '\n' ' ')" \
		test "$(grep -cE '^6,,rwx:rwx_ctx_(init|post|destroy),' /tmp/perf.txt)" = 3
else
	skip "perf stat" "no perf for this kernel"
fi

part bpftrace
if command -v bpftrace > /dev/null; then
	bpftrace -e 'tracepoint:rwx:rwx_ctx_init { @bytes[str(args->device), args->dir] = sum(args->bytes); }' \
		> /tmp/bt.txt 2>&1 &
	bt=$!
	for _ in $(seq 120); do grep -q Attaching /tmp/bt.txt && break; sleep 1; done
	demo
	kill -INT $bt
	wait $bt
	sed 's/^/  bpftrace: /' /tmp/bt.txt
	check "bpftrace: rxe0's bytes by direction" "$(tr '\n' ' ' < /tmp/bt.txt)" \
		test "$(grep -cE "^@bytes\[rxe0, [12]\]: $((3 * LEN))$" /tmp/bt.txt)" = 2
else
	skip "bpftrace" "bpftrace not installed"
fi

part "device removal"
echo 1 > $D/counters
demo
rdma link delete rxe0
check "rxe0's directory went with it" "still there" test ! -e $D/devices/rxe0
check "the global file kept rxe0's counts" "init_sge_multi $(counter $D/counters init_sge_multi)" \
	test "$(counter $D/counters init_sge_multi)" = 6

rmmod rdma_rwx rwx_loopback || fail "modules unloaded" "rmmod failed"
echo "trace-events: done, rc $rc"
exit $rc
