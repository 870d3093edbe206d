#!/usr/bin/env bash
# Host-side tests of the userspace library (userspace/: make check, which
# runs the unit tests plainly and under ASan/UBSan), recorded one by one.
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$RWX_ROOT/tools/lib.sh"

log=$RWX_BUILD/userspace-check.log
mkdir -p "$RWX_BUILD"
make -j"$(nproc)" --no-print-directory -C "$RWX_ROOT/userspace" check > "$log" 2>&1
rc=$?

variant=""
nfail=0
while IFS= read -r line; do
	case $line in
	"# "*/asan/*) variant="asan: " ;;
	"# "*) variant="" ;;
	"ok "*) pass "$variant${line#ok }" ;;
	"FAIL "*) fail "$variant${line#FAIL }"; nfail=$((nfail + 1)) ;;
	"skip "*) skip "$variant${line#skip }" ;;
	esac
done < "$log"

if [ "$rc" != 0 ] && [ "$nfail" = 0 ]; then
	tail -n 30 "$log" | sed 's/^/    /'
	fail "userspace make check" "exited $rc (see $log)"
fi
