#!/usr/bin/env bash
# Build the module tree against one kernel build tree, out of the source
# tree (so builds against several kernels do not clobber each other), with
# W=1 and sparse.  Any compiler or sparse warning fails the build.
#
# usage: build-module.sh KDIR OUTDIR [extra kbuild arguments...]
# (C=0 among them: without sparse)
set -euo pipefail

kdir=$1 out=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)

[ -f "$kdir/Makefile" ] || { echo "build-module: no kernel build tree at $kdir" >&2; exit 1; }
mkdir -p "$out"
out=$(realpath "$out")
rsync -a --delete --exclude='*.o' --exclude='*.ko' --exclude='*.cmd' \
	--exclude='*.mod*' "$root/Kbuild" "$root/drivers" "$root/include" "$root/kunit" "$out/"
# Keep the objects of earlier builds: rsync only rewrote changed sources.
log=$out/build.log
if ! make -j"$(nproc)" -C "$kdir" M="$out" W=1 C=1 "$@" modules > "$log" 2>&1; then
	cat "$log" >&2
	echo "build-module: build against $kdir failed" >&2
	exit 1
fi
if grep -E 'warning:|error:' "$log" >&2; then
	echo "build-module: warnings building against $kdir" >&2
	exit 1
fi
