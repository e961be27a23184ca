#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo's guest side (make demo runs it through vm-run.sh): the standard
# topology's router r becomes two routers, r and s, joined by 8 equal-cost
# links; r and s pick a link per packet with the kernel's L4 multipath hash.
# For each policy and address family, 64 rdma_cm connections ping across,
# and the routers' interface counters say how many packets took each link.
# The raw counts go to $rte_out/demo-raw.json for the host's report.
#
#   rxea/a0 -- a1 [r] e0..e7 ==== f0..f7 [s] b1 -- b0/rxeb
#
# Then the sending host's own routes: rxea's traffic to 10.2.0.0/24 takes
# one of 4 next hops on a0 (a1 and three macvlans on it in r, each its own
# MAC) by its UDP source port, through fib rules on sport ranges that see
# the ports rxe now puts in its flowi; r's receive counters say which next
# hop each packet went to.  Rules, not a multipath route: 6.12 skips
# multipath selection for a locally generated lookup bound to an output
# interface (fib_select_path(); have_oif_match in ip6_pol_route()), and
# rxe always names its netdev.
#
# RTE_DEMO_CONNECTIONS (64), RTE_DEMO_LINKS (8), RTE_DEMO_MESSAGES (50)
# and RTE_DEMO_SEED (the routers' fib_multipath_hash_seed, fixed so that a
# run is reproducible) change it.
. "$rte_repo/tools/testing/lib.sh"

N=${RTE_DEMO_CONNECTIONS:-64}
LINKS=${RTE_DEMO_LINKS:-8}
MESSAGES=${RTE_DEMO_MESSAGES:-50}
SEED=${RTE_DEMO_SEED:-1234}
SPORT_BASE=50000
RAW=$rte_out/demo-raw.json

progress() { echo "==> demo: $*"; }

mac_of() {
	ip -n "$1" -j link show "$2" | jq -r '.[0].address'
}

# Split r: b1 moves to the new router s, and LINKS links join r and s.
ecmp_core() {
	local i hops4_r= hops6_r= hops4_s= hops6_s= me mf ns

	step ip netns add s || return 1
	step ip -n r link set b1 netns s || return 1
	step ip -n s addr add $RB4/24 dev b1
	step ip -n s -6 addr add $RB6/64 dev b1 nodad
	step ip -n s link set lo up
	step ip -n s link set b1 up
	for ns in r s; do
		step ip netns exec $ns sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.forwarding=1 \
			net.ipv4.fib_multipath_hash_policy=1 \
			net.ipv6.fib_multipath_hash_policy=1 \
			net.ipv4.fib_multipath_hash_seed=$SEED || return 1
	done
	for i in $(seq 0 $((LINKS - 1))); do
		ip -n r link add e$i type veth peer name f$i netns s || return 1
		ip -n r addr add 10.9.$i.1/24 dev e$i
		ip -n s addr add 10.9.$i.2/24 dev f$i
		ip -n r -6 addr add fd09:$i::1/64 dev e$i nodad
		ip -n s -6 addr add fd09:$i::2/64 dev f$i nodad
		ip -n r link set e$i up
		ip -n s link set f$i up
		# No ARP or neighbour discovery on the counted links.
		me=$(mac_of r e$i) mf=$(mac_of s f$i)
		ip -n r neigh replace 10.9.$i.2 lladdr "$mf" dev e$i nud permanent
		ip -n r -6 neigh replace fd09:$i::2 lladdr "$mf" dev e$i nud permanent
		ip -n s neigh replace 10.9.$i.1 lladdr "$me" dev f$i nud permanent
		ip -n s -6 neigh replace fd09:$i::1 lladdr "$me" dev f$i nud permanent
		hops4_r="$hops4_r nexthop via 10.9.$i.2 dev e$i"
		hops6_r="$hops6_r nexthop via fd09:$i::2 dev e$i"
		hops4_s="$hops4_s nexthop via 10.9.$i.1 dev f$i"
		hops6_s="$hops6_s nexthop via fd09:$i::1 dev f$i"
	done
	echo "+ $LINKS links e0..e$((LINKS - 1)) (r) to f0..f$((LINKS - 1)) (s), static neighbours"
	step ip -n r route replace 10.2.0.0/24 $hops4_r || return 1
	step ip -n r -6 route replace fd02::/64 $hops6_r || return 1
	step ip -n s route replace 10.1.0.0/24 $hops4_s || return 1
	step ip -n s -6 route replace fd01::/64 $hops6_s || return 1
	ip -n r route show 10.2.0.0/24
}

# tx_counts NS PREFIX: a JSON array of the tx packets of PREFIX0..PREFIXn.
tx_counts() {
	local i out=

	for i in $(seq 0 $((LINKS - 1))); do
		out="$out${out:+,}$(ip netns exec "$1" cat /sys/class/net/"$2$i"/statistics/tx_packets)"
	done
	echo "[$out]"
}

HOPS=4

