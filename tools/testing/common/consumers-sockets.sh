# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The socket consumers of tests/consumers.sh, driven by tests/consumers.py,
# each with NAME_up, NAME_data FAMILY and NAME_down, and NAME_load and
# NAME_unload, a module's lifetime in each policy's pass: RDS (AF_RDS over
# rds_rdma) and SMC-R v2 (IPPROTO_SMC, a second device pair), with
# smc_links, which judges SMC-R's two links in a capture.  lib.sh does not
# load this file: consumers.sh sources it after lib.sh, and loading it
# calls no function.
#
# Needs from consumers.sh RDS_MESSAGES, SMC_BYTES and SELECT; from lib.sh
# step, wait_for, TOOL and the addresses (base.sh), vm_modprobe,
# ulps_rebuilt and ulps_loaded_rebuilt (stack.sh), ip_batch (topology.sh),
# port_active and no_rdma_device (connections.sh) and CAP (capture.sh).

# ---- RDS: AF_RDS over rds_rdma; rdma_cm on 18634 (IPv4), 16385 (IPv6) ----
# A connection lasts as long as the module: each policy loads it anew.

rds_up() {
	:
}

rds_data() {
	local a b

	if [ "$1" = 6 ]; then a="[$A6]:4000" b="[$B6]:4001"; else a="$A4:4000" b="$B4:4001"; fi
	step python3 "$entropy_repo/tools/testing/tests/consumers.py" rds "$a" "$b" $RDS_MESSAGES
}

rds_down() {
	:
}

# ---- SMC-R v2: AF_INET, IPPROTO_SMC; QPs connected by SMC itself ----
# SMC-Rv2 is IPv4 only, and needs a user EID on x86.  A second RoCE
# device on each host, in the first one's subnet, gives the link group a
# second link: rxea2 on a2 (10.1.0.3) and rxeb2 on b2 (10.2.0.3), through
# the router on a3 and b3, routed by output device as the first.

A4_2=10.1.0.3 B4_2=10.2.0.3 RA4_2=10.1.0.5 RB4_2=10.2.0.5

smc_up() {
	ip_batch <<-EOF || return 1
		link add a2 type veth peer name a3 netns r
		link add b2 type veth peer name b3 netns r
		addr add $A4_2/24 dev a2
		addr add $B4_2/24 dev b2
		link set a2 up
		link set b2 up
		route add 10.2.0.0/24 via $RA4_2 dev a2 table 102
		route add 10.1.0.0/24 via $RB4_2 dev b2 table 103
		rule add pref 12 to 10.2.0.0/24 oif a2 lookup 102
		rule add pref 13 to 10.1.0.0/24 oif b2 lookup 103
	EOF
	# r has two links in each subnet: the second devices' addresses by name
	ip_batch -n r <<-EOF || return 1
		addr add $RA4_2/24 dev a3
		addr add $RB4_2/24 dev b3
		link set a3 up
		link set b3 up
		route add $A4_2/32 dev a3
		route add $B4_2/32 dev b3
	EOF
	step sysctl -qw net.ipv4.conf.a2.rp_filter=0 net.ipv4.conf.b2.rp_filter=0 \
		net.ipv4.conf.a2.accept_local=1 net.ipv4.conf.b2.accept_local=1 || return 1
	step rdma link add rxea2 type rxe netdev a2 && step rdma link add rxeb2 type rxe netdev b2 &&
		wait_for 10 port_active rxea2 && wait_for 10 port_active rxeb2
}

# rxea2's packets sent and received, and r's a3's received and sent:
# where the second link's packets went, when the capture missed them.
link2_counters() {
	local d=/sys/class/infiniband/rxea2/ports/1/hw_counters

	echo "rxea2 sent $(cat $d/sent_pkts), received $(cat $d/rcvd_pkts);" \
		"r's a3 received $(ip netns exec r cat /sys/class/net/a3/statistics/rx_packets)," \
		"sent $(ip netns exec r cat /sys/class/net/a3/statistics/tx_packets)"
}

