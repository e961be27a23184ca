# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The storage consumers of tests/consumers.sh, each a server on B and a
# client on A, with NAME_up, NAME_data FAMILY and NAME_down: SRP (ib_srpt,
# ib_srp), NFS over RDMA (nfs.sh's server and mount) and iSER (LIO's
# ib_isert, open-iscsi over ib_iser; iser_close FAMILY LABEL logs out); and
# the disks SRP and iSER share (new_disk, disk_write_read, lio_ramdisk).
# lib.sh does not load this file: consumers.sh sources it after lib.sh, and
# loading it calls no function.
#
# Needs from consumers.sh CFG, DATA_MB, SRP_PORT, ISCSI_PORT and IQN, and
# ISER_WARN and ISER_RACES (the isert logout race, told there, which
# iser_close counts); from lib.sh step, check, skip, wait_for, LOGS and the
# addresses (base.sh), vm_modprobe (stack.sh), gid_of (topology.sh),
# cm_listening and gone (connections.sh), TOOLROOT (overlays.sh),
# nfs_server_up, nfs_server_down and nfs_write_read (nfs.sh),
# kernel_reports and known_report (reports.sh).

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

# The portal of iser_data's session, until iser_close logs it out.
ISER_PORTAL=
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

# iser_session_gone: the target has no session left.
iser_session_gone() {
	[ -z "$(tr -d '\n' < $CFG/iscsi/$IQN/tpgt_1/dynamic_sessions)" ]
}

# iser_close FAMILY LABEL: iser_data's session logged out and its node
# deleted, with the result (pass, skip or fail) of the logout's reports.
iser_close() {
	local what="iSER over IPv$1 under $2: logout" at reports rc=0 warn gone=1

	[ -n "$ISER_PORTAL" ] || return 0
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