# Four next hops for rxea's traffic to B: r's a1 and macvlans a1m1..a1m3,
# each for a quarter of 0xC000-0xFFFF, by UDP source port.
host_routes() {
	local j gw lo range width=$((0x4000 / HOPS))

	for j in $(seq 0 $((HOPS - 1))); do
		if [ "$j" = 0 ]; then
			gw=$RA4
			ip neigh replace $RA4 lladdr "$(mac_of r a1)" dev a0 nud permanent
		else
			gw=10.1.0.1$j
			step ip -n r link add link a1 name a1m$j type macvlan mode private || return 1
			step ip -n r addr add $gw/24 dev a1m$j
			step ip -n r link set a1m$j up
			ip neigh replace $gw lladdr "$(mac_of r a1m$j)" dev a0 nud permanent
		fi
		lo=$((0xC000 + j * width))
		step ip route add 10.2.0.0/24 via $gw dev a0 table $((200 + j)) || return 1
		# The kernel refuses a range ending at 65535: the last quarter
		# is the rest of UDP.
		range="sport $lo-$((lo + width - 1))"
		[ "$j" != $((HOPS - 1)) ] || range=
		step ip rule add pref $((5 + j)) to 10.2.0.0/24 oif a0 ipproto udp \
			$range lookup $((200 + j)) || return 1
	done
}

# rx_hops: a JSON array of what each next hop received: a1's own (all it
# received less what its macvlans took), then a1m1..
rx_hops() {
	local j n all sum=0 out=

	all=$(ip netns exec r cat /sys/class/net/a1/statistics/rx_packets)
	for j in $(seq 1 $((HOPS - 1))); do
		n=$(ip netns exec r cat /sys/class/net/a1m$j/statistics/rx_packets)
		sum=$((sum + n))
		out="$out,$n"
	done
	echo "[$((all - sum))$out]"
}

# batch FAMILY POLICY: N connections under POLICY; appends a run to $RAW.runs.
# FAMILY host-ipv4 counts the host's next hops instead of the router's links.
batch() {
	local fam=$1 policy=$2 sa ca f0 r0 f1 r1 spid ok=true clients

	if [ "$fam" = ipv6 ]; then sa=$B6 ca=$A6; else sa=$B4 ca=$A4; fi
	progress "$fam, policy $policy: $N connections, $MESSAGES round trips each"
	set_policy "$policy" || return 1
	if [ "$fam" = host-ipv4 ]; then
		f0=$(rx_hops) r0=null
	else
		f0=$(tx_counts r e) r0=$(tx_counts s f)
	fi
	"$PING" server --bind "$sa" --connections "$N" > "$rte_out/demo-server.log" 2>&1 &
	spid=$!
	wait_for 10 cm_listening "$sa" || { kill $spid; return 1; }
	timeout 300 "$PING" client --bind "$ca" --server "$sa" --connections "$N" \
		--messages "$MESSAGES" --sport-base $SPORT_BASE --json \
		> "$rte_out/demo-client.json" 2> "$rte_out/demo-client.err" ||
		{ ok=false; cat "$rte_out/demo-client.err"; }
	wait_for 30 bash -c "! kill -0 $spid 2>/dev/null" || { kill $spid; ok=false; }
	wait $spid || ok=false
	if [ "$fam" = host-ipv4 ]; then
		f1=$(rx_hops) r1=null
	else
		f1=$(tx_counts r e) r1=$(tx_counts s f)
	fi
	clients=$(jq -c '.connections' "$rte_out/demo-client.json" 2>/dev/null) || clients='[]'
	[ -n "$clients" ] || clients='[]'
	jq --arg fam "$fam" --arg policy "$policy" --argjson ok $ok \
		--argjson f0 "$f0" --argjson f1 "$f1" --argjson r0 "$r0" --argjson r1 "$r1" \
		--argjson clients "$clients" \
		'.runs += [{family: $fam, policy: $policy, clients_ok: $ok, clients: $clients,
			forward: [range($f1 | length) as $i | $f1[$i] - $f0[$i]]}
			+ (if $r1 == null then {} else
			   {reverse: [range($r1 | length) as $i | $r1[$i] - $r0[$i]]} end)]' \
		"$RAW" > "$RAW.new" && mv "$RAW.new" "$RAW"
	echo "  A>B per link: $(jq -c '.runs[-1].forward' "$RAW"), B>A: $(jq -c '.runs[-1].reverse // "-"' "$RAW")"
	$ok
}

progress "ECMP core: $LINKS links between routers r and s, L4 hash, seed $SEED"
ecmp_core || { echo "demo: FAIL: could not build the ECMP core"; exit 1; }
jq -n --argjson n "$N" --argjson links "$LINKS" --argjson m "$MESSAGES" --argjson seed "$SEED" \
	'{connections: $n, links: $links, messages: $m, seed: $seed, runs: []}' > "$RAW"
rc=0
for fam in ipv4 ipv6; do
	for policy in off rfc mix; do
		batch $fam $policy || rc=1
	done
done
progress "host routes: rxea's traffic to B over $HOPS next hops on a0, by UDP source port"
if host_routes; then
	for policy in off rfc mix; do
		batch host-ipv4 $policy || rc=1
	done
else
	echo "demo: FAIL: could not set up the host's routes by port"
	rc=1
fi
set_policy rfc
progress "raw counts in $RAW"
exit $rc
