# Guest script: one end of two guests joined by a virtual Ethernet wire
# (vm-suite.sh's pair_vm_run), each with Soft-RoCE (rxe0) on its virtio
# NIC: the NVMe-oF target on one, the host on the other.  The host runs
# the steps of a plan, fio verifying the data that crosses the wire, and
# asks the target for its part of each: the wire's faults are the
# target's.
#   RWX_PAIR_ROLE      target | host
#   RWX_PAIR_TARGET    the target's address on the wire (10.77.0.1; the
#                      host is 10.77.0.2: a private network between the
#                      two guests, nothing else is ever addressed)
#   RWX_ENGINE_MODULE  (target) rdma_rwx.ko
#   RWX_NVMET_RDMA     (target) the engine-built nvmet-rdma.ko; unset: the
#                      kernel's own (ib_core's rdma_rw), the reference
#   RWX_EXPECT_PATHS   (target) sge | mr | sge+mr: the engine's contexts
#                      took that path
#   RWX_ISERT_MODULE   (target) the engine-built ib_isert.ko, for the iser
#                      step; unset: the kernel's own
#   RWX_PAIR_PLAN      (host) its steps in order (default: fio):
#     fio          fio verify across the wire (tools/guest/fio/pair.fio:
#                  512 B to 1 MiB at queue depths 1 and 32)
#     netem:FAULT  the same with the wire's FAULT on the target's NIC (tc
#                  netem on its egress; netem_options below): what the
#                  fault did, and how many contexts the engine served
#                  under it, are said
#     linkdown     the target's link down until the host gave its
#                  controller up (a short ctrl-loss-tmo): the host's I/O
#                  must fail within a bound, not hang; the link back up,
#                  the host connects again
#     portcycle    the target's port removed and added again under fio:
#                  the host reconnects and every block verifies
#     reference    the target serves on with the kernel's own nvmet-rdma
#     engine       ... and with the engine's again
#     iser         iSER: the target serves a LUN of its own over LIO and
#                  ib_isert (RWX_ISERT_MODULE, or the kernel's own), the
#                  host logs in over iSER (open-iscsi) and fio verifies
#                  the disk; the target's engine must have served it
#     kill         the host's power cut mid-I/O, no disconnect: the
#                  target must notice and tear every queue down (its QPs
#                  and MRs freed, no engine context left live)
#   RWX_PAIR_ULP       smb: instead of NVMe-oF, the target's ksmbd
#                      (KSMBD_MODULE, an engine-built ksmbd.ko, or the
#                      kernel's own) shares a tmpfs over SMB Direct, the
#                      host's cifs mounts it (both need SMB Direct: the
#                      test kernels), and the plan's steps are:
#     smb          fio verify on the share, a file copied both ways
#     smbfault:F   under the host's fio load on the share, the target's
#                  fault F: server-stop (ksmbd.control -s) or link-delete
#                  (rxe0 deleted): the target's engine has no context
#                  left live within 120 s, the host's I/O fails within
#                  120 s and it unmounts; then the target serves again
#                  (ksmbd started, rxe0 added back)
#                  The cifs client whose transport dies is in another
#                  guest than the server: on one guest it deadlocked
#                  (Documentation/ulps.rst).
#   Before the first step the host writes a region of its own, and after
#   every step (but kill) reads it back verified: nothing written and
#   acknowledged may be lost across a fault.
# The two meet over the wire, on TCP port 7777 of the target: once its
# namespace is served the target listens and says "ready"; the host then
# sends one request a line ("netem loss1", "clear", "done", or "failed:
# WHY" when it failed) and the target answers each "ok" or "failed: WHY".
# Each end prints "pair: ..." lines, the last "pair: ROLE passed".  On a
# debug kernel the target's run ends with a kmemleak scan.
set -u
. "$RWX_ROOT/tools/guest/nvmeof-lib.sh"
RWX_LOG_PREFIX=pair
. "$RWX_ROOT/tools/guest/ulp-lib.sh"
. "$RWX_ROOT/tools/guest/iser-lib.sh"
. "$RWX_ROOT/tools/guest/smb-lib.sh"
PAIR_PORT=7777
PAIR_MEET=300
PAIR_TIMEOUT=600
target=${RWX_PAIR_TARGET:-10.77.0.1}

