# Sourced by tools/guest/bench.sh (RWX_BENCH_USERSPACE=1): librdmarwx
# against its anchors on rxe0, server and client in this guest (run under
# QEMU -icount by tools/bench.sh, so that times are instruction counts).
#  - perf: rwx_perf against perftest (tools/guest/bench-userspace-perf.sh);
#  - post: rwx_postbench, one library rdma_post_write / rdma_post_send
#    against librdmacm's inline helper: the time per call, then under
#    callgrind the user-space instructions per call.  Lines:
#      bench: userspace post time API OP ROUND LIB_NS INLINE_NS
#      bench: userspace post insns API OP SIDE INSNS CALLS
#      bench: userspace post profile API OP SIDE FUNCTION INSNS_PER_CALL
#    API "post": the poster's QP from rdma_create_ep, the library posting
#    through ibv_post_send(); "wr": from rwx_create_qp (rwx_postbench -w),
#    the library through rxe's ibv_wr_* builders, the inline helper still
#    through ibv_post_send().
# Settings: UP_OPS, UP_SIZES, UP_ROUNDS (as bench-userspace-perf.sh),
# UP_POST_ROUNDS, UP_POST_BATCHES (rwx_postbench -r, -n; each callgrind
# run is one round of UP_CG_BATCHES batches).
UP_ROOT=/tmp/up-root
UP_U=$RWX_ROOT/userspace/build

# userspace_root FILE...: a root on tmpfs holding FILE..., the shared
# objects they load, the rxe provider, /proc, /sys and /dev: runs inside
# it read nothing over 9p, where every open would leave the guest idle
# and jump its -icount clock to the next timer.
userspace_root() {
	local f l prov
	prov=$(ls /usr/lib/*/libibverbs/librxe-rdmav*.so) || return 1
	mkdir -p "$UP_ROOT"/{proc,sys,dev,tmp,etc/libibverbs.d} || return 1
	for f in "$@" "$prov"; do
		cp --parents -L "$f" "$UP_ROOT/" || return 1
		for l in $(ldd "$f" 2> /dev/null |
			   awk '$(NF-1) ~ /^\// {print $(NF-1)}'); do
			cp --parents -nL "$l" "$UP_ROOT/" || return 1
		done
	done
	cp /etc/libibverbs.d/rxe.driver "$UP_ROOT/etc/libibverbs.d/" &&
	mount --bind /proc "$UP_ROOT/proc" &&
	mount --bind /sys "$UP_ROOT/sys" &&
	mount --bind /dev "$UP_ROOT/dev"
}

userspace_root_down() {
	umount "$UP_ROOT/proc" "$UP_ROOT/sys" "$UP_ROOT/dev"
}

bench_userspace_perf() {
	local bin=/usr/bin perf_script=$RWX_ROOT/tools/guest/bench-userspace-perf.sh
	userspace_root /bin/bash $bin/ib_write_bw $bin/ib_read_bw $bin/ib_send_bw \
		$bin/rdma $bin/stdbuf /usr/libexec/coreutils/libstdbuf.so \
		$bin/sleep $bin/nice $bin/renice $bin/mkfifo "$UP_U/tools/rwx_perf" \
		"$perf_script" || {
		echo "bench: userspace root failed"
		return 1
	}
	UP_ADDR=192.0.2.1 UP_RWX_PERF=$UP_U/tools/rwx_perf \
		chroot "$UP_ROOT" /bin/bash "$perf_script"
	userspace_root_down
}

# post_insns API OP SIDE: one callgrind run of rwx_postbench on that
# function alone; prints its instructions per call and the split by function.
post_insns() {
	local api=$1 op=$2 side=$3 fn=rdma_post_$2 cg=/tmp/postbench.cg calls total
	local wr=()
	[ "$api" = wr ] && wr=(-w)
	[ "$side" = inline ] && fn=rdmacm_post_$op
	# Lazy binding would land in the first calls: bind at start.
	LD_BIND_NOW=1 valgrind --tool=callgrind --callgrind-out-file=$cg \
		--collect-atstart=no --toggle-collect="$fn" \
		"$UP_U/bench/rwx_postbench" -p $((++UP_PORT)) "${wr[@]}" -o "$op" -i "$side" \
		-r 1 -n "${UP_CG_BATCHES:-8}" > /tmp/postbench.out 2> /tmp/postbench.vg ||
		{ cat /tmp/postbench.out /tmp/postbench.vg; return 1; }
	calls=$(sed -n "s/^postbench: calls $api $op $side \([0-9]*\)$/\1/p" /tmp/postbench.out)
	callgrind_annotate --auto=no --threshold=100 $cg > /tmp/postbench.ann
	cp $cg "$RWX_OUT/postbench-$api-$op-$side.cg" 2> /dev/null
	total=$(awk '/PROGRAM TOTALS/ {gsub(",", "", $1); print $1}' /tmp/postbench.ann)
	echo "bench: userspace post insns $api $op $side ${total:-none} ${calls:-none}"
	[ -n "$calls" ] && [ "$calls" -gt 0 ] || return 1
	# Each function's own count as SOURCE:FUNCTION (the object when the
	# source is unknown; code inlined from a header is named by it); the
	# frames above the function measured carry the whole count.
	awk -v pre="bench: userspace post profile $api $op $side" -v calls="$calls" \
	    -v total="$total" '
		/file:function/ { on = 1; next }
		on && /^ *[0-9,]+ \(/ {
			n = $1; gsub(",", "", n)
			if (n == total)
				next
			name = $0; sub(/^[^)]*\) +/, "", name)
			obj = ""
			if (match(name, / \[.*\]$/)) {
				obj = substr(name, RSTART + 2, RLENGTH - 3)
				name = substr(name, 1, RSTART - 1)
			}
			src = name; sub(/:.*/, "", src)
			fn = name; sub(/^[^:]*:/, "", fn)
			if (src == "???")
				src = obj
			sub(/.*\//, "", src)
			printf "%s %s:%s %.1f\n", pre, src, fn, n / calls
		}' /tmp/postbench.ann
}

bench_userspace_post() {
	local api op side out=/tmp/postbench.out wr
	UP_PORT=19600
	for api in post wr; do
		wr=()
		[ "$api" = wr ] && wr=(-w)
		"$UP_U/bench/rwx_postbench" -p $((UP_PORT += 10)) "${wr[@]}" \
			-r "${UP_POST_ROUNDS:-15}" -n "${UP_POST_BATCHES:-32}" > $out ||
			{ cat $out; return 1; }
		sed -n 's/^postbench: time \([a-z]*\) \([a-z]*\) round \([0-9]*\) lib \([0-9.]*\) inline \([0-9.]*\) ns\/call$/bench: userspace post time \1 \2 \3 \4 \5/p' \
			$out
		for op in write send; do
			for side in lib inline; do
				post_insns $api $op $side || return 1
			done
		done
	done
}

bench_userspace() {
	modprobe ib_uverbs && modprobe rdma_ucm || return 1
	ulimit -l unlimited
	echo "bench: userspace clocksource $(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)"
	bench_userspace_perf && bench_userspace_post
}
