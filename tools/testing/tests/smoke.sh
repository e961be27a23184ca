#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test: the loaded stack is ours (not asked on the kernel's own
# modules, STOCK=1), and rping works both ways over IPv4 and IPv6 through
# the router.
STACKS="ours compat stock dist"
CPUS=1
. "$entropy_repo/tools/testing/lib.sh"

router_rx() {
	ip netns exec r cat /sys/class/net/a1/statistics/rx_packets \
		/sys/class/net/b1/statistics/rx_packets | paste -sd+ | bc
}

# rping_ok SERVER CLIENT: three rping round trips, each one's data checked
# by the client (-V), seen by the router.  Not -v: its "ping data" lines go
# to stdout, buffered until exit, after rping_race's two stderr lines.
rping_ok() {
	local before after

	before=$(router_rx)
	run_pair "rping-$1" "cm_listening $1" rping -s -a "$1" -C 3 -- \
		rping -c -a "$1" -I "$2" -C 3 -V || return 1
	after=$(router_rx)
	echo "  router forwarded $((after - before)) packets"
	[ $((after - before)) -ge 12 ]
}

if [ "$entropy_stock" != 1 ]; then
	for m in ib_core rdma_cm rdma_rxe ib_cm iw_cm ib_uverbs rdma_ucm; do
		check "loaded $m is ours (our build, out of tree)" module_is_ours $m
	done
fi
check "rxea and rxeb are RoCE v2 ports" \
	grep -q "RoCE v2" /sys/class/infiniband/rxea/ports/1/gid_attrs/types/1
check "rping IPv4 a -> b through the router" rping_ok $B4 $A4
check "rping IPv4 b -> a through the router" rping_ok $A4 $B4
check "rping IPv6 a -> b through the router" rping_ok $B6 $A6
check "rping IPv6 b -> a through the router" rping_ok $A6 $B6
done_testing
