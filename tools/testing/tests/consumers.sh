#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel's other RDMA consumers on the wire, each a server on B and a
# client on A in one kernel, through the router: SRP (ib_srpt, ib_srp),
# NFS over RDMA (nfsd's rdma listener, a proto=rdma mount), iSER (LIO's
# ib_isert, open-iscsi over ib_iser), RDS (rds_rdma) and SMC-R v2.  Each
# moves data and checks it (written and read back, or echoed, equal).
# Each policy of ENTROPY_CONSUMER_POLICIES (stock: builtin, no knob) gets one
# capture of every consumer's data path, judged by roce-entropy pcap: each
# consumer's connections (CM MADs and data) agree, and so does every other
# connection.  The first four use rdma_cm (RC), so the CM-ports rule; SMC-R
# connects its QPs itself with flow label 0, so the QPN rule.
#
# The NFS and iSCSI daemons are Debian's, unpacked and never installed
# (tools/buildlib/consumer-tools.sh); their state lives in overlays in the
# guest.  Needs a kernel with these consumers as modules: the test kernel
# (kernel-consumers.config) or the distribution's.
#
# make check runs it under mix on the test kernel (the consumers row),
# under rfc on Debian's kernel with DKMS's modules (dist: Debian's own ULPs
# over that build), and under 6.12's own modules (stock, judged as
# builtin): each formula once, for the ULPs compute none.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_CONSUMER_POLICIES   the policies, commas between (default rfc)
#   ENTROPY_CONSUMERS           the consumers, some of srp,nfs,iser,rds,smc
#                           (default all five)
STACKS="ours compat stock dist"
CPUS=1
: "${ENTROPY_CONSUMER_POLICIES:=rfc}"
: "${ENTROPY_CONSUMERS:=srp,nfs,iser,rds,smc}"
requires() {
	local c mods=()

	for c in ${ENTROPY_CONSUMERS//,/ }; do
		case $c in
		srp) mods+=(target_core_mod ib_srpt ib_srp sd_mod) ;;
		nfs) mods+=(nfsd nfsv4 rpcrdma) ;;
		iser)
			mods+=(target_core_mod iscsi_target_mod ib_isert ib_iser sd_mod crc32c)
			;;
		rds) mods+=(rds rds_rdma) ;;
		smc) mods+=(smc) ;;
		esac
	done
	_have_module "${mods[@]}"
}
. "$entropy_repo/tools/testing/lib.sh"

POLICIES=$(tr , ' ' <<< "$ENTROPY_CONSUMER_POLICIES")
CONSUMERS=$ENTROPY_CONSUMERS
[ "$entropy_stock" != 1 ] || POLICIES=builtin
CFG=/sys/kernel/config/target
DATA_MB=4
SRP_PORT=5555
ISCSI_PORT=3260
IQN=iqn.2026-11.org.example:roce-entropy
RDS_MESSAGES=64
SMC_BYTES=$((4 << 20))

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

# new_disk BEFORE: the sd disk in /sys/block that BEFORE (a listing) lacks.
new_disk() {
	local d

	for d in /sys/block/sd*; do
		[ -e "$d" ] || continue
		[[ " $1 " == *" ${d##*/} "* ]] || { echo "${d##*/}"; return 0; }
	done
	return 1
}

# disk_write_read DEV TAG: DATA_MB of random data written to /dev/DEV,
# read back and compared.
disk_write_read() {
	head -c $((DATA_MB << 20)) /dev/urandom > "/tmp/$2.in"
	step dd if="/tmp/$2.in" of="/dev/$1" bs=1M oflag=direct status=none &&
		step dd if="/dev/$1" of="/tmp/$2.out" bs=1M count=$DATA_MB iflag=direct status=none &&
		step cmp "/tmp/$2.in" "/tmp/$2.out"
}

# lio_ramdisk NAME: a LIO ramdisk backstore of DATA_MB, rd_mcp_0/NAME.
lio_ramdisk() {
	mountpoint -q /sys/kernel/config || step mount -t configfs none /sys/kernel/config
	mkdir -p $CFG/core/rd_mcp_0/$1 &&
		echo "rd_pages=$((DATA_MB << 8))" > $CFG/core/rd_mcp_0/$1/control &&
		echo 1 > $CFG/core/rd_mcp_0/$1/enable
}

