#!/bin/sh
# <rdma/rwx_verbs.h> replaces librdmacm's <rdma/rdma_verbs.h>, which
# defines the same names as static inline functions: a program that
# includes both, in either order, must fail to compile with a message that
# says so, and one that includes ours alone must compile warning-free
# (rdma_seterrno called and its address taken, as librdmacm's allows).
# Output: one "ok"/"FAIL" line per check.  Run from userspace/.
set -u
work=$(mktemp -d) || exit 2
trap 'rm -rf "$work"' EXIT
CC=${CC:-cc}
message='replaces.*rdma_verbs.h.*include.only.one'

program() {	# headers...: a program including them, in that order
	for h in "$@"; do
		echo "#include <$h>"
	done
	echo 'int main(void) { int (*f)(int) = rdma_seterrno; return f(0) + rdma_seterrno(0); }'
}

# check_both_refused FIRST SECOND
check_both_refused() {
	name="<$1> then <$2> is refused, saying why"
	program "$1" "$2" > "$work/p.c"
	if $CC -Iinclude -fsyntax-only "$work/p.c" > "$work/out" 2>&1; then
		echo "FAIL header: $name: it compiled"
	elif head -n 6 "$work/out" | grep -q "$message"; then
		echo "ok header: $name"
	else
		echo "FAIL header: $name: $(head -n 3 "$work/out" | tr '\n' ' ')"
	fi
}

program rdma/rwx_verbs.h > "$work/p.c"
if $CC -Wall -Wextra -Werror -Iinclude -fsyntax-only "$work/p.c" > "$work/out" 2>&1; then
	echo "ok header: <rdma/rwx_verbs.h> alone compiles, rdma_seterrno as librdmacm's"
else
	echo "FAIL header: <rdma/rwx_verbs.h> alone: $(head -n 3 "$work/out" | tr '\n' ' ')"
fi
check_both_refused rdma/rdma_verbs.h rdma/rwx_verbs.h
check_both_refused rdma/rwx_verbs.h rdma/rdma_verbs.h
