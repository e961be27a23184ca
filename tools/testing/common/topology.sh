# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The standard topology (its addresses in base.sh, its drawing in
# tools/testing/README.md): the router r, rxea on a0 and rxeb on b0, and
# the GID of an address.  Needs step and wait_for (base.sh) and
# port_active (connections.sh); guests.sh builds each guest's side with
# ip_batch and vm_router.

# ip_batch [OPTION...]: the ip commands on stdin, one a line, in one run of
# "ip OPTION... -batch -" (an exec costs a tenth of a second under TCG);
# each line is echoed as step does.  The first that fails ends it.
ip_batch() {
	local cmds

	cmds=$(cat)
	sed "s|^|+ ip${*:+ $*} |" <<< "$cmds"
	ip "$@" -batch - <<< "$cmds"
}

# vm_router: the router r's addresses on a1 and b1, forwarding on.
vm_router() {
	ip_batch -n r <<-EOF || return 1
		addr add $RA4/24 dev a1
		addr add $RB4/24 dev b1
		addr add $RA6/64 dev a1 nodad
		addr add $RB6/64 dev b1 nodad
		link set lo up
		link set a1 up
		link set b1 up
	EOF
	step ip netns exec r sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
}

# The two rxe hosts in init_net, the router in netns r; every route between
# them leaves through the wire.  The rules key on the output device: rdma_cm's
# passive side checks the netdev of a REQ with a lookup keyed on it, and
# rules keyed on iif lo do not match that lookup (REJ, error 28).
vm_topology() {
	echo "==> standard topology"
	step ip link set lo up || return 1
	step ip netns add r || return 1
	ip_batch <<-EOF || return 1
		link add a0 type veth peer name a1 netns r
		link add b0 type veth peer name b1 netns r
		addr add $A4/24 dev a0
		addr add $B4/24 dev b0
		addr add $A6/64 dev a0 nodad
		addr add $B6/64 dev b0 nodad
		link set a0 up
		link set b0 up
	EOF
	vm_router || return 1
	step sysctl -qw net.ipv4.conf.all.accept_local=1 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.a0.rp_filter=0 \
		net.ipv4.conf.b0.rp_filter=0 net.ipv4.conf.a0.accept_local=1 \
		net.ipv4.conf.b0.accept_local=1
	ip_batch <<-EOF || return 1
		route add 10.2.0.0/24 via $RA4 dev a0 table 100
		route add 10.1.0.0/24 via $RB4 dev b0 table 101
		rule add pref 10 to 10.2.0.0/24 oif a0 lookup 100
		rule add pref 11 to 10.1.0.0/24 oif b0 lookup 101
	EOF
	# ip rule takes its family from -6, not from the prefix: a run apart
	ip_batch -6 <<-EOF || return 1
		route add fd02::/64 via $RA6 dev a0 table 100
		route add fd01::/64 via $RB6 dev b0 table 101
		rule add pref 10 to fd02::/64 oif a0 lookup 100
		rule add pref 11 to fd01::/64 oif b0 lookup 101
		rule add pref 100 lookup local
		rule del pref 0 lookup local
	EOF
	vm_rxe_links
}

# The rxe devices of the standard topology, rxea on a0 and rxeb on b0,
# active and with their IPv6 GIDs.
vm_rxe_links() {
	step rdma link add rxea type rxe netdev a0 || return 1
	step rdma link add rxeb type rxe netdev b0 || return 1
	wait_for 10 port_active rxea || return 1
	wait_for 10 port_active rxeb || return 1
	wait_for 10 rxe_has_gid rxea "$A6" || return 1
	wait_for 10 rxe_has_gid rxeb "$B6" || return 1
}

# gid_of ADDR: the GID of an IPv6 address, or of an IPv4 address's
# IPv4-mapped one, as sysfs prints it (fd01::2:
# fd01:0000:0000:0000:0000:0000:0000:0002).  No fork: the waits poll it.
gid_of() {
	local a=$1 head tail hs=() ts=() g=() x out='' i

	if [[ $a != *:* ]]; then
		IFS=. read -r -a g <<< "$a"
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "${g[@]}"
		return
	fi
	head=${a%%::*} tail=
	[[ $a != *::* ]] || tail=${a#*::}
	IFS=: read -r -a hs <<< "$head"
	IFS=: read -r -a ts <<< "$tail"
	g=("${hs[@]}")
	for ((i = ${#hs[@]} + ${#ts[@]}; i < 8; i++)); do g+=(0); done
	g+=("${ts[@]}")
	for x in "${g[@]}"; do
		printf -v x '%04x' "$((16#$x))"
		out=$out${out:+:}$x
	done
	echo "$out"
}

# rxe_has_gid DEV IPV6: the device's GID table holds that address.
rxe_has_gid() {
	grep -qx "$(gid_of "$2")" /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null
}
