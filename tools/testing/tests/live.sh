#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Policy changes under live connections, two guests (vm/pair.sh): rdma_cm
# RC connections from A (near, ours) to B (far: stock, or ours with
# lib.sh's ENTROPY_FAR=ours) ping every 100 ms, IPv4 and IPv6, while near's
# policy changes from rfc to mix (far's too when it is ours: both hosts)
# and re-path is turned on and off again.  The documentation promises that
# "existing ones keep the values they computed": every packet of the live
# connections stays where rfc predicts, none fails, none retransmits
# (rxe's completer_retry_err on A), and no gap between round trips exceeds
# one ACK timeout; a connection made after the change carries what mix
# predicts, and would have disagreed with rfc's.
#
# The mixed row runs it against a stock host; the rolling row after the
# rolling upgrade, both hosts ours and far under rfc (ENTROPY_FAR=ours
# ENTROPY_FAR_POLICY=rfc): both hosts changing policy under live connections.
STACKS="dist-pair stock-dist-pair"
CPUS=1
requires() {
	_have_pair near
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

FROM=rfc TO=mix
LIVE_PORT=7480 LIVE_BASE=30000 NEW_BASE=31000 LIVE_N=2
# A's completer retries during live (set by live; 1 until it counted them)
LIVE_RETRIES=1
# A's ACK timeout, rdma_cm's over RoCE: 4.096 us * 2^17 (its path's packet
# life time, CMA_IBOE_PACKET_LIFETIME 16, plus one: cm_ack_timeout() with
# rxe's CA ACK delay, 15), 537 ms; and the ping's interval
BOUND_MS=$((537 + 100))
STOP=/tmp/live.stop

# knobs POLICY REPATH: near's rxea, and far's rxeb when far is ours.
knobs() {
	near_knobs "$1$([ "$2" = off ] || echo +repath)" || return 1
	[ "$FAR_KIND" = stock ] || far_knobs "$1" "$2"
}

# far_policy POLICY: far's policy for roce-entropy pcap.
far_policy() {
	if [ "$FAR_KIND" = stock ]; then echo builtin; else echo "$1"; fi
}

# retries: A's retransmissions after an ACK timeout (rxe's counter).
retries() {
	cat /sys/class/infiniband/rxea/ports/1/hw_counters/completer_retry_err
}

# client FAMILY BASE ARGS...: roce-ping clients from A to B over FAMILY,
# their CM source ports from BASE, output in $LOGS/live-vFAMILY-BASE.json.
client() {
	local fam=$1 base=$2 a=$A4 b=$B4

	shift 2
	[ "$fam" = 4 ] || a=$A6 b=$B6
	"$PING" client --bind "$a" --server "$b" --port $LIVE_PORT --sport-base "$base" \
		--json "$@" > "$LOGS/live-v$fam-$base.json" 2> "$LOGS/live-v$fam-$base.err"
}

# pcap_under POLICY: roce-entropy pcap's verdict of the capture, near
# under POLICY and far under its own, in $CAP.POLICY.json.
pcap_under() {
	"$TOOL" pcap "$CAP" --policy "$1" --policy-for "$B4=$(far_policy "$1")" \
		--policy-for "$B6=$(far_policy "$1")" --json > "$CAP.$1.json" 2> "$CAP.err"
	[ -s "$CAP.$1.json" ] || { cat "$CAP.err"; return 1; }
}

# judged POLICY BASE WANT: the connections of the capture whose CM source
# port is BASE to BASE + 99, printed; each has packets both ways, and
# every one's verdict under POLICY is WANT (ok or disagrees).
judged() {
	local out

	pcap_under "$1" || return 1
	out=$(jq -r --argjson b "$2" --arg want "$3" "$JQ_SHOW"'
		[.connections[] | select(.cm_ports != null and .cm_ports[0] >= $b and
			.cm_ports[0] < $b + 100)] as $c |
		($c[] | show), "  \($c | length) connections, verdicts under '"$1"': \([$c[].verdict] | unique)",
		"verdict \(($c | length) > 0 and all($c[]; .verdict == $want and
			.forward.data_packets > 0 and .reverse.data_packets > 0))"
	' "$CAP.$1.json") || return 1
	echo "$out"
	[ "${out##*$'\n'}" = "verdict true" ]
}

# pings_ok FAMILY BASE N: the clients' N connections all completed, and
# their longest gap between two round trips is within BOUND_MS.
pings_ok() {
	local f=$LOGS/live-v$1-$2.json

	jq -r '.connections[] | "  \(.sport): \(.status), longest gap \(.longest_stall_ms) ms"' "$f"
	jq -e --argjson n "$3" --argjson bound $BOUND_MS '(.connections | length) == $n and
		all(.connections[]; .status == "ok" and .longest_stall_ms <= $bound)' "$f" > /dev/null
}

# live: the live connections and the changes under them, then one
# connection of each family after; whatever failed, the clients, the
# capture and far's servers are stopped.
live() {
	local b pids=() p fam r0 r1 rc=0

	knobs $FROM off || return 1
	rm -f $STOP
	capture_start live
	for b in $B4 $B6; do
		remote_start timeout 300 "$PING" server --bind "$b" --port $LIVE_PORT || rc=1
		remote wait_for 30 ping_listening "$PAIR/out.$FAR_CMD" > /dev/null ||
			{ echo "  the server on $b did not listen"; rc=1; }
	done
	r0=$(retries)
	if [ $rc = 0 ]; then
		for fam in 4 6; do
			client $fam $LIVE_BASE --connections $LIVE_N --until $STOP &
			pids+=($!)
		done
		wait_for 60 cm_connected $((2 * LIVE_N)) &&
			sleep 2 && # round trips before the change
			step knobs $TO on && sleep 2 && step knobs $TO off &&
			client 4 $NEW_BASE --connections 1 --messages 5 &&
			client 6 $NEW_BASE --connections 1 --messages 5 &&
			sleep 1 || rc=1 # round trips after it
	fi
	touch $STOP
	for p in "${pids[@]}"; do
		wait "$p" || rc=1
	done
	r1=$(retries)
	capture_end
	remote pkill -f "roce-ping server"
	echo "  A's completer retries: $r0 before, $r1 after"
	LIVE_RETRIES=$((r1 - r0))
	return $rc
}

if ! pair_start; then
	done_testing
	exit
fi
check "connections live through a policy change and re-path on and off (near $([ "$FAR_KIND" = stock ] &&
	echo "alone; far stock" || echo "and far"))" live
for fam in 4 6; do
	check "IPv$fam: the $LIVE_N live connections completed, no gap over $BOUND_MS ms" \
		pings_ok $fam $LIVE_BASE $LIVE_N
done
check "no retransmission on A's side" test "$LIVE_RETRIES" = 0
check "the live connections stayed on $FROM's ports and labels, every packet" \
	judged $FROM $LIVE_BASE ok
check "connections made after the change carry $TO's" judged $TO $NEW_BASE ok
check "and not $FROM's" judged $FROM $NEW_BASE disagrees
step knobs builtin off
done_testing
