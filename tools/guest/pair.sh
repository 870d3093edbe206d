# Guest script: one end of two guests joined by a virtual Ethernet wire
# (tools/pair.sh), each with Soft-RoCE (rxe0) on its virtio NIC: the
# NVMe-oF target on one, the host on the other, fio verifying the data
# that crosses the wire.
#   RWX_PAIR_ROLE      target | host
#   RWX_PAIR_TARGET    the target's address on the wire (10.77.0.1; the
#                      host is 10.77.0.2: a private network between the
#                      two guests, nothing else is ever addressed)
#   RWX_ENGINE_MODULE  (target) rdma_rwx.ko
#   RWX_NVMET_RDMA     (target) the engine-built nvmet-rdma.ko; unset: the
#                      kernel's own (ib_core's rdma_rw), the reference
#   RWX_FIO_JOBS       (host) fio job file (default: verify-short.fio)
#   RWX_PAIR_NETEM     (target) the wire's fault while the host runs: tc
#                      netem options on the target's NIC (egress), e.g.
#                      "loss 1%" or "delay 20ms 10ms reorder 25%"; the
#                      frames it dropped, duplicated or reordered are said
# The two meet over the wire, on TCP port 7777 of the target: once its
# namespace is served, the target listens and says "ready"; the host
# connects, runs fio, disconnects and says "done"; the target then checks
# its engine's counters and tears down.  Each end prints "pair: ..."
# lines, the last "pair: ROLE passed" on success.
set -u
. "$RWX_ROOT/tools/guest/nvmeof-lib.sh"
RWX_LOG_PREFIX=pair
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

# netem_on, netem_off: RWX_PAIR_NETEM on the wire's NIC, and off again
# with what it did.
netem_on() {
	[ -n "${RWX_PAIR_NETEM:-}" ] || return 0
	modprobe sch_netem || return 1
	# shellcheck disable=SC2086
	tc qdisc add dev "$PAIR_NIC" root netem $RWX_PAIR_NETEM || return 1
	echo "pair: the wire's fault on $PAIR_NIC: netem $RWX_PAIR_NETEM"
}
netem_off() {
	[ -n "${RWX_PAIR_NETEM:-}" ] || return 0
	echo "pair: netem on $PAIR_NIC: $(tc -s qdisc show dev "$PAIR_NIC" | grep -m1 -o 'Sent .*')"
	tc qdisc del dev "$PAIR_NIC" root
}

# target_serve: until the host said "done" (or "failed: WHY"), the
# namespace served: the host must meet it within PAIR_MEET s and finish
# within PAIR_TIMEOUT s; its word in PAIR_HOST_SAID.
target_serve() {
	PAIR_HOST_SAID=$(python3 -c '
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1])))
s.listen(1)
s.settimeout(int(sys.argv[2]))
try:
    c, _ = s.accept()
except socket.timeout:
    sys.exit("(no host within %s s)" % sys.argv[2])
c.settimeout(int(sys.argv[3]))
c.sendall(b"ready\n")
try:
    print(c.makefile().readline().strip() or "(the host went away)")
except socket.timeout:
    print("(the host did not finish within %s s)" % sys.argv[3])
' "$PAIR_PORT" "$PAIR_MEET" "$PAIR_TIMEOUT" 2>&1)
}

run_target() {
	nvmeof_modules || pair_fail "loading modules"
	nvmeof_target_load "${RWX_NVMET_RDMA:-}" || pair_fail "loading nvmet-rdma"
	wire_up "$target" || pair_fail "the wire"
	nvmeof_target_up "$target" || pair_fail "target setup"
	netem_on || pair_fail "netem on $PAIR_NIC"
	target_serve
	netem_off || pair_fail "netem off $PAIR_NIC"
	echo "pair: the host said: $PAIR_HOST_SAID"
	[ "$PAIR_HOST_SAID" = "done" ] || pair_fail "the host did not finish"
	if [ -n "${RWX_NVMET_RDMA:-}" ]; then
		[ "$(engine_contexts)" -gt 0 ] || pair_fail "the engine set no context up"
		engine_no_errors || pair_fail "engine errors"
		echo "pair: the engine served the host: $(engine_contexts) contexts, no error"
	fi
	nvmeof_target_down || pair_fail "target teardown"
	nvmeof_target_unload || pair_fail "unloading nvmet-rdma"
	nvmeof_modules_unload || pair_fail "unloading modules"
	echo "pair: target passed"
}

# host_meet: the target's "ready" over the wire (fd PAIR_FD kept open
# for "done"), retried while the target boots, for PAIR_MEET s.
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
	nvmeof_modules || pair_fail "loading modules"
	wire_up "${target%.*}.2" || pair_fail "the wire"
	host_meet || pair_fail "meeting the target"
	nvmeof_host_connect "$target" || pair_fail "connecting to the target"
	nvmeof_fio "${RWX_FIO_JOBS:-$RWX_ROOT/tools/guest/fio/verify-short.fio}" ||
		pair_fail "fio across the wire"
	echo "pair: fio verified across the wire"
	nvmeof_host_disconnect || pair_fail "disconnecting"
	echo "done" >&"$PAIR_FD"
	exec {PAIR_FD}>&-
	echo "pair: host passed"
}

case ${RWX_PAIR_ROLE:-} in
target) run_target ;;
host) run_host ;;
*) pair_fail "RWX_PAIR_ROLE \"${RWX_PAIR_ROLE:-}\": target or host" ;;
esac
