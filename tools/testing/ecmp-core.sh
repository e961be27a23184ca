# SPDX-License-Identifier: GPL-2.0
# The ECMP core, sourced by the failover test (tests/failover.sh) and the
# demo's failover act (tools/demo/failover.sh) after lib.sh: the standard
# topology's router r becomes two, r and s, joined by ECMP_LINKS veth links
# with equal-cost routes both ways, picked per packet by the kernel's L4
# multipath hash with a fixed seed (a run is reproducible); static
# neighbours, so that the links carry RoCE only and a link can be turned
# into a black hole without touching a route:
#
#   rxea/a0 -- a1 [r] e0..e7 ==== f0..f7 [s] b1 -- b0/rxeb
#
# ecmp_blackhole LINK DIR makes link LINK drop what goes one way (DIR ab:
# A to B, r's e<LINK> to s's f<LINK>; ba: the other way; both): the
# sending router's neighbour entry for the far end gets a MAC nobody has,
# so the far end receives the frames and drops them (not its address).
# The routes stay, as they do when a switch or a link silently drops.
# ecmp_core_undo puts the standard topology back.

ECMP_LINKS=${ECMP_LINKS:-8}
ECMP_SEED=${ECMP_SEED:-1234}
# A MAC no interface has (locally administered).
ECMP_NOWHERE=02:00:5e:00:de:ad

ecmp_mac() {
	ip -n "$1" -j link show "$2" | jq -r '.[0].address'
}

# ecmp_neigh NS DEV IP4 IP6 MAC: NS's neighbours IP4 and IP6 on DEV at MAC.
ecmp_neigh() {
	ip -n "$1" neigh replace "$3" lladdr "$5" dev "$2" nud permanent &&
		ip -n "$1" -6 neigh replace "$4" lladdr "$5" dev "$2" nud permanent
}

# ecmp_core: split r into r and s, ECMP_LINKS links between them.
ecmp_core() {
	local i hops4_r= hops6_r= hops4_s= hops6_s= ns

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
			net.ipv4.fib_multipath_hash_seed=$ECMP_SEED || return 1
	done
	for i in $(seq 0 $((ECMP_LINKS - 1))); do
		ip -n r link add e$i type veth peer name f$i netns s || return 1
		ip -n r addr add 10.9.$i.1/24 dev e$i
		ip -n s addr add 10.9.$i.2/24 dev f$i
		ip -n r -6 addr add fd09:$i::1/64 dev e$i nodad
		ip -n s -6 addr add fd09:$i::2/64 dev f$i nodad
		ip -n r link set e$i up
		ip -n s link set f$i up
		ecmp_link_restore "$i" || return 1
		hops4_r="$hops4_r nexthop via 10.9.$i.2 dev e$i"
		hops6_r="$hops6_r nexthop via fd09:$i::2 dev e$i"
		hops4_s="$hops4_s nexthop via 10.9.$i.1 dev f$i"
		hops6_s="$hops6_s nexthop via fd09:$i::1 dev f$i"
	done
	echo "+ $ECMP_LINKS links e0..e$((ECMP_LINKS - 1)) (r) to f0..f$((ECMP_LINKS - 1)) (s), static neighbours"
	step ip -n r route replace 10.2.0.0/24 $hops4_r || return 1
	step ip -n r -6 route replace fd02::/64 $hops6_r || return 1
	step ip -n s route replace 10.1.0.0/24 $hops4_s || return 1
	step ip -n s -6 route replace fd01::/64 $hops6_s || return 1
}

# ecmp_core_undo: the standard topology again (b1 back in r, s gone).
ecmp_core_undo() {
	step ip -n s link set b1 netns r || return 1
	step ip netns del s || return 1
	step ip -n r addr add $RB4/24 dev b1
	step ip -n r -6 addr add $RB6/64 dev b1 nodad
	step ip -n r link set b1 up
	wait_for 10 ip -n r route get $B4
}

# ecmp_link_restore LINK: both ways of LINK deliver again.
ecmp_link_restore() {
	ecmp_neigh r "e$1" "10.9.$1.2" "fd09:$1::2" "$(ecmp_mac s "f$1")" &&
		ecmp_neigh s "f$1" "10.9.$1.1" "fd09:$1::1" "$(ecmp_mac r "e$1")"
}

# ecmp_blackhole LINK ab|ba|both: LINK drops A to B, B to A, or both.
ecmp_blackhole() {
	local link=$1 dir=$2

	case $dir in
	ab|both) ecmp_neigh r "e$link" "10.9.$link.2" "fd09:$link::2" $ECMP_NOWHERE || return 1 ;;
	esac
	case $dir in
	ba|both) ecmp_neigh s "f$link" "10.9.$link.1" "fd09:$link::1" $ECMP_NOWHERE || return 1 ;;
	esac
	echo "+ link $link: black hole $dir"
}

# ecmp_tx NS PREFIX: the tx packets of PREFIX0..PREFIXn, a JSON array.
ecmp_tx() {
	local i out=

	for i in $(seq 0 $((ECMP_LINKS - 1))); do
		out="$out${out:+,}$(ip netns exec "$1" cat /sys/class/net/"$2$i"/statistics/tx_packets)"
	done
	echo "[$out]"
}

# ecmp_busiest BEFORE AFTER: the index of the link whose count grew most.
ecmp_busiest() {
	jq -n --argjson a "$1" --argjson b "$2" \
		'[range($b | length) as $i | {i: $i, n: ($b[$i] - $a[$i])}] | max_by(.n) | .i'
}
