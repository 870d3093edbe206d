#!/usr/bin/env bash
# make demo: Debian's stock 6.12 kernel in QEMU; its own NVMe-oF target,
# nvmet-rdma, built from linux-source to run on the engine, serves a
# memory-backed namespace over Soft-RoCE to the kernel's NVMe-oF host, and
# fio verifies the data - on the SGE path, then on the MR path - beside
# the same run on the distro's nvmet-rdma.  The MR boot also runs the
# smaller examples (rwx_demo, and a T10-PI transfer on the test device).
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RWX_ROOT
. "$RWX_ROOT/tools/lib.sh"
. "$RWX_ROOT/tools/vm-suite.sh"

prepare_stock_612 || exit 1
"$RWX_ROOT/tools/build-ulps.sh" "$(headers_612)" "$RWX_BUILD/mod-6.12" \
	"$RWX_BUILD/ulps-6.12" nvmet-rdma > /dev/null || exit 1
release=$(stock_612_release)
failed=0

# demo_boot PATH [run-vm.sh options]: one guest; prints what it showed.
demo_boot() {
	local path=$1 out=$RWX_BUILD/vm/demo-$1
	shift
	echo "demo: booting Debian's $release under QEMU ($path path, about a minute)"
	vm_run "demo-$path" "/boot/vmlinuz-$release" "$(initramfs_for "$release")" \
		"$RWX_ROOT/tools/guest/demo.sh" 600 -e "RWX_MODDIR=$RWX_BUILD/mod-6.12" \
		-e "RWX_ULPDIR=$RWX_BUILD/ulps-6.12" -e "RWX_DEMO_PATH=$path" "$@" > /dev/null
	echo
	grep -E '^(demo|nvmeof): |rwx_(sig_)?demo: ' "$out/console.log" |
		grep -v 'nvmeof: result' | sed 's/^\[ *[0-9.]*\] //'
	compare "$out/console.log"
	echo
	if grep -q $'^fail' "$out/judgement"; then
		awk -F'\t' '$1 == "fail" {print "demo FAILED: " $2 ": " $3}' "$out/judgement"
		failed=1
	fi
}

# The engine's fio totals beside the distro's, from the guest's result
# lines: the mean of each side's runs.
compare() {
	awk '$1 == "nvmeof:" && $2 == "result" {
		side = $3
		n[side]++
		for (i = 4; i < NF; i += 2) v[side, $i] += $(i + 1)
	}
	END {
		if (!n["engine"] || !n["ib_core"]) exit
		printf "demo: %-26s %12s %12s %8s\n", "mean of " n["engine"] " runs each", "engine", "ib_core", "ratio"
		split("write_iops write_mibs read_iops read_mibs", k, " ")
		split("write IOPS,write MiB/s,read+verify IOPS,read+verify MiB/s", name, ",")
		for (i = 1; i <= 4; i++)
			printf "demo: %-26s %12.1f %12.1f %8.2f\n", name[i], v["engine", k[i]] / n["engine"],
				v["ib_core", k[i]] / n["ib_core"],
				(v["engine", k[i]] / n["engine"]) / (v["ib_core", k[i]] / n["ib_core"])
	}' "$1"
}

demo_boot sge
demo_boot mr -a ib_core.force_mr=1
echo "demo: figures from two runs each under emulation move by 10-20 % between runs;"
echo "demo: make bench alternates the two targets over several rounds."
if [ "$failed" = 0 ]; then
	echo "demo: passed (console logs: $RWX_BUILD/vm/demo-sge, demo-mr)"
else
	exit 1
fi
