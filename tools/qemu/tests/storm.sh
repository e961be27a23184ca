#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Toggle storm: 10,000 writes to each port's knob (rxea and rxeb, 20,000 in
# all), cycling off, rfc and mix with the two ports a step apart, while 16
# rdma_cm connections move data: 8 long ones (roce-ping --until, IPv4 and
# IPv6) and 8 that connect, ping and disconnect over and over (4 loops of
# 2).  Everything is captured in the router namespace.  Every client must
# complete, the kernel must stay quiet, and each connection's packets (CM
# MADs and data, both ways) must keep one UDP source port, one that some
# policy gives its CM ports: a change of policy reaches new connections
# only.  Before the storm, the same judgement of one connection between
# ports whose policies differ, either way round (what the storm does to a
# connection that starts between two writes).
# RTE_STORM_WRITES (per port, default 10000), RTE_STORM_SECONDS (the
# writes are spread over at least this long, default 60, so that many
# connections start and end during the storm) and RTE_STORM_POLICIES (the
# cycle, default off,rfc,mix) change the run.
. "$rte_repo/tools/qemu/guest-lib.sh"
. "$rte_repo/tools/qemu/tests/wire-lib.sh"

WRITES=${RTE_STORM_WRITES:-10000}
PACE=${RTE_STORM_SECONDS:-60}
POLICIES=${RTE_STORM_POLICIES:-off,rfc,mix}
STOP=/tmp/storm.stop
LONG_PER_FAMILY=4
LOOPS=4 # of 2 connections each
STORM_CONNECTIONS=0 STORM_DMESG_AT=0
# What the kernel prints for a warning, a bug, a sanitizer, lockdep, an RCU
# stall or a hung task.
KERNEL_REPORTS='WARNING:|BUG:|Oops|KASAN|UBSAN|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|rcu.*(stall|detected)|INFO: task|soft lockup|hard LOCKUP|suspected memory leak'

listening() {
	rdma resource show cm_id | grep LISTEN | grep -qF "$1"
}

# connected N: at least N rdma_cm ids are connected (both ends count).
connected() {
	[ "$(rdma resource show cm_id | grep -c 'state CONNECT')" -ge "$1" ]
}

