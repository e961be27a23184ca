#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: every test, from nothing.  This script guards the host (what
# make check must not change) and counts; the jobs and what waits on what
# are tools/testing/check.mk's, run by Make.  Each job's results are read
# from what it writes for machines: KTAP (the series check, the VM rows, the
# KUnit module) through the kernel's kunit.py, GoogleTest's JUnit XML, the
# demo's JSON.  Ends with the wall and CPU time of each job and "N passed,
# N failed".  Its settings (DEBUG, QUICK, ROWS, VM_JOBS, FUZZ_SECONDS,
# ...) are tools/testing/config's, each documented there once.
here=$(dirname "$0")
# shellcheck source=/dev/null # the user's own, not tracked
[ ! -f "$here/../../config" ] || . "$here/../../config"
# shellcheck source=tools/testing/config
. "$here/config"
dbg=
case $DEBUG in
0) ;;
1|kcsan)
	dbg=" ($([ "$DEBUG" = 1 ] && echo debug || echo kcsan))"
	export ENTROPY_DEBUG=$DEBUG ENTROPY_WAIT_SCALE=${ENTROPY_WAIT_SCALE:-5}
	;;
*)
	echo "error: DEBUG=$DEBUG: 1 (KASAN, lockdep, kmemleak) or kcsan" >&2
	exit 1
	;;
esac
# shellcheck source=tools/buildlib/common.sh
. "$(dirname "$0")/../buildlib/common.sh"
set +e
trap - ERR

TESTING=$REPO/tools/testing
mode=check
[ "$DEBUG" = 1 ] && mode=debug
[ "$DEBUG" = kcsan ] && mode=kcsan
case $QUICK in
0) ;;
1)
	[ "$DEBUG" = 0 ] || die "QUICK=1 and DEBUG=$DEBUG: one or the other"
	mode=quick dbg=" (quick)"
	;;
*) die "QUICK=$QUICK: 1 for the quick rows, or leave it out" ;;
esac
mkdir -p "$MODBUILD"
LOGS=$MODBUILD/check
rm -rf "$LOGS"
mkdir -p "$LOGS"
PASS=0 FAIL=0 SKIP=0
TIMES=()
TICKS=$(getconf CLK_TCK)
start=$SECONDS
[[ $VM_JOBS =~ ^[1-9][0-9]*$ ]] || die "VM_JOBS=$VM_JOBS: give a number of guests to run at once (1 or more)"
# The rows named, checked before anything is built.
"$TESTING/row.sh" names "$mode" "$ROWS" || exit 1

# count OK|FAIL NAME: one result.
count() {
	if [ "$1" = OK ]; then
		PASS=$((PASS + 1))
		echo "  ok: $2"
	else
		FAIL=$((FAIL + 1))
		echo "  not ok: $2"
	fi
}

# ran ID: job ID ran (Make starts nothing that waits on a gate that
# failed); counts a failure when it did not.
ran() {
	[ -f "$LOGS/$1.rc" ] && return 0
	count FAIL "$1 did not run: a job it waits on failed (log $LOGS/make.log)"
	return 1
}

# count_file ktap|junit FILE LABEL: the results a job wrote, added up.
count_file() {
	local out rc p f s

	if [ "$1" = ktap ]; then
		out=$("$TESTING/results.py" ktap "$KSRC" "$2" 2>&1)
	else
		out=$("$TESTING/results.py" junit "$2" 2>&1)
	fi
	rc=$?
	read -r _ p _ f _ s <<< "$(head -n 1 <<< "$out")"
	if [ "$rc" = 2 ] || ! [[ $p =~ ^[0-9]+$ ]]; then
		echo "$out" | tail -n 5
		count FAIL "$3: no results could be read from $2"
		return
	fi
	PASS=$((PASS + p)) FAIL=$((FAIL + f)) SKIP=$((SKIP + s))
	echo "  $3: $p passed, $f failed, $s skipped"
	tail -n +2 <<< "$out" | sed 's/^/  /'
}

# cpu_ticks: CPU (user + system, in clock ticks) that this shell's waited-for
# children have used so far, in CPU.
cpu_ticks() {
	local f

	read -r -a f < "/proc/$BASHPID/stat"
	CPU=$((f[15] + f[16]))
}

# task_rc ID: the status job ID left (1 if it left none: it never ran).
task_rc() {
	cat "$LOGS/$1.rc" 2>/dev/null || echo 1
}

# timed ID DESCRIPTION: job ID's wall and CPU seconds kept for the table.
timed() {
	TIMES+=("$2|$(cat "$LOGS/$1.time" 2>/dev/null || echo "0|0")")
}

