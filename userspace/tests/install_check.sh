#!/bin/sh
# make install into a staging DESTDIR with a PREFIX, then check what a
# packager and a user rely on: every file in place, a pkg-config file that
# names the prefix, and a program that includes <rdma/rwx_verbs.h> and
# links against the staged library through pkg-config alone.
# Output: one "ok"/"FAIL" line per check.  Run from userspace/.
set -u
stage=$(mktemp -d) || exit 2
trap 'rm -rf "$stage"' EXIT
prefix=/opt/rwx
root=$stage$prefix

check() {	# name, command...
	name=$1
	shift
	if "$@" > "$stage/out" 2>&1; then
		echo "ok install: $name"
	else
		echo "FAIL install: $name: $(tail -n 3 "$stage/out" | tr '\n' ' ')"
	fi
}

has_all() {
	for f in lib/librdmarwx.so.0.1 lib/librdmarwx.so.0 lib/librdmarwx.so \
		 lib/librdmarwx.a include/rdma/rwx_verbs.h \
		 lib/pkgconfig/librdmarwx.pc bin/rwx_perf \
		 share/man/man1/rwx_perf.1 sbin/rdma-rwx \
		 share/man/man8/rdma-rwx.8; do
		[ -e "$root/$f" ] || { echo "missing $f"; return 1; }
	done
	for m in man/*.3; do
		[ -f "$root/share/man/man3/${m#man/}" ] || {
			echo "missing man page $m"; return 1; }
	done
}

link_program() {
	cat > "$stage/prog.c" <<'PROG'
#include <errno.h>
#include <stdio.h>
#include <rdma/rwx_verbs.h>

int main(void)
{
	/* A NULL id is refused with EINVAL, not dereferenced. */
	if (rdma_post_send(NULL, NULL, NULL, 0, NULL, 0) != -1 ||
	    errno != EINVAL)
		return 1;
	puts("EINVAL");
	return 0;
}
PROG
	export PKG_CONFIG_PATH="$root/lib/pkgconfig"
	export PKG_CONFIG_SYSROOT_DIR="$stage"
	# shellcheck disable=SC2046
	cc -Wall -Wextra -Werror -o "$stage/prog" "$stage/prog.c" \
		$(pkg-config --cflags --libs librdmarwx) || return 1
	LD_LIBRARY_PATH="$root/lib" "$stage/prog" | grep -qx EINVAL
}

# The installed rwx_perf uses the installed library, not a static copy.
perf_shared() {
	readelf -d "$root/bin/rwx_perf" | grep -q 'NEEDED.*\[librdmarwx\.so\.0\]' ||
		{ echo "bin/rwx_perf does not link librdmarwx.so.0"; return 1; }
	LD_LIBRARY_PATH="$root/lib" "$root/bin/rwx_perf" --help | grep -q '^Usage:'
}

check "make install PREFIX=$prefix DESTDIR=<stage>" \
	make --no-print-directory install PREFIX="$prefix" DESTDIR="$stage"
check "library, header, pkg-config file, rwx_perf, rdma-rwx and every man page" has_all
check "librdmarwx.pc names the prefix" \
	grep -qx "prefix=$prefix" "$root/lib/pkgconfig/librdmarwx.pc"
check "a program builds with pkg-config alone and runs against the library" \
	link_program
check "the installed rwx_perf links librdmarwx.so.0 and runs against it" \
	perf_shared
