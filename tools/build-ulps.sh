#!/usr/bin/env bash
# Build the kernel's own users of the rdma_rw API - nvmet-rdma (NVMe-oF),
# ib_isert (iSER), ib_srpt (SRP), rpcrdma (NFS/RDMA: svcrdma and the
# client transport) and ksmbd (SMB Direct) - from Debian's linux-source
# package, unmodified, with their rdma_rw_* calls going through the engine
# (include/rdma/rwx_rw.h is force-included), as out-of-tree modules of the
# same names.
#
# usage: build-ulps.sh KDIR ENGINE_BUILD OUTDIR [ULP...]
#   KDIR          the kernel build tree (Debian's linux-headers-*, or a
#                 build tree whose "source" link holds the full source)
#   ENGINE_BUILD  the directory holding the engine's Module.symvers
#   OUTDIR        gets OUTDIR/<ulp>/<ulp>.ko and its build log
#   ULP           any of the five (default: every one KDIR's configuration
#                 has; ksmbd needs CONFIG_SMB_SERVER_SMBDIRECT, which
#                 Debian's own kernels leave off: then it is not built, and
#                 the script says so)
#
# The ULP source comes from the kernel tree when KDIR has one, else from
# /usr/src/linux-source-<major.minor>.tar.xz (package linux-source-<x.y>),
# unpacked once into $RWX_CACHE.  Nothing of it is kept in the repository.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${RWX_CACHE:-/var/cache/rdma-rwx}
kdir=$1 engine=$2 out=$3
shift 3
all_ulps="nvmet-rdma ib_isert ib_srpt rpcrdma ksmbd"
ulps=${*:-$all_ulps}

die() { echo "build-ulps: $*" >&2; exit 1; }

[ -f "$kdir/Makefile" ] || die "no kernel build tree at $kdir"
[ -f "$engine/Module.symvers" ] || die "no engine Module.symvers in $engine (build the engine first)"
release=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h")
[ -n "$release" ] || die "cannot read the kernel release of $kdir"
series=$(echo "$release" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')

# ulp_files NAME: "source-dir module-objects files..." of one ULP.  A file
# given as FROM=TO is copied under another name (a composite module cannot
# have an object of its own name).  Module objects "Makefile": the whole
# directory is copied (files "*") and its own Makefile builds the module,
# plus the paths named after it, each at its place in the source tree
# (ksmbd includes "../common/" and "../../nls/" or "../../internal.h").
ulp_files() {
	case $1 in
	nvmet-rdma) echo "drivers/nvme/target rdma.o rdma.c nvmet.h" ;;
	ib_isert) echo "drivers/infiniband/ulp/isert isert.o ib_isert.c=isert.c ib_isert.h" ;;
	ib_srpt) echo "drivers/infiniband/ulp/srpt srpt.o ib_srpt.c=srpt.c ib_srpt.h ib_dm_mad.h" ;;
	rpcrdma) echo "net/sunrpc/xprtrdma Makefile *" ;;
	ksmbd) echo "fs/smb/server Makefile * fs/smb/common fs/nls fs/internal.h" ;;
	*) die "unknown ULP '$1' (known: $all_ulps)" ;;
	esac
}

# ulp_missing_config NAME: succeeds when the kernel has NAME as a module
# with its rdma_rw calls; else prints what is missing.
ulp_missing_config() {
	local opt
	case $1 in
	nvmet-rdma) opt=CONFIG_NVME_TARGET_RDMA ;;
	ib_isert) opt=CONFIG_INFINIBAND_ISERT ;;
	ib_srpt) opt=CONFIG_INFINIBAND_SRPT ;;
	rpcrdma) opt=CONFIG_SUNRPC_XPRT_RDMA ;;
	ksmbd)
		grep -q "^CONFIG_SMB_SERVER_SMBDIRECT=y" "$kdir/.config" || {
			echo "CONFIG_SMB_SERVER_SMBDIRECT is off"
			return 1
		}
		opt=CONFIG_SMB_SERVER ;;
	esac
	grep -q "^$opt=m" "$kdir/.config" && return 0
	echo "$opt is not a module"
	return 1
}

# The source directories every ULP needs, unpacked from the source package.
src_dirs() {
	local ulp dirs=""
	for ulp in $all_ulps; do
		read -r subdir objs files <<< "$(ulp_files "$ulp")"
		dirs="$dirs $subdir"
		[ "$objs" = Makefile ] && dirs="$dirs ${files#\*}"
	done
	echo $dirs
}

