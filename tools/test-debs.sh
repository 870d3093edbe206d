#!/usr/bin/env bash
# Test the Debian packages of tools/build-debs.sh on this machine, then
# remove everything the test installed.
#
#  1. build the packages (or reuse build/deb when the sources did not change)
#  2. for a 6.1 guest: install Debian's stock 6.1 image matching the installed
#     6.1 headers, when it is not installed (removed again at the end)
#  3. apt-get install ./build/deb/rdma-rwx-dkms_*.deb: DKMS must build and
#     install rdma_rwx.ko and rdma_rwx_takeover.ko (and nothing else) for both
#     Debian kernels whose headers are installed (6.1 and 6.12), under
#     /lib/modules/<release>/updates, known to depmod; and build them again
#     from the kernel postinst hook (what a kernel update runs) after they
#     were removed for 6.12
#  4. install librdmarwx0, librdmarwx-dev, rdma-rwx-tools: a program built with
#     "pkg-config --cflags --libs librdmarwx" alone runs; rwx_perf; rdma-rwx;
#     man pages
#  5. boot Debian's stock 6.12 kernel (and 6.1) in QEMU with the host's root:
#     "modprobe rdma_rwx" (found through depmod), the smoke checks of
#     tools/guest/smoke-insmod.sh, and the packaged rdma-rwx turning the
#     packaged takeover on and off (tools/guest/dkms-modprobe.sh)
#  6. purge every package the test installed (the DKMS module goes with
#     rdma-rwx-dkms, for all kernels), undo what DKMS and depmod left, and
#     check that packages, dkms status and /lib/modules are as before
#
# Prints one line per check, "ok NAME", "FAIL NAME: why" or "skip NAME: why"
# (tools/check.sh's record_guest_checks format), then a summary line; exits
# non-zero on any failure.  Runs as root.
set -uo pipefail

RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
. "$RWX_ROOT/tools/lib.sh"
out=$RWX_BUILD/deb
work=$out/test
t0=$SECONDS
export DEBIAN_FRONTEND=noninteractive
APT=(apt-get -y -o DPkg::Lock::Timeout=600)
# The guests' qemu processes get a name of their own.
export RWX_VM_NAME=rwxdeb-$$

n_ok=0 n_fail=0 n_skip=0
ok() { echo "ok $1"; n_ok=$((n_ok + 1)); }
bad() { echo "FAIL $1: $2"; n_fail=$((n_fail + 1)); }
skp() { echo "skip $1: $2"; n_skip=$((n_skip + 1)); }
note() { echo "   $*"; }
# dkms status of rdma-rwx (captured whole: no "| grep -q" under pipefail)
dkms_st() { dkms status -m rdma-rwx "$@" 2> /dev/null; }
# tail of a log, on one line
last() { grep -v '^\s*$' "$1" 2>/dev/null | tail -n "${2:-2}" | tr '\n' ' '; }

[ "$(id -u)" = 0 ] || { echo "test-debs: must run as root" >&2; exit 2; }
rm -rf "$work"
mkdir -p "$work"

# ---- the packages -------------------------------------------------------
if bash "$RWX_ROOT/tools/build-debs.sh" --if-changed > "$work/build-debs.log" 2>&1; then
	ok "packages built (tools/build-debs.sh, lintian clean)"
	grep -E '^build-debs: (packages|done)' "$work/build-debs.log" | sed 's/^/   /'
else
	bad "packages built (tools/build-debs.sh, lintian clean)" "$(last "$work/build-debs.log" 3)"
	echo "test-debs: $n_ok ok, $n_fail failed, $n_skip skipped"
	exit 1
fi
ver=$(dpkg-parsechangelog -l "$RWX_ROOT/debian/changelog" -S Version)
deb() { echo "$out/${1}_${ver}_${2:-amd64}.deb"; }
OUR_PKGS="rdma-rwx-dkms librdmarwx0 librdmarwx-dev rdma-rwx-tools"

