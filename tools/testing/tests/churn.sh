#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The ports' settings against device churn.  Three loops run in the
# background while rxea is deleted and made again ENTROPY_CHURN_ROUNDS times:
# one reads both knobs of both devices, one writes them (rfc and mix,
# re-path on and off), one dumps every QP with its entropy (`rdma res show
# qp -dd`, which asks the policy of each device's QP1).  Each reaches a
# device while it registers, while ib_core removes its clients and port
# files, and after.  Judged: every loop made progress, a device made again
# starts from the default, rxeb keeps what was written to it last, and the
# kernel reported nothing (on the debug kernel, make check DEBUG=1, KASAN
# sees every access to freed settings).
#
# In shared network namespace mode, the default, each device has a compat
# device in every other namespace: the knobs must not be there (a write
# would reach the device in init_net).
#
# Not here: a move to another network namespace (exclusive mode).  ib_core
# refuses it for a driver without disassociate_ucontext
# (ib_device_set_netns_put()), which rxe is.  The settings live in the
# port's ib_port_data, which a move keeps (only the clients are removed
# and added again), and only registration sets them.
#
# On every build of ours.  The DKMS build keeps a port's settings after
# the port_data[] array instead (compat/0004), so dist-more runs it on
# Debian's kernel too.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_CHURN_ROUNDS   times rxea is deleted and made again (default 8)
STACKS="ours compat dist"
CPUS=1
: "${ENTROPY_CHURN_ROUNDS:=8}"
requires() {
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

ROUNDS=$ENTROPY_CHURN_ROUNDS
CHURN=$entropy_out/churn
# what devices start with, over rdma netlink (the upstream series has no
# module parameter)
DEFAULT=$("$TOOL" policy default --json | jq -r .default)
REPATH_DEFAULT=$("$TOOL" policy repath --json | jq -r .repath)
mkdir -p "$CHURN"
rm -f "$CHURN"/*

# The loops: each counts its rounds in its file until the stop file exists.
# A read or write may fail while a device is away; only the count matters.
reader() {
	local n=0 f

	until [ -e "$CHURN/stop" ]; do
		for f in /sys/class/infiniband/rxe[ab]/ports/1/roce_{entropy,repath}; do
			read -r _ < "$f" 2> /dev/null
		done
		n=$((n + 1))
	done
	echo $n > "$CHURN/reads"
}

writer() {
	local n=0 p r

	until [ -e "$CHURN/stop" ]; do
		if [ $((n % 2)) = 0 ]; then p=mix r=on; else p=rfc r=off; fi
		echo $p 2> /dev/null > /sys/class/infiniband/rxea/ports/1/roce_entropy
		echo $r 2> /dev/null > /sys/class/infiniband/rxea/ports/1/roce_repath
		n=$((n + 1))
	done
	echo $n > "$CHURN/writes"
}

dumper() {
	local n=0

	until [ -e "$CHURN/stop" ]; do
		rdma res show qp -dd > /dev/null 2>&1
		n=$((n + 1))
	done
	echo $n > "$CHURN/dumps"
}

# fresh: rxea, just made, has the default policy and re-path setting.
fresh() {
	[ "$(cat /sys/class/infiniband/rxea/ports/1/roce_entropy)" = "$DEFAULT" ] &&
		[ "$(cat /sys/class/infiniband/rxea/ports/1/roce_repath)" = "$REPATH_DEFAULT" ]
}

# progress: each loop counted at least one round per device churned.
progress() {
	local f n

	for f in reads writes dumps; do
		read -r n < "$CHURN/$f" || return 1
		echo "  $f: $n"
		[ "$n" -ge "$ROUNDS" ] || return 1
	done
}

# churn: the rounds, with the loops running (the writer reaches each new
# device at once, so its defaults are judged after the loops stop).
churn() {
	local i rc=0 pids=()

	reader & pids+=($!)
	writer & pids+=($!)
	dumper & pids+=($!)
	for ((i = 1; i <= ROUNDS; i++)); do
		vm_readd_rxe rxea a0 || { rc=1; break; }
		sleep 0.5 # the loops' turn on the device as it is
	done
	touch "$CHURN/stop"
	wait "${pids[@]}"
	return $rc
}

# compat_hidden: rxea's compat device in the router's namespace has its
# ports, and no knob.
compat_hidden() {
	ip netns exec r sh -c '
		p=/sys/class/infiniband/rxea/ports/1
		test -e $p/state || { echo "  no compat device in r"; exit 1; }
		for f in roce_entropy roce_repath; do
			if test -e $p/$f; then echo "  r has $p/$f"; exit 1; fi
		done'
}

dmesg_at=$(dmesg | wc -l)
check "the knobs exist on rxea in init_net" \
	test -w /sys/class/infiniband/rxea/ports/1/roce_entropy
check "shared netns mode: rxea's compat device in netns r has no knob" compat_hidden
step set_policy mix
check "rxeb's policy set to mix" test "$(cat /sys/class/infiniband/rxeb/ports/1/roce_entropy)" = mix
check "rxea deleted and made again $ROUNDS times under reads, writes and QP dumps" churn
check "every loop made progress" progress
step rdma link delete rxea
step wait_for 10 no_rdma_device rxea
step rdma link add rxea type rxe netdev a0
wait_for 10 port_active rxea
check "rxea made again, untouched: the module parameter's policy, re-path off" fresh
check "rxeb kept mix through it all" test "$(cat /sys/class/infiniband/rxeb/ports/1/roce_entropy)" = mix
check "no kernel report during the churn" kernel_reports "$dmesg_at"
wait_for 10 rxe_has_gid rxea "$A6"
step set_policy builtin
done_testing
