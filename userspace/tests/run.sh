#!/bin/sh
# Run unit-test binaries and rwx_perf smoke checks; count the "ok",
# "FAIL" and "skip" lines of all of them and end with exactly one line
# "N passed, N failed, N skipped".  A binary that exits non-zero without
# reporting a FAIL line (a crash, a sanitizer report) counts as a failure.
#
#   run.sh UNIT... -- PERF...     (a UNIT ending in .sh is run with sh)
pass=0 fail=0 skip=0
out=$(mktemp) || exit 2
trap 'rm -f "$out"' EXIT

count() {	# $1: label for a crash
	p=$(grep -c '^ok ' "$out"); f=$(grep -c '^FAIL ' "$out")
	s=$(grep -c '^skip ' "$out")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		echo "FAIL $1: exited with status $rc"
		fail=$((fail + 1))
	fi
}

while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	echo "# $1"
	case "$1" in
	*.sh) sh "$1" > "$out" 2>&1; rc=$? ;;
	*) "$1" > "$out" 2>&1; rc=$? ;;
	esac
	cat "$out"
	count "$1"
	shift
done
[ "$1" = "--" ] && shift

# rwx_perf cannot run without a device; its command line can.
for perf in "$@"; do
	: > "$out"
	if "$perf" --help 2>&1 | grep -q '^Usage:'; then
		echo "ok $perf --help" >> "$out"
	else
		echo "FAIL $perf --help: no usage text" >> "$out"
	fi
	"$perf" --op bogus > /dev/null 2>&1; r=$?
	if [ "$r" -eq 2 ]; then
		echo "ok $perf rejects --op bogus" >> "$out"
	else
		echo "FAIL $perf --op bogus: exit $r, want 2" >> "$out"
	fi
	rc=0
	cat "$out"
	count "$perf"
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