# ---- the state to come back to ------------------------------------------
pkg_state() { dpkg-query -W -f='${binary:Package} ${db:Status-Abbrev}\n' | sort; }
lib_modules_state() { find /lib/modules -mindepth 1 -maxdepth 2 | sort; }
pkg_state > "$work/pkgs.before"
lib_modules_state > "$work/lib-modules.before"
find /var/lib/dkms -mindepth 1 -maxdepth 1 2> /dev/null | sort > "$work/dkms-tree.before"
find "$RWX_CACHE/initramfs" -mindepth 1 -maxdepth 1 2> /dev/null | sort > "$work/initramfs-cache.before"
for l in /vmlinuz /vmlinuz.old /initrd.img /initrd.img.old; do
	echo "$l $(readlink "$l" 2> /dev/null || echo -)"
done > "$work/boot-links.before"

installed_of_ours=$(for p in $OUR_PKGS; do
	[[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2> /dev/null) == ii* ]] && echo "$p"; done)
if [ -n "$installed_of_ours" ]; then
	bad "no rdma-rwx package installed before the test" \
		"$(echo "$installed_of_ours" | tr '\n' ' ')installed; remove them first (apt-get purge $OUR_PKGS)"
	echo "test-debs: $n_ok ok, $n_fail failed, $n_skip skipped"
	exit 1
fi
if [ -n "$(dkms_st)" ]; then
	bad "no rdma-rwx module in dkms status before the test" "$(dkms_st | head -n 1)"
	echo "test-debs: $n_ok ok, $n_fail failed, $n_skip skipped"
	exit 1
fi

# ---- cleanup: purge what was installed, undo what DKMS/depmod left ------
image_61_pkg=""
cleaned=0
cleanup() {
	[ "$cleaned" = 1 ] && return
	cleaned=1
	local new purge p f left
	echo "== cleanup"
	# Everything installed since the start (our packages, the 6.1 image,
	# anything apt pulled in with them).
	new=$(pkg_state | comm -13 "$work/pkgs.before" - | awk '$2 ~ /^.i/ {print $1}')
	purge=$(for p in $OUR_PKGS ${new//:$(dpkg --print-architecture)/}; do
		[[ $(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2> /dev/null) == ?[ic]* ]] && echo "$p"
		done | sort -u | tr '\n' ' ')
	if [ -n "$purge" ]; then
		note "apt-get purge $purge"
		# shellcheck disable=SC2086
		"${APT[@]}" purge $purge > "$work/purge.log" 2>&1 ||
			bad "cleanup: apt-get purge $purge" "$(last "$work/purge.log")"
	fi
	# What depmod wrote for a kernel that has headers but no image (6.1
	# without linux-image): modules.* next to the headers' build link.
	lib_modules_state | comm -13 "$work/lib-modules.before" - | while read -r f; do
		case $f in
		/lib/modules/*/modules.*) dpkg -S "$f" > /dev/null 2>&1 || rm -f "$f" ;;
		/lib/modules/*/updates) rmdir "$f/dkms" "$f" 2> /dev/null ;;
		esac
	done
	# The MOK key pair DKMS generated to sign the modules.
	for f in /var/lib/dkms/mok.key /var/lib/dkms/mok.pub; do
		[ -e "$f" ] && ! grep -qx "$f" "$work/dkms-tree.before" && rm -f "$f"
	done
	# The initramfs cached for a 6.1 image this test installed and removed.
	if [ -n "$image_61_pkg" ]; then
		find "$RWX_CACHE/initramfs" -mindepth 1 -maxdepth 1 2> /dev/null | sort |
			comm -13 "$work/initramfs-cache.before" - | xargs -r rm -f
	fi
	# linux-base moves /vmlinuz and /initrd.img to a newly installed kernel
	# and back on its removal; put them back if it did not.
	while read -r l target; do
		if [ "$target" = - ]; then
			[ -L "$l" ] && rm -f "$l"
		elif [ "$(readlink "$l" 2> /dev/null)" != "$target" ]; then
			ln -sfn "$target" "$l"
		fi
	done < "$work/boot-links.before"

	# The checks: as before.
	if [ -n "$(dkms_st)" ]; then
		bad "cleanup: no rdma-rwx module in dkms status" "$(dkms_st | tr "\n" " ")"
	else
		ok "cleanup: no rdma-rwx module in dkms status"
	fi
	left=$(find /lib/modules -mindepth 2 -maxdepth 2 -name updates | sort |
		comm -13 <(grep '/updates$' "$work/lib-modules.before") -)
	if [ -n "$left" ]; then
		bad "cleanup: no /lib/modules/*/updates left" "$(echo "$left" | tr '\n' ' ')"
	elif [ -n "$(find /lib/modules/*/updates -name 'rdma_rwx.ko*' 2> /dev/null)" ]; then
		bad "cleanup: no rdma_rwx.ko left under /lib/modules" "$(find /lib/modules/*/updates -name 'rdma_rwx.ko*')"
	else
		ok "cleanup: no /lib/modules/*/updates left"
	fi
	if lib_modules_state | diff "$work/lib-modules.before" - > "$work/lib-modules.diff"; then
		ok "cleanup: /lib/modules as before"
	else
		bad "cleanup: /lib/modules as before" "$(grep '^[<>]' "$work/lib-modules.diff" | head -n 5 | tr '\n' ' ')"
	fi
	if pkg_state | diff "$work/pkgs.before" - > "$work/pkgs.diff"; then
		ok "cleanup: installed packages as before"
	else
		bad "cleanup: installed packages as before" "$(grep '^[<>]' "$work/pkgs.diff" | head -n 5 | tr '\n' ' ')"
	fi
	if [ -d /usr/src/rdma-rwx-"$ver" ] || [ -e /var/lib/dkms/rdma-rwx ]; then
		bad "cleanup: no DKMS source or tree left" "$(ls -d /usr/src/rdma-rwx-* /var/lib/dkms/rdma-rwx 2> /dev/null | tr '\n' ' ')"
	else
		ok "cleanup: no DKMS source or tree left"
	fi
}
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM HUP
trap cleanup EXIT