# ---- SRP: ib_srpt on rxeb, ib_srp on rxea; rdma_cm on SRP_PORT ----

srp_tpg() {
	local gid

	read -r gid < /sys/class/infiniband/rxeb/ports/1/gids/0 || return 1
	# srpt names a port after GID 0's interface ID
	echo "$CFG/srpt/${gid:20}/tpg_1"
}

srp_up() {
	local tpg acl g

	step vm_modprobe -a target_core_mod ib_srpt ib_srp sd_mod && lio_ramdisk srp || return 1
	mkdir -p $CFG/srpt && echo $SRP_PORT > $CFG/srpt/discovery_auth/rdma_cm_port &&
		wait_for 10 cm_listening "" $SRP_PORT TCP || return 1
	tpg=$(srp_tpg) && mkdir -p "$tpg/lun/lun_0" &&
		ln -s $CFG/core/rd_mcp_0/srp "$tpg/lun/lun_0/srp" || return 1
	# An rdma_cm login's session is named after the target's own address,
	# as %pIS prints it (IPv6 in full).
	for acl in $B4 "$(gid_of $B6)"; do
		mkdir -p "$tpg/acls/$acl/lun_0" &&
			ln -s "$tpg/lun/lun_0" "$tpg/acls/$acl/lun_0/srp" || return 1
	done
	echo 1 > "$tpg/enable"
}

# no_srp_ports: no SRP remote port left (a deleted one goes in a work item).
no_srp_ports() {
	local p=(/sys/class/srp_remote_ports/port-*)

	[ ! -e "${p[0]}" ]
}

SRP_LOGINS=0

srp_data() {
	local g before dev dest src port target rc=0

	read -r g < /sys/module/ib_srpt/parameters/srpt_service_guid || return 1
	if [ "$1" = 6 ]; then dest=[$B6] src=[$A6]; else dest=$B4 src=$A4; fi
	# a target port stays in ib_srp's list until its removal completes, and
	# a second one with the same IDs is refused meanwhile: each login its own
	SRP_LOGINS=$((SRP_LOGINS + 1))
	target="id_ext=$g,ioc_guid=$g,initiator_ext=$SRP_LOGINS,dest=$dest:$SRP_PORT,src=$src"
	before=$(ls /sys/block)
	echo "+ echo $target > /sys/class/infiniband_srp/srp-rxea-1/add_target"
	echo "$target" > /sys/class/infiniband_srp/srp-rxea-1/add_target || return 1
	wait_for 30 new_disk "$before" && dev=$(new_disk "$before") &&
		wait_for 10 test -b "/dev/$dev" && disk_write_read "$dev" srp || rc=1
	for port in /sys/class/srp_remote_ports/port-*; do
		[ -e "$port/delete" ] && echo 1 > "$port/delete"
	done
	wait_for 30 no_srp_ports || rc=1
	return $rc
}

srp_down() {
	local tpg acl

	tpg=$(srp_tpg)
	echo 0 > "$tpg/enable"
	for acl in $B4 "$(gid_of $B6)"; do
		rm -f "$tpg/acls/$acl/lun_0/srp"
		rmdir "$tpg/acls/$acl/lun_0" "$tpg/acls/$acl"
	done
	rm -f "$tpg/lun/lun_0/srp"
	rmdir "$tpg/lun/lun_0" "$tpg" "${tpg%/*}"
	echo 0 > $CFG/srpt/discovery_auth/rdma_cm_port
	rmdir $CFG/srpt $CFG/core/rd_mcp_0/srp
	step vm_modprobe -r ib_srp ib_srpt
}

# ---- NFS over RDMA: nfsd's rdma listener on NFS_PORT, a proto=rdma mount ----

nfs_up() {
	nfs_server_up
}

# nfs_data FAMILY: B's export mounted over FAMILY, DATA_MB written, read
# back and found in the export.
nfs_data() {
	if [ "$1" = 6 ]; then
		nfs_write_read "$B6" $DATA_MB /tmp/nfs-export
	else
		nfs_write_read "$B4" $DATA_MB /tmp/nfs-export
	fi
}

