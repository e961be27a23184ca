#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Many QPs: ENTROPY_QPS_PAIRS RC QP pairs without rdma_cm between rxea and rxeb
# (roce-qps: QPNs swapped by hand, one send per pair), under rfc and mix,
# captured in the router namespace.  Every packet of a pair, both ways, must
# carry the port the policy predicts from the pair's QPNs; the distinct
# ports of the capture must be the predicted number, which is compared with
# the birthday expectation for as many uniformly random ports.
#
# rxe numbers QPs in sequence, and roce-qps creates A's and B's QPs in turn,
# so the pairs' QPNs are sequential and about equal: rfc's weak case
# (Documentation/infiniband/roce_entropy.rst).  Bounds, with E and sd the
# mean and standard deviation of the distinct values among 4096 uniform
# draws from 16384 ports (E = 3624.2, sd = 18.4):
#   mix: within E +- 5 sd, as random ports would be but for a 1 in 1.7
#        million chance;
#   rfc: within E +- 8 sd.  Its ports are a function of products of
#        sequential QPNs, not random draws, so no probability bounds them;
#        over base QPNs 17-20000 (step 7) with the ends 0, 1, 2, 3, 8, 16
#        or 64 apart, rfc gives E - 6.1 sd to E + 3.0 sd (3512-3680), mix
#        E - 4.4 sd to E + 3.0 sd (3544-3660); fresh equal QPNs from
#        0x11, as here, give 3538 (E - 4.7 sd).  8 sd still catches a port
#        that ignores the hash (0xC000 + QPN: 4096 distinct, E + 26 sd) and
#        any collapse onto fewer ports.
# The exact count for the pairs' QPNs is asserted separately: roce-qps
# predicts it.
#
# make check runs it in the consumers row, on the test kernel: on Debian's
# a load and scale test runs the same code under more connections, and
# the KCSAN kernel's router drops a few percent of its 8,192 packets at
# KCSAN's speed (not a race).
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_QPS_PAIRS   the QP pairs, at least 2 (default 4096)
#   ENTROPY_QPS         another roce-qps binary, a build of one's own (default
#                   build/bin/roce-qps)
STACKS="ours"
CPUS=1
: "${ENTROPY_QPS_PAIRS:=4096}"
: "${ENTROPY_QPS:=$entropy_repo/build/bin/roce-qps}"
requires() {
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

QPS=$ENTROPY_QPS
PAIRS=$ENTROPY_QPS_PAIRS

# qps_run POLICY: the pairs under POLICY, captured; roce-qps's report in
# $entropy_out/qps-POLICY.json, the capture's in $CAP.json.
qps_run() {
	local policy=$1 ga gb rc=0 t=$SECONDS

	ga=$(gid_index rxea "$A4") && gb=$(gid_index rxeb "$B4") ||
		{ echo "  no RoCE v2 GID"; return 1; }
	step set_policy "$policy"
	capture_start "qps-$policy"
	echo "+ $QPS --pairs $PAIRS --policy $policy (GID indexes $ga, $gb)"
	timeout 1800 "$QPS" --dev-a rxea --dev-b rxeb --gid-a "$ga" --gid-b "$gb" \
		--pairs "$PAIRS" --batch 256 --timeout 60 --policy "$policy" --json \
		> "$entropy_out/qps-$policy.json" 2> "$entropy_out/qps-$policy.err" || rc=1
	capture_end
	cat "$entropy_out/qps-$policy.err"
	"$TOOL" pcap "$CAP" --policy "$policy" --json > "$CAP.json" 2> "$CAP.err"
	[ -s "$CAP.json" ] || { cat "$CAP.err"; rc=1; }
	echo "  $PAIRS pairs under $policy in $((SECONDS - t)) s (capture and judging included)"
	return $rc
}

# qps_judge POLICY WHAT: WHAT is "sends" (every send completed), "ports"
# (every pair's packets on its predicted port, both ways, and nothing else
# in the capture), "distinct" (the capture's distinct ports are the
# predicted number) or "birthday" (within the bound above).
qps_judge() {
	python3 - "$entropy_out/qps-$1.json" "$CAPS/qps-$1.pcapng.json" "$2" "$A4" "$B4" <<'PY'
import json, sys

qps_file, cap_file, what, a, b = sys.argv[1:]
qps = json.load(open(qps_file))
cap = json.load(open(cap_file))
policy = qps["policy"]
pairs = qps["connections"]

if what == "sends":
    print(f"  roce-qps: {qps['completed']} of {qps['pairs']} sends completed; "
          f"setup {qps['setup_seconds']:.1f} s, traffic {qps['traffic_seconds']:.1f} s")
    sys.exit(0 if qps["completed"] == qps["pairs"] == len(pairs) else 1)

# Without CM, the BTH of an RC packet names only its destination QP: the
# reader pairs the two directions of a QP pair when they carry one port
# that no other stream between the two hosts carries (both QPNs are then
# in the connection, the source's first); pairs that share a port stay one
# connection per direction, of one QPN.  Each direction is looked at here.
groups = {}
paired = 0
for c in cap["connections"]:
    if c["transport"] != "RC" or len(c["qpns"]) not in (1, 2):
        print(f"  unexpected connection in the capture: {c}")
        sys.exit(1)
    if len(c["qpns"]) == 1:
        groups[(c["src"], c["dst"], c["qpns"][0])] = c
        continue
    paired += 1
    for way, (src, dst, qpn) in (("forward", (c["src"], c["dst"], c["qpns"][1])),
                                 ("reverse", (c["dst"], c["src"], c["qpns"][0]))):
        d = c[way]
        groups[(src, dst, qpn)] = {"udp_sports": d["udp_sports"], "packets": d["packets"]}
if what == "ports":
    bad = 0
    seen = set()
    for p in pairs:
        for key in ((a, b, p["qpn_b"]), (b, a, p["qpn_a"])):
            c = groups.get(key)
            seen.add(key)
            if c is None or c["udp_sports"] != [p["udp_sport"]] or c["packets"] < 1:
                bad += 1
                if bad <= 5:
                    print(f"  pair QPNs {p['qpn_a']:#x} {p['qpn_b']:#x} {key[0]} -> {key[1]}: "
                          f"ports {c and c['udp_sports']}, expected {p['udp_sport']:#x}")
    extra = len(groups) - len(seen & set(groups))
    print(f"  {cap['packets']} RoCE v2 packets in {len(groups)} pair directions "
          f"({paired} pairs tied by their port) for {len(pairs)} pairs; "
          f"{bad} pair directions missing or off their port; {extra} groups of no pair; "
          f"{cap['malformed']} malformed frames")
    sys.exit(0 if bad == 0 and extra == 0 and cap["malformed"] == 0 else 1)

predicted = qps["predicted_distinct_udp_sports"]
seen = cap["distinct_udp_sports"]
if what == "distinct":
    print(f"  distinct UDP source ports: {seen} in the capture, {predicted} predicted")
    sys.exit(0 if seen == predicted else 1)

mean, sd = qps["birthday"]["mean"], qps["birthday"]["sd"]
k = 5 if policy == "mix" else 8
z = (seen - mean) / sd
print(f"# {len(pairs)} QP pairs under {policy}: {seen} distinct UDP source ports; "
      f"random ports: {mean:.1f} (sd {sd:.1f}), z = {z:+.2f}, bound +-{k} sd")
sys.exit(0 if abs(z) <= k else 1)
PY
}

[ "$PAIRS" -ge 2 ] || { echo "ENTROPY_QPS_PAIRS must be at least 2"; exit 1; }
for policy in rfc mix; do
	if check "$PAIRS QP pairs under $policy: created, connected, sent" qps_run $policy; then
		check "$PAIRS QP pairs under $policy: every send completed" qps_judge $policy sends
		check "$PAIRS QP pairs under $policy: every packet on its pair's predicted port" \
			qps_judge $policy ports
		check "$PAIRS QP pairs under $policy: distinct ports on the wire as predicted" \
			qps_judge $policy distinct
		check "$PAIRS QP pairs under $policy: distinct ports within the bound of the birthday expectation" \
			qps_judge $policy birthday
	fi
done
step set_policy rfc
done_testing
