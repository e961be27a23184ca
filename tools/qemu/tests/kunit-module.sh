#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The KUnit suites, built as a module against our ib_core, in the VM.
. "$rte_repo/tools/qemu/guest-lib.sh"

step insmod "$rte_modules/roce_entropy_test.ko"
dmesg | sed -n 's/^\[[ 0-9.]*\] //p' |
	sed -n '/KTAP version/,$p' > "$rte_out/kunit-module.ktap"
grep -E '^# (roce_entropy[a-z_]*|Totals):' "$rte_out/kunit-module.ktap"
check "KUnit suite roce_entropy passed in the VM" \
	grep -qx 'ok [0-9]* roce_entropy' "$rte_out/kunit-module.ktap"
check "KUnit suite roce_entropy_driver passed in the VM" \
	grep -qx 'ok [0-9]* roce_entropy_driver' "$rte_out/kunit-module.ktap"
check "KUnit suite roce_entropy_port passed in the VM" \
	grep -qx 'ok [0-9]* roce_entropy_port' "$rte_out/kunit-module.ktap"
check "KUnit suite roce_entropy_policy passed in the VM" \
	grep -qx 'ok [0-9]* roce_entropy_policy' "$rte_out/kunit-module.ktap"
check "no KUnit case failed in the VM" \
	bash -c "! grep -q 'not ok' '$rte_out/kunit-module.ktap'"
step rmmod roce_entropy_test
done_testing
