#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over RDMA, a kernel consumer nobody here wrote: nvmet-rdma exports a
# memory-backed null_blk namespace on rxeb's address, nvme-rdma on rxea
# connects through the router (nvme-cli), writes random data and reads it
# back; IPv4, then IPv6.  Every rdma_cm connection of the NVMe queues
# (admin and I/O, both ways, CM messages included) is captured and judged
# by roce-entropy pcap under the ports' policy (ENTROPY_NVME_POLICY).  Needs a
# kernel with nvmet-rdma, nvme-rdma and null_blk as modules: the test
# kernel's (over our RDMA stack) or the distribution's.
#
# nvme-rdma makes one I/O queue per CPU (lib.sh's IO_QUEUES at most): two
# CPUs give it two.  make check runs it in hardening, and the debug
# kernel's lifecycle row.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_NVME_POLICY   the ports' policy (default rfc)
STACKS="ours compat dist"
CPUS=2  # an I/O queue per CPU
: "${ENTROPY_NVME_POLICY:=rfc}"
requires() {
	_have_knob
	_have_module nvmet nvmet-rdma nvme-rdma null_blk
}
. "$entropy_repo/tools/testing/lib.sh"

POLICY=$ENTROPY_NVME_POLICY

# judged FAMILY: the NVMe connections of FAMILY (4 or 6) in the capture:
# at least the admin queue and the I/O queues (nvme-rdma makes no more than
# one per CPU), every one with data and
# every packet on its predicted port (and flow label).
judged() {
	local sel n bad

	if [ "$1" = 6 ]; then sel='(.src | contains(":"))'; else sel='(.src | contains(":") | not)'; fi
	sel="[.connections[] | select($sel and .cm_ports[1] == $NVME_SVC)]"
	n=$(jq "$sel | length" "$CAP.json")
	bad=$(jq "$sel | map(select(.consistent != true or .mismatched != 0 or .forward.data_packets == 0)) | length" \
		"$CAP.json")
	echo "  IPv$1: $n NVMe connections, $bad not as predicted"
	[ "$n" -ge $((io_queues + 1)) ] && [ "$bad" = 0 ]
}

io_queues=$(($(nproc) < IO_QUEUES ? $(nproc) : IO_QUEUES))
dmesg_at=$(dmesg | wc -l)
step set_policy "$POLICY"
check "nvmet-rdma exports a null_blk namespace on $B4 and $B6" target_up $B4 $B6
capture_start nvme
check "nvme-rdma over IPv4: $NVME_MB MiB written and read back the same" write_read $B4 $A4
check "nvme-rdma over IPv6: $NVME_MB MiB written and read back the same" write_read $B6 $A6
capture_end
"$TOOL" pcap "$CAP" --policy "$POLICY" --json > "$CAP.json" 2> "$CAP.err"
check "the capture was judged" test -s "$CAP.json"
check "IPv4: every NVMe queue's connection on its $POLICY port" judged 4
check "IPv6: every NVMe queue's connection on its $POLICY port and flow label" judged 6
check "nvmet and nvme-rdma unload" target_down
check "no kernel report" kernel_reports "$dmesg_at"
done_testing
