#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module lifecycle: unload the whole RDMA stack (rdma_rxe ... ib_core) and
# load it again, ENTROPY_LIFECYCLE_ROUNDS times; after each load, rxea and rxeb
# are made again and an rdma_cm connection (roce-ping, IPv4 and IPv6 in
# turn) must complete.  rxe devices go away by "rdma link delete" in even
# rounds and with the module in odd ones.  The knob must come back at its
# default.  No oops or other kernel report; with kmemleak (a debug kernel),
# a scan after the rounds must find nothing.  Ends with the stack loaded
# and the standard topology's devices up, as it began.
#
# The depth that finds races is the debug kernel's lifecycle row, 20
# rounds (the default), and the KCSAN kernel's races row, 8, both on two
# CPUs, as every row of the debug kernels is; hardening runs 5 in make
# check, for its time, on the two CPUs its storm and nvme-rdma ask for.
# The test itself needs one: dist-more runs 3 rounds on one, on Debian's
# kernel with DKMS's build (which keeps a port's settings after the
# port_data[] array, compat/0004), with the opt-in line hidden
# (ENTROPY_DIST_OPTIN=0), since it starts from the default, builtin.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_LIFECYCLE_ROUNDS   the unload and load rounds (default 20)
STACKS="ours compat dist"
CPUS=1
: "${ENTROPY_LIFECYCLE_ROUNDS:=20}"
requires() {
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

ROUNDS=$ENTROPY_LIFECYCLE_ROUNDS

now() {
	date +%s.%N
}

elapsed() {
	echo "$1 $2" | awk '{ printf "%.1f", $2 - $1 }'
}

loaded() {
	local name rest

	while read -r name rest; do
		[ "$name" != "$1" ] || return 0
	done < /proc/modules
	return 1
}

# unload ROUND: the devices, then every module of the stack, last loaded
# first.
unload() {
	local m mods

	if [ $(($1 % 2)) = 0 ]; then
		step rdma link delete rxea || return 1
		step rdma link delete rxeb || return 1
		wait_for 10 no_rdma_devices || return 1
	fi
	mods=$(echo $RDMA_MODULES | tr ' ' '\n' | tac)
	for m in $mods; do
		step rmmod "$m" || return 1
	done
	for m in $mods; do
		! loaded "$m" || { echo "  $m is still loaded"; return 1; }
	done
	no_rdma_devices || { echo "  RDMA devices left: $(ls /sys/class/infiniband)"; return 1; }
}

# connect ROUND: one roce-ping connection, five round trips.
connect() {
	local server client spid rc=0

	if [ $(($1 % 2)) = 0 ]; then server=$B4 client=$A4; else server=$B6 client=$A6; fi
	"$PING" server --bind "$server" --connections 1 > /tmp/lifecycle-server.log 2>&1 &
	spid=$!
	wait_for 15 cm_listening "$server" || { kill $spid; cat /tmp/lifecycle-server.log; return 1; }
	timeout 60 "$PING" client --bind "$client" --server "$server" --messages 5 || rc=1
	wait_for 20 gone $spid || { kill $spid; rc=1; }
	wait $spid || { cat /tmp/lifecycle-server.log; rc=1; }
	return $rc
}

# round N: the knob set away from its default, the stack unloaded and
# loaded, the devices made again at the default policy, a connection.
round() {
	local t0 t1 t2 t3 t4

	echo "--- round $1 of $ROUNDS"
	echo mix > /sys/class/infiniband/rxea/ports/1/roce_entropy || return 1
	t0=$(now)
	unload "$1" || return 1
	t1=$(now)
	vm_load_stack || return 1
	t2=$(now)
	vm_rxe_links || return 1
	t3=$(now)
	[ "$(cat /sys/class/infiniband/rxea/ports/1/roce_entropy)" = builtin ] ||
		{ echo "  the knob did not come back at builtin, the default"; return 1; }
	connect "$1" || return 1
	t4=$(now)
	echo "  round $1: unload $(elapsed "$t0" "$t1") s, load $(elapsed "$t1" "$t2") s," \
		"devices $(elapsed "$t2" "$t3") s, connection $(elapsed "$t3" "$t4") s"
}

rounds() {
	local i t=$SECONDS

	for i in $(seq "$ROUNDS"); do
		round "$i" || { echo "  round $i failed"; return 1; }
	done
	echo "# module lifecycle: $ROUNDS unload/load rounds with a connection each in $((SECONDS - t)) s"
}

if kmemleak_mount; then
	step sh -c "echo clear > $KMEMLEAK"
fi
dmesg_at=$(dmesg | wc -l)
check "module lifecycle: $ROUNDS rounds of unload, load, rxea/rxeb and an rdma_cm connection" \
	rounds
check "module lifecycle: no oops or other kernel report" kernel_reports "$dmesg_at"
if [ -e $KMEMLEAK ]; then
	check "module lifecycle: kmemleak finds no leak" kmemleak_clean
else
	echo "# kmemleak not in this kernel: no leak check"
fi
done_testing