nfs_down() {
	nfs_server_down
}

# ---- iSER: LIO's iSCSI target with iser portals, open-iscsi's iser iface ----

iscsiadm() {
	step "$TOOLROOT/sbin/iscsiadm" "$@"
}

iser_up() {
	local tpg=$CFG/iscsi/$IQN/tpgt_1 np a

	step vm_modprobe -a target_core_mod iscsi_target_mod ib_isert ib_iser sd_mod crc32c &&
		lio_ramdisk iser || return 1
	mkdir -p "$tpg/lun/lun_0" && ln -s $CFG/core/rd_mcp_0/iser "$tpg/lun/lun_0/iser" || return 1
	for np in "$B4:$ISCSI_PORT" "[$B6]:$ISCSI_PORT"; do
		mkdir "$tpg/np/$np" && echo 1 > "$tpg/np/$np/iser" || return 1
	done
	for a in authentication=0 generate_node_acls=1 demo_mode_write_protect=0 cache_dynamic_acls=1; do
		echo "${a#*=}" > "$tpg/attrib/${a%=*}" || return 1
	done
	echo 1 > "$tpg/enable" || return 1
	mkdir -p /etc/iscsi /run/lock/iscsi || return 1
	cp "$TOOLROOT/etc/iscsi/iscsid.conf" /etc/iscsi/ &&
		echo "InitiatorName=$IQN:a" > /etc/iscsi/initiatorname.iscsi || return 1
	# a session of its own: iscsid's shutdown signals its process group
	echo "+ setsid iscsid -f &"
	setsid "$TOOLROOT/sbin/iscsid" -f > "$LOGS/iscsid.log" 2>&1 &
	ISCSID=$!
	wait_for 10 grep -q @ISCSIADM_ABSTRACT_NAMESPACE /proc/net/unix
}

iser_data() {
	local portal before dev rc=0

	if [ "$1" = 6 ]; then portal="[$B6]:$ISCSI_PORT"; else portal="$B4:$ISCSI_PORT"; fi
	before=$(ls /sys/block)
	iscsiadm -m node -o new -T $IQN -p "$portal" -I iser > /dev/null &&
		iscsiadm -m node -T $IQN -p "$portal" -I iser --login || return 1
	wait_for 30 new_disk "$before" && dev=$(new_disk "$before") &&
		wait_for 10 test -b "/dev/$dev" && disk_write_read "$dev" iser || rc=1
	ISER_PORTAL=$portal
	return $rc
}

# The logout has a race of stock 6.12 (drivers/infiniband/ulp/isert): when
# the target's send of the logout response completes in error, flushed
# because the initiator's disconnect came first, isert_put_cmd() releases
# the logout command while it is still on the connection's list, and
# iscsit_release_cmd() says so with a WARN_ON.  Seen in 2 of about 14 runs
# under TCG on a busy host, with panic_on_warn a panic.  So panic_on_warn
# is off for the logout alone, and after it: that WARN and nothing else is
# a skip with its reason (and the RDMA counters, to learn why the response
# was not yet acknowledged); any other report fails.  The race also leaves
# the target's session behind (its logout handler never ran: once, on
# Debian's kernel); without the WARN a session left is a failure.
ISER_WARN='WARNING: .* at drivers/target/iscsi/iscsi_target_util\.c:[0-9]+ iscsit_release_cmd\+'
ISER_RACES=0

# iser_session_gone: the target has no session left.
iser_session_gone() {
	[ -z "$(tr -d '\n' < $CFG/iscsi/$IQN/tpgt_1/dynamic_sessions)" ]
}