# pair_fail WHY: this end failed; a host tells the target so (over the
# meeting's connection, or a new one), so that it fails at once.
pair_fail() {
	echo "pair: FAILED $*"
	if [ "${RWX_PAIR_ROLE:-}" = host ]; then
		[ -n "${PAIR_FD:-}" ] ||
			{ exec {PAIR_FD}<> "/dev/tcp/$target/$PAIR_PORT"; } 2> /dev/null
		[ -n "${PAIR_FD:-}" ] && echo "failed: $*" 2> /dev/null >&"$PAIR_FD"
	fi
	exit 1
}

# diagnose: for ulp-lib's die (the iser and SMB steps): what iSER left,
# and a host tells the target it failed.
diagnose() {
	[ "${RWX_PAIR_ROLE:-}" = host ] && [ -n "${PAIR_FD:-}" ] &&
		echo "failed: (the host's step died: its log says why)" >&"$PAIR_FD"
	iscsiadm -m session -P 1 2>&1 | indent
	dmesg | grep -iE 'isert|iser|iscsi|target' | tail -n 20 | indent
}

# wire_up ADDR: the virtio NIC up with ADDR/24, rxe0 on it.
wire_up() {
	local nic="" d
	modprobe -a virtio_net rdma_rxe || return 1
	for d in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$d/device/driver" 2>/dev/null)")" = virtio_net ] &&
			nic=${d##*/}
	done
	[ -n "$nic" ] || { echo "pair: no virtio NIC"; return 1; }
	PAIR_NIC=$nic
	ip addr add "$1/24" dev "$nic" && ip link set "$nic" up || return 1
	rdma link add rxe0 type rxe netdev "$nic" || return 1
	echo "pair: $nic $1, rxe0 on it ($(cat "/sys/class/net/$nic/address"))"
}

# --- the target

# netem_options FAULT: tc netem's options for the wire's fault FAULT.
netem_options() {
	case $1 in
	loss1) echo "loss 1%" ;;
	loss10) echo "loss 10%" ;;
	# with a rate netem keeps the frames in order (each leaves after the
	# one before it): jitter alone would reorder most of them
	jitter) echo "delay 10ms 5ms rate 1gbit" ;;
	# 2 %: at 5 % neither the engine's nor the kernel's own nvmet-rdma
	# had the full load done in 10 min (rxe goes back to the first frame
	# out of order, and the frames resent are reordered again)
	reorder) echo "delay 5ms reorder 2%" ;;
	duplicate) echo "duplicate 5%" ;;
	# make check's one case of each kind at once
	mixed) echo "delay 2ms 1ms rate 1gbit loss 1% duplicate 1% reorder 1%" ;;
	*) return 1 ;;
	esac
}

# netem_on FAULT, netem_off: the wire's fault on the target's NIC, and off
# again with what it did and what the engine served meanwhile: some
# contexts while the engine's nvmet-rdma serves, none while the kernel's
# own does.
netem_on() {
	local opts
	opts=$(netem_options "$1") || { echo "pair: no wire fault $1"; return 1; }
	modprobe sch_netem || return 1
	# shellcheck disable=SC2086
	tc qdisc add dev "$PAIR_NIC" root netem $opts || return 1
	NETEM_CONTEXTS=$(engine_contexts_if_loaded)
	echo "pair: the wire's fault on $PAIR_NIC: netem $opts"
}
netem_off() {
	local served
	netem_del || return 1
	[ -n "${RWX_ENGINE_MODULE:-}" ] || return 0
	served=$(($(engine_contexts) - NETEM_CONTEXTS))
	echo "pair: the engine served $served contexts under the fault ($PAIR_SERVING's nvmet-rdma)"
	case $PAIR_SERVING in
	engine) [ "$served" -gt 0 ] ;;
	reference) [ "$served" = 0 ] ;;
	esac
}
# netem_del: the netem qdisc off the target's NIC, having said what it did.
netem_del() {
	echo "pair: netem on $PAIR_NIC: $(tc -s qdisc show dev "$PAIR_NIC" | grep -m1 -o 'Sent .*')"
	tc qdisc del dev "$PAIR_NIC" root
}
engine_contexts_if_loaded() {
	if [ -n "${RWX_ENGINE_MODULE:-}" ]; then engine_contexts; else echo 0; fi
}

