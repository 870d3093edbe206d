# Shared helpers for the test scripts (sourced, not run).
# Results are appended to $RWX_RESULTS as "suite<TAB>test<TAB>result<TAB>detail"
# lines; tools/check.sh totals them.

RWX_ROOT=${RWX_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
RWX_CACHE=${RWX_CACHE:-/var/cache/rdma-rwx}
RWX_BUILD=${RWX_BUILD:-$RWX_ROOT/build}
RWX_RESULTS=${RWX_RESULTS:-$RWX_BUILD/results.tsv}
RWX_SUITE=${RWX_SUITE:-misc}

# suite NAME: results from here on belong to NAME; in make check, the
# header says when it began (RWX_CHECK_T0, make check's start).
suite() {
	export RWX_SUITE=$1
	echo "== suite $1${RWX_CHECK_T0:+ ($((EPOCHSECONDS - RWX_CHECK_T0)) s into make check)}"
}

record() {	# record RESULT TEST [DETAIL]
	local result=$1 test=$2 detail=${3:-}
	printf '%s\t%s\t%s\t%s\n' "$RWX_SUITE" "$test" "$result" "$detail" >> "$RWX_RESULTS"
	case $result in
	pass) echo "ok   $RWX_SUITE: $test" ;;
	fail) echo "FAIL $RWX_SUITE: $test${detail:+ -- $detail}" ;;
	skip) echo "skip $RWX_SUITE: $test${detail:+ -- $detail}" ;;
	esac
}
pass() { record pass "$@"; }
fail() { record fail "$@"; }
skip() { record skip "$@"; }

# run_test NAME CMD...: pass when CMD succeeds; on failure its output's tail
# is shown and recorded.
run_test() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ $rc = 0 ]; then
		pass "$name"
	else
		printf '%s\n' "$out" | tail -n 40 | sed 's/^/    /'
		fail "$name" "$(printf '%s\n' "$out" | grep -v '^\s*$' | tail -n 1)"
	fi
	return $rc
}

newest_dir() { ls -d $1 2>/dev/null | sort -V | tail -n 1; }
headers_61() { newest_dir '/usr/src/linux-headers-6.1.0-*-amd64'; }
headers_612() { newest_dir '/usr/src/linux-headers-6.12.*-amd64'; }
stock_612_release() { basename "$(headers_612)" | sed 's/^linux-headers-//'; }

# initramfs_for [RELEASE]: path of a cached initramfs for that kernel
# (RELEASE empty: a kernel with 9p built in), built on first use.
initramfs_for() {
	local release=${1:-builtin} key out
	key=$(sha256sum "$RWX_ROOT/tools/qemu/mkinitramfs.sh" | cut -c1-12)
	out=$RWX_CACHE/initramfs/$release-$key.gz
	if [ ! -f "$out" ]; then
		bash "$RWX_ROOT/tools/qemu/mkinitramfs.sh" "$out" "${1:-}" >&2 || return 1
	fi
	echo "$out"
}

# vm_cpus_asked OUTDIR: the CPUs run-vm.sh gave the guest of OUTDIR (0 when
# it did not say), for evaluate-run.py --cpus.
vm_cpus_asked() {
	cat "$1/cpus-asked" 2>/dev/null || echo 0
}
