#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# NFS over RDMA in a mixed fleet, two guests (vm/pair.sh): near on our
# modules, far stock (RTE_FAR=stock, judged as builtin) or ours under
# RTE_FAR_POLICY (RTE_FAR=ours).  Each guest's nfsd exports a tmpfs over
# RDMA; under each of near's policies (RTE_MIXED_NFS_POLICIES, default
# builtin,off,rfc,mix,rfc+repath) near mounts far's export and far mounts
# near's, over IPv4 and IPv6, writes 1 MiB of random data and reads it
# back the same.  Every mount's rdma_cm connection is captured and judged,
# each packet under its sender's policy.
. "$rte_repo/tools/testing/lib.sh"

MB=1

dmesg_at=$(dmesg | wc -l)
if ! pair_start; then
	done_testing
	exit
fi
check "near's /etc and /var/lib writable for the NFS daemons (overlays in the guest)" \
	eval "writable /etc && writable /var/lib"
check "far's /etc and /var/lib writable for the NFS daemons" remote eval "writable /etc && writable /var/lib"
check "far's nfsd exports a tmpfs over RDMA" remote nfs_server_up
check "near's nfsd exports a tmpfs over RDMA" nfs_server_up
for p in $(echo "${RTE_MIXED_NFS_POLICIES:-builtin,off,rfc,mix,rfc+repath}" | tr , ' '); do
	label="near under $p, far $FAR_KIND under $FAR_POLICY"
	check "near's rxea under $p" near_knobs "$p" || continue
	moves=$(repath_total rxea)
	capture_start "nfs-${p/+/-}"
	check "IPv4, $label, near's client: $MB MiB written to far's export and read back the same" \
		nfs_write_read $B4 $MB
	check "IPv6, $label, near's client: $MB MiB written to far's export and read back the same" \
		nfs_write_read $B6 $MB
	check "IPv4, $label, far's client: $MB MiB written to near's export and read back the same" \
		remote nfs_write_read $A4 $MB
	check "IPv6, $label, far's client: $MB MiB written to near's export and read back the same" \
		remote nfs_write_read $A6 $MB
	capture_end
	judged_ulps "$p" $NFS_PORT 1 "$label" "client: its mount's connection" \
		$(($(repath_total rxea) - moves))
done
step near_knobs builtin
check "near's nfsd stops and its modules unload" nfs_server_down
check "far's nfsd stops and its modules unload" remote nfs_server_down
step writable_undo
step remote writable_undo
check "no kernel report on near" kernel_reports "$dmesg_at"
done_testing
