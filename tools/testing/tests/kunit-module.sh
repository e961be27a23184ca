#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The KUnit suites, built as a module against our ib_core, in the VM.  Their
# KTAP goes to $entropy_out/kunit.ktap, whose every case the host counts
# (kunit.py parse); here only that each suite ran.
#
# basic runs the series' suites, compat those of the series with compat/
# (build/modules-compat, with compat's linux cases), both on the test
# kernel: Debian's kernel has no CONFIG_KUNIT.
STACKS="ours compat"
CPUS=1
requires() {
	# built in (the test kernels), or a module
	[ -d /sys/module/kunit ] || _have_module kunit
}
. "$entropy_repo/tools/testing/lib.sh"

SUITES="roce_entropy roce_entropy_driver roce_entropy_port roce_entropy_policy"

# ran SUITE: the suite's result line is in the KTAP, pass or fail.
ran() {
	grep -qE "^(not )?ok [0-9]+ $1\$" "$entropy_out/kunit.ktap"
}

dmesg_at=$(dmesg | wc -l)
step insmod "$entropy_modules/roce_entropy_test.ko"
dmesg | tail -n +"$((dmesg_at + 1))" | sed -n 's/^\[[ 0-9.]*\] //p' |
	sed -n '/KTAP version/,$p' > "$entropy_out/kunit.ktap"
grep -E '^# (roce_entropy[a-z_]*|Totals):' "$entropy_out/kunit.ktap"
for s in $SUITES; do
	check "KUnit suite $s ran in the VM" ran "$s"
done
step rmmod roce_entropy_test
done_testing