# count_task ID DESCRIPTION: one result from a job's status.
count_task() {
	ran "$1" || return
	timed "$1" "$2"
	if [ "$(task_rc "$1")" = 0 ]; then
		count OK "$2"
	else
		tail -n 20 "$LOGS/$1.log" 2>/dev/null
		count FAIL "$2 (log $LOGS/$1.log)"
	fi
}

# count_ktap ID FILE DESCRIPTION: the results a job wrote in KTAP.
count_ktap() {
	ran "$1" || return
	timed "$1" "$3"
	count_file ktap "$LOGS/$2" "$3"
}

finish() {
	local row name wall cpu

	"$TESTING/fleet.sh" umount 2> /dev/null
	echo
	echo "time per job (wall and CPU seconds; $(nproc) CPUs):"
	printf '  %-62s %6s %6s\n' job wall cpu
	for row in "${TIMES[@]}"; do
		IFS='|' read -r name wall cpu <<< "$row"
		printf '  %-62s %6s %6s\n' "$name" "$wall" "$cpu"
	done
	cpu_ticks
	printf '  %-62s %6d %6d\n' "make check$dbg" "$((SECONDS - start))" "$((CPU / TICKS))"
	echo "logs: $LOGS"
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" = 0 ]
	exit
}

say "Debian packages for the test kernel"
LOGS=$LOGS "$TESTING/task.sh" deps-kernel "$REPO/tools/buildlib/deps.sh" kernel > /dev/null
count_task deps-kernel "Debian packages for the test kernel"
[ "$(task_rc deps-kernel)" = 0 ] || finish
# shellcheck disable=SC2119 # no argument: the whole source tree, not rdma's part
ksrc_init
# What each test declares, and the rows against it, before anything boots
"$TESTING/test-headers.sh" > "$LOGS/test-headers.ktap" 2>&1
count_file ktap "$LOGS/test-headers.ktap" "the tests' headers and the rows (tools/testing/test-headers.sh)"
# Debian's own kernel, when a row boots it
dist=
if [ "$mode" = check ] && [ -n "$("$TESTING/row.sh" list "$mode" "$ROWS" @dist @removed)" ]; then
	dist=$(dist_release) || die "no linux-source-6.12 package: the dist rows need its version"
fi
demo=0
[ "$mode" = check ] && [ -z "$ROWS" ] && demo=1

# jobs ARG...: check.mk's Make with this run's settings.
jobs() {
	make -f "$TESTING/check.mk" L="$LOGS" MODE="$mode" MODBUILD="$MODBUILD" DIST="$dist" \
		ROWS="$ROWS" DEMO="$demo" FUZZ_SECONDS="$FUZZ_SECONDS" "$@"
}

# progress: Make's lines of jobs started and done, each "done" with how
# many are and, from the wall times of the last run's jobs
# ($CACHE/check-times), about how long the rest will take.
TIMES_CACHE=$CACHE/check-times/$mode
progress() {
	local line id all=() left=0 n=0 w

	mapfile -t all < <(jobs -n | awk '{
		for (i = 1; i < NF && $i !~ /task\.sh$/; i++);
		for (i++; i <= NF; i++) {
			if ($i == "-o" || $i == "-e") i++;
			else if ($i !~ /^-/) { print $i; break }
		}
	}' | grep .)
	for id in "${all[@]}"; do
		w=$(cut -d '|' -f 1 "$TIMES_CACHE/$id.time" 2>/dev/null) || w=60
		left=$((left + w))
	done
	echo "==> ${#all[@]} jobs; the last run's took $((left / 60)) min of wall time, on $((VM_JOBS + 2)) slots"
	while IFS= read -r line; do
		case $line in
		'==> done: '*)
			n=$((n + 1))
			id=${line#==> done: }
			id=${id%% *}
			w=$(cut -d '|' -f 1 "$TIMES_CACHE/$id.time" 2>/dev/null) || w=60
			left=$((left > w ? left - w : 0))
			echo "$line; $n of ${#all[@]} done, about $((left / 60 / VM_JOBS)) min left"
			;;
		'==>'*) echo "$line" ;;
		esac
	done
}

