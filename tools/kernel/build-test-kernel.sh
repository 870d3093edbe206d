#!/usr/bin/env bash
# Build (or reuse) the test kernel: linux-source-6.12 + test-kernel.config.
# The build is cached outside the clone, keyed by the source package version
# and the fragment's hash (plus RECIPE, bumped when the way it is built
# changes), so a warm run never rebuilds it.  An interrupted build resumes.
# Prints the cache directory (holding bzImage and the O= build tree) on stdout.
# With --source: only unpack the source (if needed) and print its directory.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
cache=${RWX_CACHE:-/var/cache/rdma-rwx}
fragment=$here/test-kernel.config

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) || {
	echo "build-test-kernel: linux-source-6.12 is not installed (run tools/deps.sh)" >&2
	exit 1
}
RECIPE=1
key=$( (cat "$fragment"; echo "recipe $RECIPE") | sha256sum | cut -c1-12)
srcdir=$cache/src/linux-source-6.12_$srcver
outdir=$cache/kernel/6.12_$srcver-$key

unpack_source() {
	[ -f "$srcdir/.done" ] && return 0
	echo "build-test-kernel: unpacking linux-source-6.12 $srcver" >&2
	rm -rf "$srcdir" "$srcdir.tmp"
	mkdir -p "$srcdir.tmp"
	tar -C "$srcdir.tmp" --strip-components=1 -xf /usr/src/linux-source-6.12.tar.xz
	mv "$srcdir.tmp" "$srcdir"
	touch "$srcdir/.done"
}

if [ "${1:-}" = --source ]; then
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
cp "$fragment" "$outdir/.config"
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
done < "$fragment"
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
