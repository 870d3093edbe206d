#!/usr/bin/env bash
# make demo: boot Debian's stock 6.12 kernel in QEMU, set up Soft-RoCE, and
# let the demo ULP move data through the engine on the SGE and MR paths.
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RWX_ROOT
. "$RWX_ROOT/tools/lib.sh"
. "$RWX_ROOT/tools/vm-suite.sh"

prepare_stock_612 || exit 1
release=$(stock_612_release)
echo "demo: booting Debian's $release under QEMU (about a minute)"
vm_run demo "/boot/vmlinuz-$release" "$(initramfs_for "$release")" \
	"$RWX_ROOT/tools/guest/demo.sh" 600 -e "RWX_MODDIR=$RWX_BUILD/mod-6.12"
out=$RWX_BUILD/vm/demo
echo
grep -E 'rwx_(sig_)?demo: |^demo: ' "$out/console.log" | sed 's/^\[ *[0-9.]*\] //'
echo
if grep -q $'^fail' "$out/judgement"; then
	awk -F'\t' '$1 == "fail" {print "demo FAILED: " $2 ": " $3}' "$out/judgement"
	exit 1
fi
echo "demo: passed (console log: $out/console.log)"
