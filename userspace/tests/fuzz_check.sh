#!/bin/sh
# The libFuzzer targets (fuzz/), each for FUZZ_SECS seconds (default 20)
# from its corpus in build/fuzz/corpus-NAME, kept between runs: "ok" with
# the runs made, "FAIL" with the crash's artifact and report.  Without
# clang's libFuzzer, one "skip" line.  Run from userspace/.
secs=${FUZZ_SECS:-20}
B=${B:-build}
log=$B/fuzz/build.log
mkdir -p "$B/fuzz"
if ! command -v "${FUZZ_CC:-clang}" > /dev/null; then
	echo "skip fuzz: ${FUZZ_CC:-clang} is not installed (tools/deps.sh installs it)"
	exit 0
fi
if ! make -s --no-print-directory fuzz-build > "$log" 2>&1; then
	echo "FAIL fuzz: the targets do not build:"
	tail -n 20 "$log"
	exit 1
fi
for t in fuzz_layout fuzz_validate fuzz_post; do
	corpus=$B/fuzz/corpus-$t
	mkdir -p "$corpus"
	out=$B/fuzz/$t.log
	if (cd "$B/fuzz" && timeout $((secs + 120)) "./$t" -max_total_time="$secs" \
		-rss_limit_mb=1024 -artifact_prefix="$t-" "corpus-$t") > "$out" 2>&1; then
		runs=$(grep -o 'Done [0-9]* runs' "$out" | tail -n 1)
		echo "ok fuzz: $t, ${secs} s: ${runs:-no summary}, no crash or sanitizer report"
	else
		echo "FAIL fuzz: $t crashed (artifact $B/fuzz/$t-*):"
		grep -m 20 -E 'ERROR|SUMMARY|==[0-9]+==|runtime error|artifact' "$out"
	fi
done
