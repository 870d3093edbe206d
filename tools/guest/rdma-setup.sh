# Sourced by guest scripts: bring up the test RDMA devices.
#   rxe0 (RoCE v2, Soft-RoCE)  on veth0 192.0.2.1
#   siw0 (iWARP, Soft-iWARP)   on veth1 192.0.2.2
#   rwxr0 (rwx_testdev, RoCE v2 port) on its own rwxtd<n>, 192.0.2.3
# 192.0.2.0/24 is TEST-NET-1: nothing outside this guest is ever addressed.
# Both QPs of a test connect through one device: rxe loops back to its own
# address internally, siw over the kernel's TCP, the test device inside
# itself (drivers/testing/testdev/rwx_testdev_roce.c).
# Usage: rdma_setup [rxe] [siw] [testdev]  (default: rxe and siw; made
# once, then added to)
#   RWX_MTU  the veth pair's MTU (default 9000: rxe's path MTU 4096;
#            1500: 1024)
#   RWX_TESTDEV_MODULE  rwx_testdev.ko, for testdev
#   RWX_TESTDEV_SPEC    its capabilities (rwx_testdev_debugfs.c), with
#                       "roce" added, e.g. sge1 or mlx5-pi

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
	case " $want " in *" testdev "*)
		testdev_setup || return 1 ;;
	esac
	case " $want " in *" rxe "* | *" siw "*) ;; *) rdma link show; return ;; esac
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

# testdev_setup: a test device instance rwxr0 with a RoCE port, its net
# device up on 192.0.2.3, once ib_core has that address in its GID table
# (rdma_cm resolves through it).
testdev_setup() {
	local ctl=/sys/kernel/debug/rwx_testdev ndev gid port
	[ -d /sys/module/rwx_testdev ] || insmod "$RWX_TESTDEV_MODULE" || return 1
	grep -q ' /sys/kernel/debug ' /proc/mounts ||
		mount -t debugfs debugfs /sys/kernel/debug || return 1
	# What the interface refuses: an unknown word, a bad number, a name
	# it did not make.
	if echo "rwxr0 sge1,bogus" 2>/dev/null > $ctl/create ||
	   echo "rwxr0 send_sge=x" 2>/dev/null > $ctl/create ||
	   echo rwxr9 2>/dev/null > $ctl/remove; then
		echo "testdev_setup: a bad request was taken"
		return 1
	fi
	# Mapped as rxe and siw map (virt_dma): with real dma-direct mappings
	# DMA-API debug warns of nvme-rdma's own small receive buffers, which
	# share cachelines ("cacheline tracking EEXIST" in nvme_rdma_alloc_qe()).
	# An iWARP set has its own connection manager, the others a RoCE port.
	case ${RWX_TESTDEV_SPEC:-sge1} in
	*iwarp*) port=iwarp ;;
	*) port=roce ;;
	esac
	echo "rwxr0 ${RWX_TESTDEV_SPEC:-sge1},$port,virt_dma" > $ctl/create || return 1
	ndev=$(rdma link show rwxr0/1 | sed -n 's/.* netdev \([^ ]*\).*/\1/p')
	ip addr add 192.0.2.3/32 dev "$ndev" && ip link set "$ndev" up || return 1
	[ $port = iwarp ] && return 0	# its GID is its MAC address
	for _ in $(seq 50); do
		for gid in /sys/class/infiniband/rwxr0/ports/1/gids/*; do
			[ "$(cat "$gid")" = 0000:0000:0000:0000:0000:ffff:c000:0203 ] && return 0
		done
		sleep 0.2
	done
	echo "testdev_setup: 192.0.2.3 never reached rwxr0's GID table"
	return 1
}

# testdev_remove: the instance unregistered (ib_core's clients let go of
# it; the device warns of anything left), the module unloaded.
testdev_remove() {
	echo rwxr0 > /sys/kernel/debug/rwx_testdev/remove &&
		rmmod rwx_testdev || { echo "testdev_remove: failed"; return 1; }
}
