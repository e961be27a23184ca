#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# libFuzzer on roce-entropy: build the fuzz targets (clang++, ROCE_FUZZ)
# into build/tools-fuzz and run each for a bounded time from its seed corpus
# (-use_value_profile=1: comparisons that come closer count as progress,
# which finds length checks off by a byte or two).
#   fuzz.sh [SECONDS] [TARGET...]   SECONDS per target (default 30);
#                                   TARGET: capture, cli (default both)
# The seeds, tools/roce-entropy/fuzz/corpus/<target>/, are only read: what a
# run finds goes to build/tools-fuzz/run/<target>/corpus, a crash, leak,
# timeout or out-of-memory input to build/tools-fuzz/run/<target>/artifacts.
# Prints one "fuzz <target>: ok ..." or "fuzz <target>: FAIL ..." line per
# target and exits 1 if any failed.
. "$(dirname "$0")/common.sh"

src=$REPO/tools/roce-entropy
dir=$BUILD/tools-fuzz
secs=${1:-30}
[ $# = 0 ] || shift
targets=${*:-capture cli}

[[ $secs =~ ^[1-9][0-9]*$ ]] || die "usage: fuzz.sh [SECONDS] [capture|cli...]: '$secs' is not a number of seconds"
for t in $targets; do
	case $t in
	capture|cli) ;;
	*) die "unknown fuzz target '$t' (capture, cli)" ;;
	esac
done
command -v clang++ >/dev/null || die "clang++ is missing: run 'make deps'"

say "fuzz: building the libFuzzer targets (clang++, ASan, UBSan) in $dir"
mkdir -p "$dir"
cmake_init
# -O1, as libFuzzer's documentation builds its targets, with line tables.
cmake -S "$src" -B "$dir" -DCMAKE_BUILD_TYPE=None -DCMAKE_CXX_FLAGS="-O1 -g1" \
	-DCMAKE_CXX_COMPILER=clang++ \
	"${CMAKE_ARGS[@]}" -DROCE_FUZZ=ON > "$dir.cmake.log" 2>&1 ||
	{ tail -n 20 "$dir.cmake.log"; die "cmake failed in $dir ($dir.cmake.log)"; }
# shellcheck disable=SC2046
cmake --build "$dir" -j"$JOBS" $(for t in $targets; do echo --target "roce_fuzz_$t"; done) \
	> "$dir.build.log" 2>&1 ||
	{ grep -E 'error|warning' "$dir.build.log" | head -n 30; die "the fuzz build failed: $dir.build.log"; }

# The last value libFuzzer printed for "stat::NAME:" in LOG.
fuzz_stat() {
	sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

# fuzz TARGET MAX_LEN: one bounded run; 0 when nothing failed.
fuzz() {
	local t=$1 max_len=$2 run=$dir/run/$1 rc=0 found last

	rm -rf "$run"
	mkdir -p "$run/corpus" "$run/artifacts" "$run/tmp"
	say "fuzz $t: $secs s from $src/fuzz/corpus/$t (log: $run/fuzz.log)"
	(cd "$run" && TMPDIR=$run/tmp "$dir/bin/roce_fuzz_$t" \
		-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" \
		-use_value_profile=1 \
		-dict="$src/fuzz/$t.dict" -artifact_prefix="$run/artifacts/" \
		-print_final_stats=1 "$run/corpus" "$src/fuzz/corpus/$t" > "$run/fuzz.log" 2>&1) ||
		rc=$?
	found=$(find "$run/artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' \
		-o -name 'timeout-*' -o -name 'oom-*' \) | sort)
	last=$(grep -E '^#[0-9]+' "$run/fuzz.log" | tail -n 1 || true)
	if [ $rc = 0 ] && [ -z "$found" ]; then
		echo "fuzz $t: ok: $(fuzz_stat number_of_executed_units "$run/fuzz.log") execs" \
			"($(fuzz_stat average_exec_per_sec "$run/fuzz.log")/s) in $secs s," \
			"$(echo "$last" | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+')," \
			"$(fuzz_stat new_units_added "$run/fuzz.log") new inputs in $run/corpus," \
			"peak RSS $(fuzz_stat peak_rss_mb "$run/fuzz.log") MB"
		return 0
	fi
	grep -E '^(==[0-9]+==ERROR|SUMMARY|.*broken promise|cli_fuzz:|.*runtime error)' \
		"$run/fuzz.log" | head -n 10 || true
	echo "fuzz $t: FAIL: libFuzzer exit $rc; log $run/fuzz.log"
	for f in $found; do
		echo "fuzz $t: failing input $f (rerun: $dir/bin/roce_fuzz_$t $f)"
	done
	return 1
}

failed=0
for t in $targets; do
	case $t in
	capture) fuzz capture 8192 || failed=1 ;;
	cli) fuzz cli 512 || failed=1 ;;
	esac
done
exit $failed