# link_down SECONDS: the wire cut at the target for SECONDS, every frame
# it sends dropped (tc netem loss 100%), then whole again.  Not the NIC
# taken down: with rxe's netdev down and up again, Debian's 6.1 and 6.12
# kernels alike left the target's CM stuck (ib_cm waiting on a DREQ that
# never went out, "cm_destroy_id_wait_timeout" every 10 s) and the host's
# new connections unanswered 100 s after the link was back.
link_down() {
	modprobe sch_netem && tc qdisc add dev "$PAIR_NIC" root netem loss 100% || return 1
	echo "pair: the wire cut at $PAIR_NIC for $1 s"
	pause "$1"
	netem_del || return 1
	echo "pair: the wire whole again"
}

# port_cycle SECONDS: the target's port removed, and added again after
# SECONDS.
port_cycle() {
	nvmeof_port_remove || return 1
	echo "pair: port removed for $1 s"
	pause "$1"
	nvmeof_port_add "$target" || return 1
	echo "pair: port added again"
}

# target_serve_with WHICH: the namespace served by the engine's
# nvmet-rdma (engine) or the kernel's own (reference), the host having
# disconnected: null_blk keeps what was written.
target_serve_with() {
	local ko=""
	if [ "$1" = engine ]; then
		ko=${RWX_NVMET_RDMA:-}
		[ -n "$ko" ] || { echo "pair: no engine-built nvmet-rdma (RWX_NVMET_RDMA)"; return 1; }
	fi
	nvmeof_target_down && nvmeof_target_unload && nvmeof_target_load "$ko" &&
		nvmeof_target_up "$target" || return 1
	PAIR_SERVING=$1
}

# rxe_resources: what rxe0 holds (rdma resource tracking's summary): its
# PDs, QPs, CM IDs and MRs.  Not its CQs: nvmet-rdma takes them from
# ib_core's CQ pool, which keeps them until the device goes.
rxe_resources() {
	rdma resource show | awk '$2 == "rxe0:" { for (i = 3; i < NF; i += 2)
		if ($i ~ /^(pd|qp|cm_id|mr)$/) printf "%s %s ", $i, $(i + 1) }'
}

# target_host_gone: the host's power was cut mid-I/O: within 120 s the
# target must notice (keep-alive) and have torn every queue down: rxe0
# holds again what it held before the host came (PAIR_IDLE_RESOURCES),
# and no engine context is left live.
target_host_gone() {
	local t0=$SECONDS res
	while res=$(rxe_resources); [ "$res" != "$PAIR_IDLE_RESOURCES" ]; do
		[ $((SECONDS - t0)) -lt 120 ] || {
			echo "pair: 120 s after the host's power cut rxe0 holds $res, not $PAIR_IDLE_RESOURCES"
			return 1
		}
		pause 1
	done
	echo "pair: the target tore every queue down $((SECONDS - t0)) s after the host's power cut (rxe0 back to $res)"
	[ -z "${RWX_ENGINE_MODULE:-}" ] || engine_live_check
}

# iser_target_start: a LUN of its own (a second memory-backed null_blk,
# made in null_blk's configfs, which names the disk after its directory
# on 6.1 and 6.12: nullb1) served over iSER on the wire.
ISER_NULLB=/sys/kernel/config/nullb/nullb1
iser_target_start() {
	mkdir "$ISER_NULLB" && echo 1 > "$ISER_NULLB/memory_backed" &&
		echo 256 > "$ISER_NULLB/size" && echo 1 > "$ISER_NULLB/power" || return 1
	iser_target_modules "${RWX_ISERT_MODULE:-}"
	iser_target_up "$target:3260" /dev/nullb1
	ISER_CONTEXTS=$(engine_contexts_if_loaded)
}
# iser_target_stop: the LUN and LIO gone, having served the host through
# the engine when its ib_isert did.
iser_target_stop() {
	local served
	served=$(($(engine_contexts_if_loaded) - ISER_CONTEXTS))
	iser_target_down "$target:3260"
	rmmod_wait "$ISERT_NAME" iscsi_target_mod target_core_iblock target_core_file \
		target_core_pscsi target_core_user uio target_core_mod
	echo 0 > "$ISER_NULLB/power" && rmdir "$ISER_NULLB" || return 1
	if [ -n "${RWX_ISERT_MODULE:-}" ]; then
		echo "pair: the engine served iSER $served contexts"
		[ "$served" -gt 0 ] || return 1
	fi
}

