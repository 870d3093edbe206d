#!/usr/bin/env bash
# Build the API reference: expand the kernel-doc directives of
# Documentation/*.rst with the kernel's scripts/kernel-doc into
# build/Documentation/, failing on any kernel-doc warning.
#   usage: docs.sh SRCDIR   (an unpacked linux-source tree)
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
src=$1
out=$RWX_ROOT/build/Documentation
mkdir -p "$out"
rc=0

for rst in "$RWX_ROOT"/Documentation/*.rst; do
	dest=$out/$(basename "$rst")
	: > "$dest"
	file="" mode=""
	flush() {
		[ -n "$file" ] || return 0
		local warn
		warn=$(cd "$RWX_ROOT" && "$src/scripts/kernel-doc" -rst -sphinx-version 3.0 -Wall $mode "$file" 2>&1 >> "$dest")
		if [ -n "$warn" ]; then
			echo "$warn" >&2
			rc=1
		fi
		file="" mode=""
	}
	while IFS= read -r line; do
		case $line in
		".. kernel-doc:: "*)
			flush
			file=${line#.. kernel-doc:: } ;;
		"   :export:") mode="-export" ;;
		"   :internal:") mode="-internal" ;;
		*)
			flush
			printf '%s\n' "$line" >> "$dest" ;;
		esac
	done < "$rst"
	flush
	if [ -n "$file" ]; then flush; fi
done
exit $rc
