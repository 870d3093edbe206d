# Guest script (stock Debian 6.12 or 6.1 kernel, rxe0): the engine's
# per-device counters and its trace events over a known sequence of
# contexts.  Both kernels run it unchanged: their tracefs, and the host's
# trace-cmd, perf (linux-perf 6.1) and bpftrace, behave the same on both.
# rwx_demo.ko (iters=2) moves its 16-segment, 1048064-byte list (offset 512)
# by RDMA WRITE three times, then by READ three times, each one context:
# init, post, destroy, on the SGE path (one WR of 16 SGEs).  Checked:
#  - tracefs (/sys/kernel/tracing) shows exactly those 18 events, in order,
#    with their fields;
#  - the counters of rxe0 (<debugfs>/rdma_rwx/devices/rxe0/counters) and
#    the global file moved by exactly that, every other counter not at all;
#    a reset zeroes them; with the events off nothing is traced;
#  - trace-cmd (record/report), perf (stat, and trace: the documented
#    command's lines, fields and filters) and bpftrace see the same events,
#    in order and with their fields where the tool prints them (each
#    skipped when the tool is not installed);
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

# text_seq: the 18 events in the text form (tracefs' print format), in order
text_seq() {
	local d
	for d in write write write read read read; do
		echo "rwx_ctx_init: device=rxe0 port=1 path=sge_multi dir=$d entries=16 wrs=1 bytes=$LEN result=0 bvec=0"
		echo "rwx_ctx_post: device=rxe0 port=1 path=sge_multi dir=$d entries=16 wrs=1 bytes=$LEN result=0"
		echo "rwx_ctx_destroy: device=rxe0 port=1 path=sge_multi dir=$d entries=16 wrs=1 bytes=$LEN result=0"
	done
}

# perf_seq [zeros]: the 18 events as perf trace prints them, in order: raw
# field values (path 2 sge_multi; dir 1 write, 2 read), and fields that are
# 0 left out unless trace.show_zeros is set (then bvec comes after dir, in
# the order of the event's fields)
perf_seq() {
	local d z0="" z1="" ops=", entries: 16, wrs: 1, bytes: $LEN"
	[ -n "${1:-}" ] && z0=", bvec: 0" z1=", result: 0"
	for d in 1 1 1 2 2 2; do
		echo "rwx:rwx_ctx_init(device: \"rxe0\", port: 1, path: 2, dir: $d$z0$ops$z1)"
		echo "rwx:rwx_ctx_post(device: \"rxe0\", port: 1, path: 2, dir: $d$ops$z1)"
		echo "rwx:rwx_ctx_destroy(device: \"rxe0\", port: 1, path: 2, dir: $d$ops$z1)"
	done
}

# same NAME GOT WANT: ok when the files are the same, else the difference
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		diff "$3" "$2" > /tmp/diff.txt
		{ grep '^<' /tmp/diff.txt | head -n 3; grep '^>' /tmp/diff.txt | head -n 3; } |
			sed 's/^/  diff: /'
		fail "$1" "not the lines expected (diff above: < expected, > got)"
	fi
}

# perf_trace OUT [perf trace options]: perf trace -a over one demo run, its
# lines without the timestamp and task ("  0.000 insmod/140 ") in OUT;
# returns perf's status.
# The demo is pinned to CPU 0: perf trace prints each CPU's buffer as it
# reads it (no sorting unless --sort-events), so a task moving between CPUs
# could reorder the lines.
perf_trace() {
	local out=$1 prc
	shift
	(cd /tmp && perf trace -a "$@" -o "$out.raw" -- taskset -c 0 \
		bash -c "$(declare -f demo); M=$M; demo") > "$out.err" 2>&1
	prc=$?
	sed 's/^/  perf trace: /' "$out.raw" | head -n 3
	sed 's/^/  perf trace (stderr): /' "$out.err"
	sed -E 's/^ *[0-9]+\.[0-9]+ [^ ]+\/[0-9]+ //' "$out.raw" > "$out"
	return $prc
}

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
	# Its lines: "insmod-140 [000] 41.337: rwx_ctx_init:   device=...".
	grep -E ' rwx_ctx_[a-z]+: ' /tmp/report.txt |
		sed -E 's/.* (rwx_ctx_[a-z]+): +/\1: /' > /tmp/report.seq
	text_seq > /tmp/text.seq
	same "trace-cmd report: the 18 events in order, their fields as in tracefs (dir=write/read)" \
		/tmp/report.seq /tmp/text.seq
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
	# perf trace, as Documentation/rdma_rwx.rst shows it.  With only
	# tracepoints given to -e it traces no system calls.
	perf_trace /tmp/ptrace.seq -e 'rwx:*'
	perf_seq > /tmp/perf.seq
	same "perf trace -a -e 'rwx:*': the 18 events in order, with their fields" \
		/tmp/ptrace.seq /tmp/perf.seq
	printf '[trace]\n\tshow_zeros = yes\n' > /tmp/perfconfig
	PERF_CONFIG=/tmp/perfconfig perf_trace /tmp/ptrace0.seq -e 'rwx:*'
	perf_seq zeros > /tmp/perf0.seq
	same "perf trace, trace.show_zeros: the 18 events with every field (result, bvec 0)" \
		/tmp/ptrace0.seq /tmp/perf0.seq
	perf_trace /tmp/ptracef.seq -e rwx:rwx_ctx_init --filter 'dir == 2'
	perf_seq | grep -F 'rwx:rwx_ctx_init(' | grep -F 'dir: 2,' > /tmp/perff.seq
	same "perf trace --filter 'dir == 2': the 3 READ inits only" /tmp/ptracef.seq /tmp/perff.seq
	echo 1 > $D/devices/rxe0/counters
	perf_trace /tmp/ptracee.seq -e rwx:rwx_ctx_init --filter 'result != 0'
	prc=$?
	check "perf trace --filter 'result != 0': nothing, over 6 inits that succeeded" \
		"exit $prc, $(wc -l < /tmp/ptracee.seq) lines, init_sge_multi $(counter $D/devices/rxe0/counters init_sge_multi)" \
		test "$prc" = 0 -a ! -s /tmp/ptracee.seq -a \
		"$(counter $D/devices/rxe0/counters init_sge_multi)" = 6
else
	skip "perf stat" "no perf for this kernel"
	skip "perf trace" "no perf for this kernel"
fi

part bpftrace
if command -v bpftrace > /dev/null; then
	# bpftrace runs the demo itself (-c) once its probe is attached: its
	# "Attaching" line comes before that, and a demo started on it lost
	# the first contexts.
	bpftrace -e 'tracepoint:rwx:rwx_ctx_init { @bytes[str(args->device), args->dir] = sum(args->bytes); }' \
		-c "$(command -v insmod) $M/drivers/demo/rwx_demo.ko addr=192.0.2.1 iters=2" \
		> /tmp/bt.txt 2>&1
	rmmod rwx_demo
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
