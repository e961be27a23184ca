#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The debug kernel's verdict on a whole VM run (make check DEBUG=1): run it
# last, after the tests.  The checkers must still be on: a lockdep report
# turns lockdep off for the rest of the boot, and kmemleak turns itself off
# on an internal error, after which a quiet log proves nothing.  Then a
# kmemleak scan must find no leak, and the kernel log since boot must hold
# no report (lib.sh's KERNEL_REPORTS) and no stack dump of any other kind.
# The whole log is kept as dmesg.txt in the output directory.
#
# make check appends it to every row of the debug mode; those are on the
# test kernel, whatever the stack.  No requires(): a kernel without the
# checkers fails it, for where make check runs it that is a broken build.
STACKS="ours compat stock"
CPUS=1
. "$entropy_repo/tools/testing/lib.sh"

# The configuration the running kernel was built from: modroot sits in its
# build directory (vm/run.sh).
CONFIG=$entropy_modroot/../.config

built_with() {
	local o rc=0

	for o in "$@"; do
		grep -qx "CONFIG_$o=y" "$CONFIG" || { echo "  CONFIG_$o is not set"; rc=1; }
	done
	return $rc
}

lockdep_on() {
	grep -E '^ *debug_locks:' /proc/lockdep_stats
	grep -qE '^ *debug_locks: +1$' /proc/lockdep_stats
}

kasan_on() {
	dmesg | grep -E 'KernelAddressSanitizer initialized'
}

# no_reports: KERNEL_REPORTS since boot, and any other stack dump; each
# one is shown with what follows it, the stack.
no_reports() {
	local n

	echo "  $(dmesg | wc -l) kernel log lines since boot"
	if ! kernel_reports > /dev/null || dmesg | grep -q 'Call Trace:'; then
		dmesg | grep -v 'traps:' | grep -E -A 40 "$KERNEL_REPORTS|Call Trace:" | head -n 400
		n=$(dmesg | grep -v 'traps:' | grep -cE "$KERNEL_REPORTS|Call Trace:")
		echo "  $n report lines in the kernel log (all of it in $entropy_out/dmesg.txt)"
		return 1
	fi
}

check "the kernel has KASAN, PROVE_LOCKING, DEBUG_ATOMIC_SLEEP, DEBUG_KMEMLEAK" \
	built_with KASAN KASAN_GENERIC PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP DEBUG_KMEMLEAK
check "KASAN is on" kasan_on
check "lockdep is still on (no lockdep report turned it off)" lockdep_on
if kmemleak_mount; then
	check "kmemleak is on and a scan of the whole run finds no leak" kmemleak_clean
else
	check "kmemleak is on ($KMEMLEAK exists)" false
fi
dmesg > "$entropy_out/dmesg.txt"
check "no KASAN, lockdep, RCU, atomic-sleep, kmemleak, WARNING or BUG report, no stack dump since boot" \
	no_reports
done_testing
