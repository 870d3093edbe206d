#!/usr/bin/env bash
# make demo: Debian's stock 6.12 kernel in QEMU; its own NVMe-oF target,
# nvmet-rdma, built from linux-source to run on the engine, serves a
# memory-backed namespace over Soft-RoCE to the kernel's NVMe-oF host, and
# fio verifies the data - on the SGE path, then on the MR path - beside
# the same run on the distro's nvmet-rdma.  The SGE boot then takes the
# distro's own nvmet-rdma over live (rdma-rwx takeover on, under fio) and
# gives it back; the MR boot also runs the smaller examples (rwx_demo, and
# a T10-PI transfer on the test device).  Set-up prints a line a step.
set -uo pipefail
RWX_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export RWX_ROOT
. "$RWX_ROOT/tools/lib.sh"
. "$RWX_ROOT/tools/vm-suite.sh"

mkdir -p "$RWX_BUILD"
SETUP_LOG=$RWX_BUILD/demo-setup.log
: > "$SETUP_LOG"

# step WHAT CMD...: one line for a set-up step; what it prints (apt's,
# the compilers') goes to SETUP_LOG, whose end is shown if it fails.
step() {
	local what=$1
	shift
	echo "demo: $what"
	echo "=== $what: $*" >> "$SETUP_LOG"
	"$@" >> "$SETUP_LOG" 2>&1 && return 0
	echo "demo: FAILED: $what; the end of $SETUP_LOG:"
	tail -n 20 "$SETUP_LOG" | sed 's/^/demo:   /'
	exit 1
}

step "Debian packages: installing what is missing (tools/deps.sh; on a fresh machine several minutes)" \
	bash "$RWX_ROOT/tools/deps.sh"
release=$(stock_612_release)
step "building the engine and the takeover against Debian's $release headers" \
	"$RWX_ROOT/tools/build-module.sh" "$(headers_612)" "$RWX_BUILD/mod-6.12"
step "building nvmet-rdma from linux-source-6.12 to run on the engine" \
	"$RWX_ROOT/tools/build-ulps.sh" "$(headers_612)" "$RWX_BUILD/mod-6.12" \
	"$RWX_BUILD/ulps-6.12" nvmet-rdma
step "building rdma-rwx, the admin command (userspace/)" make -C "$RWX_ROOT/userspace" build/tools/rdma-rwx
step "making the guest's initramfs" initramfs_for "$release"
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
	grep -aE '^(demo|nvmeof): |rwx_(sig_)?demo: ' "$out/console.log" |
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