H61=$(headers_61) H612=$(headers_612)
R61=${H61#/usr/src/linux-headers-}
R612=${H612#/usr/src/linux-headers-}
releases=""
[ -n "$H61" ] && releases="$releases $R61"
[ -n "$H612" ] && releases="$releases $R612"
note "kernels with headers:${releases:- none}"
series() { case $1 in 6.1.*) echo 6.1 ;; 6.12.*) echo 6.12 ;; *) echo "$1" ;; esac; }

# ---- Debian's 6.1 image, for a 6.1 guest ----------------------------------
if [ -n "$H61" ] && [ ! -f "/boot/vmlinuz-$R61" ]; then
	# The image must be the headers' release (the module's vermagic); note
	# a newer one in the archive (tools/deps.sh would move the headers on).
	newest=$(apt-cache search --names-only '^linux-image-6\.1\.0-[0-9]+-amd64-unsigned$' |
		awk '{print $1}' | sort -V | tail -n 1)
	want=linux-image-$R61-unsigned
	[ -n "$newest" ] && [ "$newest" != "$want" ] &&
		note "newest 6.1 image in the archive is $newest; the headers are $R61"
	if ! apt-cache show "$want" > /dev/null 2>&1; then
		apt-get update -qq -o DPkg::Lock::Timeout=600 > /dev/null 2>&1
	fi
	note "installing $want (removed again at the end)"
	if "${APT[@]}" install --no-install-recommends "$want" > "$work/image-61.log" 2>&1; then
		image_61_pkg=$want
		ok "Debian 6.1 image for the 6.1 guest ($want)"
	else
		bad "Debian 6.1 image for the 6.1 guest ($want)" "$(last "$work/image-61.log")"
	fi
fi

# ---- rdma-rwx-dkms -----------------------------------------------------
t=$SECONDS
if "${APT[@]}" install "$(deb rdma-rwx-dkms all)" > "$work/install-dkms.log" 2>&1; then
	ok "apt-get install ./build/deb/rdma-rwx-dkms_${ver}_all.deb"
	note "$(grep -E '^Building for' "$work/install-dkms.log") ($((SECONDS - t)) s)"
else
	bad "apt-get install ./build/deb/rdma-rwx-dkms_${ver}_all.deb" "$(last "$work/install-dkms.log")"
fi
dkms status -m rdma-rwx 2>&1 | grep -v '^readelf: Warning' | sed 's/^/   dkms status: /'