# smb_target_fault FAULT: once the host's load goes through the engine
# (its contexts count up), FAULT: server-stop (ksmbd.control -s) or
# link-delete (rxe0 deleted); then within 120 s no engine context live.
smb_target_fault() {
	local before t0
	before=$(engine_contexts)
	for _ in $(seq 60); do
		pause 1
		[ "$(engine_contexts)" -gt "$before" ] && break
	done
	[ "$(engine_contexts)" -gt "$before" ] ||
		{ echo "pair: no I/O through the engine before the fault ($before contexts)"; return 1; }
	echo "pair: the host's load through the engine: $(engine_counter contexts_live) contexts live, $(engine_contexts) set up"
	case $1 in
	server-stop) smb_server_stop || return 1 ;;
	link-delete) rdma link delete rxe0 || return 1 ;;
	*) echo "pair: no SMB fault $1"; return 1 ;;
	esac
	t0=$SECONDS
	until [ "$(engine_counter contexts_live)" = 0 ]; do
		[ $((SECONDS - t0)) -lt 120 ] ||
			{ echo "pair: $(engine_counter contexts_live) engine contexts live 120 s after $1"; return 1; }
		pause 1
	done
	echo "pair: $1 under the host's load: no engine context live $((SECONDS - t0)) s after it"
}

# smb_target_restore FAULT: serving again after FAULT: rxe0 back on the
# wire after a link-delete, ksmbd started after either.
smb_target_restore() {
	if [ "$1" = link-delete ]; then
		rdma link add rxe0 type rxe netdev "$PAIR_NIC" || return 1
	fi
	smb_server_stop && smb_server_start
}

# target_request REQUEST ARG: the host's REQUEST carried out; 1 fails it.
target_request() {
	case $1 in
	netem) netem_on "$2" ;;
	clear) netem_off ;;
	portcycle) port_cycle "$2" ;;
	reference | engine) target_serve_with "$1" ;;
	iser) iser_target_start ;;
	iser-stop) iser_target_stop ;;
	smbfault) smb_target_fault "$2" ;;
	smb-restore) smb_target_restore "$2" ;;
	*) echo "pair: no request $1"; return 1 ;;
	esac
}

# The target's end of the meeting, a coprocess: a relay between the
# host's connection and this script (each line the host sends comes out,
# each line of ours goes to the host), ending with "failed: WHY" when the
# host did not come, went away or fell silent.
PAIR_RELAY='
import socket, sys, threading
port, meet, timeout = map(int, sys.argv[1:4])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", port))
s.listen(1)
s.settimeout(meet)
try:
    c, _ = s.accept()
except socket.timeout:
    print("failed: (no host within %d s)" % meet, flush=True)
    sys.exit(0)
c.settimeout(timeout)
rd, wr = c.makefile("r"), c.makefile("w")
def answers():
    for line in sys.stdin:
        wr.write(line)
        wr.flush()
wr.write("ready\n")
wr.flush()
threading.Thread(target=answers, daemon=True).start()
while True:
    try:
        line = rd.readline().strip() or "failed: (the host went away)"
    except OSError:
        line = "failed: (nothing from the host for %d s)" % timeout
    print(line, flush=True)
    if line.startswith("failed:"):
        break
'

# target_serve: the host's requests until it says "done" (0), or its
# power was cut (target_host_gone's status).
target_serve() {
	local request arg answer
	coproc PAIR_LINK { exec python3 -c "$PAIR_RELAY" "$PAIR_PORT" "$PAIR_MEET" "$PAIR_TIMEOUT"; }
	# fds of our own: bash drops the coprocess's once it has exited
	exec {LINK_IN}<&"${PAIR_LINK[0]}" {LINK_OUT}>&"${PAIR_LINK[1]}"
	while read -r -u "$LINK_IN" request arg; do
		echo "pair: the host asks: $request $arg"
		case $request in
		done)
			echo ok >&"$LINK_OUT"
			return 0 ;;
		failed:) pair_fail "the host: $arg" ;;
		linkdown)
			# answered first, the host watching its controller go,
			# and again ("back") once the link is up
			echo ok >&"$LINK_OUT"
			link_down "$arg" || pair_fail "link down and up"
			echo back >&"$LINK_OUT" ;;
		kill)
			echo ok >&"$LINK_OUT"
			target_host_gone
			return ;;
		*)
			answer=ok
			target_request "$request" "$arg" || answer="failed: $request $arg"
			echo "$answer" >&"$LINK_OUT"
			[ "$answer" = ok ] || pair_fail "$request $arg" ;;
		esac
	done
	pair_fail "the host's connection ended without \"done\""
}

