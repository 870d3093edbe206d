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
#   RWX_TESTDEV_SIDES   which of each set's two runs: "engine ib_core"
#                       (the default), "engine" or "ib_core" (make check
#                       runs the engine's on the debug kernel, the
#                       references on Debian's stock 6.12: the same ULP
#                       source, without the debug kernel's cost)
# and what those scripts read (RWX_MODROOT, RWX_ENGINE_MODULE,
# RWX_TESTDEV_MODULE).  One kmemleak scan covers every run.  Prints the
# runs' lines, "sets: ... passed" after each, then "sets: passed".
set -u
. "$RWX_ROOT/tools/guest/engine-lib.sh"

sides=${RWX_TESTDEV_SIDES:-engine ib_core}
case $sides in
"engine ib_core" | engine | ib_core) ;;
*) echo "sets: FAILED: RWX_TESTDEV_SIDES \"$sides\": engine, ib_core or both"; exit 1 ;;
esac

# sets_run SIDE WHAT SCRIPT VAR=VALUE...: the guest script SCRIPT once,
# if SIDE (engine or ib_core) is one of the sides asked for
sets_run() {
	local side=$1 what=$2 script=$3
	shift 3
	[[ " $sides " == *" $side "* ]] || return 0
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
		sets_run engine "$spec, engine${fault:+, $fault}" "$@" RWX_EXPECT_PATHS="$paths" \
			RWX_DEVICE_FAULT="$fault"
		sets_run ib_core "$spec, ib_core" "$@" RWX_NVMET_RDMA= RWX_ENGINE_MODULE= ;;
	nfs)
		[ -z "$fault" ] || { echo "sets: FAILED $item: no device fault for nfs"; exit 1; }
		# NFSv4.2 alone: v3 is the same transport (the stock kernels'
		# and the rebuilt-ULP chains' rxe runs mount both).
		set -- nfs.sh RWX_TESTDEV_SPEC="$spec" ULP_FIO_SET=short NFS_FIO_SIZE=4 \
			ULP_COPY_MB=8 NFS_VERSIONS=4.2
		sets_run engine "nfs on $spec, engine" "$@" RWX_EXPECT_PATHS="$paths"
		sets_run ib_core "nfs on $spec, ib_core" "$@" RPCRDMA_MODULE= RWX_ENGINE_MODULE= ;;
	*) echo "sets: FAILED $item: no such ULP"; exit 1 ;;
	esac
done
kmemleak_check
echo "sets: passed"
