#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: every test, from nothing.  Each stage's results are read from
# what it writes for machines: KTAP (the series check, the VM runs, the
# KUnit module) through the kernel's kunit.py, ctest's JUnit, the demo's
# JSON.  Ends with the time of each stage and "N passed, N failed".
#
#   DEBUG=1      the VM runs marked "debug" in tools/testing/runs, on the
#                debug kernel (KASAN, lockdep, kmemleak), with our modules
#                built against it; nothing else
#   RUNS="a b"   only these VM runs of tools/testing/runs
#   FUZZ_SECONDS how long each fuzz target runs (default 30)
DEBUG=${DEBUG:-0}
dbg=
if [ "$DEBUG" = 1 ]; then
	dbg=" (debug)"
	export RTE_DEBUG=1 RTE_WAIT_SCALE=${RTE_WAIT_SCALE:-5}
fi
. "$(dirname "$0")/../build/common.sh"
set +e
trap - ERR

TESTING=$REPO/tools/testing
mode=check
[ "$DEBUG" = 1 ] && mode=debug
mkdir -p "$MODBUILD"
LOGS=$MODBUILD/check
rm -rf "$LOGS"
mkdir -p "$LOGS"
PASS=0 FAIL=0 SKIP=0
TIMES=()
start=$SECONDS

# The VM runs of this mode, checked before anything is built.
declare -a RUN_NAMES
while read -r name stack in timeout rest; do
	case $name in ''|'#'*) continue ;; esac
	[[ ",$in," == *",$mode,"* ]] || continue
	RUN_NAMES+=("$name")
done < "$TESTING/runs"
for r in ${RUNS:-}; do
	[[ " ${RUN_NAMES[*]} " == *" $r "* ]] ||
		die "RUNS: no VM run '$r' in make check$dbg (tools/testing/runs has: ${RUN_NAMES[*]})"
done

# count OK|FAIL NAME: one result of a stage.
count() {
	if [ "$1" = OK ]; then
		PASS=$((PASS + 1))
		echo "  ok: $2"
	else
		FAIL=$((FAIL + 1))
		echo "  not ok: $2"
	fi
}

# count_file ktap|junit FILE LABEL: the results a stage wrote, added up.
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

# timed NAME CMD...: run CMD, its time kept for the table.
timed() {
	local name=$1 t=$SECONDS rc

	shift
	"$@"
	rc=$?
	TIMES+=("$name|$((SECONDS - t))")
	return $rc
}

finish() {
	local row

	echo
	echo "time per stage:"
	for row in "${TIMES[@]}"; do
		printf '  %-44s %5d s\n' "${row%|*}" "${row##*|}"
	done
	printf '  %-44s %5d s\n' "make check$dbg" "$((SECONDS - start))"
	echo "logs: $LOGS"
	echo "$PASS passed, $FAIL failed, $SKIP skipped"
	[ "$FAIL" = 0 ]
	exit
}

