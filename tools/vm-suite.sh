# Sourced by check.sh and test-harness.sh: run one guest script in a VM and
# record its judgement (tools/evaluate-run.py) as results of the current suite.

# vm_run NAME KERNEL INITRD SCRIPT TIMEOUT [run-vm.sh options...]
# Leaves the run's output in $RWX_BUILD/vm/NAME and evaluate-run's lines in
# $RWX_BUILD/vm/NAME/judgement; returns evaluate-run's status.
vm_run() {
	local name=$1 kernel=$2 initrd=$3 script=$4 timeout=$5 rc
	shift 5
	local out=$RWX_BUILD/vm/$name
	rm -rf "$out"
	mkdir -p "$out"
	local t0=$SECONDS
	"$RWX_ROOT/tools/qemu/run-vm.sh" -k "$kernel" -i "$initrd" -s "$script" \
		-o "$out" -t "$timeout" -e "RWX_ROOT=$RWX_ROOT" "$@"
	rc=$?
	echo "   ($name: guest ran $((SECONDS - t0)) s, exit $rc, log $out/console.log)"
	[ -f "$out/boot-retried" ] && echo "   ($name: $(cat "$out/boot-retried"))"
	local ktap_args=()
	[ -n "${VM_KTAP:-}" ] && ktap_args=(--ktap "$out/kunit.ktap" --kunit-py "$KUNIT_PY"
					   --case-prefix "${VM_CASE_PREFIX:-}")
	python3 "$RWX_ROOT/tools/evaluate-run.py" --log "$out/console.log" \
		--rc "$rc" --name "$name" "${ktap_args[@]}" --cpus "$(vm_cpus_asked "$out")" \
		--excerpt "$out/excerpt" > "$out/judgement"
}

# vm_record NAME: record the judgement lines of a vm_run as results; a
# failed run's console excerpt is listed for the summary (RWX_EXCERPTS).
vm_record() {
	local result test detail
	while IFS=$'\t' read -r result test detail; do
		record "$result" "$test" "$detail"
	done < "$RWX_BUILD/vm/$1/judgement"
	[ -n "${RWX_EXCERPTS:-}" ] && [ -f "$RWX_BUILD/vm/$1/excerpt" ] &&
		echo "$RWX_BUILD/vm/$1/excerpt" >> "$RWX_EXCERPTS"
	return 0
}

# prepare_stock_612: for make demo and make bench: install what is missing
# and build the modules against Debian's 6.12 headers into
# $RWX_BUILD/mod-6.12, whose guests run the stock kernel.
prepare_stock_612() {
	mkdir -p "$RWX_BUILD"
	bash "$RWX_ROOT/tools/deps.sh" || return 1
	"$RWX_ROOT/tools/build-module.sh" "$(headers_612)" "$RWX_BUILD/mod-6.12"
}

# series_headers SERIES (6.1 or 6.12): Debian's installed headers of it.
series_headers() {
	case $1 in
	6.1) headers_61 ;;
	6.12) headers_612 ;;
	*) echo "series 6.1 or 6.12, not $1" >&2; return 1 ;;
	esac
}
# stock_release SERIES: the release of Debian's stock kernel of that series.
stock_release() {
	local h
	h=$(series_headers "$1") || return 1
	basename "$h" | sed 's/^linux-headers-//'
}

# pair_vm_run NAME TARGET_KERNEL TARGET_INITRD HOST_KERNEL HOST_INITRD PLAN
#             [target's run-vm.sh options]: two guests on a wire, both at
# once: NAME-target (the NVMe-oF target) and NAME-host, which runs the
# steps of PLAN (tools/guest/pair.sh), joined by QEMU's dgram netdev
# (Ethernet frames as datagrams between the two QEMUs, on Unix sockets of
# their own: nothing outside this machine is addressed, and no other pair
# can share them).  When one end fails, the other is stopped rather than
# left to wait out its guard (PAIR_GUARD s, default 1200).  PAIR_HOST_OPTS:
# the host's run-vm.sh options (a test kernel's RWX_MODROOT, the ULP).
# Their judgements as vm_run leaves them; returns 1 if either failed.
pair_vm_run() {
	local name=$1 plan=$6 wire tp hp pid left rc=0
	wire=$(mktemp -d /tmp/rwx-wire.XXXXXX) || return 1
	pair_end "$name-target" "$2" "$3" 52:54:00:77:00:01 "$wire/t" "$wire/h" \
		-e RWX_PAIR_ROLE=target "${@:7}" &
	tp=$!
	# shellcheck disable=SC2086  # PAIR_HOST_OPTS: options, split
	pair_end "$name-host" "$4" "$5" 52:54:00:77:00:02 "$wire/h" "$wire/t" \
		-e RWX_PAIR_ROLE=host -e "RWX_PAIR_PLAN=$plan" ${PAIR_HOST_OPTS:-} &
	hp=$!
	wait -n -p pid "$tp" "$hp" || rc=1
	left=$tp
	[ "$pid" = "$tp" ] && left=$hp
	[ "$rc" = 0 ] || pkill -TERM -P "$left" 2> /dev/null
	wait "$left" || rc=1
	rm -rf "$wire"
	return $rc
}
# pair_end NAME KERNEL INITRD MAC LOCAL_SOCKET REMOTE_SOCKET [run-vm.sh options]
pair_end() {
	local wire="dgram,local.type=unix,local.path=$5,remote.type=unix,remote.path=$6"
	vm_run "$1" "$2" "$3" "$RWX_ROOT/tools/guest/pair.sh" "${PAIR_GUARD:-1200}" -m "$4" \
		-n "$wire" "${@:7}"
}
# stock_boot SERIES: Debian's stock kernel of SERIES and its initramfs,
# for pair_vm_run.
stock_boot() {
	local release
	release=$(stock_release "$1") || return 1
	echo "/boot/vmlinuz-$release $(initramfs_for "$release")"
}
