# Guest script: the kernel's NVMe-oF host and target (tools/guest/nvmeof.sh)
# over the test device's RoCE port, one capability set after the other,
# on one guest, with no in-capsule data (every host write is the target's
# RDMA READ):
#   RWX_TESTDEV_SETS    SET:PATHS[:FAULT] ...: each set twice, first with
#                       the engine-built nvmet-rdma (RWX_NVMET_RDMA), whose
#                       contexts must take PATHS (sge, mr or sge+mr: the
#                       engine's counters), then with the kernel's own
#                       (ib_core's rdma_rw), the reference; fio verifies
#                       both; with FAULT (wr-error, map-fail) the engine's
#                       run then has the test device fail the target
#                       mid-I/O (nvmeof_device_fault)
# and what nvmeof.sh reads (RWX_MODROOT, RWX_ENGINE_MODULE,
# RWX_TESTDEV_MODULE).  One kmemleak scan covers every run.  Prints the
# runs' lines, "sets: SET ... passed" after each, then "sets: passed".
set -u
. "$RWX_ROOT/tools/guest/engine-lib.sh"

sets_run() {	# sets_run WHAT VAR=VALUE...: nvmeof.sh once
	local what=$1
	shift
	echo "sets: --- $what"
	if ! env RWX_DEV=testdev RWX_INLINE_DATA=0 RWX_KMEMLEAK=0 \
		RWX_FIO_JOBS="$RWX_ROOT/tools/guest/fio/verify-short.fio" "$@" \
		bash "$RWX_ROOT/tools/guest/nvmeof.sh"; then
		echo "sets: FAILED $what"
		exit 1
	fi
	echo "sets: $what passed"
}

mount | grep -q ' /sys/kernel/debug ' || mount -t debugfs debugfs /sys/kernel/debug
kmemleak_start
for item in ${RWX_TESTDEV_SETS:-}; do
	IFS=: read -r set paths fault <<< "$item"
	sets_run "$set, engine${fault:+, $fault}" RWX_TESTDEV_SPEC="$set" \
		RWX_EXPECT_PATHS="$paths" RWX_DEVICE_FAULT="$fault"
	sets_run "$set, ib_core" RWX_TESTDEV_SPEC="$set" RWX_NVMET_RDMA= RWX_ENGINE_MODULE=
done
kmemleak_check
echo "sets: passed"
