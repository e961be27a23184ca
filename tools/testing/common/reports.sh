# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The kernel's verdict: the reports in its log (warnings, bugs, sanitizers,
# lockdep, stalls), kmemleak's scans, and the reports a test judged itself.
# Needs step (base.sh).

# What the kernel prints for a warning, a bug, an oops, a sanitizer
# (KASAN, UBSAN, kmemleak), lockdep, DEBUG_ATOMIC_SLEEP ("BUG: sleeping
# function called from invalid context"), an RCU stall or a hung task.
# kmemleak counts by its reports and by what stops or confuses it, never by
# its name: a debug kernel prints "kmemleak: Kernel memory leak detector
# initialized" at every boot.
KERNEL_REPORTS='WARNING:|BUG:|Oops|KASAN|UBSAN|general protection|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|INFO: rcu|rcu.*(stall|detected)|INFO: task|soft lockup|hard LOCKUP|suspected memory leak|kmemleak: .*(disabled|unknown object|Cannot|pool empty|Failed|alias|larger than)'

# kernel_reports [LINE [KNOWN]]: print the reports in the kernel log after
# line LINE (default: all of it); fails if there is one.  On the KCSAN
# kernel its data race reports are kcsan-reports.sh's to judge; KNOWN (an
# extended regular expression) leaves out the reports a test judged itself.
kernel_reports() {
	local skip='traps:'

	[ "${ENTROPY_DEBUG:-0}" != kcsan ] || skip='traps:|BUG: KCSAN:'
	[ -z "${2:-}" ] || skip="$skip|$2"
	! dmesg | tail -n +"$((${1:-0} + 1))" | grep -Ev "$skip" | grep -E "$KERNEL_REPORTS"
}

# kmemleak's file; present only in a kernel with DEBUG_KMEMLEAK, once
# debugfs is mounted (kmemleak_mount).
KMEMLEAK=/sys/kernel/debug/kmemleak

kmemleak_mount() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -e $KMEMLEAK ]
}

# kmemleak_clean: two scans (an object must be unreferenced over a scan
# period to count), then nothing reported.  A scan is refused once kmemleak
# has turned itself off, so this also proves it was still on.
kmemleak_clean() {
	local leaks

	step sh -c "echo scan > $KMEMLEAK" || return 1
	sleep 6
	step sh -c "echo scan > $KMEMLEAK" || return 1
	leaks=$(cat $KMEMLEAK)
	[ -z "$leaks" ] || { echo "$leaks" | tee "$entropy_out/kmemleak.txt" | head -n 60; return 1; }
}

# known_report REGEX: a report a test judged itself (and reported as a
# skip with its reason), which vm_dmesg_clean then leaves out.
known_report() {
	echo "$1" >> "$entropy_out/known-reports"
}

# Any kernel warning, bug or sanitizer report fails the run, but those a
# test judged itself (known_report).
vm_dmesg_clean() {
	local known=

	if [ -s "$entropy_out/known-reports" ]; then
		known=$(paste -sd '|' "$entropy_out/known-reports")
		echo "# left to the tests that judged them: $known"
	fi
	if ! kernel_reports 0 "$known"; then
		echo "vm: FAIL: the kernel reported a problem (above)"
		return 1
	fi
}
