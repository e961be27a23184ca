#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over RDMA, a kernel consumer nobody here wrote: nvmet-rdma exports a
# memory-backed null_blk namespace on rxeb's address, nvme-rdma on rxea
# connects through the router (nvme-cli), writes random data and reads it
# back; IPv4, then IPv6.  Every rdma_cm connection of the NVMe queues
# (admin and I/O, both ways, CM messages included) is captured and judged
# by roce-entropy pcap under the ports' policy (RTE_NVME_POLICY, default
# rfc).  Needs a kernel with nvmet-rdma, nvme-rdma and null_blk as modules:
# the test kernel's (over our RDMA stack) or the distribution's.
. "$rte_repo/tools/testing/lib.sh"

POLICY=${RTE_NVME_POLICY:-rfc}
NQN=nqn.2026-11.org.example:roce-entropy
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6f1c2b5e-1a57-4c1e-9d2a-5ad0f00dcafe
CFG=/sys/kernel/config/nvmet
SVC=4420
IO_QUEUES=2
DATA_MB=4

# target_up: the subsystem with its namespace, a port per address family.
target_up() {
	local n=0 fam addr

	step vm_modprobe null_blk nr_devices=1 memory_backed=1 gb=1 &&
		step vm_modprobe -a nvmet nvmet-rdma nvme-rdma || return 1
	{ ! ulps_rebuilt || ulps_loaded_rebuilt; } || return 1
	mountpoint -q /sys/kernel/config || step mount -t configfs none /sys/kernel/config
	wait_for 10 test -b /dev/nullb0 || return 1
	mkdir -p $CFG/subsystems/$NQN/namespaces/1 || return 1
	echo 1 > $CFG/subsystems/$NQN/attr_allow_any_host &&
		echo /dev/nullb0 > $CFG/subsystems/$NQN/namespaces/1/device_path &&
		echo 1 > $CFG/subsystems/$NQN/namespaces/1/enable || return 1
	for fam in ipv4 ipv6; do
		n=$((n + 1))
		if [ $fam = ipv4 ]; then addr=$B4; else addr=$B6; fi
		mkdir $CFG/ports/$n &&
			echo rdma > $CFG/ports/$n/addr_trtype &&
			echo $fam > $CFG/ports/$n/addr_adrfam &&
			echo "$addr" > $CFG/ports/$n/addr_traddr &&
			echo $SVC > $CFG/ports/$n/addr_trsvcid &&
			ln -s $CFG/subsystems/$NQN $CFG/ports/$n/subsystems/$NQN || return 1
	done
}

# target_down: the ports, the subsystem, the modules.
target_down() {
	local p

	for p in $CFG/ports/*; do
		[ -d "$p" ] || continue
		rm -f "$p/subsystems/$NQN"
		rmdir "$p"
	done
	echo 0 > $CFG/subsystems/$NQN/namespaces/1/enable 2>/dev/null
	rmdir $CFG/subsystems/$NQN/namespaces/1 $CFG/subsystems/$NQN 2>/dev/null
	step vm_modprobe -r nvmet-rdma nvmet nvme-rdma null_blk
}

# namespace: the block device of $NQN's namespace on the host side.
namespace() {
	local c n

	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $NQN ] || continue
		for n in "$c"/nvme*n1; do
			n=${n##*/}
			[[ $n =~ ^nvme[0-9]+(c[0-9]+)?n1$ ]] || continue
			echo "${n/c[0-9]*n/n}"
			return 0
		done
		return 0
	done
	return 1
}

# write_read ADDR HOSTADDR: connect to the target at ADDR from HOSTADDR,
# write DATA_MB of random data, read it back and compare, disconnect.
write_read() {
	local dev rc=0

	step nvme connect -t rdma -a "$1" -w "$2" -s $SVC -n $NQN --hostnqn=$HOSTNQN --hostid=${HOSTNQN##*:} \
		-i $IO_QUEUES || return 1
	wait_for 30 namespace && dev=/dev/$(namespace) && wait_for 10 test -b "$dev" || rc=1
	if [ $rc = 0 ]; then
		head -c $((DATA_MB << 20)) /dev/urandom > /tmp/nvme.in
		step dd if=/tmp/nvme.in of="$dev" bs=1M oflag=direct status=none &&
			step dd if="$dev" of=/tmp/nvme.out bs=1M count=$DATA_MB iflag=direct status=none &&
			step cmp /tmp/nvme.in /tmp/nvme.out || rc=1
	fi
	step nvme disconnect -n $NQN > /dev/null || rc=1
	return $rc
}

# judged FAMILY: the NVMe connections of FAMILY (4 or 6) in the capture:
# at least the admin queue and the I/O queues (nvme-rdma makes no more than
# one per CPU), every one with data and
# every packet on its predicted port (and flow label).
judged() {
	local sel n bad

	if [ "$1" = 6 ]; then sel='(.src | contains(":"))'; else sel='(.src | contains(":") | not)'; fi
	sel="[.connections[] | select($sel and .cm_ports[1] == $SVC)]"
	n=$(jq "$sel | length" "$CAP.json")
	bad=$(jq "$sel | map(select(.consistent != true or .mismatched != 0 or .forward.data_packets == 0)) | length" \
		"$CAP.json")
	echo "  IPv$1: $n NVMe connections, $bad not as predicted"
	[ "$n" -ge $((io_queues + 1)) ] && [ "$bad" = 0 ]
}

io_queues=$(($(nproc) < IO_QUEUES ? $(nproc) : IO_QUEUES))
dmesg_at=$(dmesg | wc -l)
step set_policy "$POLICY"
check "nvmet-rdma exports a null_blk namespace on $B4 and $B6" target_up
capture_start nvme
check "nvme-rdma over IPv4: $DATA_MB MiB written and read back the same" write_read $B4 $A4
check "nvme-rdma over IPv6: $DATA_MB MiB written and read back the same" write_read $B6 $A6
capture_end
"$TOOL" pcap "$CAP" --policy "$POLICY" --json > "$CAP.json" 2> "$CAP.err"
check "the capture was judged" test -s "$CAP.json"
check "IPv4: every NVMe queue's connection on its $POLICY port" judged 4
check "IPv6: every NVMe queue's connection on its $POLICY port and flow label" judged 6
check "nvmet and nvme-rdma unload" target_down
check "no kernel report" kernel_reports "$dmesg_at"
done_testing
