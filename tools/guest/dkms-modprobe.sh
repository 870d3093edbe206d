# shellcheck shell=bash
# Guest script (stock Debian kernel, tools/test-debs.sh): the rdma_rwx.ko
# that the rdma-rwx-dkms package had DKMS build and install on the host is
# found by modprobe through depmod (no path), loads next to Debian's own
# ib_core and rdma_rxe, is live, and unloads cleanly: the smoke checks of
# smoke-insmod.sh, on the packaged module.  The packaged takeover is off
# until the packaged rdma-rwx turns it on (modprobe) and off again; then
# the boot recipe (a modprobe.d softdep on ib_core) turns it on.
# Prints one "ok NAME" / "FAIL NAME: why" line per check; exits non-zero
# on any failure.
#   RWX_EXPECT_VERSION  the module version the package carries
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
rel=$(uname -r)
failed=0
ok() { echo "ok $1"; }
fail() { echo "FAIL $1: $2"; failed=1; }

if rdma_setup rxe > /tmp/rdma-setup.log 2>&1; then
	ok "Soft-RoCE rxe0 up"
else
	fail "Soft-RoCE rxe0 up" "$(tail -n 1 /tmp/rdma-setup.log)"
fi
modprobe ib_core || fail "modprobe ib_core" "failed"

# depmod's index (written by DKMS on the host) names the module.
path=$(modinfo -n rdma_rwx 2>&1)
case $path in
"/lib/modules/$rel/updates/"*) ok "depmod finds rdma_rwx under updates/ ($path)" ;;
*) fail "depmod finds rdma_rwx under updates/" "modinfo -n rdma_rwx: $path" ;;
esac

if out=$(modprobe rdma_rwx 2>&1); then
	ok "modprobe rdma_rwx"
else
	fail "modprobe rdma_rwx" "$out"
fi
if grep -q '^rdma_rwx ' /proc/modules; then
	ok "rdma_rwx live in /proc/modules"
	echo "smoke: rdma_rwx $(cat /sys/module/rdma_rwx/version) loaded on $rel"
else
	fail "rdma_rwx live in /proc/modules" "not listed"
fi
version=$(cat /sys/module/rdma_rwx/version 2>/dev/null)
if [ "$version" = "${RWX_EXPECT_VERSION:-}" ]; then
	ok "module version $version"
else
	fail "module version" "got '$version', want '${RWX_EXPECT_VERSION:-}'"
fi
if [ -r /sys/kernel/debug/rdma_rwx/counters ] && cat /sys/kernel/debug/rdma_rwx/counters > /dev/null; then
	ok "engine counters in debugfs"
else
	fail "engine counters in debugfs" "no readable /sys/kernel/debug/rdma_rwx/counters"
fi
# The takeover: installed by the package, off until rdma-rwx (packaged
# too, rdma-rwx-tools) turns it on through modprobe, and off again.
admin=/usr/sbin/rdma-rwx
path=$(modinfo -n rdma_rwx_takeover 2>&1)
case $path in
"/lib/modules/$rel/updates/"*) ok "depmod finds rdma_rwx_takeover under updates/" ;;
*) fail "depmod finds rdma_rwx_takeover under updates/" "modinfo -n: $path" ;;
esac
out=$("$admin" status 2>&1)
if echo "$out" | grep -qx 'takeover: off' && ! grep -q '^rdma_rwx_takeover ' /proc/modules; then
	ok "takeover off by default (rdma-rwx status)"
else
	fail "takeover off by default (rdma-rwx status)" "$(echo "$out" | tr '\n' '|')"
fi
if out=$("$admin" takeover on 2>&1) && echo "$out" | grep -q '^takeover: on' &&
   [ "$(cat /sys/kernel/livepatch/rdma_rwx_takeover/enabled 2>&1)" = 1 ] &&
   "$admin" status | grep -qx 'takeover: on'; then
	ok "rdma-rwx takeover on (modprobe): patch enabled"
	echo "smoke: $out"
else
	fail "rdma-rwx takeover on (modprobe): patch enabled" "$(echo "$out" | tr '\n' '|')"
fi
if out=$("$admin" takeover off 2>&1) && echo "$out" | grep -q '^takeover: off' &&
   [ ! -e /sys/kernel/livepatch/rdma_rwx_takeover ] && ! grep -q '^rdma_rwx_takeover ' /proc/modules; then
	ok "rdma-rwx takeover off: patch gone, module unloaded"
	echo "smoke: $out"
else
	fail "rdma-rwx takeover off: patch gone, module unloaded" "$(echo "$out" | tr '\n' '|')"
fi

if out=$(modprobe -r rdma_rwx 2>&1) && ! grep -q '^rdma_rwx ' /proc/modules; then
	ok "modprobe -r rdma_rwx"
	echo "smoke: rdma_rwx unloaded"
else
	fail "modprobe -r rdma_rwx" "${out:-still loaded}"
fi

# The boot recipe (Documentation/takeover.rst): a softdep has modprobe
# load the takeover whenever it loads ib_core.  Every RDMA module is
# unloaded, then rdma_rxe loaded as at boot: ib_core comes with it, then
# the takeover and, as its dependency, the engine; the patch must be on.
# /etc/modprobe.d is the host's: a tmpfs copy of it takes the recipe.
rdma link delete rxe0 2>/dev/null
modprobe -r rdma_rxe rdma_ucm rdma_cm iw_cm ib_cm ib_uverbs ib_core 2>/dev/null
if grep -q '^ib_core ' /proc/modules; then
	fail "boot recipe: ib_core unloaded first" "$(grep -E '^(ib_|rdma|iw_)' /proc/modules | cut -d' ' -f1,4 | tr '\n' ' ')"
else
	mkdir -p /tmp/modprobe.d
	cp -a /etc/modprobe.d/. /tmp/modprobe.d/
	mount --bind /tmp/modprobe.d /etc/modprobe.d
	echo "softdep ib_core post: rdma_rwx_takeover" > /etc/modprobe.d/rdma-rwx-takeover.conf
	modprobe rdma_rxe
	for _ in $(seq 120); do	# 60 s: the transition, on a loaded host
		[ "$(cat /sys/kernel/livepatch/rdma_rwx_takeover/transition 2>/dev/null)" = 0 ] && break
		sleep 0.5
	done
	if "$admin" status | grep -qx 'takeover: on' && grep -q '^rdma_rwx ' /proc/modules; then
		ok "boot recipe: modprobe rdma_rxe loads ib_core, then the takeover and the engine"
	else
		fail "boot recipe: modprobe rdma_rxe loads ib_core, then the takeover and the engine" \
			"$("$admin" status 2>&1 | tr '\n' '|') modules: $(grep -E '^(ib_core|rdma_rwx)' /proc/modules | cut -d' ' -f1 | tr '\n' ' ')"
	fi
	rm /etc/modprobe.d/rdma-rwx-takeover.conf
	umount /etc/modprobe.d
	if "$admin" takeover off > /dev/null 2>&1 && modprobe -r rdma_rwx; then
		ok "boot recipe: takeover off, engine unloaded"
	else
		fail "boot recipe: takeover off, engine unloaded" "$(grep -E '^rdma_rwx' /proc/modules | tr '\n' '|')"
	fi
fi
exit "$failed"
