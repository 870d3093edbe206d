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