run_target() {
	kmemleak_start
	nvmeof_modules || pair_fail "loading modules"
	nvmeof_target_load "${RWX_NVMET_RDMA:-}" || pair_fail "loading nvmet-rdma"
	PAIR_SERVING=reference
	[ -n "${RWX_NVMET_RDMA:-}" ] && PAIR_SERVING=engine
	wire_up "$target" || pair_fail "the wire"
	nvmeof_target_up "$target" || pair_fail "target setup"
	PAIR_IDLE_RESOURCES=$(rxe_resources)
	echo "pair: rxe0 holds $PAIR_IDLE_RESOURCES before the host comes"
	target_serve || pair_fail "the host's power cut"
	if [ -n "${RWX_NVMET_RDMA:-}" ]; then
		[ "$(engine_contexts)" -gt 0 ] || pair_fail "the engine set no context up"
		engine_no_errors || pair_fail "engine errors"
		echo "pair: the engine served the host: $(engine_contexts) contexts, no error"
		[ -z "${RWX_EXPECT_PATHS:-}" ] || engine_expect_paths "$RWX_EXPECT_PATHS" ||
			pair_fail "the engine's paths"
	fi
	nvmeof_target_down || pair_fail "target teardown"
	nvmeof_target_unload || pair_fail "unloading nvmet-rdma"
	nvmeof_modules_unload || pair_fail "unloading modules"
	kmemleak_check
	[ -w /sys/kernel/debug/kmemleak ] && echo "pair: kmemleak scanned after the teardown"
	echo "pair: target passed"
}

# The SMB target: ksmbd serves the host until it says "done"; then every
# context it had was the engine's, none is left live, and all unloads.
run_smb_target() {
	local ksmbd_name
	bind_modroot || pair_fail "bind mount over /lib/modules"
	kmemleak_start
	modprobe -a rdma_cm || pair_fail "loading rdma_cm"
	if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
		# shellcheck disable=SC2086
		insmod "$RWX_ENGINE_MODULE" ${RWX_ENGINE_PARAMS:-} || pair_fail "loading the engine"
	fi
	load_ulp "${KSMBD_MODULE:-}" ksmbd
	ksmbd_name=$ULP_NAME
	wire_up "$target" || pair_fail "the wire"
	smb_server_prepare && smb_server_start || pair_fail "starting ksmbd"
	echo "pair: ksmbd serves //$target/share over SMB Direct"
	target_serve || pair_fail "serving the host"
	if [ -n "${KSMBD_MODULE:-}" ] && [ -n "${RWX_ENGINE_MODULE:-}" ]; then
		[ "$(engine_contexts)" -gt 0 ] || pair_fail "the engine set no context up"
		engine_no_errors || pair_fail "engine errors"
		echo "pair: the engine served the host: $(engine_contexts) contexts, no error"
	fi
	smb_server_stop || pair_fail "stopping ksmbd"
	umount "$SMB_SHARE" || pair_fail "unmounting the share"
	rmmod_wait "$ksmbd_name"
	if [ -n "${RWX_ENGINE_MODULE:-}" ]; then
		engine_live_check || pair_fail "engine contexts left"
		rmmod_wait rdma_rwx
	fi
	kmemleak_check
	[ -w /sys/kernel/debug/kmemleak ] && echo "pair: kmemleak scanned after the teardown"
	echo "pair: target passed"
}

# --- the host

# The fio steps' load (pair_fio): full - 512 B to 1 MiB, 1 MiB at queue
# depth 1 and 4 MiB at 32; light, on a wire that loses a tenth of its
# frames - up to 4 KiB, 128 and 512 KiB.  rxe resends a lost packet and
# all after it once its ACK timeout (about 2 s here) is out: the full
# load there outlasted nvme's I/O timeout over and over, for 10 minutes.
PAIR_LOAD_FULL="512/10:4k/30:16k/15:64k/20:256k/15:1m/10 1m 4m"
PAIR_LOAD_LIGHT="512/30:4k/70 128k 512k"
# The region written before the first step, read back after each.
PAIR_ACKED_MB=768

