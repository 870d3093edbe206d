# Guest script: protection information end to end on the test device's
# mlx5-pi set (integrity handover), on one guest, one after the other:
# NVMe-oF (tools/guest/nvmeof.sh, RWX_PI=1) and iSER (tools/guest/iser.sh,
# RWX_PI=1), each setting up and tearing down its own modules, the test
# device and the engine, and scanning for leaks.
#   RWX_NVMET_RDMA, ISERT_MODULE  the engine-built nvmet-rdma.ko and
#                        ib_isert.ko, or
#   RWX_TAKEOVER_MODULE  rdma_rwx_takeover.ko: the kernel's own on the
#                        engine
# and what the two scripts read (RWX_MODROOT, RWX_ENGINE_MODULE,
# RWX_TESTDEV_MODULE).  Prints their lines, then "pi: passed".
set -u
pi_env=(RWX_DEV=testdev RWX_TESTDEV_SPEC=mlx5-pi RWX_PI=1 ISER_FIO_SIZE="${ISER_FIO_SIZE:-4}")
# Short fio sets (one job of mixed sizes, 512 B to 1 MiB, for NVMe-oF):
# with PI the debug kernels move 20-40 commands a second.
# NVMe-oF then has an integrity MR's mapping refused mid-I/O (no SGE
# fallback there: the target's command fails, the host retries it).
env "${pi_env[@]}" RWX_FIO_JOBS="$RWX_ROOT/tools/guest/fio/verify-short.fio" \
	RWX_DEVICE_FAULT=map-fail \
	bash "$RWX_ROOT/tools/guest/nvmeof.sh" || { echo "pi: FAILED nvmeof"; exit 1; }
env "${pi_env[@]}" ULP_FIO_SET=short bash "$RWX_ROOT/tools/guest/iser.sh" ||
	{ echo "pi: FAILED iser"; exit 1; }
echo "pi: passed"