# prereq NAME CMD...: a stage the rest needs: one result; its failure ends
# the run.
prereq() {
	local name=$1 log=$LOGS/${2##*/}.log

	shift
	say "$name"
	if timed "$name" "$@" > "$log" 2>&1; then
		count OK "$name"
	else
		tail -n 20 "$log"
		count FAIL "$name (log $log)"
		finish
	fi
}

prereq "Debian packages" "$REPO/tools/build/deps.sh"
ksrc_init
prereq "test kernel$dbg" "$REPO/tools/build/kernel.sh"

if [ "$DEBUG" != 1 ]; then
	say "series check: each patch on pristine 6.12 (git am, W=1 + sparse, checkpatch, get_maintainer)"
	timed "series check" "$REPO/tools/build/series-check.sh" \
		> "$LOGS/series.ktap" 2> "$LOGS/series-check.log"
	rc=$?
	count_file ktap "$LOGS/series.ktap" "series check"
	if [ ! -f "$MODBUILD/modules/ib_core.ko" ] || [ $rc != 0 ]; then
		tail -n 20 "$LOGS/series-check.log"
		count FAIL "series check: no modules to test (log $LOGS/series-check.log)"
		finish
	fi
else
	prereq "our modules against the debug kernel" "$REPO/tools/build/modules.sh"
fi

if [ "$DEBUG" != 1 ]; then
	say "C++ tooling: build, clang-format, GoogleTest under ASan/UBSan"
	timed "C++ tooling" "$REPO/tools/build/tools.sh" test > "$LOGS/tools.log" 2>&1
	rc=$?
	if [ -f "$BUILD/tools-asan/junit.xml" ]; then
		count_file junit "$BUILD/tools-asan/junit.xml" "GoogleTest (ctest's JUnit)"
	else
		tail -n 30 "$LOGS/tools.log"
		count FAIL "C++ tooling: build (log $LOGS/tools.log)"
	fi
	[ -x "$BUILD/bin/roce-entropy" ] || finish
	if clang-format --dry-run --Werror $(cd "$REPO" && git ls-files 'tools/roce-entropy/*.cpp' \
		'tools/roce-entropy/*.h' | sed "s|^|$REPO/|") > "$LOGS/clang-format.log" 2>&1; then
		count OK "clang-format: tools/roce-entropy is formatted"
	else
		head -n 20 "$LOGS/clang-format.log"
		count FAIL "clang-format: tools/roce-entropy is formatted (log $LOGS/clang-format.log)"
	fi

	fuzz_secs=${FUZZ_SECONDS:-30}
	say "libFuzzer (ASan/UBSan): the capture reader and the command line, $fuzz_secs s each"
	for t in capture cli; do
		if timed "fuzz $t" "$REPO/tools/build/fuzz.sh" "$fuzz_secs" "$t" \
			> "$LOGS/fuzz-$t.log" 2>&1; then
			count OK "libFuzzer $t: no crash, leak or timeout in $fuzz_secs s"
		else
			tail -n 20 "$LOGS/fuzz-$t.log"
			count FAIL "libFuzzer $t (log $LOGS/fuzz-$t.log)"
		fi
	done
else
	prereq "C++ tools" "$REPO/tools/build/tools.sh"
fi

# The distribution kernel (Debian's 6.12 of linux-source's version, which
# make deps installs): our modules built against it, their CRCs against its
# modules (kabi-check), then make install through DKMS for it.  make
# uninstall comes after the VM runs; an installation that was there before
# is put back.
dist=
if [ "$DEBUG" != 1 ] && { [ -z "${RUNS:-}" ] || [[ " $RUNS " == *" dist"* ]]; }; then
	dist=$(dist_release)
	say "Linux $dist, the distribution's: modules against its headers, kABI, make install (DKMS)"
	if timed "modules against Linux $dist (KDIR)" env KDIR="/lib/modules/$dist/build" \
		"$REPO/tools/build/modules.sh" > "$LOGS/kdir-modules.log" 2>&1; then
		count OK "make modules KDIR=/lib/modules/$dist/build"
		"$REPO/tools/build/kabi-check.sh" "$dist" > "$LOGS/kabi.ktap" 2>&1
		count_file ktap "$LOGS/kabi.ktap" "kABI against Linux $dist"
	else
		tail -n 20 "$LOGS/kdir-modules.log"
		count FAIL "make modules KDIR=/lib/modules/$dist/build (log $LOGS/kdir-modules.log)"
	fi
	dkms_before=$(dkms status -m roce-entropy 2>/dev/null | grep -c installed)
	LOGDIR=$LOGS timed "make install (DKMS) for Linux $dist" \
		"$TESTING/dkms-check.sh" install "$dist" > "$LOGS/dkms-install.ktap" 2>&1
	count_file ktap "$LOGS/dkms-install.ktap" "make install (DKMS)"
fi

# The VM runs and the demo are jobs run VM_JOBS at a time (default 2): a
# TCG guest keeps about one host core busy, and spends much of a run
# waiting on itself.  Each job writes its log, its exit status and its
# time; the results are counted afterwards, in the table's order.
VM_JOBS=${VM_JOBS:-2}
[[ $VM_JOBS =~ ^[1-9][0-9]*$ ]] || die "VM_JOBS=$VM_JOBS: give a number of VMs to run at once (1 or more)"

# job NAME CMD...: run CMD in the background once fewer than VM_JOBS jobs
# run; $LOGS/NAME.rc and NAME.time hold its status and seconds.
job() {
	local name=$1

	shift
	while [ "$(jobs -pr | wc -l)" -ge "$VM_JOBS" ]; do
		wait -n
	done
	say "started: $name"
	(
		t=$SECONDS
		"$@" > "$LOGS/$name.log" 2>&1 < /dev/null
		echo $? > "$LOGS/$name.rc"
		echo $((SECONDS - t)) > "$LOGS/$name.time"
	) &
}

# job_rc NAME: the exit status NAME's job left (1 if it left none).
job_rc() {
	cat "$LOGS/$1.rc" 2>/dev/null || echo 1
}

# vm_job NAME STACK TIMEOUT TEST|VAR=VALUE...: one row of tools/testing/runs.
vm_job() {
	local name=$1 stack=$2 timeout=$3 out=$MODBUILD/vm/$1 w
	local tests=() env=()

	shift 3
	for w in "$@"; do
		case $w in
		RTE_*=*) env+=("$w") ;;
		*) tests+=("$TESTING/tests/$w.sh") ;;
		esac
	done
	if [ "$DEBUG" = 1 ]; then
		tests+=("$TESTING/tests/kernel-reports.sh")
		timeout=$((timeout * 4))
		env+=(VM_APPEND=log_buf_len=16M)
	fi
	case $stack in
	stock) env+=(STOCK=1) ;;
	dist|dist-removed) env+=(VM_KERNEL="$dist") ;;
	esac
	say "VM run $name ($stack stack): $(printf '%s\n' "${tests[@]}" | xargs -n1 basename | sed 's/\.sh$//' | paste -sd' ')"
	rm -rf "$out"
	job "vm-$name" env "${env[@]}" VM_OUT="$out" VM_TIMEOUT="$timeout" \
		"$TESTING/vm/run.sh" "${tests[@]}"
}

