# Sourced by guest scripts: bring up the test RDMA devices.
#   rxe0 (RoCE v2, Soft-RoCE)  on veth0 192.0.2.1
#   siw0 (iWARP, Soft-iWARP)   on veth1 192.0.2.2
# 192.0.2.0/24 is TEST-NET-1: nothing outside this guest is ever addressed.
# Both QPs of a test connect through one device: rxe loops back to its own
# address internally, siw over the kernel's TCP.
# Usage: rdma_setup [rxe] [siw]  (default: both; made once, then added to)
#   RWX_MTU  the veth pair's MTU (default 9000: rxe's path MTU 4096;
#            1500: 1024)

rdma_setup() {
	local want=${*:-rxe siw} mods=veth
	# One exec each of modprobe and ip (every exec costs a debug kernel
	# under TCG about a second).
	case " $want " in *" rxe "*) mods="$mods rdma_rxe" ;; esac
	case " $want " in *" siw "*) mods="$mods siw" ;; esac
	# shellcheck disable=SC2086
	modprobe -a $mods 2>/dev/null
	# Jumbo frames: rxe's path MTU is then 4096 instead of 1024, a quarter
	# of the packets for the same data.  Under TCG on the debug kernels
	# rxe's per-packet work (skb allocations with KASAN's stack traces, the
	# ICRC) is most of a data test's time: rwx_engine_data on rxe0 20 s ->
	# 8 s.  (siw0's traffic to its own address goes over lo: no change.)
	# RWX_MTU=1500 gives the default back (make bench keeps it).  ip stops
	# at the first command that fails.  A second call (a device added
	# later, or again after a test deleted it) finds the pair made.
	[ -e /sys/class/net/veth0 ] || ip -batch - <<-EOF || return 1
		link add veth0 type veth peer name veth1
		addr add 192.0.2.1/24 dev veth0
		addr add 192.0.2.2/24 dev veth1
		link set veth0 mtu ${RWX_MTU:-9000}
		link set veth1 mtu ${RWX_MTU:-9000}
		link set veth0 up
		link set veth1 up
	EOF
	case " $want " in *" rxe "*)
		rdma link add rxe0 type rxe netdev veth0 || return 1 ;;
	esac
	case " $want " in *" siw "*)
		rdma link add siw0 type siw netdev veth1 || return 1 ;;
	esac
	rdma link show
}