say "make check's jobs (tools/testing/check.mk), $VM_JOBS guests at once; results when all are done"
cpu_ticks
jobs_cpu=$CPU jobs_start=$SECONDS
jobs -j $((VM_JOBS + 2)) 2>&1 | tee "$LOGS/make.log" | progress
make_rc=${PIPESTATUS[0]}
mkdir -p "$TIMES_CACHE" && cp "$LOGS"/*.time "$TIMES_CACHE/" 2> /dev/null
cpu_ticks
TIMES+=("make check's jobs, side by side (check.mk)|$((SECONDS - jobs_start))|$(((CPU - jobs_cpu) / TICKS))")
[ "$make_rc" = 0 ] || { grep -v '^==>' "$LOGS/make.log" | tail -n 20; }

say "results of the jobs before the guests"
count_task deps "Debian packages: the rest (beside the test kernel)"
ran lint && { timed lint "shellcheck (beside the test kernel)"
	count_file ktap "$LOGS/lint.ktap" "shellcheck (tools/buildlib/lint.sh)"; }
count_task kernel "test kernel$dbg"
if [ "$mode" = check ]; then
	count_ktap series-check series.ktap "series check: each patch on pristine 6.12 (git am, W=1 + sparse, checkpatch, get_maintainer)"
	count_ktap series-roundtrip series-roundtrip.ktap "series round trip (tools/buildlib/series.sh check)"
	count_ktap cover cover.ktap "cover letters name every interface the patches add; documentation parses"
	count_ktap kconfig kconfig.ktap "the top-level Kconfig as make modules reads it"
	if [ -f "$LOGS/series-check.rc" ] &&
		{ [ "$(task_rc series-check)" != 0 ] || [ ! -f "$MODBUILD/modules/ib_core.ko" ]; }; then
		tail -n 20 "$LOGS/series-check.log"
		count FAIL "series check: no modules to test (log $LOGS/series-check.log)"
	fi
else
	count_task modules "our modules (make modules)$dbg"
fi
count_task iproute2 "iproute2's rdma with tools/iproute2 builds on the series' uAPI header, warnings as errors"

# checkpatch_series DIR [OPTION...]: checkpatch.pl --no-tree on each patch
# of DIR/series (user space: not --strict, which asks for the kernel's
# u32 types).
checkpatch_series() {
	local dir=$1 p

	shift
	while read -r p; do
		case $p in ''|'#'*) continue ;; esac
		if "$KSRC/scripts/checkpatch.pl" --no-tree -q "$@" "$REPO/$dir/$p" \
			> "$LOGS/checkpatch.log" 2>&1 < /dev/null; then
			count OK "checkpatch: $dir/$p"
		else
			cat "$LOGS/checkpatch.log"
			count FAIL "checkpatch: $dir/$p"
		fi
	done < "$REPO/$dir/series"
}
if [ "$mode" = check ]; then
	checkpatch_series tools/iproute2
	# rdma-core's MAINTAINERS names no file of util/, where the series adds one
	checkpatch_series tools/rdma-core --ignore FILE_PATH_CHANGES
	[ "$(task_rc rdma-core)" = 0 ] || tail -n 20 "$LOGS/rdma-core.log"
	count_ktap rdma-core rdma-core.ktap "rdma-core with tools/rdma-core (log $LOGS/rdma-core.log)"
	say "results of the C++ tooling: build, clang-format, GoogleTest under ASan/UBSan"
	if ran tools; then
		timed tools "C++ tooling (beside the kernel and the series check)"
		if [ -n "$(ls "$BUILD"/tools-asan/gtest/*.xml 2>/dev/null)" ]; then
			count_file junit "$BUILD/tools-asan/gtest" "GoogleTest (its JUnit XML)"
		fi
		if [ "$(task_rc tools)" != 0 ]; then
			tail -n 30 "$LOGS/tools.log"
			count FAIL "C++ tooling: build, GoogleTest, install check (log $LOGS/tools.log)"
		fi
	fi
	# shellcheck disable=SC2046 # the tracked files' paths have no spaces
	if clang-format --dry-run --Werror $(cd "$REPO" && git ls-files 'tools/roce-entropy/*.cpp' \
		'tools/roce-entropy/*.h' | sed "s|^|$REPO/|") > "$LOGS/clang-format.log" 2>&1; then
		count OK "clang-format: tools/roce-entropy is formatted"
	else
		head -n 20 "$LOGS/clang-format.log"
		count FAIL "clang-format: tools/roce-entropy is formatted (log $LOGS/clang-format.log)"
	fi
	say "results of libFuzzer (ASan/UBSan), $FUZZ_SECONDS s a target"
	for t in capture cli; do
		count_task "fuzz-$t" "libFuzzer $t: no crash, leak or timeout in $FUZZ_SECONDS s"
	done
else
	count_task tools "C++ tools"
fi

# row_count NAME: the results of row NAME.
row_count() {
	local name=$1 out=$MODBUILD/vm/$1 far

	say "results of VM run $name"
	ran "vm-$name" || return
	timed "vm-$name" "VM run $name"
	count_file ktap "$out/results.ktap" "VM run $name"
	[ ! -f "$out/kunit.ktap" ] || count_file ktap "$out/kunit.ktap" "KUnit in the VM (KTAP)"
	# a pair's far, each of its boots (far.2... after far_reboot)
	for far in "$out"/far "$out"/far.[0-9]*; do
		[ ! -f "$far/results.ktap" ] || count_file ktap "$far/results.ktap" "VM run $name, ${far##*/}"
	done
	if [ "$(task_rc "vm-$name")" != 0 ] &&
		! grep -q '^\(not \)\?ok [0-9]* kernel log' "$out/results.ktap" 2>/dev/null; then
		tail -n 30 "$LOGS/vm-$name.log"
		count FAIL "VM run $name did not finish (exit $(task_rc "vm-$name"); $out/console.log)"
	fi
}

