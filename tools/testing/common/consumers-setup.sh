# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The setup of tests/consumers.sh's guest itself, before any consumer: the
# booted kernel's modules where modprobe looks (modules_visible), and host
# lookups between A and B through the router (via_router, undone with
# "via_router undo").  lib.sh does not load this file: consumers.sh sources
# it after lib.sh, and loading it calls no function.  Needs step (base.sh),
# ip_batch (topology.sh), the topology's addresses (A4, RA4, A6, RA6, B4,
# RB4, B6, RB6: base.sh) and the guest's entropy_dist and entropy_modroot.

# ---- the guest's own: module loads, writable directories, routes ----

# modules_visible: the booted kernel's modules where modprobe (the
# kernel's request_module, libkmod in iscsid) looks for them.  Our RDMA
# modules are already loaded and stay: modprobe skips a loaded module.
modules_visible() {
	[ "${entropy_dist:-0}" = 1 ] || [ -d "/lib/modules/$(uname -r)" ] ||
		step mount --bind "$entropy_modroot/lib/modules" /usr/lib/modules
}

# via_router [undo]: locally generated lookups between A and B, without an
# output device, go through r both ways, as the rules keyed on the output
# device route rdma_cm's.  NFS and iSER resolve their servers with no
# source address; SMC-R looks up its peer with none, and sends with hop
# limit 1 (no router) unless that lookup names a gateway.  The local table
# moves behind the new rules (IPv6's is there already).
via_router() {
	if [ "${1:-}" = undo ]; then
		ip_batch <<-EOF
			rule add pref 0 lookup local
			rule del pref 100 lookup local
			rule del pref 5 to 10.2.0.0/24 iif lo lookup 100
			rule del pref 6 to 10.1.0.0/24 iif lo lookup 101
		EOF
		ip_batch -6 <<-EOF
			rule del pref 5 to fd02::/64 iif lo lookup 100
			rule del pref 6 to fd01::/64 iif lo lookup 101
			route replace fd02::/64 via $RA6 dev a0 table 100
			route replace fd01::/64 via $RB6 dev b0 table 101
		EOF
		return
	fi
	ip_batch <<-EOF || return 1
		rule add pref 5 to 10.2.0.0/24 iif lo lookup 100
		rule add pref 6 to 10.1.0.0/24 iif lo lookup 101
		rule add pref 100 lookup local
		rule del pref 0 lookup local
	EOF
	# IPv6 prefers a source equal to the destination (RFC 6724 rule 1),
	# which is local here: the routes name the source.
	ip_batch -6 <<-EOF || return 1
		rule add pref 5 to fd02::/64 iif lo lookup 100
		rule add pref 6 to fd01::/64 iif lo lookup 101
		route replace fd02::/64 via $RA6 dev a0 src $A6 table 100
		route replace fd01::/64 via $RB6 dev b0 src $B6 table 101
	EOF
	[[ $(ip route get $B4) == *" via $RA4 dev a0 "*" src $A4 "* ]] &&
		[[ $(ip route get $A4) == *" via $RB4 dev b0 "*" src $B4 "* ]] &&
		[[ $(ip -6 route get $B6) == *" via $RA6 dev a0 "*" src $A6 "* ]] &&
		[[ $(ip -6 route get $A6) == *" via $RB6 dev b0 "*" src $B6 "* ]]
}