# vm_count NAME: the results of VM run NAME.
vm_count() {
	local name=$1 out=$MODBUILD/vm/$1

	TIMES+=("VM run $name|$(cat "$LOGS/vm-$name.time" 2>/dev/null || echo 0)")
	count_file ktap "$out/results.ktap" "VM run $name"
	[ ! -f "$out/kunit.ktap" ] || count_file ktap "$out/kunit.ktap" "KUnit in the VM (kunit.py's JSON)"
	if [ "$(job_rc "vm-$name")" != 0 ] &&
		! grep -q '^\(not \)\?ok [0-9]* kernel log' "$out/results.ktap" 2>/dev/null; then
		tail -n 30 "$LOGS/vm-$name.log"
		count FAIL "VM run $name did not finish (exit $(job_rc "vm-$name"); $out/console.log)"
	fi
}

demo=0
[ "$DEBUG" != 1 ] && [ -z "${RUNS:-}" ] && demo=1
say "VM runs, $VM_JOBS at a time; their results follow when all are done"
vm_start=$SECONDS
ran=()
while read -r name stack in timeout rest; do
	case $name in ''|'#'*) continue ;; esac
	[[ ",$in," == *",$mode,"* ]] || continue
	[ -z "${RUNS:-}" ] || [[ " $RUNS " == *" $name "* ]] || continue
	# after make uninstall, below
	[ "$stack" = dist-removed ] && continue
	# shellcheck disable=SC2086
	vm_job "$name" "$stack" "$timeout" $rest
	ran+=("$name")
done < "$TESTING/runs"
if [ "$demo" = 1 ]; then
	say "make demo: the ECMP router and the host's routes by UDP source port"
	job demo "$REPO/tools/demo/demo.sh"
fi
wait
TIMES+=("VM runs and demo, $VM_JOBS at a time (wall)|$((SECONDS - vm_start))")

for name in "${ran[@]}"; do
	say "results of VM run $name"
	vm_count "$name"
done

if [ -n "$dist" ]; then
	say "make uninstall (DKMS) for Linux $dist"
	LOGDIR=$LOGS "$TESTING/dkms-check.sh" remove "$dist" > "$LOGS/dkms-remove.ktap" 2>&1
	count_file ktap "$LOGS/dkms-remove.ktap" "make uninstall (DKMS)"
	while read -r name stack in timeout rest; do
		[ "$stack" = dist-removed ] || continue
		[ -z "${RUNS:-}" ] || [[ " $RUNS " == *" $name "* ]] || continue
		# shellcheck disable=SC2086
		vm_job "$name" "$stack" "$timeout" $rest
		wait
		vm_count "$name"
	done < "$TESTING/runs"
	LOGDIR=$LOGS timed "make deb, apt install, apt purge for Linux $dist" \
		"$TESTING/dkms-check.sh" package "$dist" > "$LOGS/deb.ktap" 2>&1
	count_file ktap "$LOGS/deb.ktap" "the Debian packages"
	if [ "$dkms_before" != 0 ]; then
		say "roce-entropy was installed before make check: installing it again"
		"$REPO/tools/build/dkms.sh" install > "$LOGS/dkms-reinstall.log" 2>&1 ||
			count FAIL "installing roce-entropy again, as it was (log $LOGS/dkms-reinstall.log)"
	fi
fi

if [ "$demo" = 1 ]; then
	say "results of make demo"
	TIMES+=("make demo|$(cat "$LOGS/demo.time" 2>/dev/null || echo 0)")
	if [ -f "$BUILD/demo/report.json" ]; then
		while read -r ok what; do
			if [ "$ok" = true ]; then count OK "demo: $what"; else count FAIL "demo: $what"; fi
		done < <(jq -r '.runs[] | "\(.ok) \(.act) \(.mix) \(.family) \(.policy): \(.verdict)"' "$BUILD/demo/report.json")
	fi
	[ "$(job_rc demo)" = 0 ] ||
		{ tail -n 20 "$LOGS/demo.log"; count FAIL "make demo's self-check (log $LOGS/demo.log)"; }
fi

finish
