#!/usr/bin/env bash
# Kernel coding style and kernel-doc for every kernel source file, with the
# kernel's own checkpatch.pl --strict and kernel-doc from linux-source-6.12.
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$RWX_ROOT/tools/lib.sh"

src=$("$RWX_ROOT/tools/kernel/build-test-kernel.sh" --source) || {
	fail "checkpatch" "cannot unpack linux-source-6.12"
	exit 1
}
cd "$RWX_ROOT" || exit 1
files=$(git ls-files -co --exclude-standard 'drivers/*.[ch]' 'include/*.h' 'kunit/*.[ch]' 2>/dev/null ||
	find drivers include kunit -name '*.[ch]')

for f in $files; do
	run_test "checkpatch --strict $f" perl "$src/scripts/checkpatch.pl" \
		--no-tree --strict --terse --show-types -f "$f"
done

# kernel-doc: every comment it parses must be well formed, and every
# exported function must have one.
for f in $files; do
	run_test "kernel-doc $f" bash -c '
		out=$("$1/scripts/kernel-doc" -none -Wall "$2" 2>&1)
		[ -z "$out" ] || { echo "$out"; exit 1; }
		for sym in $(sed -n "s/^EXPORT_SYMBOL[_A-Z]*(\([a-z0-9_]*\).*/\1/p" "$2"); do
			grep -q "^ \* $sym() - " "$2" || { echo "$sym: exported without kernel-doc"; exit 1; }
		done' _ "$src" "$f"
done

run_test "API reference builds without kernel-doc warnings (build/Documentation)" \
	bash "$RWX_ROOT/tools/docs.sh" "$src"
