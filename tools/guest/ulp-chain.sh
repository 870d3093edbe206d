# Guest script: several ULP runs (srp.sh, nfs.sh, smb.sh) one after the
# other on one guest, so that they share its boot, the RDMA devices,
# null_blk and the final kmemleak scan.  Each run loads the engine
# afresh, so that its counters judge that run alone, and must leave no
# engine context behind; the chain stops at the first run that fails.
#
# Environment:
#   RWX_ULP_RUNS       the runs, each ULP:DEV[:FAULT] (ULP srp, nfs or smb;
#                      DEV rxe; FAULT link-delete or server-stop, the
#                      script's RWX_FAULT), e.g. "srp:rxe nfs:rxe:server-stop";
#                      FAULT "takeover": no fault, the kernel's own ULP on
#                      the engine through RWX_CHAIN_TAKEOVER_MODULE (nfs:
#                      switched RWX_CHAIN_TAKEOVER_SWITCHES times under load)
#                      siw is not run yet: each of the three servers
#                      listens on any address, siw binds such a listener to
#                      its netdev, and a connection within one guest
#                      arrives on lo (Documentation/ulps.rst)
#   RWX_EXPECT_PATHS   the engine's path for the runs (default sge)
#   ULP_FIO_SET        full (default) or short: the runs' data jobs
# and what the runs' scripts read (RWX_MODROOT, RWX_ENGINE_MODULE,
# RWX_ENGINE_PARAMS, SRPT_MODULE, RPCRDMA_MODULE, KSMBD_MODULE, the FIO
# sizes).  Prints "ulps: --- RUN" as each run starts, then "ulps: RUN:
# passed (N s)" or "ulps: FAILED RUN" (RUN "ULP on DEV0" or "ULP on DEV0
# (FAULT)"), each "ulps:" line after its time ("ulps: [T s] ...").
set -u
. "$RWX_ROOT/tools/guest/rdma-setup.sh"
RWX_LOG_PREFIX=ulps
. "$RWX_ROOT/tools/guest/engine-lib.sh"
. "$RWX_ROOT/tools/guest/ulp-lib.sh"

diagnose() { rdma link show 2>&1 | indent; }

ulp_guest_setup
for item in $RWX_ULP_RUNS; do
	IFS=: read -r ulp dev fault <<< "$item"
	[ -f "$RWX_ROOT/tools/guest/$ulp.sh" ] && [ "$dev" = rxe ] || die "no such ULP run: $item"
	ulp_device_setup
	name="$ulp on ${dev}0${fault:+ ($fault)}"
	say "--- $name"
	t=$(usec)
	how=(RWX_FAULT="$fault")
	if [ "$fault" = takeover ]; then
		[ -n "${RWX_CHAIN_TAKEOVER_MODULE:-}" ] || die "$item: no RWX_CHAIN_TAKEOVER_MODULE"
		how=(RWX_FAULT= SRPT_MODULE= RPCRDMA_MODULE= KSMBD_MODULE=
		     RWX_TAKEOVER_MODULE="$RWX_CHAIN_TAKEOVER_MODULE"
		     RWX_TAKEOVER_SWITCHES="${RWX_CHAIN_TAKEOVER_SWITCHES:-}")
	fi
	if ! env RWX_ULP_CHAIN=1 RWX_DEV="$dev" "${how[@]}" bash "$RWX_ROOT/tools/guest/$ulp.sh"; then
		echo "ulps: FAILED $name"
		exit 1
	fi
	say "$name: passed ($(( ($(usec) - t) / 1000000 )) s)"
done
ulp_guest_teardown
echo "ulps: passed"
