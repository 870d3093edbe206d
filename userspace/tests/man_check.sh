#!/bin/sh
# Man pages: every public function (RWX_API in the header, plus the inline
# rdma_seterrno) and every tool has a page, and every page renders
# without groff warnings
# (.so links resolved the way man(1) does, relative to the man root).
# Output: one "ok"/"FAIL" line per check.  Run from userspace/.
hdr=include/rdma/rwx_verbs.h
root=$(mktemp -d) || exit 2
trap 'rm -rf "$root"' EXIT
ln -s "$(pwd)/man" "$root/man3"
ln -s "$(pwd)/man" "$root/man1"
ln -s "$(pwd)/man" "$root/man8"

names=$( (grep 'RWX_API' "$hdr" | grep -oE '\b(rdma|rwx)_[a-z0-9_]+\(' |
	  tr -d '('; echo rdma_seterrno) | sort -u)
for n in $names; do
	if [ -f "man/$n.3" ]; then
		echo "ok man page for $n"
	else
		echo "FAIL man page for $n: man/$n.3 missing"
	fi
done
# The tools have pages: rwx_perf in section 1, the admin's rdma-rwx in 8.
for n in rwx_perf.1 rdma-rwx.8; do
	if [ -f "man/$n" ]; then
		echo "ok man page for ${n%.*}(${n##*.})"
	else
		echo "FAIL man page for ${n%.*}(${n##*.}): man/$n missing"
	fi
done
for f in man/*.3 man/*.1 man/*.8; do
	p=$(basename "$f")
	out=$(cd "$root" && groff -s -man -Tutf8 -ww -z "man${p##*.}/$p" 2>&1)
	if [ -z "$out" ]; then
		echo "ok man renders $p"
	else
		echo "FAIL man renders $p: $out"
	fi
done
# Each page carries a real date: not a placeholder from before the
# project began (2026-11-22), and not in the future.
for page in man/*.[0-9]; do
	grep -q '^\.so ' "$page" && continue	# a link to another page
	d=$(sed -n 's/^\.TH "[^"]*" [0-9] "\([0-9-]*\)".*/\1/p' "$page")
	case $d in
	[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]) ;;
	*) echo "FAIL man page date of $page: '$d' is not YYYY-MM-DD"; continue ;;
	esac
	if [ "$d" \< 2026-11-22 ] || [ "$d" \> "$(date +%F)" ]; then
		echo "FAIL man page date of $page: $d"
	else
		echo "ok man page date of $page"
	fi
done
