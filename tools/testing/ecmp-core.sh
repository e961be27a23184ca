# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
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
# ecmp_core_undo puts the standard topology back.  ecmp_failover runs
# steady connections through black holes, the failover test's and the
# demo's act alike.

# The links, and the routers' fib_multipath_hash_seed: constants (make
# demo's ecmp.sh sets its own after sourcing this file).
ECMP_LINKS=8
ECMP_SEED=1234
# A MAC no interface has (locally administered).
ECMP_NOWHERE=02:00:5e:00:de:ad

# ns_read NS FILE...: FILEs of NS's /sys (sysfs shows a netns's own
# interfaces), one cat in NS.
ns_read() {
	ip netns exec "$1" cat "${@:2}"
}

# ecmp_mac NS DEV: DEV's MAC address, in netns NS ("": the initial one).
ecmp_mac() {
	local mac

	if [ -z "$1" ]; then
		read -r mac < "/sys/class/net/$2/address" && echo "$mac"
	else
		ns_read "$1" "/sys/class/net/$2/address"
	fi
}

# ecmp_neigh_lines DEV IP4 IP6 MAC: the ip -batch lines that make IP4 and
# IP6 permanent neighbours on DEV at MAC.
ecmp_neigh_lines() {
	printf 'neigh replace %s lladdr %s dev %s nud permanent\n' "$2" "$4" "$1" "$3" "$4" "$1"
}

# ecmp_neigh NS DEV IP4 IP6 MAC: NS's permanent neighbours IP4 and IP6 on
# DEV at MAC ("": the initial netns), in one run of ip.
ecmp_neigh() {
	ecmp_neigh_lines "$2" "$3" "$4" "$5" | ip ${1:+-n "$1"} -batch -
}

# ecmp_core: split r into r and s, ECMP_LINKS links between them; their
# MACs, which it chooses (02:00:00:09:LINK:01 on r's e*, :02 on s's f*), in
# ECMP_MAC_R and ECMP_MAC_S.  One ip run per router for all the links.
ECMP_MAC_R=() ECMP_MAC_S=()
ecmp_core() {
	local i hops4_r='' hops6_r='' hops4_s='' hops6_s='' ns links_r='' links_s=''

	step ip netns add s || return 1
	step ip -n r link set b1 netns s || return 1
	ip_batch -n s <<-EOF || return 1
		addr add $RB4/24 dev b1
		addr add $RB6/64 dev b1 nodad
		link set lo up
		link set b1 up
	EOF
	for ns in r s; do
		step ip netns exec $ns sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.forwarding=1 \
			net.ipv4.fib_multipath_hash_policy=1 \
			net.ipv6.fib_multipath_hash_policy=1 \
			net.ipv4.fib_multipath_hash_seed=$ECMP_SEED || return 1
	done
	for ((i = 0; i < ECMP_LINKS; i++)); do
		printf -v "ECMP_MAC_R[$i]" '02:00:00:09:%02x:01' "$i"
		printf -v "ECMP_MAC_S[$i]" '02:00:00:09:%02x:02' "$i"
		links_r+="link add e$i address ${ECMP_MAC_R[$i]} type veth peer name f$i address ${ECMP_MAC_S[$i]} netns s
addr add 10.9.$i.1/24 dev e$i
addr add fd09:$i::1/64 dev e$i nodad
link set e$i up
$(ecmp_neigh_lines e$i 10.9.$i.2 fd09:$i::2 "${ECMP_MAC_S[$i]}")
"
		links_s+="addr add 10.9.$i.2/24 dev f$i
addr add fd09:$i::2/64 dev f$i nodad
link set f$i up
$(ecmp_neigh_lines f$i 10.9.$i.1 fd09:$i::1 "${ECMP_MAC_R[$i]}")
"
		hops4_r="$hops4_r nexthop via 10.9.$i.2 dev e$i"
		hops6_r="$hops6_r nexthop via fd09:$i::2 dev e$i"
		hops4_s="$hops4_s nexthop via 10.9.$i.1 dev f$i"
		hops6_s="$hops6_s nexthop via fd09:$i::1 dev f$i"
	done
	ip_batch -n r <<< "$links_r" || return 1
	ip_batch -n s <<< "$links_s" || return 1
	ip_batch -n r <<-EOF || return 1
		route replace 10.2.0.0/24 $hops4_r
		route replace fd02::/64 $hops6_r
	EOF
	ip_batch -n s <<-EOF || return 1
		route replace 10.1.0.0/24 $hops4_s
		route replace fd01::/64 $hops6_s
	EOF
}

# ecmp_core_undo: the standard topology again (b1 back in r, s gone).
ecmp_core_undo() {
	step ip -n s link set b1 netns r || return 1
	step ip netns del s || return 1
	ip_batch -n r <<-EOF || return 1
		addr add $RB4/24 dev b1
		addr add $RB6/64 dev b1 nodad
		link set b1 up
	EOF
	wait_for 10 ip -n r route get $B4
}

# ecmp_link_restore LINK: both ways of LINK deliver again (no lookup: the
# black hole ends at once).
ecmp_link_restore() {
	ecmp_neigh r "e$1" "10.9.$1.2" "fd09:$1::2" "${ECMP_MAC_S[$1]}" &&
		ecmp_neigh s "f$1" "10.9.$1.1" "fd09:$1::1" "${ECMP_MAC_R[$1]}"
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

# ecmp_tx_read NS PREFIX: TX, the tx packets of PREFIX0..PREFIXn.
ecmp_tx_read() {
	local i f=()

	for ((i = 0; i < ECMP_LINKS; i++)); do
		f+=("/sys/class/net/$2$i/statistics/tx_packets")
	done
	mapfile -t TX < <(ns_read "$1" "${f[@]}")
	[ ${#TX[@]} = "$ECMP_LINKS" ]
}

# ecmp_busiest: the index of r's link whose count grew most since
# ECMP_TX0 (the first of equals).
ecmp_busiest() {
	local i best=0 grew max=-1

	ecmp_tx_read r e || return 1
	for i in "${!TX[@]}"; do
		grew=$((TX[i] - ECMP_TX0[i]))
		[ $grew -le $max ] || { max=$grew; best=$i; }
	done
	echo $best
}

# ecmp_failover and the runs through the black holes
# shellcheck source=tools/testing/ecmp-failover.sh
. "$entropy_repo/tools/testing/ecmp-failover.sh"
