#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make check: every test, from nothing.  Ends with "N passed, N failed".
. "$(dirname "$0")/build/common.sh"
set +e

PASS=0 FAIL=0
start=$SECONDS
mkdir -p "$BUILD"
LOG=$BUILD/check.log
: > "$LOG"

finish() {
	echo "make check: $((SECONDS - start)) s; details in $LOG and build/vm/last/"
	echo "$PASS passed, $FAIL failed"
	[ "$FAIL" = 0 ]
	exit
}

stage "Debian packages" "$REPO/tools/build/deps.sh"
stage "test kernel" "$REPO/tools/build/kernel.sh"
stage "out-of-tree modules" "$REPO/tools/build/modules.sh"

say "checkpatch --strict on our kernel files and patches"
ksrc_init
checkpatch() {
	local out rc

	out=$("$KSRC/scripts/checkpatch.pl" --strict --quiet "$@" 2>&1)
	rc=$?
	[ $rc = 0 ] || echo "$out"
	return $rc
}
for f in $(cd "$REPO" && find include drivers -name '*.[ch]' | sort); do
	checkpatch --no-tree -f "$REPO/$f"
	result $? "checkpatch --strict $f"
done
while read -r p; do
	case $p in ''|'#'*) continue ;; esac
	checkpatch "$REPO/patches/$p"
	result $? "checkpatch --strict patches/$p"
done < "$REPO/patches/series"

say "W=1 and sparse"
"$REPO/tools/build/lint.sh"
result $? "W=1 and sparse (C=1): no warnings in our files or the files our patches touch"

say "C++ tooling: build, clang-format, GoogleTest under ASan/UBSan"
"$REPO/tools/build/tools.sh" test > "$BUILD/tools-test.log" 2>&1
rc=$?
grep -E 'tests passed|tests failed|error' "$BUILD/tools-test.log" | tail -n 5
tp=$(grep -oE '[0-9]+% tests passed, [0-9]+ tests failed out of [0-9]+' "$BUILD/tools-test.log" |
	tail -n 1)
if [ -n "$tp" ]; then
	total=${tp##* }
	failed=$(echo "$tp" | sed -E 's/.* ([0-9]+) tests failed.*/\1/')
	PASS=$((PASS + total - failed)) FAIL=$((FAIL + failed))
	echo "GoogleTest (ASan/UBSan): $((total - failed)) passed, $failed failed" | tee -a "$LOG"
fi
[ $rc = 0 ] || { tail -n 30 "$BUILD/tools-test.log"; result 1 "C++ tooling build and tests"; }
clang-format --dry-run --Werror "$REPO"/tools/roce-entropy/*/*.cpp \
	"$REPO"/tools/roce-entropy/*/*.h > "$BUILD/clang-format.log" 2>&1
rc=$?
[ $rc = 0 ] || head -n 20 "$BUILD/clang-format.log"
result $rc "clang-format: tools/roce-entropy is formatted"

fuzz_secs=${FUZZ_SECONDS:-30}
say "libFuzzer (ASan/UBSan): the capture reader and the command line, $fuzz_secs s each"
for t in capture cli; do
	"$REPO/tools/build/fuzz.sh" "$fuzz_secs" "$t" > "$BUILD/fuzz-$t.log" 2>&1
	rc=$?
	grep -E '^fuzz ' "$BUILD/fuzz-$t.log" | tee -a "$LOG"
	[ $rc = 0 ] || tail -n 20 "$BUILD/fuzz-$t.log"
	result $rc "libFuzzer $t: no crash, leak or timeout in $fuzz_secs s"
done

say "KUnit (kunit.py, x86_64 under QEMU)"
"$REPO/tools/build/kunit.sh"
rc=$?
if [ -f "$BUILD/kunit.summary" ]; then
	kp=$(grep -oE 'passed: [0-9]+' "$BUILD/kunit.summary" | grep -oE '[0-9]+')
	kf=$(grep -oE '(failed|crashed): [0-9]+' "$BUILD/kunit.summary" |
		grep -oE '[0-9]+' | paste -sd+ | bc)
	PASS=$((PASS + ${kp:-0})) FAIL=$((FAIL + ${kf:-0}))
	echo "KUnit: $(cat "$BUILD/kunit.summary")" | tee -a "$LOG"
fi
[ $rc = 0 ] || result 1 "KUnit run"

# vm_tests NAME TIMEOUT SCRIPT...: one VM run; its ok/not ok lines count.
vm_tests() {
	local name=$1 timeout=$2 log=$BUILD/vm-$1.log rc

	shift 2
	say "VM tests ($name): $(for s in "$@"; do basename "$s" .sh; done | paste -sd' ')"
	VM_TIMEOUT=$timeout "$REPO/tools/qemu/vm-run.sh" "$@" > "$log" 2>&1
	rc=$?
	tally "$log"
	if [ $rc != 0 ]; then
		tail -n 30 "$log"
		result 1 "VM run $name (exit $rc, see $log)"
	fi
}

t=$REPO/tools/qemu/tests
vm_tests basic 900 "$t/smoke.sh" "$t/knob.sh" "$t/kunit-module.sh" "$t/mlx5.sh" "$t/pyverbs.sh"
vm_tests wire 1800 "$t/wire.sh" "$t/wire-many.sh"
vm_tests hardening 2400 "$t/many-qps.sh" "$t/storm.sh" "$t/lifecycle.sh"

say "make demo: the ECMP router and the host's routes by UDP source port"
"$REPO/tools/demo.sh" > "$BUILD/demo-check.log" 2>&1
rc=$?
grep -E '(ok|FAIL): ' "$BUILD/demo-check.log" | sed 's/^ *//' | tee -a "$LOG"
[ $rc = 0 ] || tail -n 20 "$BUILD/demo-check.log"
result $rc "make demo's self-check: off on one link, rfc and mix within random ports' p95"

finish