# pair_fio MB VERIFY_ONLY [light]: pair.fio on the region at MB MiB (the
# queue depth 1 job there, the queue depth 32 job 2 MiB on).
pair_fio() {
	local load=$PAIR_LOAD_FULL bs qd1 qd32
	[ "${3:-}" = light ] && load=$PAIR_LOAD_LIGHT
	read -r bs qd1 qd32 <<< "$load"
	PAIR_OFFSET_QD1=$1m PAIR_OFFSET_QD32=$(($1 + 2))m PAIR_VERIFY_ONLY=$2 \
		PAIR_BSSPLIT=$bs PAIR_SIZE_QD1=$qd1 PAIR_SIZE_QD32=$qd32 \
		nvmeof_fio "$RWX_ROOT/tools/guest/fio/pair.fio"
}

# pair_ask REQUEST [ARG]: the target carried REQUEST out ("ok").
pair_ask() {
	local answer
	echo "$*" >&"$PAIR_FD" || return 1
	read -r -t "$PAIR_TIMEOUT" -u "$PAIR_FD" answer || answer="(no answer in $PAIR_TIMEOUT s)"
	[ "$answer" = ok ] && return 0
	echo "pair: the target answered \"$*\" with: $answer"
	return 1
}

# host_connect [nvme connect options]: to the target's namespace, with a
# keep-alive timeout of 5 s.
host_connect() {
	nvmeof_host_connect "$target" --keep-alive-tmo=5 "$@"
}

# fio_across MB REQUEST ARG: fio passes on the region at MB while the
# target carries REQUEST out: every pass must verify, the last one
# starting after the target's answer.
fio_across() {
	local pid rc=0
	rm -f /tmp/pair-asked /tmp/fio-across-*.log
	(pass=0
	 while [ $pass = 0 ] || [ ! -e /tmp/pair-asked ]; do
		pass=$((pass + 1))
		pair_fio "$1" 0 > "/tmp/fio-across-$pass.log" 2>&1 || exit 1
	 done) &
	pid=$!
	pause 2
	pair_ask "$2" "$3" || rc=1
	touch /tmp/pair-asked
	wait_gone $pid 300 || { echo "pair: fio still running 300 s after $2: hung"; pkill -KILL -x fio; rc=1; }
	wait $pid || rc=1
	cat /tmp/fio-across-*.log
	return $rc
}

# load_start MB LOG [FILE]: in the background ($!), fio's load for a fault
# on the 8 MiB at MB of FILE (default the NVMe disk; 64 KiB random reads
# and writes at queue depth 16, for 300 s), its output in LOG: not
# verified, it is to fail.
load_start() {
	(cd /tmp && exec fio --name=load --filename="${3:-$NVMEOF_BDEV}" --offset="$1m" \
		--size=8m --thread --ioengine=libaio --direct=1 --rw=randrw --bs=64k \
		--iodepth=16 --time_based --runtime=300 > "$2" 2>&1) &
}

# host_portcycle MB: the target's port away for 3 s under fio: the host
# reconnects, every block verifies.
host_portcycle() {
	local before
	before=$(dmesg | grep -c 'Successfully reconnected')
	fio_across "$1" portcycle 3 || return 1
	[ "$(dmesg | grep -c 'Successfully reconnected')" -gt "$before" ] ||
		{ echo "pair: the host never reconnected"; return 1; }
	echo "pair: the target's port went and came back, the host reconnected, fio verified across it"
}