# rows STACK...: the rows of this run on those stacks.
rows() {
	"$TESTING/row.sh" list "$mode" "$ROWS" "$@"
}

for name in $(rows @ours); do row_count "$name"; done
if [ -n "$dist" ]; then
	say "results of the packages on a Debian 12 root, Linux $dist"
	ran fleet-root && timed fleet-root "the Debian root (downloaded once, then cached)"
	count_task deb "make deb: dpkg-buildpackage, lintian without errors or warnings"
	count_task deb-prev "make deb of an older version, to upgrade from"
	count_ktap fleet-install fleet-install.ktap "apt install and upgrade, DKMS for Linux $dist"
	for name in $(rows @dist); do row_count "$name"; done
	count_ktap fleet-updates fleet-updates.ktap "kernel updates, Secure Boot, OFED"
	count_ktap fleet-purge fleet-purge.ktap "apt purge"
	for name in $(rows @removed); do row_count "$name"; done
fi

# judged ID REPORT DESCRIPTION FILTER: a result per line "true|false what"
# that jq's FILTER makes of job ID's JSON REPORT, and one for its status.
judged() {
	local ok what

	ran "$1" || return
	timed "$1" "$3"
	if [ -f "$2" ]; then
		while read -r ok what; do
			if [ "$ok" = true ]; then count OK "$what"; else count FAIL "$what"; fi
		done < <(jq -r "$4" "$2")
	fi
	[ "$(task_rc "$1")" = 0 ] ||
		{ tail -n 20 "$LOGS/$1.log"; count FAIL "$3 (log $LOGS/$1.log)"; }
}

if [ "$demo" = 1 ]; then
	say "results of make demo"
	judged demo "$BUILD/demo/report.json" "make demo" \
		'(.runs[] | "\(.ok) demo: \(.act) \(.mix) \(.family) \(.policy): \(.verdict)"),
		(.failover.runs[]? | "\(.ok) demo: failover \(.family) \(.policy), re-path \(if .repath then "on" else "off" end): \(.verdict)")'
	say "results of make fabric's smoke run (tools/fabric/run.sh smoke)"
	judged fabric "$BUILD/fabric-smoke/report.json" "make fabric, its smoke run" \
		'"\(.calibration.fabric_is_the_bottleneck // false) fabric smoke: the calibration shows the shaped fabric as the bottleneck (one flow \(.calibration.one_flow // "-"), pinned \(.calibration.pinned // "-") of the link rate)",
		"\(.jobs == .jobs_planned) fabric smoke: \(.jobs) of \(.jobs_planned) planned jobs ran, ours and stock",
		"\((.cells | length) > 0 and all(.cells[]; (.policies | keys) == ["rfc", "stock"])) fabric smoke: every cell has rfc and stock, in \(.cells | length) cells"'
fi

say "the host as make check found it: packages, /etc, /boot, /lib/modules"
"$TESTING/fleet.sh" umount 2> /dev/null
if [ -f "$LOGS/host-before" ]; then
	"$TESTING/host-state.sh" > "$LOGS/host-after"
	if diff -u "$LOGS/host-before" "$LOGS/host-after" > "$LOGS/host.diff"; then
		count OK "make check changed no package and no file in /etc, /boot or /lib/modules"
	else
		head -n 20 "$LOGS/host.diff"
		count FAIL "make check changed the host ($LOGS/host.diff)"
	fi
else
	count FAIL "make check's host state was never taken: the packages did not install (log $LOGS/deps.log)"
fi
[ "$make_rc" = 0 ] || count FAIL "make check's jobs: a gate failed, and what waits on it did not run (log $LOGS/make.log)"
finish
