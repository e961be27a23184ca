#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The KCSAN kernel's verdict on a whole VM run (make check DEBUG=kcsan):
# run it last, after the tests.  KCSAN must have been on for the run; then
# no data race report may name the series' code: rxe's entropy and re-path
# (rxe_entropy.c), the policy and its settings (roce_entropy.c) and the
# helpers of <rdma/roce_entropy.h>, inlined into their callers.  Reports
# of the rest of the kernel, 6.12's own races, are counted and listed, not
# judged.  The whole log is kept as dmesg.txt in the output directory.
# First, a control: tools/testing/kcsan-race's module races two kernel
# threads on purpose, on two CPUs, and KCSAN must report it, or a run
# without a report of ours proves nothing.
#
# make check appends it to every row of the kcsan mode; those are on the
# test kernel, whatever the stack.  No requires(): a kernel without KCSAN
# fails it, for where make check runs it that is a broken build.
STACKS="ours compat stock"
CPUS=2  # the control's two racing threads
. "$entropy_repo/tools/testing/lib.sh"

KCSAN=/sys/kernel/debug/kcsan
# the series' functions, as a KCSAN report's frames name them
OURS='rxe_(qp_set_entropy|repath|repath_timeout|repath_duplicate|route_cached|pkt_entropy|fill_res_qp_entry|ah_set_entropy|ud_entropy|path_)|rdma_entropy_|rdma_port_(entropy|repath)|roce_entropy_|rdma_repath_'

# kcsan_on: the kernel has KCSAN (its debugfs file exists only then) and it
# is enabled.
kcsan_on() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
	[ -e $KCSAN ] || { echo "  no $KCSAN: the kernel has no KCSAN"; return 1; }
	sed -n 1,3p $KCSAN
	grep -qx 'enabled: 1' $KCSAN
}

# no_races_of_ours: each KCSAN report is the lines from its "BUG: KCSAN:"
# to the next rule; a report with a frame of ours fails.
no_races_of_ours() {
	local all ours

	dmesg > "$entropy_out/dmesg.txt"
	all=$(grep -c 'BUG: KCSAN:' "$entropy_out/dmesg.txt")
	awk -v ours="$OURS" '
		/BUG: KCSAN:/ { r = $0 "\n"; inr = 1; next }
		inr && /^\[ *[0-9.]+\] =+$/ { if (r ~ ours) printf "%s\n", r; inr = 0; next }
		inr { r = r $0 "\n" }' "$entropy_out/dmesg.txt" > "$entropy_out/kcsan-ours.txt"
	ours=$(grep -c 'BUG: KCSAN:' "$entropy_out/kcsan-ours.txt")
	echo "  $all KCSAN reports in the run, $ours naming the series' code"
	grep 'BUG: KCSAN:' "$entropy_out/dmesg.txt" | sed 's/^\[[^]]*\] /  /' | sort | uniq -c | head -n 30
	[ "$ours" = 0 ] || { head -n 200 "$entropy_out/kcsan-ours.txt"; return 1; }
}

# race_on_bss BSS: a KCSAN report of an access to the 64 bytes at BSS (the
# module's .bss, where its racing variable is): by address, which no
# naming of frames can hide (the module was once called kcsan_race, and
# KCSAN drops the frames of a module whose name has "kcsan_" in it).
race_on_bss() {
	local a

	for a in $(dmesg | sed -n 's/.*\(read\|write\) to 0x\([0-9a-f]*\) of .*/\2/p'); do
		(( 0x$a >= $1 && 0x$a < $1 + 64 )) && return 0
	done
	return 1
}

# kcsan_sees_race: the deliberate race is reported within 60 s, on a
# guest with more than one CPU online.
kcsan_sees_race() {
	local ko=$entropy_modules/race_control.ko cpus bss rc

	cpus=$(grep -c '^processor' /proc/cpuinfo)
	echo "  $cpus CPUs online"
	[ "$cpus" -gt 1 ] || return 1
	[ -f "$ko" ] || { echo "  no $ko: make modules ENTROPY_DEBUG=kcsan builds it"; return 1; }
	step insmod "$ko" || return 1
	bss=$(cat /sys/module/race_control/sections/.bss)
	echo "  race_control's .bss at $bss"
	wait_for 60 race_on_bss "$bss"
	rc=$?
	step rmmod race_control
	dmesg | grep -B3 -A3 -m 1 "to ${bss%??}" | sed 's/^\[[^]]*\] /  /'
	return $rc
}

check "KCSAN is on" kcsan_on
check "KCSAN reports a data race made on purpose (race_control, two CPUs)" kcsan_sees_race
check "no KCSAN report names the series' code" no_races_of_ours
done_testing