# iser_close FAMILY LABEL: iser_data's session logged out and its node
# deleted, with the result (pass, skip or fail) of the logout's reports.
iser_close() {
	local what="iSER over IPv$1 under $2: logout" at reports rc=0 warn gone=1

	[ -n "${ISER_PORTAL:-}" ] || return 0
	at=$(dmesg | wc -l)
	read -r warn < /proc/sys/kernel/panic_on_warn
	step sysctl -qw kernel.panic_on_warn=0
	iscsiadm -m node -T $IQN -p "$ISER_PORTAL" -I iser --logout || rc=1
	iscsiadm -m node -o delete -T $IQN -p "$ISER_PORTAL" -I iser || rc=1
	wait_for 10 iser_session_gone || gone=0
	step sysctl -qw kernel.panic_on_warn="$warn"
	ISER_PORTAL=
	reports=$(kernel_reports "$at")
	if [ $rc = 0 ] && [ -n "$reports" ] && ! grep -Evq "$ISER_WARN" <<< "$reports"; then
		ISER_RACES=$((ISER_RACES + 1))
		known_report "$ISER_WARN"
		echo "$reports"
		step rdma statistic show link rxea/1
		step rdma statistic show link rxeb/1
		[ $gone = 1 ] || echo "# the target's session outlived the logout"
		skip "$what: stock 6.12's isert logout race (WARN in iscsit_release_cmd), not judged"
		return
	fi
	[ -z "$reports" ] || echo "$reports"
	check "$what, no kernel report" test $rc = 0 -a $gone = 1 -a -z "$reports"
}

iser_down() {
	local tpg=$CFG/iscsi/$IQN/tpgt_1 np

	iscsiadm -k 0
	wait_for 10 gone "$ISCSID"
	echo 0 > "$tpg/enable"
	for np in "$B4:$ISCSI_PORT" "[$B6]:$ISCSI_PORT"; do
		rmdir "$tpg/np/$np"
	done
	rm -f "$tpg/lun/lun_0/iser"
	rmdir "$tpg/lun/lun_0" "$tpg" "${tpg%/*}" $CFG/iscsi $CFG/core/rd_mcp_0/iser
	step vm_modprobe -r ib_iser ib_isert iscsi_target_mod
}

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

# ---- the verdict ----

# What each consumer is: its description, the rule its connections get,
# its address families, the fewest connections per family, and which of a
# capture's connections are its own (a jq condition).
declare -A WHAT RULE FAMS MIN SELECT
WHAT=([srp]="SRP" [nfs]="NFS over RDMA" [iser]="iSER" [rds]="RDS" [smc]="SMC-R v2")
RULE=([srp]=cm_ports [nfs]=cm_ports [iser]=cm_ports [rds]=cm_ports [smc]=qpns)
FAMS=([srp]="4 6" [nfs]="4 6" [iser]="4 6" [rds]="4 6" [smc]=4)
MIN=([srp]=1 [nfs]=1 [iser]=1 [rds]=1 [smc]=2)
SELECT=([srp]=".cm_ports[1] == $SRP_PORT" [nfs]=".cm_ports[1] == $NFS_PORT"
	[iser]=".cm_ports[1] == $ISCSI_PORT"
	[rds]=".cm_ports[1] == 18634 or .cm_ports[1] == 16385" [smc]=".cm_ports == null")