# check_dkms_kernel RELEASE: built, installed under updates/, known to depmod.
check_dkms_kernel() {
	local rel=$1 s ko info
	s=$(series "$rel")
	if [[ $(dkms_st -v "$ver" -k "$rel") == *": installed"* ]]; then
		ok "dkms $s: rdma-rwx/$ver built and installed for $rel"
	else
		bad "dkms $s: rdma-rwx/$ver built and installed for $rel" \
			"dkms status: $(dkms status -m rdma-rwx -k "$rel" 2> /dev/null | tr '\n' ' ')"
	fi
	ko=$(ls /lib/modules/"$rel"/updates/dkms/rdma_rwx.ko* 2> /dev/null | head -n 1)
	if [ -n "$ko" ]; then
		ok "dkms $s: rdma_rwx.ko under /lib/modules/$rel/updates ($(basename "$ko"))"
	else
		bad "dkms $s: rdma_rwx.ko under /lib/modules/$rel/updates" \
			"$(ls -R /lib/modules/"$rel"/updates 2>&1 | tr '\n' ' ')"
	fi
	info=$(modinfo -k "$rel" -F filename rdma_rwx 2>&1; modinfo -k "$rel" -F version rdma_rwx 2>&1;
	       modinfo -k "$rel" -F vermagic rdma_rwx 2>&1)
	if [ "$(sed -n 1p <<< "$info")" = "$ko" ] && [ "$(sed -n 2p <<< "$info")" = "$ver" ] &&
	   [[ "$(sed -n 3p <<< "$info")" == "$rel "* ]]; then
		ok "dkms $s: depmod knows it (modinfo -k: version $ver, vermagic $rel)"
	else
		bad "dkms $s: depmod knows it (modinfo -k)" "$(tr '\n' ' ' <<< "$info")"
	fi
	ko=$(modinfo -k "$rel" -n rdma_rwx_takeover 2>&1)
	if [[ $ko == /lib/modules/"$rel"/updates/dkms/rdma_rwx_takeover.ko* ]]; then
		ok "dkms $s: rdma_rwx_takeover.ko under updates/, known to depmod"
	else
		bad "dkms $s: rdma_rwx_takeover.ko under updates/, known to depmod" "modinfo -n: $ko"
	fi
}
for rel in $releases; do
	check_dkms_kernel "$rel"
done

# The package builds the engine and nothing else.
if [ -d /usr/src/rdma-rwx-"$ver" ]; then
	extra=$( (cd /usr/src/rdma-rwx-"$ver" && find . -type f | sort) |
		grep -vxE '\./(dkms\.conf|Kbuild|drivers/rwx/[^/]+\.[ch]|drivers/rwx/Kbuild|drivers/takeover/(Kbuild|rwx_takeover\.c)|include/rdma/rwx(_rw|_ibcore)?\.h)')
	built=$(find /var/lib/dkms/rdma-rwx/"$ver" -path '*/module/*' -name '*.ko*' -printf '%f\n' 2> /dev/null | sort -u)
	if [ -z "$extra" ] &&
	   [ "$(sed 's/\.ko.*//' <<< "$built" | sort -u | tr '\n' ' ')" = "rdma_rwx rdma_rwx_takeover " ] &&
	   grep -q '^AUTOINSTALL="yes"' /usr/src/rdma-rwx-"$ver"/dkms.conf; then
		ok "dkms source: the engine and its takeover alone, rdma_rwx.ko and rdma_rwx_takeover.ko the only modules, AUTOINSTALL"
	else
		bad "dkms source: the engine and its takeover alone, rdma_rwx.ko and rdma_rwx_takeover.ko the only modules, AUTOINSTALL" \
			"extra files: $(echo $extra); modules: $(echo $built)"
	fi
fi

# A kernel update: the kernel's (and headers') postinst hooks run DKMS's
# autoinstall.  Take the module off 6.12 and run the hook for it.
if [ -n "$H612" ] && [[ $(dkms_st -v "$ver" -k "$R612") == *": installed"* ]]; then
	t=$SECONDS
	dkms remove "rdma-rwx/$ver" -k "$R612" > "$work/dkms-remove-612.log" 2>&1
	if ls /lib/modules/"$R612"/updates/dkms/rdma_rwx.ko* > /dev/null 2>&1; then
		bad "dkms 6.12: autoinstall from the kernel postinst hook" "dkms remove -k $R612 left the module"
	elif /etc/kernel/postinst.d/dkms "$R612" > "$work/kernel-hook-612.log" 2>&1 &&
	     [[ $(dkms_st -v "$ver" -k "$R612") == *": installed"* ]] &&
	     ls /lib/modules/"$R612"/updates/dkms/rdma_rwx.ko* > /dev/null 2>&1; then
		ok "dkms 6.12: autoinstall from the kernel postinst hook ($((SECONDS - t)) s)"
	else
		bad "dkms 6.12: autoinstall from the kernel postinst hook" "$(last "$work/kernel-hook-612.log")"
	fi
