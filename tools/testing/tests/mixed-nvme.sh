#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NVMe over RDMA in a mixed fleet, two guests (vm/pair.sh): near on our
# modules, far stock (RTE_FAR=stock, judged as builtin) or ours under
# RTE_FAR_POLICY (RTE_FAR=ours).  Each guest exports a null_blk namespace
# (nvmet-rdma); under each of near's policies (RTE_MIXED_NVME_POLICIES,
# default builtin,off,rfc,mix,rfc+repath) near's nvme-rdma connects to
# far's target and far's to near's, over IPv4 and IPv6, writes 1 MiB of
# random data and reads it back the same.  Every queue's rdma_cm
# connection is captured and judged, each packet under its sender's
# policy.
. "$rte_repo/tools/testing/lib.sh"

MB=1

dmesg_at=$(dmesg | wc -l)
if ! pair_start; then
	done_testing
	exit
fi
check "far's nvmet-rdma exports a null_blk namespace on $B4 and $B6" remote target_up $B4 $B6
check "near's nvmet-rdma exports a null_blk namespace on $A4 and $A6" target_up $A4 $A6
for p in $(echo "${RTE_MIXED_NVME_POLICIES:-builtin,off,rfc,mix,rfc+repath}" | tr , ' '); do
	label="near under $p, far $FAR_KIND under $FAR_POLICY"
	check "near's rxea under $p" near_knobs "$p" || continue
	moves=$(repath_total rxea)
	capture_start "nvme-${p/+/-}"
	check "IPv4, $label, near's host: $MB MiB written to far and read back the same" \
		write_read $B4 $A4 $MB
	check "IPv6, $label, near's host: $MB MiB written to far and read back the same" \
		write_read $B6 $A6 $MB
	check "IPv4, $label, far's host: $MB MiB written to near and read back the same" \
		remote write_read $A4 $B4 $MB
	check "IPv6, $label, far's host: $MB MiB written to near and read back the same" \
		remote write_read $A6 $B6 $MB
	capture_end
	judged_ulps "$p" $NVME_SVC 2 "$label" "host: every queue's connection" \
		$(($(repath_total rxea) - moves))
done
step near_knobs builtin
check "near's nvmet and nvme-rdma unload" target_down
check "far's nvmet and nvme-rdma unload" remote target_down
check "no kernel report on near" kernel_reports "$dmesg_at"
done_testing