# The ULP sources: the build tree's own source, else the source package's.
source_tree() {
	if [ -f "$kdir/source/drivers/nvme/target/rdma.c" ]; then
		readlink -f "$kdir/source"
		return
	fi
	local tarball=/usr/src/linux-source-$series.tar.xz ver dir pkg kver
	[ -f "$tarball" ] || die "$tarball not found: apt-get install linux-source-$series"
	ver=$(dpkg-query -W -f='${Version}' "linux-source-$series")
	# The ULP's private headers (nvmet.h) must match the kernel's own
	# modules it links against: same Debian version as the headers.
	if pkg=$(dpkg -S "$(realpath "$kdir")" 2> /dev/null | cut -d: -f1 | head -n 1) &&
	   [ -n "$pkg" ]; then
		kver=$(dpkg-query -W -f='${Version}' "$pkg")
		[ "$kver" = "$ver" ] ||
			die "linux-source-$series is $ver but $pkg is $kver: install the matching versions"
	fi
	dir=$cache/src/ulp-linux-source-${series}_$ver
	# .done lists what was unpacked: a new ULP unpacks again.
	if [ "$(cat "$dir/.done" 2> /dev/null)" != "$(src_dirs)" ]; then
		echo "build-ulps: unpacking the ULP sources of linux-source-$series $ver" >&2
		rm -rf "$dir"
		mkdir -p "$dir"
		# shellcheck disable=SC2046
		tar -C "$dir" --strip-components=1 -xf "$tarball" \
			$(for d in $(src_dirs); do echo "linux-source-$series/$d"; done) ||
			die "cannot unpack the ULP sources from $tarball"
		src_dirs > "$dir/.done"
	fi
	echo "$dir"
}

# check_on_engine KO: every rdma_rw_* call it makes goes to the engine.
check_on_engine() {
	local undef
	undef=$(nm -u "$1" | awk '{print $2}')
	if grep -E '^rdma_rw_' <<< "$undef"; then
		echo "build-ulps: $1 still calls ib_core's rdma_rw_* (above)" >&2
		return 1
	fi
	grep -q '^rdma_rwx_ctx_init$' <<< "$undef" &&
		modinfo -F depends "$1" | tr , '\n' | grep -qx rdma_rwx
}

