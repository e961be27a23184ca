#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe over RDMA in a mixed fleet, two guests (vm/pair.sh): near on our
# modules, far stock (lib.sh's ENTROPY_FAR=stock, judged as builtin) or ours
# under ENTROPY_FAR_POLICY (ENTROPY_FAR=ours).  Each guest exports a null_blk
# namespace (nvmet-rdma); under each of near's policies
# (ENTROPY_MIXED_NVME_POLICIES) near's nvme-rdma connects to far's target and
# far's to near's, over IPv4 and IPv6, writes 1 MiB of random data and
# reads it back the same.  Every queue's rdma_cm connection is captured
# and judged, each packet under its sender's policy.  The shape is
# mixed-nfs.sh's too (common/mixed-ulp.sh).
#
# The mixed row runs it against a stock host under off and rfc with
# re-path: each policy under one kernel consumer (mixed-nfs.sh has mix),
# whose rdma_cm RC connections follow the same rules.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_MIXED_NVME_POLICIES   near's policies, commas between (default
#                             builtin,off,rfc,mix,rfc+repath)
STACKS="dist-pair"
CPUS=1
: "${ENTROPY_MIXED_NVME_POLICIES:=builtin,off,rfc,mix,rfc+repath}"
requires() {
	_have_pair near
	_have_knob
	_have_module nvmet nvmet-rdma nvme-rdma null_blk
}
. "$entropy_repo/tools/testing/lib.sh"

. "$entropy_repo/tools/testing/common/mixed-ulp.sh"

# ulp_up, ulp_down: the NVMe targets of both guests, for mixed_ulp.
ulp_up() {
	check "far's nvmet-rdma exports a null_blk namespace on $B4 and $B6" remote target_up $B4 $B6
	check "near's nvmet-rdma exports a null_blk namespace on $A4 and $A6" target_up $A4 $A6
}

ulp_down() {
	check "near's nvmet and nvme-rdma unload" target_down
	check "far's nvmet and nvme-rdma unload" remote target_down
}

mixed_ulp nvme "$ENTROPY_MIXED_NVME_POLICIES" "$NVME_SVC" 2 host GUEST \
	"host: every queue's connection" write_read SERVER CLIENT MB
