#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NFS over RDMA in a mixed fleet, two guests (vm/pair.sh): near on our
# modules, far stock (lib.sh's ENTROPY_FAR=stock, judged as builtin) or ours
# under ENTROPY_FAR_POLICY (ENTROPY_FAR=ours).  Each guest's nfsd exports a tmpfs
# over RDMA; under each of near's policies (ENTROPY_MIXED_NFS_POLICIES) near
# mounts far's export and far mounts near's, over IPv4 and IPv6, writes 1
# MiB of random data and reads it back the same.  Every mount's rdma_cm
# connection is captured and judged, each packet under its sender's
# policy.  The shape is mixed-nvme.sh's too (common/mixed-ulp.sh).
#
# The mixed row runs it against a stock host under mix alone: each policy
# under one kernel consumer (mixed-nvme.sh has off and rfc), whose rdma_cm
# RC connections follow the same rules.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_MIXED_NFS_POLICIES   near's policies, commas between (default
#                            builtin,off,rfc,mix,rfc+repath)
STACKS="dist-pair"
CPUS=1
: "${ENTROPY_MIXED_NFS_POLICIES:=builtin,off,rfc,mix,rfc+repath}"
requires() {
	_have_pair near
	_have_knob
	_have_module nfsd nfsv4 rpcrdma
}
. "$entropy_repo/tools/testing/lib.sh"

. "$entropy_repo/tools/testing/common/mixed-ulp.sh"

# ulp_up, ulp_down: the NFS servers of both guests, for mixed_ulp.
ulp_up() {
	check "near's /etc and /var/lib writable for the NFS daemons (overlays in the guest)" \
		eval "writable /etc && writable /var/lib"
	check "far's /etc and /var/lib writable for the NFS daemons" remote eval "writable /etc && writable /var/lib"
	check "far's nfsd exports a tmpfs over RDMA" remote nfs_server_up
	check "near's nfsd exports a tmpfs over RDMA" nfs_server_up
}

ulp_down() {
	check "near's nfsd stops and its modules unload" nfs_server_down
	check "far's nfsd stops and its modules unload" remote nfs_server_down
	step writable_undo
	step remote writable_undo
}

mixed_ulp nfs "$ENTROPY_MIXED_NFS_POLICIES" "$NFS_PORT" 1 client "GUEST's export" \
	"client: its mount's connection" nfs_write_read SERVER MB
