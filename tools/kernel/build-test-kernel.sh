#!/usr/bin/env bash
# Build (or reuse) a test kernel: linux-source-SERIES + test-kernel.config.
# SERIES is 6.12 (the default) or 6.1, Debian 12's two kernels; both get the
# same debug options.  The build is cached outside the clone, keyed by the
# series, the source package version and the fragment's hash (plus RECIPE,
# bumped when the way it is built changes), so a warm run never rebuilds it.
# An interrupted build resumes.
# Prints the cache directory (holding bzImage and the O= build tree) on stdout.
# KASAN is inline (test-kernel.config): its checks in the code instead of a
# call per access; under TCG that made a debug guest's KUnit run about a
# third shorter (the engine, bvec and sig suites 247 -> 155 s, two guests
# side by side), for a larger kernel to build.
#
# usage: build-test-kernel.sh [--series 6.1|6.12] [--source]
#   --source  only unpack the source (if needed) and print its directory
set -euo pipefail

series=6.12
source_only=0
while [ $# -gt 0 ]; do
	case $1 in
	--series) series=$2; shift 2 ;;
	--source) source_only=1; shift ;;
	*) echo "usage: $0 [--series 6.1|6.12] [--source]" >&2; exit 2 ;;
	esac
done
case $series in
6.1 | 6.12) ;;
*) echo "build-test-kernel: no test kernel for series $series (6.1 or 6.12)" >&2; exit 2 ;;
esac

here=$(cd "$(dirname "$0")" && pwd)
cache=${RWX_CACHE:-/var/cache/rdma-rwx}
fragment=$here/test-kernel.config
# test-kernel-SERIES.config, where there is one: options for one series
# only, after the common ones (part of the cache key only where it exists).
series_fragment=()
[ -f "$here/test-kernel-$series.config" ] && series_fragment=("$here/test-kernel-$series.config")

srcver=$(dpkg-query -W -f='${Version}' "linux-source-$series" 2>/dev/null) || {
	echo "build-test-kernel: linux-source-$series is not installed (run tools/deps.sh)" >&2
	exit 1
}
# Fixes the test kernel carries for bugs of the kernel's own that KASAN
# would otherwise report in our tests (each patch says which and why):
# patches/SERIES/*.patch, applied in order; part of the cache key.
patches=()
for p in "$here/patches/$series"/*.patch; do
	[ -f "$p" ] && patches+=("$p")
done
patch_stamp=""
[ ${#patches[@]} -gt 0 ] && patch_stamp=$(cat "${patches[@]}" | sha256sum | cut -c1-12)
RECIPE=1
key=$( (cat "$fragment" ${series_fragment[@]+"${series_fragment[@]}"} \
	    ${patches[@]+"${patches[@]}"}; echo "recipe $RECIPE") | sha256sum | cut -c1-12)
srcdir=$cache/src/linux-source-${series}_$srcver
outdir=$cache/kernel/${series}_$srcver-$key

# The source, unpacked once, with the series' patches applied; .done
# names the patches it holds.
unpack_source_locked() {
	[ -f "$srcdir/.done" ] && [ "$(cat "$srcdir/.done")" = "$patch_stamp" ] && return 0
	echo "build-test-kernel: unpacking linux-source-$series $srcver" >&2
	rm -rf "$srcdir" "$srcdir.tmp"
	mkdir -p "$srcdir.tmp"
	tar -C "$srcdir.tmp" --strip-components=1 -xf "/usr/src/linux-source-$series.tar.xz"
	for p in ${patches[@]+"${patches[@]}"}; do
		patch -s -d "$srcdir.tmp" -p1 < "$p" || {
			echo "build-test-kernel: $p does not apply" >&2
			return 1
		}
	done
	mv "$srcdir.tmp" "$srcdir"
	echo "$patch_stamp" > "$srcdir/.done"
}
# make check builds the kernels while lint and the harness ask for the
# source: one unpacks, the others wait for it.
unpack_source() {
	local rc=0
	mkdir -p "$cache/src"
	exec 9> "$srcdir.lock"
	flock 9
	unpack_source_locked || rc=$?
	exec 9>&-
	return "$rc"
}

if [ "$source_only" = 1 ]; then
	unpack_source
	echo "$srcdir"
	exit 0
fi

# The kernel's own modules (nvmet, nvme-rdma, null_blk, LIO, ...) installed
# under $outdir/modroot, for guests to bind over /lib/modules and modprobe.
install_modules() {
	[ -f "$outdir/modroot/.done" ] && return 0
	rm -rf "$outdir/modroot"
	make -s -C "$srcdir" O="$outdir" ARCH=x86_64 INSTALL_MOD_PATH="$outdir/modroot" \
		INSTALL_MOD_STRIP=1 modules_install >&2
	touch "$outdir/modroot/.done"
}

if [ -f "$outdir/.done" ]; then
	install_modules
	echo "$outdir"
	exit 0
fi

exec 3>&1 1>&2	# progress to stderr, the answer to fd 3

unpack_source

echo "build-test-kernel: building into $outdir (cold: about 15 minutes)"
mkdir -p "$outdir"
cat "$fragment" ${series_fragment[@]+"${series_fragment[@]}"} > "$outdir/.config"
make -s -C "$srcdir" O="$outdir" ARCH=x86_64 olddefconfig

# Like kunit.py: every option the fragment asks for must have taken.
missing=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*) grep -qxF "$line" "$outdir/.config" || { echo "missing: $line"; missing=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		if grep -q "^$opt=" "$outdir/.config"; then echo "should be unset: $opt"; missing=1; fi ;;
	esac
done < <(cat "$fragment" ${series_fragment[@]+"${series_fragment[@]}"})
if [ "$missing" != 0 ]; then
	echo "build-test-kernel: the config fragment did not apply (see above)" >&2
	exit 1
fi

start=$(date +%s)
make -s -C "$srcdir" O="$outdir" ARCH=x86_64 -j"$(nproc)" bzImage modules
make -s -C "$srcdir" O="$outdir" ARCH=x86_64 modules_prepare
echo "build-test-kernel: built in $(( $(date +%s) - start )) s"
touch "$outdir/.done"
install_modules
echo "$outdir" >&3