# judged NAME FAMILY: NAME's connections over IPv FAMILY in the capture: at
# least its MIN, every one agreeing with its policy, judged by its RULE,
# with data.
judged() {
	local sel n bad

	if [ "$2" = 6 ]; then sel='(.src | contains(":"))'; else sel='(.src | contains(":") | not)'; fi
	sel="[.connections[] | select(($sel) and (${SELECT[$1]}))]"
	n=$(jq "$sel | length" "$CAP.json")
	bad=$(jq --arg rule "${RULE[$1]}" "$sel | map(select(.verdict != \"ok\" or .mismatched != 0 or
		(.judged_by | index(\$rule) | not) or
		.forward.data_packets + (.reverse.data_packets // 0) == 0)) | length" "$CAP.json")
	echo "  ${WHAT[$1]}, IPv$2: $n connections, $bad not as predicted by ${RULE[$1]}"
	[ "$n" -ge "${MIN[$1]}" ] && [ "$bad" = 0 ]
}

# all_judged: every connection of the capture agrees, none is left over.
all_judged() {
	local n ok

	n=$(jq '.connections | length' "$CAP.json")
	ok=$(jq '[.connections[] | select(.verdict == "ok")] | length' "$CAP.json")
	echo "  $n connections, $ok agree"
	[ "$n" -gt 0 ] && [ "$n" = "$ok" ]
}

# disagrees POLICY: judged under POLICY, the capture disagrees (exit 1):
# the verdict tells policies apart.
disagrees() {
	local rc=0

	"$TOOL" pcap "$CAP" --policy "$1" > /dev/null 2>&1 || rc=$?
	[ $rc = 1 ]
}

# pass POLICY: POLICY on every port, then in one capture each consumer's
# data path (NAME_load first, where a consumer has one) over each of its
# families, NAME_unload after the capture; each consumer's connections
# judged.
pass() {
	local policy=$1 label=$1 name fam ifs=(a1) dev

	[ "$entropy_stock" != 1 ] || label="builtin (stock 6.12)"
	if [ "$entropy_stock" != 1 ]; then
		for dev in /sys/class/infiniband/*/ports/1/roce_entropy; do
			echo "+ echo $policy > $dev"
			echo "$policy" > "$dev" || { check "$policy on every port" false; return; }
		done
	fi
	[[ " ${UP[*]} " != *" smc "* ]] || ifs+=(a3)
	capture_start "consumers-$policy" "${ifs[@]}"
	for name in "${UP[@]}"; do
		if declare -F "${name}_load" > /dev/null; then
			check "${WHAT[$name]} under $label: module loaded" "${name}_load"
		fi
		for fam in ${FAMS[$name]}; do
			check "${WHAT[$name]} over IPv$fam under $label: data moved and checked" "${name}_data" "$fam"
			[ "$(type -t "${name}_close")" != function ] || "${name}_close" "$fam" "$label"
		done
	done
	capture_end
	# Unloaded after the capture: a module's teardown is not its data
	# path.  Both ends of SMC-R run in this kernel, and its last LLC
	# message over a link whose other end is already gone is retransmitted
	# until the QP goes, one-way packets no rule can judge.
	for name in "${UP[@]}"; do
		if declare -F "${name}_unload" > /dev/null; then
			check "${WHAT[$name]} under $label: module unloads" "${name}_unload"
		fi
	done
	"$TOOL" pcap "$CAP" --policy "$policy" --json > "$CAP.json" 2> "$CAP.err"
	for name in "${UP[@]}"; do
		for fam in ${FAMS[$name]}; do
			check "${WHAT[$name]} over IPv$fam under $label: every connection on its port (and flow label)" \
				judged "$name" "$fam"
		done
	done
	[[ " ${UP[*]} " != *" smc "* ]] ||
		check "SMC-R v2 under $label: the link group has a link over each device pair" smc_links
	check "under $label: every connection of the capture agrees" all_judged
	check "under $label: the same capture judged under off disagrees" disagrees off
}

dmesg_at=$(dmesg | wc -l)
[ "$entropy_stock" = 1 ] || read -r policy0 < /sys/class/infiniband/rxea/ports/1/roce_entropy
check "the booted kernel's modules load on demand" modules_visible
check "host lookups between A and B go through the router" via_router
check "/etc and /var/lib writable for the daemons (overlays in the guest)" eval "writable /etc && writable /var/lib"
UP=()
for name in srp nfs iser rds smc; do
	[[ ",$CONSUMERS," == *",$name,"* ]] || continue
	failed=$KTAP_CNT_FAIL
	check "${WHAT[$name]}: set up" "${name}_up"
	if [ "$KTAP_CNT_FAIL" = "$failed" ]; then
		UP+=("$name")
	else
		"${name}_down"
	fi
done
! ulps_rebuilt ||
	check "the consumers set up are built against the series' headers" ulps_loaded_rebuilt
for policy in $POLICIES; do
	pass "$policy"
done
for name in "${UP[@]}"; do
	check "${WHAT[$name]}: torn down" "${name}_down"
done
step via_router undo
writable_undo
# the ports' policy as the test found it (the next test may read it)
[ "$entropy_stock" = 1 ] || step set_policy "$policy0"
# iser_close judged the logouts' reports
if [ "$ISER_RACES" = 0 ]; then
	check "no kernel report" kernel_reports "$dmesg_at"
else
	check "no kernel report but the isert logout race's ($ISER_RACES)" \
		kernel_reports "$dmesg_at" "$ISER_WARN"
fi
done_testing