fi

# ---- librdmarwx0, librdmarwx-dev, rdma-rwx-tools --------------------------
if "${APT[@]}" install "$(deb librdmarwx0)" "$(deb librdmarwx-dev)" "$(deb rdma-rwx-tools)" \
		> "$work/install-lib.log" 2>&1; then
	ok "apt-get install librdmarwx0 librdmarwx-dev rdma-rwx-tools"
else
	bad "apt-get install librdmarwx0 librdmarwx-dev rdma-rwx-tools" "$(last "$work/install-lib.log")"
fi
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
if [ "$(pkg-config --modversion librdmarwx 2>&1)" = "$ver" ] &&
   [ "$(pkg-config --variable=libdir librdmarwx)" = "/usr/lib/$multiarch" ]; then
	ok "pkg-config librdmarwx: version $ver, libdir /usr/lib/$multiarch"
else
	bad "pkg-config librdmarwx" "$(pkg-config --modversion --variable=libdir librdmarwx 2>&1 | tr '\n' ' ')"
fi
cat > "$work/prog.c" <<'PROG'
#include <errno.h>
#include <stdio.h>
#include <rdma/rwx_verbs.h>

int main(void)
{
	/* needs no device: a NULL id is refused, a layout is pure arithmetic */
	const uint64_t lens[5] = { 4096, 4096, 4096, 4096, 4096 };
	struct rwx_rw_span spans[8];
	int n;

	if (rdma_post_send(NULL, NULL, NULL, 0, NULL, 0) != -1 || errno != EINVAL)
		return 1;
	n = rwx_rw_layout(2, 5, lens, spans, 8);
	if (n != 3 || spans[2].nsge != 1 || spans[1].remote_off != 8192)
		return 2;
	printf("EINVAL layout=%d\n", n);
	return 0;
}
PROG
# shellcheck disable=SC2046
if (cd "$work" && cc -Wall -Wextra -Werror -o prog prog.c $(pkg-config --cflags --libs librdmarwx)) \
		> "$work/prog-build.log" 2>&1; then
	ok "a program builds with pkg-config --cflags --libs librdmarwx alone"
	if [ "$("$work/prog" 2>&1)" = "EINVAL layout=3" ]; then
		ok "the program runs against /usr/lib/$multiarch/librdmarwx.so.0"
	else
		bad "the program runs against /usr/lib/$multiarch/librdmarwx.so.0" "$("$work/prog" 2>&1; echo "exit $?")"
	fi
	lib=$(ldd "$work/prog" | awk '$1 == "librdmarwx.so.0" {print $3}')
	# (/lib is /usr/lib on a merged-/usr system)
	if [ -n "$lib" ] && [ "$(readlink -f "$lib")" = "$(readlink -f "/usr/lib/$multiarch/librdmarwx.so.0")" ]; then
		ok "the program links librdmarwx.so.0 from /usr/lib/$multiarch"
	else
		bad "the program links librdmarwx.so.0 from /usr/lib/$multiarch" "ldd: ${lib:-not found}"
	fi
else
	bad "a program builds with pkg-config --cflags --libs librdmarwx alone" "$(last "$work/prog-build.log" 3)"
fi
if rwx_perf --help 2>&1 | grep '^Usage:' > /dev/null; then
	rwx_perf --op bogus > /dev/null 2>&1
	r=$?
	if [ "$r" = 2 ]; then
		ok "rwx_perf --help, and rejects --op bogus"
	else
		bad "rwx_perf --help, and rejects --op bogus" "exit $r, want 2"
	fi
else
	bad "rwx_perf --help" "$(rwx_perf --help 2>&1 | head -n 2 | tr '\n' ' ')"
fi
if /usr/sbin/rdma-rwx --help 2>&1 | grep '^Usage: rdma-rwx' > /dev/null; then
	ok "rdma-rwx in /usr/sbin, --help"