# short_loop I SERVER BIND: connect 2, ping 20 times, disconnect, until the
# storm ends; counts runs and failures in /tmp/short-I.
short_loop() {
	local i=$1 runs=0 failed=0

	while [ ! -e $STOP ]; do
		if ! timeout 120 "$PING" client --bind "$3" --server "$2" --connections 2 \
			--messages 20 > "/tmp/short-$i-$runs.log" 2>&1; then
			failed=$((failed + 1))
			cp "/tmp/short-$i-$runs.log" "$rte_out/storm-short-$i-$runs.log"
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

# judge WANT [SUMMARY]: each connection of $CAP on one UDP source port
# (and, over IPv6, one flow label) that off, rfc or mix gives its CM ports;
# WANT connections, as many as the clients made.  SUMMARY names a "#" line
# with the figures.
judge() {
	local want=$1

	"$TOOL" pcap "$CAP" --json > "$CAP.json" 2> "$CAP.err"
	[ -s "$CAP.json" ] || { cat "$CAP.err"; return 1; }
	python3 - "$CAP.json" "$want" "${2:-}" <<'PY'
import collections, json, sys

cap = json.load(open(sys.argv[1]))
want = int(sys.argv[2])
summary = sys.argv[3]

def sport(fl):
    return ((fl & 0x3FFF) ^ ((fl & 0xFC000) >> 14)) | 0xC000

def rfc(sp, dp):
    h = sp * dp
    h ^= h >> 16
    h ^= h >> 8
    return h & 0xFFFFF

def mix(sp, dp):
    return ((sp * dp * 0x61C88647) & 0xFFFFFFFF) >> 12

by_policy = collections.Counter()
bad = 0
for c in cap["connections"]:
    ports = c["udp_sports"]
    labels = c["flow_labels"]
    cm = c["cm_ports"]
    fits = []
    if cm:
        fits = [name for name, fl in (("off", 0), ("rfc", rfc(*cm)), ("mix", mix(*cm)))
                if ports == [sport(fl)] and (not labels or labels == [fl])]
    ok = (len(ports) == 1 and len(labels) <= 1 and cm is not None and c["cm_mads"] >= 2 and
          c["forward"]["packets"] > 0 and c["reverse"]["packets"] > 0 and fits)
    by_policy[fits[0] if fits else "none"] += 1
    if not ok:
        bad += 1
        if bad <= 10:
            print(f"  {c['src']} -> {c['dst']} QPNs {c['qpns']} CM ports {cm}: "
                  f"{c['packets']} packets ({c['cm_mads']} CM MADs), "
                  f"ports {[hex(p) for p in ports]} "
                  f"(-> {[hex(p) for p in c['forward']['udp_sports']]}, "
                  f"<- {[hex(p) for p in c['reverse']['udp_sports']]}), "
                  f"flow labels {[hex(f) for f in labels]}, fits {fits or 'no policy'}")
n = len(cap["connections"])
print(f"  {n} connections ({want} made), {cap['packets']} RoCE v2 packets, "
      f"{cap['distinct_udp_sports']} distinct UDP source ports, {cap['malformed']} malformed; "
      f"on the port of off/rfc/mix: {by_policy['off']}/{by_policy['rfc']}/{by_policy['mix']}; "
      f"{bad} connections with more than one port or none that fits")
if summary:
    print(f"# {summary}: {n} rdma_cm connections captured, {bad} changed port")
sys.exit(0 if bad == 0 and n == want else 1)
PY
}

# The kernel's log since line $1: no warning, bug, sanitizer, lockdep or
# RCU report.
dmesg_quiet_since() {
	if dmesg | tail -n +"$(($1 + 1))" | grep -E "$KERNEL_REPORTS"; then
		return 1
	fi
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
		wait_for 10 listening "$addr" || { echo "  no server on $addr"; rc=1; }
	done
	"$PING" client --bind "$A4" --server "$B4" --connections $LONG_PER_FAMILY \
		--messages 5 --until $STOP --timeout 60 > /tmp/long-4.log 2>&1 &
	lpids+=($!)
	"$PING" client --bind "$A6" --server "$B6" --connections $LONG_PER_FAMILY \
		--messages 5 --until $STOP --timeout 60 > /tmp/long-6.log 2>&1 &
	lpids+=($!)
	wait_for 120 connected $((4 * LONG_PER_FAMILY)) || { echo "  long connections not up"; rc=1; }
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

# mixed POLICY_A POLICY_B: with rxea (the active side) under POLICY_A and
# rxeb under POLICY_B, one connection keeps one UDP source port: the
# storm's failure, without the storm.
mixed() {
	local spid rc=0

	echo "$1" > /sys/class/infiniband/rxea/ports/1/roce_entropy || return 1
	echo "$2" > /sys/class/infiniband/rxeb/ports/1/roce_entropy || return 1
	capture_start "mixed-$1-$2"
	"$PING" server --bind "$B4" --connections 1 > /tmp/mixed-server.log 2>&1 &
	spid=$!
	wait_for 10 listening "$B4" || rc=1
	timeout 60 "$PING" client --bind "$A4" --server "$B4" --messages 5 > /dev/null || rc=1
	wait_for 20 bash -c "! kill -0 $spid 2>/dev/null" || { kill $spid; rc=1; }
	wait $spid || rc=1
	capture_end
	step set_policy rfc
	[ $rc = 0 ] || return 1
	judge 1
}

check "rxea off, rxeb rfc: the connection keeps one UDP source port" mixed off rfc
check "rxea rfc, rxeb off: the connection keeps one UDP source port" mixed rfc off
check "toggle storm: every knob write and every client completed" run_storm
check "toggle storm: each connection kept one UDP source port" \
	judge "$STORM_CONNECTIONS" "toggle storm"
check "toggle storm: no kernel warning, bug, lockdep, KASAN or RCU report" \
	dmesg_quiet_since "$STORM_DMESG_AT"
done_testing
