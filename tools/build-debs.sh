#!/usr/bin/env bash
# make deb: build the Debian packages (debian/) out of the work tree and
# check them with lintian.
#
#   rdma-rwx-dkms    rdma_rwx.ko as DKMS source, built on install
#   librdmarwx0      the shared library
#   librdmarwx-dev   header, static library, .so link, pkg-config file, man pages
#   rdma-rwx-tools   rwx_perf
#
# The work tree's sources (tracked and untracked files git does not ignore,
# as they are now, uncommitted changes included) are copied to
# build/deb/rdma-rwx-<version> and built there with
# "dpkg-buildpackage -us -uc -b"; the .deb files (the -dbgsym packages too),
# .buildinfo and .changes land in build/deb/, the build log in
# build/deb/build.log.  The source package (.dsc, .tar.xz) is made as well,
# for lintian.  lintian checks every package: an error fails the script,
# warnings and info tags are printed (build/deb/lintian.log).
#
# usage: build-debs.sh [--if-changed]
#   --if-changed: do nothing when build/deb holds packages built from the
#                 same sources by the same script (tools/test-debs.sh uses it).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
self=$root/tools/build-debs.sh
out=${RWX_BUILD:-$root/build}/deb
t0=$SECONDS

die() { echo "build-debs: $*" >&2; exit 1; }

# The packages' version is the engine's: debian/changelog must carry it.
engine_version=$(sed -n 's/^#define RDMA_RWX_VERSION "\(.*\)"$/\1/p' "$root/include/rdma/rwx.h")
deb_version=$(dpkg-parsechangelog -l "$root/debian/changelog" -S Version)
lib_version=$(sed -n 's/^VERSION *:= *//p' "$root/userspace/Makefile")
[ -n "$engine_version" ] || die "no RDMA_RWX_VERSION in include/rdma/rwx.h"
[ "$deb_version" = "$engine_version" ] ||
	die "debian/changelog is at $deb_version, RDMA_RWX_VERSION at $engine_version: add a changelog entry (dch -v $engine_version)"
[ "$lib_version" = "$engine_version" ] ||
	echo "build-debs: note: librdmarwx is at $lib_version (userspace/Makefile), the engine at $engine_version" >&2

# The sources to package: what git tracks or would track, as they are in
# the work tree (a tree without git: everything but build output).
list=$(mktemp)
trap 'rm -f "$list"' EXIT
if git -C "$root" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git -C "$root" ls-files -z --cached --others --exclude-standard |
		while IFS= read -r -d '' f; do
			[ -f "$root/$f" ] && printf '%s\n' "$f"
		done | sort -u > "$list"
else
	(cd "$root" && find . -path ./build -prune -o -path ./userspace/build -prune \
		-o -type f ! -name '*.o' ! -name '*.ko' -printf '%P\n') | sort > "$list"
fi
grep -qx 'debian/control' "$list" || die "debian/control is not part of the sources"
# The copy is named as dpkg-source expects (<source>-<version>).
src=$out/rdma-rwx-$deb_version

key=$( (cd "$root" && tr '\n' '\0' < "$list" | xargs -0 sha256sum; sha256sum "$self") |
	sha256sum | cut -c1-16)
if [ "${1:-}" = "--if-changed" ] && [ "$(cat "$out/sources.key" 2>/dev/null)" = "$key" ] &&
   ls "$out"/rdma-rwx-dkms_"$deb_version"_all.deb > /dev/null 2>&1; then
	echo "build-debs: packages in $out are up to date"
	exit 0
fi

missing=$(cd "$root" && dpkg-checkbuilddeps 2>&1 | sed -n 's/.*Unmet build dependencies: //p') || true
[ -z "$missing" ] || die "unmet build dependencies: $missing (apt-get install them; tools/deps.sh)"
command -v lintian > /dev/null || die "lintian is not installed"

mkdir -p "$out"
rm -rf "$out"/rdma-rwx-*/ "$out/src" "$out/sources.key"
rm -f "$out"/*.deb "$out"/*.ddeb "$out"/*.buildinfo "$out"/*.changes "$out"/*.dsc \
	"$out"/*.tar.xz
mkdir -p "$src"
rsync -a --files-from="$list" "$root/" "$src/"

log=$out/build.log
# The source package too (from the clean copy), for lintian only.
if ! (cd "$out" && dpkg-source -b "$(basename "$src")") > "$log" 2>&1; then
	cat "$log" >&2
	die "dpkg-source -b failed"
fi
echo "build-debs: dpkg-buildpackage -us -uc -b in $src (log: $log)"
if ! (cd "$src" && dpkg-buildpackage -us -uc -b) >> "$log" 2>&1; then
	tail -n 40 "$log" >&2
	die "dpkg-buildpackage failed (see $log)"
fi
changes=$(ls "$out"/rdma-rwx_"$deb_version"_*.changes)
echo "$key" > "$out/sources.key"
(cd "$out" && find . -maxdepth 1 \( -name '*.deb' -o -name '*.ddeb' \) -printf '  %s\t%f\n' | sort -k2)

# lintian on every binary package of the build (the .changes names them)
# and on the source package; --fail-on error: errors fail, warnings and
# info tags are shown.
echo "build-debs: lintian"
lrc=0
lintian --fail-on error --display-info --tag-display-limit 0 "$changes" \
	"$out/rdma-rwx_$deb_version.dsc" \
	> "$out/lintian.log" 2>&1 || lrc=$?
sed 's/^/  /' "$out/lintian.log"
nerr=$(grep -c '^E: ' "$out/lintian.log" || true)
nwarn=$(grep -c '^W: ' "$out/lintian.log" || true)
echo "build-debs: lintian: $nerr errors, $nwarn warnings (log: $out/lintian.log)"
if [ "$lrc" != 0 ] || [ "$nerr" != 0 ]; then
	rm -f "$out/sources.key"	# a failed check is not a reusable build
	die "lintian reported errors (exit $lrc)"
fi
echo "build-debs: done in $((SECONDS - t0)) s: packages in $out"