else
	bad "rdma-rwx in /usr/sbin, --help" "$(/usr/sbin/rdma-rwx --help 2>&1 | head -n 1)"
fi
m8=$(man -w rdma-rwx 2>&1)
if [ "$m8" = /usr/share/man/man8/rdma-rwx.8.gz ]; then
	ok "man page: rdma-rwx(8)"
else
	bad "man page: rdma-rwx(8)" "man -w: $m8"
fi
m1=$(man -w rwx_perf 2>&1) m3=$(man -w 3rwx rdma_post_send 2>&1) m3l=$(man -w rwx_post_list 2>&1)
if [ "$m1" = /usr/share/man/man1/rwx_perf.1.gz ] &&
   [ "$m3" = /usr/share/man/man3/rdma_post_send.3rwx.gz ] &&
   [ "$m3l" = /usr/share/man/man3/rwx_post_list.3rwx.gz ]; then
	ok "man pages: rwx_perf(1), rdma_post_send(3rwx) beside librdmacm's, rwx_post_list(3rwx)"
else
	bad "man pages" "man -w: $m1 $m3 $m3l"
fi

# ---- guests: modprobe on Debian's stock kernels ---------------------------
# guest RELEASE: boot Debian's kernel RELEASE, run tools/guest/dkms-modprobe.sh.
guest() {
	local rel=$1 s name initrd vmout rc line
	s=$(series "$rel")
	name="guest-$s"
	vmout=$work/vm/$name
	if [ ! -f "/boot/vmlinuz-$rel" ]; then
		bad "$name: modprobe rdma_rwx on Debian $rel" "no /boot/vmlinuz-$rel (image not installed)"
		return
	fi
	if ! initrd=$(initramfs_for "$rel" 2> "$work/initramfs-$s.log"); then
		bad "$name: initramfs" "$(last "$work/initramfs-$s.log")"
		return
	fi
	rm -rf "$vmout"
	local t=$SECONDS
	"$RWX_ROOT/tools/qemu/run-vm.sh" -k "/boot/vmlinuz-$rel" -i "$initrd" \
		-s "$RWX_ROOT/tools/guest/dkms-modprobe.sh" -o "$vmout" -t 300 \
		-e "RWX_ROOT=$RWX_ROOT" -e "RWX_EXPECT_VERSION=$ver" > "$work/run-vm-$s.log" 2>&1
	rc=$?
	note "$name: Debian $rel, guest ran $((SECONDS - t)) s, exit $rc, log $vmout/console.log"
	grep -E '^smoke: ' "$vmout/console.log" 2> /dev/null | sed 's/^/   /'
	# the guest's own "ok NAME" / "FAIL NAME: why" lines, under its name
	while IFS= read -r line; do
		case $line in
		"ok "*) ok "$name: ${line#ok }" ;;
		"FAIL "*) echo "FAIL $name: ${line#FAIL }"; n_fail=$((n_fail + 1)) ;;
		esac
	done < <(grep -E '^(ok|FAIL) ' "$vmout/console.log" 2> /dev/null | sed 's/\r$//')
	# the run's judgement: exit status, kernel splats (tools/evaluate-run.py)
	python3 "$RWX_ROOT/tools/evaluate-run.py" --log "$vmout/console.log" --rc "$rc" \
		--name "$name" --cpus "$(vm_cpus_asked "$vmout")" > "$work/judgement-$s" 2>&1
	while IFS=$'\t' read -r result test detail; do
		[ "$test" = "$name" ] && test="$name: guest run (exit status)"
		case $result in
		pass) ok "$test" ;;
		fail) bad "$test" "${detail:-failed}" ;;
		skip) skp "$test" "$detail" ;;
		esac
	done < "$work/judgement-$s"
}
if [[ $(dkms_st) == *": installed"* ]]; then
	[ -n "$H612" ] && guest "$R612"
	if [ -n "$H61" ]; then
		guest "$R61"
	fi
else
	bad "guests: modprobe rdma_rwx" "not run: DKMS installed no module"
fi

# ---- back to the state before ----------------------------------------------
trap - EXIT INT TERM HUP
cleanup
echo "test-debs: $n_ok ok, $n_fail failed, $n_skip skipped, $((SECONDS - t0)) s"
[ "$n_fail" = 0 ]
