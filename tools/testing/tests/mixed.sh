#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A mixed fleet: two guests (vm/pair.sh), near on our modules, far on the
# kernel's own (lib.sh's ENTROPY_FAR=stock, judged as builtin) or on ours under
# ENTROPY_FAR_POLICY (ENTROPY_FAR=ours).  Under each of near's policies
# (ENTROPY_MIXED_POLICIES) and with each side active in turn, every connection
# type over IPv4 and IPv6 comes up and moves data, and each packet carries
# what its sender's policy predicts: "roce-entropy pcap --policy-for"
# judges each direction under its sender's policy, rdma_cm's flow label
# under the active side's (the CM REQ carries it to the passive side).  The
# types:
#   rping        rdma_cm RC (rdma-core's);
#   udaddy       rdma_cm UD (SIDR);
#   rc_pingpong  ibv_rc_pingpong, RC without CM;
#   ud_pingpong  ibv_ud_pingpong, UD without CM.
# Each connection's ports and flow labels, each way, are printed: the
# table in Documentation/infiniband/roce_entropy.rst ("A mixed fleet")
# comes from them.  The capture is near's router's, on a1: every packet
# between A and B crosses it once.
#
# The mixed row runs it against a stock host under off, rfc, and mix with
# re-path on (builtin against stock is rolling.sh's second phase); the
# rolling row after the rolling upgrade, both hosts ours and far under rfc
# (ENTROPY_FAR=ours ENTROPY_FAR_POLICY=rfc), near under mix and off: two policies
# against each other, the test kernel's build against DKMS's.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_MIXED_POLICIES   near's policies, commas between (default
#                        builtin,off,rfc,mix,rfc+repath)
STACKS="dist-pair stock-dist-pair"
CPUS=1
: "${ENTROPY_MIXED_POLICIES:=builtin,off,rfc,mix,rfc+repath}"
requires() {
	_have_pair near
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

t0=$SECONDS
if ! pair_start; then
	done_testing
	exit
fi
for p in $(echo "$ENTROPY_MIXED_POLICIES" | tr , ' '); do
	check "near's rxea under $p" near_knobs "$p" || continue
	for act in near far; do
		pass "$p" $act
	done
done
step near_knobs builtin
echo "# mixed.sh: $((SECONDS - t0)) s"
done_testing
