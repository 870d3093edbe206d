# Sourced by tools/guest/bench.sh: the NVMe-oF data path, the engine-built
# nvmet-rdma against the distro's (ib_core's rdma_rw), same guest, same
# namespace, alternating round by round (odd rounds the engine first, even
# rounds ib_core first).  One line per measurement:
#   bench: data PATH WORKLOAD SIDE ROUND IOPS MIB/S
#   RWX_ULPDIR          tools/build-ulps.sh's output for this kernel
#   RWX_BENCH_ROUNDS    rounds (default 5)
#   RWX_BENCH_RUNTIME   seconds per workload and round (default 4)
. "$RWX_ROOT/tools/guest/nvmeof-lib.sh"

# RWX_BENCH_WORKLOADS (RW:BS ...) picks some of them.
BENCH_WORKLOADS=${RWX_BENCH_WORKLOADS:-"randread:4k randwrite:4k read:128k write:128k"}

# bench_fio RW BS: one time-based fio run at queue depth 32; prints
# "IOPS MIB/S" of the direction it moved.
bench_fio() {
	(cd /tmp && fio --eta=never --output-format=json --output=/tmp/bench.json \
		--name=bench --filename="$NVMEOF_BDEV" --thread --ioengine=libaio \
		--direct=1 --rw="$1" --bs="$2" --iodepth=32 --size=256m \
		--ramp_time=1 --time_based --runtime="${RWX_BENCH_RUNTIME:-4}") || return 1
	python3 -c '
import json, sys
t = open("/tmp/bench.json").read()
j = json.loads(t[t.index("{"):])["jobs"][0]
d = j["read"] if j["read"]["io_bytes"] else j["write"]
print("%.0f %.2f" % (d["iops"], d["bw_bytes"] / 2**20))'
}

# bench_side PATH SIDE ROUND: serve the namespace with one target, run
# every workload.
bench_side() {
	local path=$1 side=$2 round=$3 ko="" w r
	[ "$side" = engine ] && ko=$RWX_ULPDIR/nvmet-rdma/nvmet-rdma.ko
	nvmeof_target_load "$ko" > /dev/null &&
	nvmeof_target_up 192.0.2.1 > /dev/null &&
	nvmeof_host_connect 192.0.2.1 > /dev/null || return 1
	for w in $BENCH_WORKLOADS; do
		r=$(bench_fio "${w%%:*}" "${w#*:}") || { echo "bench: fio $w failed"; return 1; }
		echo "bench: data $path ${w%%:*}-${w#*:} $side $round $r"
	done
	nvmeof_host_disconnect && nvmeof_target_down && nvmeof_target_unload
}

# bench_nvmeof PATH: every round (loads the engine, RWX_ENGINE_MODULE).
bench_nvmeof() {
	local path=$1 round sides side
	nvmeof_modules || return 1
	# null_blk allocates on first write: allocate the whole region first.
	dd if=/dev/zero of=/dev/nullb0 bs=1M count=256 oflag=direct status=none || return 1
	for round in $(seq "${RWX_BENCH_ROUNDS:-5}"); do
		sides="engine ib_core"
		[ $((round % 2)) = 0 ] && sides="ib_core engine"
		for side in $sides; do
			bench_side "$path" "$side" "$round" || return 1
		done
	done
	echo "bench: data $path engine counters: $(tr '\n' ' ' < $RWX_COUNTERS)"
	nvmeof_modules_unload
}