# host_linkdown MB: connected with the shortest ctrl-loss-tmo (one
# reconnect attempt), under fio load the target's link goes down for
# PAIR_LINK_DOWN s: the host's I/O must fail and its controller go before
# the link is back, then the host connects again.  An attempt to
# reconnect over a dead link ends when rdma_cm's REQ retries do, 80-120 s
# on; the controller goes after it.
PAIR_LINK_DOWN=180
host_linkdown() {
	local pid t0 gone back=""
	nvmeof_host_disconnect && host_connect --ctrl-loss-tmo=1 --reconnect-delay=1 || return 1
	load_start "$1" /tmp/fio-linkdown.log
	pid=$!
	pause 2
	pair_ask linkdown $PAIR_LINK_DOWN || return 1
	t0=$SECONDS
	wait_gone $pid $PAIR_LINK_DOWN ||
		{ echo "pair: fio still running $PAIR_LINK_DOWN s after the link went down: hung"; return 1; }
	grep -q 'io_u error' /tmp/fio-linkdown.log ||
		{ echo "pair: fio ended without an I/O error:"; tail -5 /tmp/fio-linkdown.log; return 1; }
	while [ -n "$(nvmeof_ctrl)" ]; do
		[ $((SECONDS - t0)) -lt $PAIR_LINK_DOWN ] ||
			{ echo "pair: the controller still there when the link came back"; return 1; }
		pause 1
	done
	gone=$((SECONDS - t0))
	[ "$gone" -lt $PAIR_LINK_DOWN ] ||
		{ echo "pair: the host gave up after ${gone} s, not before the link came back"; return 1; }
	echo "pair: the link down: I/O failed, the host gave its controller up after ${gone} s: $(grep -m1 -o 'io_u error.*' /tmp/fio-linkdown.log)"
	read -r -t $((PAIR_LINK_DOWN + 60)) -u "$PAIR_FD" back && [ "$back" = back ] ||
		{ echo "pair: the target did not say its link was back (\"${back:-}\")"; return 1; }
	host_connect --ctrl-loss-tmo=60 --reconnect-delay=1 || return 1
	echo "pair: the link back up after $((SECONDS - t0)) s, the host connected again"
}

# host_iser MB: logged in to the target's iSER LUN, fio (pair.fio) on its
# region at MB verifies the disk, logged out.
host_iser() {
	pair_ask iser || return 1
	run modprobe ib_iser
	# No udev in the guest: the SCSI disk driver is not autoloaded.
	run modprobe sd_mod
	iser_initiator_start /tmp/iscsid.log
	iser_login "$target:3260"
	# pair_fio's device for this step: the iSER disk
	NVMEOF_BDEV=$dev pair_fio "$1" 0 || return 1
	echo "pair: fio verified the iSER disk $dev across the wire"
	iser_logout "$target:3260"
	iser_initiator_stop
	rmmod_wait ib_iser iscsi_tcp libiscsi_tcp libiscsi scsi_transport_iscsi
	pair_ask iser-stop
}

# host_kill MB: fio on the region, and while it runs the target is told,
# and this script ends without disconnecting: guest-init then reboots at
# once (sysrq b), the power cut.
host_kill() {
	load_start "$1" /dev/null
	pause 3
	kill -0 $! || { echo "pair: fio ended before the power cut"; return 1; }
	pair_ask kill || return 1
	echo "pair: host's power cut mid-I/O (fio running, no disconnect)"
	echo "pair: host passed"
	exit 0
}

# host_step STEP MB: one step of the plan, its fio on the region at MB.
host_step() {
	case $1 in
	fio) pair_fio "$2" 0 ;;
	netem:*)
		local rc=0 load=full
		[ "$1" = netem:loss10 ] && load=light
		pair_ask netem "${1#netem:}" || return 1
		pair_fio "$2" 0 $load || rc=1
		pair_ask clear || rc=1
		return $rc ;;
	linkdown) host_linkdown "$2" ;;
	portcycle) host_portcycle "$2" ;;
	reference | engine)
		nvmeof_host_disconnect && pair_ask "$1" &&
			host_connect --ctrl-loss-tmo=60 --reconnect-delay=1 ;;
	kill) host_kill "$2" ;;
	iser) host_iser "$2" ;;
	*) echo "pair: no step $1"; return 1 ;;
	esac
}

# host_meet: the target's "ready" over the wire (fd PAIR_FD kept open
# for the requests), retried while the target boots, for PAIR_MEET s.
host_meet() {
	local line deadline=$((SECONDS + PAIR_MEET))
	while [ "$SECONDS" -lt "$deadline" ]; do
		if { exec {PAIR_FD}<> "/dev/tcp/$target/$PAIR_PORT"; } 2> /dev/null; then
			read -r -t 60 -u "$PAIR_FD" line && [ "$line" = ready ] && return 0
			echo "pair: the target said \"${line:-nothing}\", not ready"
			return 1
		fi
		sleep 1
	done
	unset PAIR_FD
	echo "pair: the target did not answer in $PAIR_MEET s"
	return 1
}

