# Sourced by guest scripts: what the engine did (its debugfs counters), and
# kmemleak around a test.  RWX_LOG_PREFIX names the script in messages.
# The engine's counters (debugfs), one "<prefix>: engine NAME VALUE" line each.
RWX_COUNTERS=/sys/kernel/debug/rdma_rwx/counters
engine_counters() {
	[ -n "${RWX_ENGINE_MODULE:-}" ] || return 0
	sed "s/^/${RWX_LOG_PREFIX:-nvmeof}: engine /" $RWX_COUNTERS
}

engine_counter() {
	[ -r $RWX_COUNTERS ] || echo "${RWX_LOG_PREFIX:-nvmeof}: no $RWX_COUNTERS (engine not loaded?)" >&2
	awk -v n="$1" '$1 == n {print $2}' $RWX_COUNTERS
}

# Plain contexts the engine set up so far, on any path.
engine_contexts() {
	echo $(($(engine_counter init_sge_single) + $(engine_counter init_sge_multi) + $(engine_counter init_mr)))
}

# Failed engine calls, all causes together.
RWX_ERROR_COUNTERS="err_eagain err_enospc err_einval err_enomem err_other"
engine_errors() {
	local c sum=0
	for c in $RWX_ERROR_COUNTERS; do
		sum=$((sum + $(engine_counter $c)))
	done
	echo $sum
}

# No engine call failed; otherwise name each failing cause.
engine_no_errors() {
	local c rc=0
	for c in $RWX_ERROR_COUNTERS; do
		[ "$(engine_counter $c)" = 0 ] && continue
		echo "${RWX_LOG_PREFIX:-nvmeof}: engine $c = $(engine_counter $c)"
		rc=1
	done
	return $rc
}

# engine_expect_paths sge|mr|sge+mr: the contexts the engine set up took
# that path (and only it), and none failed.
engine_expect_paths() {
	local sge mr
	sge=$(($(engine_counter init_sge_single) + $(engine_counter init_sge_multi)))
	mr=$(engine_counter init_mr)
	case $1 in
	sge) [ "$sge" -gt 0 ] && [ "$mr" = 0 ] ;;
	mr) [ "$mr" -gt 0 ] && [ "$sge" = 0 ] ;;
	sge+mr) [ "$sge" -gt 0 ] && [ "$mr" -gt 0 ] ;;
	*) false ;;
	esac || {
		echo "${RWX_LOG_PREFIX:-nvmeof}: engine paths: $sge SGE and $mr MR contexts, expected $1"
		return 1
	}
	engine_no_errors || return 1
	echo "${RWX_LOG_PREFIX:-nvmeof}: engine paths as expected ($1): $sge SGE contexts," \
	     "$mr MR contexts ($(engine_counter mrs_registered) MRs)"
}

# The kernel's own modules from RWX_MODROOT (a modules_install root), over
# the host's /lib/modules; without RWX_MODROOT the host's serve.
bind_modroot() {
	[ -n "${RWX_MODROOT:-}" ] || return 0
	mount --bind "$RWX_MODROOT/lib/modules" /lib/modules
}

# Every context the engine set up was destroyed again.
engine_live_check() {
	local live
	live=$(engine_counter contexts_live)
	[ "$live" = 0 ] && return 0
	echo "${RWX_LOG_PREFIX:-nvmeof}: $live engine contexts still live at teardown"
	return 1
}

kmemleak_start() {
	[ "${RWX_KMEMLEAK:-1}" = 1 ] && [ -w /sys/kernel/debug/kmemleak ] &&
		echo clear > /sys/kernel/debug/kmemleak
	return 0
}

# Scan once everything is torn down; reports go to the console, where the
# host's judgement finds them.  Twice: a scan only greys an object it sees
# for the first time (its checksum changed), so a new leak is reported by
# the second scan.
kmemleak_check() {
	[ "${RWX_KMEMLEAK:-1}" = 1 ] && [ -w /sys/kernel/debug/kmemleak ] || return 0
	sleep 5
	echo scan > /sys/kernel/debug/kmemleak
	echo scan > /sys/kernel/debug/kmemleak
	cat /sys/kernel/debug/kmemleak
}