# smc_link2_captured: the capture so far (dumpcap flushes its file as it
# goes; the reader takes a last record cut short as malformed) holds the
# second link's packets both ways, from and to $A4_2.  roce-entropy pcap
# reads it in a fraction of a second, where tshark took 5-65 s.
smc_link2_captured() {
	"$TOOL" pcap "$CAP" --json 2>/dev/null |
		jq -e --arg a "$A4_2" '[.connections[] | select(.src == $a or .dst == $a) |
			select(.forward.packets > 0 and .reverse.packets > 0)] | length > 0'
}

# SMC-R adds the link group's second link after the first, in its own
# time: the capture must not end before that link's packets, both ways,
# are in it (smc_links judges them).  Waiting for rxea2's counters was not
# enough: once they moved, and the capture on a3 held nothing.  The second
# link may carry only its handful of LLC messages, which a capture can
# miss (make check, twice): then two transfers run at once, and SMC gives
# the second connection the link with fewer, the second link, so that
# link carries data the capture cannot miss.
smc_data() {
	local before pid rc=0

	before=$(link2_counters)
	step python3 "$entropy_repo/tools/testing/tests/consumers.py" smc "$B4:4100" "$A4:4101" $SMC_BYTES ||
		return 1
	wait_for 20 smc_link2_captured && return
	echo "  no packet of the second link in the capture in 20 s;" \
		"before: $before; now: $(link2_counters); two transfers at once"
	python3 "$entropy_repo/tools/testing/tests/consumers.py" smc "$B4:4102" "$A4:4103" $SMC_BYTES &
	pid=$!
	step python3 "$entropy_repo/tools/testing/tests/consumers.py" smc "$B4:4104" "$A4:4105" $SMC_BYTES ||
		rc=1
	wait $pid || rc=1
	[ $rc = 0 ] || return 1
	wait_for 20 smc_link2_captured ||
		echo "  still no packet of the second link in the capture; now: $(link2_counters)"
}

# smc_links: the link group's two links, each a connection of its own
# device pair (each judged on its own QPNs' port).  Each rxe device
# numbers its QPs from the same start, so the two links' QPN pairs, and
# then their ports, may well be equal; their addresses differ.
smc_links() {
	local sel="[.connections[] | select(${SELECT[smc]})]" first second

	first=$(jq --arg a "$A4" "$sel | map(select(.src == \$a or .dst == \$a)) | length" "$CAP.json")
	second=$(jq --arg a "$A4_2" "$sel | map(select(.src == \$a or .dst == \$a)) | length" "$CAP.json")
	jq -r "$sel | .[] | \"  link \\(.src) <-> \\(.dst): QPNs \\(.qpns), UDP source port \\(.udp_sports)\"" \
		"$CAP.json"
	[ "$first" -ge 1 ] && [ "$second" -ge 1 ]
}

smc_down() {
	step rdma link delete rxea2
	step rdma link delete rxeb2
	wait_for 10 no_rdma_device rxea2
	wait_for 10 no_rdma_device rxeb2
	ip_batch <<-EOF
		rule del pref 12 to 10.2.0.0/24 oif a2 lookup 102
		rule del pref 13 to 10.1.0.0/24 oif b2 lookup 103
		link del a2
		link del b2
	EOF
}

# per-policy module lifetime for the two socket families
rds_load() {
	step vm_modprobe -a rds rds_rdma && { ! ulps_rebuilt || ulps_loaded_rebuilt; }
}
rds_unload() { step vm_modprobe -r rds_rdma rds; }
smc_load() {
	step vm_modprobe smc && { ! ulps_rebuilt || ulps_loaded_rebuilt; } &&
		step python3 "$entropy_repo/tools/testing/tests/consumers.py" ueid ROCE-ENTROPY-TEST
}
smc_unload() { step vm_modprobe -r smc; }
