#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Toggle storm: ENTROPY_STORM_WRITES writes to each port's knob (rxea and rxeb),
# cycling through ENTROPY_STORM_POLICIES with the two ports a step apart, while
# 16 rdma_cm connections move data: 8 long ones (roce-ping --until, IPv4
# and IPv6) and 8 that connect, ping and disconnect over and over (4 loops
# of 2).  The writes are spread over at least ENTROPY_STORM_SECONDS, so that
# many connections start and end during the storm.  Everything is captured
# in the router namespace.  Every client must complete, the kernel must
# stay quiet, and each connection's packets (CM MADs and data, both ways)
# must keep the one UDP source port that some policy gives its CM ports: a
# change of policy reaches new connections only.  The exception, by
# design, is a connection whose route was resolved under off: rdma_cm
# gives it no flow label, its CM MADs stay on the base port, and its QPs
# follow their host's policy when they get their address (the RFC's rule
# for a QP without a flow label); each direction keeps one port, and the
# storm reports how many such connections there were.  Before the storm,
# the same judgement of one connection between ports whose policies
# differ.
#
# A race test: on one CPU rxe's completer and responder never run at the
# same moment.  hardening runs 30 s in make check, for its time; the KCSAN
# kernel's races row the default 60 s, the depth that finds races.  On the
# test kernel only: a load test runs the same code under more connections.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_STORM_WRITES     writes to each port's knob (default 10000)
#   ENTROPY_STORM_SECONDS    the writes last at least this long (default 60)
#   ENTROPY_STORM_POLICIES   the cycle, commas between (default off,rfc,mix)
STACKS="ours"
CPUS=2  # races
: "${ENTROPY_STORM_WRITES:=10000}"
: "${ENTROPY_STORM_SECONDS:=60}"
: "${ENTROPY_STORM_POLICIES:=off,rfc,mix}"
requires() {
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

WRITES=$ENTROPY_STORM_WRITES
PACE=$ENTROPY_STORM_SECONDS
POLICIES=$ENTROPY_STORM_POLICIES
STOP=/tmp/storm.stop
LONG_PER_FAMILY=4
LOOPS=4 # of 2 connections each
STORM_CONNECTIONS=0 STORM_DMESG_AT=0


# short_loop I SERVER BIND: connect 2, ping 20 times, disconnect, until the
# storm ends; counts runs and failures in /tmp/short-I.
short_loop() {
	local i=$1 runs=0 failed=0

	while [ ! -e $STOP ]; do
		if ! timeout 120 "$PING" client --bind "$3" --server "$2" --connections 2 \
			--messages 20 > "/tmp/short-$i-$runs.log" 2>&1; then
			failed=$((failed + 1))
			cp "/tmp/short-$i-$runs.log" "$entropy_out/storm-short-$i-$runs.log"
		fi
		runs=$((runs + 1))
	done
	echo "$runs $failed" > "/tmp/short-$i"
}

# storm: the writes, paced to last at least $PACE s; prints its figures.
storm() {
	python3 - "$WRITES" "$PACE" "$POLICIES" <<'PY'
import os, sys, time

writes, pace = int(sys.argv[1]), float(sys.argv[2])
knobs = [f"/sys/class/infiniband/{dev}/ports/1/roce_entropy" for dev in ("rxea", "rxeb")]
names = sys.argv[3].split(",")
start = time.monotonic()
busy = 0.0
for i in range(writes):
    t = time.monotonic()
    for k, knob in enumerate(knobs):
        fd = os.open(knob, os.O_WRONLY)
        try:
            os.write(fd, (names[(i + k) % len(names)] + "\n").encode())
        finally:
            os.close(fd)
    busy += time.monotonic() - t
    delay = start + (i + 1) * pace / writes - time.monotonic()
    if delay > 0:
        time.sleep(delay)
took = time.monotonic() - start
last = [open(k).read().strip() for k in knobs]
want = [names[(writes - 1 + k) % len(names)] for k in range(2)]
print(f"  {2 * writes} knob writes in {took:.1f} s ({busy:.1f} s of it writing: "
      f"{busy / (2 * writes) * 1e6:.0f} us a write); last values {last}, expected {want}")
print(f"# toggle storm: {2 * writes} knob writes ({','.join(names)}) on rxea and rxeb "
      f"in {took:.1f} s")
sys.exit(0 if last == want else 1)
PY
}

# judge WANT ALLOWED [SUMMARY]: WANT connections in $CAP, as many as the
# clients made, each of a kind in ALLOWED (comma-separated, "*" matches the
# rest of a kind).  The kinds, from the ports that roce-entropy predicts:
#   off, rfc, mix     every packet, CM MADs and data, both ways, on the one
#                     port (and IPv6 flow label) the policy gives the CM ports;
#   under-off:F/R     made under off (CM MADs both ways on the base port),
#                     data sent forward and back from QPs whose host was
#                     under policy F and R when they got their address: one
#                     port each way, the one that policy gives the QPNs.
# SUMMARY names a "#" line with the figures.
judge() {
	"$TOOL" pcap "$CAP" --json > "$CAP.json" 2> "$CAP.err"
	[ -s "$CAP.json" ] || { cat "$CAP.err"; return 1; }
	python3 - "$CAP.json" "$1" "$2" "${3:-}" <<'PY'
import collections, fnmatch, json, sys

cap = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
allowed = sys.argv[3].split(",")
summary = sys.argv[4]
POLICIES = ("off", "rfc", "mix")

def kind(c):
    p = c["predicted"]
    fwd, rev = c["forward"], c["reverse"]
    if not c["cm_ports"] or c["cm_mads"] < 2 or not fwd["packets"] or not rev["packets"]:
        return None
    for name in POLICIES:
        cm = p[name]["cm"]
        if c["udp_sports"] == [cm["udp_sport"]] and c["flow_labels"] in ([], [cm["flow_label"]]):
            return name
    # Made under off: the CM MADs on the base port, the data on a QPN port.
    if "qpn" not in p["off"]:
        return None
    if set(fwd["cm_udp_sports"] + rev["cm_udp_sports"]) != {p["off"]["cm"]["udp_sport"]}:
        return None
    ways = []
    for d in (fwd, rev):
        names = [n for n in POLICIES if d["data_udp_sports"] == [p[n]["qpn"]["udp_sport"]]]
        labels = {0} | {p[n]["qpn"]["flow_label"] for n in names}
        if not names or not set(d["flow_labels"]) <= labels:
            return None
        ways.append(names[0])
    return "under-off:" + "/".join(ways)

kinds = collections.Counter()
bad = 0
for c in cap["connections"]:
    k = kind(c)
    kinds[k or "none"] += 1
    if k and any(fnmatch.fnmatchcase(k, a) for a in allowed):
        continue
    bad += 1
    if bad <= 10:
        print(f"  {c['src']} -> {c['dst']} QPNs {c['qpns']} CM ports {c['cm_ports']}: "
              f"{c['packets']} packets ({c['cm_mads']} CM MADs), kind {k}, "
              f"ports {[hex(p) for p in c['udp_sports']]} "
              f"(-> CM {[hex(p) for p in c['forward']['cm_udp_sports']]} "
              f"data {[hex(p) for p in c['forward']['data_udp_sports']]}, "
              f"<- CM {[hex(p) for p in c['reverse']['cm_udp_sports']]} "
              f"data {[hex(p) for p in c['reverse']['data_udp_sports']]}), "
              f"flow labels {[hex(f) for f in c['flow_labels']]}")
n = len(cap["connections"])
one_port = sum(kinds[p] for p in POLICIES)
under_off = sum(v for k, v in kinds.items() if k.startswith("under-off"))
print(f"  {n} connections ({want} made), {cap['packets']} RoCE v2 packets, "
      f"{cap['distinct_udp_sports']} distinct UDP source ports, {cap['malformed']} malformed")
print(f"  kinds: {dict(sorted(kinds.items()))}; allowed: {','.join(allowed)}; {bad} not allowed")
if summary:
    print(f"# {summary}: {n} rdma_cm connections captured, {one_port} on one port, "
          f"{under_off} made under off with data on a QPN port, {bad} wrong")
sys.exit(0 if bad == 0 and n == want else 1)
PY
}

# The kernel's log since line $1: no warning, bug, sanitizer, lockdep or
# RCU report (guest-lib.sh's KERNEL_REPORTS).
dmesg_quiet_since() {
	kernel_reports "$1" || return 1
	echo "  $(dmesg | tail -n +"$(($1 + 1))" | wc -l) new kernel log lines, none of them a report"
}

run_storm() {
	local dmesg_at spids=() lpids=() pids=() i rc=0 runs=0 failed=0 r f t0

	dmesg_at=$(dmesg | wc -l)
	rm -f $STOP /tmp/short-*
	step set_policy rfc
	capture_start storm
	for addr in "$B4" "$B6"; do
		"$PING" server --bind "$addr" > "/tmp/server-$addr.log" 2>&1 &
		spids+=($!)
		wait_for 10 cm_listening "$addr" || { echo "  no server on $addr"; rc=1; }
	done
	"$PING" client --bind "$A4" --server "$B4" --connections $LONG_PER_FAMILY \
		--messages 5 --until $STOP --timeout 60 > /tmp/long-4.log 2>&1 &
	lpids+=($!)
	"$PING" client --bind "$A6" --server "$B6" --connections $LONG_PER_FAMILY \
		--messages 5 --until $STOP --timeout 60 > /tmp/long-6.log 2>&1 &
	lpids+=($!)
	wait_for 120 cm_connected $((4 * LONG_PER_FAMILY)) || { echo "  long connections not up"; rc=1; }
	for i in $(seq $LOOPS); do
		if [ $((i % 2)) = 1 ]; then
			short_loop "$i" "$B4" "$A4" &
		else
			short_loop "$i" "$B6" "$A6" &
		fi
		pids+=($!)
	done

	t0=$SECONDS
	storm || rc=1
	touch $STOP
	for i in "${!lpids[@]}"; do
		wait "${lpids[$i]}" || { echo "  long client $i failed:"; tail -n 5 /tmp/long-*.log; rc=1; }
	done
	for p in "${pids[@]}"; do
		wait "$p"
	done
	for i in $(seq $LOOPS); do
		read -r r f < "/tmp/short-$i" || { r=0 f=1; }
		runs=$((runs + r)) failed=$((failed + f))
	done
	echo "  storm and connections: $((SECONDS - t0)) s; $runs short client runs" \
		"($((2 * runs)) connections), $failed failed"
	[ "$failed" = 0 ] && [ "$runs" -gt 0 ] || rc=1
	for p in "${spids[@]}"; do
		kill -INT "$p"
		wait "$p" || { echo "  a server reported failures:"; cat /tmp/server-*.log; rc=1; }
	done
	capture_end
	step set_policy rfc
	STORM_CONNECTIONS=$((2 * LONG_PER_FAMILY + 2 * runs))
	STORM_DMESG_AT=$dmesg_at
	return $rc
}

# mixed POLICY_A POLICY_B KIND: with rxea (the active side) under POLICY_A
# and rxeb under POLICY_B, one connection of KIND (see judge): what the storm
# does to a connection that starts between two writes, without the storm.
mixed() {
	local spid rc=0

	echo "$1" > /sys/class/infiniband/rxea/ports/1/roce_entropy || return 1
	echo "$2" > /sys/class/infiniband/rxeb/ports/1/roce_entropy || return 1
	capture_start "mixed-$1-$2"
	"$PING" server --bind "$B4" --connections 1 > /tmp/mixed-server.log 2>&1 &
	spid=$!
	wait_for 10 cm_listening "$B4" || rc=1
	timeout 60 "$PING" client --bind "$A4" --server "$B4" --messages 5 > /dev/null || rc=1
	wait_for 20 gone $spid || { kill $spid; rc=1; }
	wait $spid || rc=1
	capture_end
	step set_policy rfc
	[ $rc = 0 ] || return 1
	judge 1 "$3"
}

check "rxea rfc, rxeb off: the connection keeps one UDP source port, rfc's" \
	mixed rfc off rfc
check "rxea mix, rxeb rfc: the connection keeps one UDP source port, mix's" \
	mixed mix rfc mix
# Made under off: rdma_cm gives no flow label, and a QP without one follows
# its own host's policy (Documentation, "Changing the policy").
check "rxea off, rxeb rfc: CM MADs on 0xc000 both ways, A's data on 0xc000, B's on rfc's QPN port" \
	mixed off rfc "under-off:off/rfc"
check "toggle storm: every knob write and every client completed" run_storm
check "toggle storm: each connection on one port, or made under off with one port a way" \
	judge "$STORM_CONNECTIONS" "off,rfc,mix,under-off:*" "toggle storm"
check "toggle storm: no kernel warning, bug, lockdep, KASAN or RCU report" \
	dmesg_quiet_since "$STORM_DMESG_AT"
done_testing
