# Guest script: the kernel's own ULPs over the test device's RoCE or iWARP
# port, one capability set after the other, on one guest:
#   RWX_TESTDEV_SETS    [ULP/]SET:PATHS[:FAULT] ...: each set twice, first
#                       on the engine, whose contexts must take PATHS (sge,
#                       mr or sge+mr: the engine's counters), then on
#                       ib_core's rdma_rw, the reference.  ULP nvmeof (the
#                       default): tools/guest/nvmeof.sh, the engine-built
#                       nvmet-rdma (RWX_NVMET_RDMA) and then the kernel's
#                       own, with no in-capsule data (every host write is
#                       the target's RDMA READ), fio verifying; with FAULT
#                       (wr-error, map-fail) the engine's run then has the
#                       test device fail the target mid-I/O
#                       (nvmeof_device_fault).  ULP nfs: tools/guest/nfs.sh,
#                       the engine-built rpcrdma (RPCRDMA_MODULE) and then
#                       the kernel's own, NFSv3 and NFSv4.2, fio verifying
#                       (the short set) and a file copied both ways.
# and what those scripts read (RWX_MODROOT, RWX_ENGINE_MODULE,
# RWX_TESTDEV_MODULE).  One kmemleak scan covers every run.  Prints the
# runs' lines, "sets: ... passed" after each, then "sets: passed".
set -u
. "$RWX_ROOT/tools/guest/engine-lib.sh"

sets_run() {	# sets_run WHAT SCRIPT VAR=VALUE...: the guest script SCRIPT once
	local what=$1 script=$2
	shift 2
	echo "sets: --- $what"
	if ! env RWX_DEV=testdev RWX_KMEMLEAK=0 "$@" bash "$RWX_ROOT/tools/guest/$script"; then
		echo "sets: FAILED $what"
		exit 1
	fi
	echo "sets: $what passed"
}

mount | grep -q ' /sys/kernel/debug ' || mount -t debugfs debugfs /sys/kernel/debug
kmemleak_start
for item in ${RWX_TESTDEV_SETS:-}; do
	IFS=: read -r spec paths fault <<< "$item"
	ulp=nvmeof
	[[ $spec == */* ]] && ulp=${spec%%/*} spec=${spec#*/}
	case $ulp in
	nvmeof)
		set -- nvmeof.sh RWX_TESTDEV_SPEC="$spec" RWX_INLINE_DATA=0 \
			RWX_FIO_JOBS="$RWX_ROOT/tools/guest/fio/verify-short.fio"
		sets_run "$spec, engine${fault:+, $fault}" "$@" RWX_EXPECT_PATHS="$paths" \
			RWX_DEVICE_FAULT="$fault"
		sets_run "$spec, ib_core" "$@" RWX_NVMET_RDMA= RWX_ENGINE_MODULE= ;;
	nfs)
		[ -z "$fault" ] || { echo "sets: FAILED $item: no device fault for nfs"; exit 1; }
		# NFSv4.2 alone: v3 is the same transport (the stock kernels'
		# and the rebuilt-ULP chains' rxe runs mount both).
		set -- nfs.sh RWX_TESTDEV_SPEC="$spec" ULP_FIO_SET=short NFS_FIO_SIZE=4 \
			ULP_COPY_MB=8 NFS_VERSIONS=4.2
		sets_run "nfs on $spec, engine" "$@" RWX_EXPECT_PATHS="$paths"
		sets_run "nfs on $spec, ib_core" "$@" RPCRDMA_MODULE= RWX_ENGINE_MODULE= ;;
	*) echo "sets: FAILED $item: no such ULP"; exit 1 ;;
	esac
done
kmemleak_check
echo "sets: passed"
