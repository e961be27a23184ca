#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# rdma-core's own test suite (Debian's python3-pyverbs) against rxea.
# Every test of tools/testing/tests/pyverbs-baseline.txt, the stock 6.12
# result, must pass on our stack; a baseline test that fails gets one
# retry on its own, and each retry is reported.  Tests the baseline marks
# "flaky" (they fail on stock rxe too) run, and their result is printed,
# but they do not count.  ENTROPY_RECORD=1 (with STOCK=1) writes the tests
# that pass to pyverbs-pass.txt in the output directory instead: that is
# how the baseline was made.
#
# On the test kernel only: the verbs it runs are source that compat/
# leaves alone, the same in both builds.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_RECORD   1: record the tests that pass, judge nothing (default 0)
STACKS="ours stock"  # stock: ENTROPY_RECORD=1, the baseline
CPUS=1
: "${ENTROPY_RECORD:=0}"
. "$entropy_repo/tools/testing/lib.sh"

suite=/tmp/pyverbs-tests
baseline=$entropy_repo/tools/testing/tests/pyverbs-baseline.txt

step cp -r /usr/share/doc/rdma-core/tests "$suite"
find "$suite" -name '*.gz' -exec gunzip -f {} +
ulimit -l unlimited

# run_suite LOG PASSFILE [TEST...]: run, listing the passing tests' ids.
run_suite() {
	local log=$1 pass=$2

	shift 2
	(cd "$suite" && timeout 600 /usr/bin/python3 \
		"$entropy_repo/tools/testing/tests/pyverbs-run.py" "$suite" "$pass" --dev rxea "$@") \
		> "$log" 2>&1
}

echo "==> pyverbs: running the whole suite"
run_suite "$entropy_out/pyverbs.log" "$entropy_out/pyverbs-pass.txt"
tail -n 3 "$entropy_out/pyverbs.log"
passed=$(wc -l < "$entropy_out/pyverbs-pass.txt")
echo "  $passed tests passed"

if [ "$ENTROPY_RECORD" = 1 ]; then
	check "pyverbs ran and passed some tests" [ "$passed" -gt 0 ]
	done_testing
	exit
fi

check "pyverbs suite ran to completion" grep -qE '^(OK|FAILED)' "$entropy_out/pyverbs.log"
grep -vE '^(#|flaky )' "$baseline" | sort -u > /tmp/pyverbs-baseline
missing=$(comm -23 /tmp/pyverbs-baseline "$entropy_out/pyverbs-pass.txt")
for t in $missing; do
	echo "  $t failed; retrying it once on its own"
	run_suite "$entropy_out/pyverbs-retry.log" "$entropy_out/pyverbs-retry.txt" "$t"
	if grep -qx "$t" "$entropy_out/pyverbs-retry.txt"; then
		echo "  $t passed on retry"
	else
		echo "  $t failed again:"
		tail -n 20 "$entropy_out/pyverbs-retry.log"
		check "pyverbs $t passes as on stock 6.12" false
	fi
done
check "every pyverbs test that passes on stock 6.12 passes on ours ($(wc -l < /tmp/pyverbs-baseline) tests)" \
	[ "$KTAP_CNT_FAIL" = 0 ]
for t in $(sed -n 's/^flaky //p' "$baseline"); do
	if grep -qx "$t" "$entropy_out/pyverbs-pass.txt"; then r=passed; else r=failed; fi
	skip "pyverbs $t, flaky on stock rxe too: $r, not judged"
done
done_testing