run_host() {
	local step i=0 t0
	nvmeof_modules || pair_fail "loading modules"
	wire_up "${target%.*}.2" || pair_fail "the wire"
	host_meet || pair_fail "meeting the target"
	host_connect --ctrl-loss-tmo=60 --reconnect-delay=1 || pair_fail "connecting to the target"
	pair_fio $PAIR_ACKED_MB 0 || pair_fail "fio across the wire"
	for step in ${RWX_PAIR_PLAN:-fio}; do
		t0=$SECONDS
		echo "pair: step $step"
		host_step "$step" $((i * 8)) || pair_fail "$step"
		pair_fio $PAIR_ACKED_MB 1 || pair_fail "what was written before $step"
		echo "pair: step $step passed in $((SECONDS - t0)) s, what was written before it verified"
		i=$((i + 1))
	done
	nvmeof_host_disconnect || pair_fail "disconnecting"
	pair_ask "done" || pair_fail "the target's end"
	exec {PAIR_FD}>&-
	echo "pair: host passed"
}

# smb_host_fault FAULT: the share mounted, fio's load on a file of it, and
# while it runs the target's FAULT (smb_target_fault): the load must fail
# with an I/O error within 120 s of the target's answer, the share unmount;
# then the target serves again.
smb_host_fault() {
	local pid
	smb_mount "$target" && fault_layout "$SMB_MNT/load" || return 1
	load_start 0 /tmp/fio-smbfault.log "$SMB_MNT/load"
	pid=$!
	pause 2
	kill -0 $pid || { echo "pair: fio ended before the fault:"; cat /tmp/fio-smbfault.log; return 1; }
	pair_ask smbfault "$1" || return 1
	wait_gone $pid 120 || { echo "pair: fio still running 120 s after $1: hung"; return 1; }
	grep -q 'io_u error' /tmp/fio-smbfault.log ||
		{ echo "pair: fio ended without an I/O error:"; tail -5 /tmp/fio-smbfault.log; return 1; }
	echo "pair: $1: the host's I/O failed: $(grep -m1 -o 'io_u error.*' /tmp/fio-smbfault.log)"
	umount_after_fault "$SMB_MNT"
	pair_ask smb-restore "$1"
}

# smb_host_step STEP: one step of an SMB plan.
smb_host_step() {
	case $1 in
	smb)
		smb_mount "$target" || return 1
		# small: the single-guest runs (smb.sh) move the data; this
		# is across the wire, at about 1 MB/s between debug guests
		FIO_TARGET=$SMB_MNT/fio SIZE_MB=4 ULP_FIO_SET=short fio_verify_set &&
			ULP_COPY_MB=8 copy_both_ways "$SMB_MNT" "$SMB_MNT" "SMB Direct" &&
			umount "$SMB_MNT" ;;
	smbfault:*) smb_host_fault "${1#smbfault:}" ;;
	*) echo "pair: no SMB step $1"; return 1 ;;
	esac
}

run_smb_host() {
	local step t0
	bind_modroot || pair_fail "bind mount over /lib/modules"
	smb_client_load || pair_fail "loading cifs"
	wire_up "${target%.*}.2" || pair_fail "the wire"
	host_meet || pair_fail "meeting the target"
	for step in ${RWX_PAIR_PLAN:-smb}; do
		t0=$SECONDS
		echo "pair: step $step"
		smb_host_step "$step" || pair_fail "$step"
		echo "pair: step $step passed in $((SECONDS - t0)) s"
	done
	rmmod_wait -t 60 cifs
	pair_ask "done" || pair_fail "the target's end"
	exec {PAIR_FD}>&-
	echo "pair: host passed"
}

case ${RWX_PAIR_ROLE:-}/${RWX_PAIR_ULP:-nvme} in
target/smb) run_smb_target ;;
host/smb) run_smb_host ;;
target/nvme) run_target ;;
host/nvme) run_host ;;
*) pair_fail "RWX_PAIR_ROLE \"${RWX_PAIR_ROLE:-}\" (target or host), RWX_PAIR_ULP \"${RWX_PAIR_ULP:-}\" (nvme or smb)" ;;
esac