# rwx_kbuild ULP DIR OBJS: the Kbuild of a ULP copied into DIR.  rwx_rw.h
# is force-included only into the files that call rdma_rw_*, each after
# its own pr_fmt (unless the file #undefs it first): rwx_rw.h pulls in
# printk.h, and the file's later identical #define is then no
# redefinition.
rwx_kbuild() {
	local ulp=$1 dir=$2 objs=$3 c name
	echo "# Generated by tools/build-ulps.sh: $ulp from $src, on rdma_rwx."
	echo "ccflags-y += -I\$(src)/rwx-include"
	for c in "$dir"/*.c; do
		grep -q 'rdma_rw_' "$c" || continue
		name=$(basename "$c" .c)
		: > "$dir/rwx_prefix_$name.h"
		grep -q '^#undef pr_fmt' "$c" ||
			grep -m 1 '^#define pr_fmt' "$c" > "$dir/rwx_prefix_$name.h" || true
		echo "CFLAGS_$name.o += -include \$(src)/rwx_prefix_$name.h" \
		     "-include \$(src)/rwx-include/rdma/rwx_rw.h"
	done
	if [ "$objs" = Makefile ]; then
		echo "include \$(src)/Makefile"
		echo "$ulp-y += rwx_ulp_info.o"
	else
		echo "obj-m += $ulp.o"
		echo "$ulp-y := $objs rwx_ulp_info.o"
	fi
}

# copy_ulp ULP: its sources into $out/ULP; prints the directory to build.
copy_ulp() {
	local ulp=$1 dir=$out/$1 subdir objs files f
	read -r subdir objs files <<< "$(ulp_files "$ulp")"
	rm -rf "$dir"
	if [ "$objs" = Makefile ]; then
		# The directory and what it includes keep their relative places.
		mkdir -p "$dir"
		for f in $subdir ${files#\*}; do
			(cd "$src" && cp -a --parents "$f" "$dir/") || die "$f not in $src"
		done
		dir=$dir/$subdir
	else
		mkdir -p "$dir"
		for f in $files; do
			cp "$src/$subdir/${f%%=*}" "$dir/${f#*=}" || die "$f not in $src/$subdir"
		done
	fi
	mkdir -p "$dir/rwx-include/rdma"
	cp "$root/include/rdma/rwx.h" "$root/include/rdma/rwx_rw.h" "$dir/rwx-include/rdma/"
	rwx_kbuild "$ulp" "$dir" "$objs" > "$dir/Kbuild"
	cp "$root/drivers/ulp/rwx_ulp_info.c" "$dir/"
	echo "$dir"
}

# A ULP built once is kept in $cache/ulps, keyed by everything its .ko is
# made of: its staged sources and the engine's headers (the directory
# copy_ulp made), the engine's exports and their CRCs (the .ko records
# them), the kernel's configuration, release and exports (its compiler is
# in the configuration), and this script.  The ULPs' sources are
# Debian's and the engine's API changes rarely, so a warm make check
# builds none (4 x 55-72 s of its build phase before).  Entries unused
# for 14 days go.  RWX_ULP_CACHE: another place for it (the harness's
# test of it).
ulp_cache=${RWX_ULP_CACHE:-$cache/ulps}
ulp_key() {
	{
		(cd "$out/$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
		awk '{ print $1, $2, $4, $5 }' "$engine/Module.symvers"
		cat "$kdir/.config" "$kdir/include/generated/utsrelease.h"
		[ ! -f "$kdir/Module.symvers" ] || awk '{ print $1, $2, $4, $5 }' "$kdir/Module.symvers"
		cat "$0"
	} | sha256sum | cut -c1-16
}

# ulp_from_cache ULP KEY DIR: the cached ULP.ko into DIR, if there is one.
ulp_from_cache() {
	[ -f "$ulp_cache/$2/$1.ko" ] || return 1
	cp "$ulp_cache/$2/$1.ko" "$3/$1.ko" || return 1
	touch "$ulp_cache/$2"
	echo "build-ulps: $1 from the cache ($ulp_cache/$2)" > "$3/build.log"
}

# ulp_to_cache ULP KEY DIR: DIR's ULP.ko kept under KEY (whole or not at all).
ulp_to_cache() {
	local tmp
	mkdir -p "$ulp_cache" && tmp=$(mktemp -d "$ulp_cache/.new.XXXXXX") &&
		chmod 755 "$tmp" || return 0
	if cp "$3/$1.ko" "$tmp/" && mv -T "$tmp" "$ulp_cache/$2" 2> /dev/null; then
		find "$ulp_cache" -mindepth 1 -maxdepth 1 -mtime +14 -exec rm -rf {} +
	else
		rm -rf "$tmp"
	fi
}

src=$(source_tree)
mkdir -p "$out"
out=$(realpath "$out")
for ulp in $ulps; do
	ulp_files "$ulp" > /dev/null	# dies on an unknown name
	if ! opt=$(ulp_missing_config "$ulp"); then
		[ $# -eq 0 ] || die "$ulp: $opt in $release"
		note=""
		[ "$ulp" = ksmbd ] && note=" (Debian's own kernels build ksmbd without SMB Direct)"
		echo "build-ulps: $ulp not built: $opt in $release$note"
		rm -rf "${out:?}/$ulp"
		continue
	fi
	dir=$(copy_ulp "$ulp")
	key=$(ulp_key "$ulp")
	cached=", from the cache"
	if ! ulp_from_cache "$ulp" "$key" "$dir"; then
		cached=""
		if ! make -j"$(nproc)" -C "$kdir" M="$dir" \
				KBUILD_EXTRA_SYMBOLS="$(realpath "$engine")/Module.symvers" \
				modules > "$dir/build.log" 2>&1; then
			cat "$dir/build.log" >&2
			die "$ulp did not build against $kdir"
		fi
		if grep -E 'warning:' "$dir/build.log" >&2; then
			die "$ulp built with warnings against $kdir (above)"
		fi
		ulp_to_cache "$ulp" "$key" "$dir"
	fi
	[ "$dir" = "$out/$ulp" ] || ln -sf "${dir#"$out/$ulp/"}/$ulp.ko" "$out/$ulp/$ulp.ko"
	check_on_engine "$out/$ulp/$ulp.ko" || die "$ulp.ko does not run on the engine"
	echo "build-ulps: $out/$ulp/$ulp.ko ($release, source $src$cached)"
done
