# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The failover runs on the ECMP core: ecmp_failover, steady connections
# through its black holes (the failover test's and the demo's act alike),
# with its settings and helpers, and ecmp_trace_counts and ecmp_traced,
# the roce_entropy_repath events it traced.  ecmp-core.sh sources this
# file at its end, and loading it calls no function.  Needs from
# ecmp-core.sh ecmp_tx_read (and its TX), ecmp_busiest, ecmp_blackhole and
# ecmp_link_restore; from lib.sh wait_for, PING and TOOL (base.sh),
# ping_listening, gone and repath_moves (connections.sh).

# The failover runs' settings: the QP's timeout (4.096 us * 2^N) and
# retry count (rxe takes 7 as "retry forever": 6 is the most that ends),
# a message every FAILOVER_INTERVAL ms per connection, the gaps listed from
# FAILOVER_STALL_MIN ms, each black hole FAILOVER_HOLE s; ECMP_BOTH_BUSIEST
# (ecmp_failover's).  Constants, not read from the environment: the
# failover test sets FAILOVER_HOLE (its ENTROPY_FAILOVER_HOLE) and the
# demo's act FAILOVER_STALL_MIN after sourcing this file.
FAILOVER_QP_TIMEOUT=14
FAILOVER_RETRY=6
FAILOVER_INTERVAL=50
FAILOVER_STALL_MIN=150
FAILOVER_HOLE=2
ECMP_BOTH_BUSIEST=0
FAILOVER_PORT=7481 FAILOVER_SPORT_BASE=50000
ECMP_TRACE=/sys/kernel/tracing

# ecmp_trace_on: the roce_entropy_repath event enabled, its buffer empty.
ecmp_trace_on() {
	mountpoint -q $ECMP_TRACE || mount -t tracefs nodev $ECMP_TRACE || return 1
	[ -d $ECMP_TRACE/events/roce_entropy/roce_entropy_repath ] &&
		echo 1 > $ECMP_TRACE/events/roce_entropy/roce_entropy_repath/enable &&
		echo > $ECMP_TRACE/trace
}

ecmp_now_ms() { date +%s%3N; }

# ecmp_moves: the moves rxea and rxeb made, "A_REQ A_RESP B_REQ B_RESP".
ecmp_moves() {
	echo "$(repath_moves rxea) $(repath_moves rxeb)"
}

# ecmp_flowing N: N connections are up and their messages flow: the links
# carried a few packets per connection since ECMP_TX0 (their counts when
# ecmp_failover started the connections).
ecmp_flowing() {
	local i n=0

	ecmp_tx_read r e || return 1
	for i in "${!TX[@]}"; do
		n=$((n + TX[i] - ECMP_TX0[i]))
	done
	[ $n -ge $(($1 * 6)) ]
}

# ecmp_failover OUT FAMILY N DIR...: N rdma_cm RC connections from A to B
# (roce-ping --one-way: a message every FAILOVER_INTERVAL ms each, every
# one acknowledged) under the ports' current policy and re-path setting;
# once they flow, FAILOVER_HOLE s without loss, then the link that carried
# the most black-holed for FAILOVER_HOLE s in each DIR (ab, ba, both) in
# turn, restored after each; with ECMP_BOTH_BUSIEST=1 (failover.sh gives
# it for the call: ECMP_BOTH_BUSIEST=1 ecmp_failover ...), "both" takes
# the link that carried the most in the phase before it (make demo keeps
# one link for every phase).  Leaves OUT.json (the client's report),
# OUT.err, OUT.server.log, OUT.trace (the trace buffer's repath events),
# OUT.link (the link) and OUT.phases: a line per phase ("quiet", then each
# DIR): its name, its start and end (ms since the epoch, as the client's
# start_unix_ms) and the moves rxea and rxeb made in it (A_REQ A_RESP
# B_REQ B_RESP), and OUT.qps.json: `roce-entropy qp --json` after the
# last phase.  Fails when the connections do not come up or the client
# does not report; a failed connection is the report's to judge.
ecmp_failover() {
	local out=$1 fam=$2 n=$3 sa ca spid cpid link dir t t1 rc=0 m0 m1
	local qp="--qp-timeout $FAILOVER_QP_TIMEOUT --retry-count $FAILOVER_RETRY"

	shift 3
	if [ "$fam" = 6 ]; then sa=$B6 ca=$A6; else sa=$B4 ca=$A4; fi
	ecmp_trace_on || return 1
	rm -f "$out.stop" "$out.phases"
	"$PING" server --bind "$sa" --port $FAILOVER_PORT --one-way --keep-going $qp \
		> "$out.server.log" 2>&1 &
	spid=$!
	wait_for 30 ping_listening "$out.server.log" || { kill $spid; return 1; }
	ecmp_tx_read r e || { kill $spid; return 1; }
	ECMP_TX0=("${TX[@]}")
	t=$SECONDS
	"$PING" client --bind "$ca" --server "$sa" --port $FAILOVER_PORT --connections "$n" \
		--messages 1 --until "$out.stop" --interval $FAILOVER_INTERVAL --one-way \
		--keep-going $qp --sport-base $FAILOVER_SPORT_BASE \
		--stall-min $FAILOVER_STALL_MIN --timeout 10 --json > "$out.json" 2> "$out.err" &
	cpid=$!
	if ! wait_for 60 ecmp_flowing "$n"; then
		echo "  the connections did not come up"
		cat "$out.err"
		touch "$out.stop"
		wait $cpid
		kill $spid
		return 1
	fi
	link=$(ecmp_busiest)
	echo "$link" > "$out.link"
	echo "  $n connections sending after $((SECONDS - t)) s; link $link carries the most"
	for dir in quiet "$@"; do
		# "both" comes after the one-way phases, which moved the
		# connections off LINK: with ECMP_BOTH_BUSIEST=1 it takes the
		# link that carried the most since the phase before began.
		if [ "$dir" = both ] && [ "$ECMP_BOTH_BUSIEST" = 1 ]; then
			link=$(ecmp_busiest)
			echo "  both ways: link $link carried the most in the phase before"
		fi
		ecmp_tx_read r e && ECMP_TX0=("${TX[@]}")
		# The phase lies between t and t1 (a fork takes a while in a
		# busy guest): the black hole starts after t, ends before t1.
		read -r -a m0 <<< "$(ecmp_moves)"; t=$(ecmp_now_ms)
		[ "$dir" = quiet ] || ecmp_blackhole "$link" "$dir" || rc=1
		sleep "$FAILOVER_HOLE" # the phase's length, not a wait for something
		[ "$dir" = quiet ] || ecmp_link_restore "$link" || rc=1
		t1=$(ecmp_now_ms)
		read -r -a m1 <<< "$(ecmp_moves)"
		echo "$dir $t $t1 $((m1[0] - m0[0])) $((m1[1] - m0[1]))" \
			"$((m1[2] - m0[2])) $((m1[3] - m0[3]))" >> "$out.phases"
	done
	# what each QP uses now, while the connections are still up
	"$TOOL" qp --json > "$out.qps.json" || rc=1
	touch "$out.stop"
	# The client ends by itself (its --timeout bounds each CM event); this
	# wait only keeps a hung one from holding the run.  In a starved guest
	# (the first make check of a machine, its caches cold, had each
	# message take 250-500 ms) 64 disconnects took over 30 s.
	wait_for 120 gone $cpid || { kill $cpid; rc=1; }
	wait $cpid || true # 1 when a connection failed: judged from the JSON
	kill $spid
	wait $spid 2>/dev/null
	grep 'roce_entropy_repath:' $ECMP_TRACE/trace > "$out.trace"
	echo > $ECMP_TRACE/trace
	jq -e '.connections | length' "$out.json" > /dev/null || { cat "$out.err"; rc=1; }
	return $rc
}

# ecmp_trace_counts OUT: the roce_entropy_repath events of OUT.trace, "REQ
# RESP SAME": moves of a requester, of a responder, and those that kept
# their flow label.
ecmp_trace_counts() {
	awk '{
			if ($0 ~ / by=requester /) q++; else if ($0 ~ / by=responder /) r++
			split($0, f, "flow_label="); split(f[2], l, "->"); sub(/ .*/, "", l[2])
			if (l[1] == l[2]) same++ }
		END { print q + 0, r + 0, same + 0 }' "$1.trace"
}

# ecmp_traced OUT: one roce_entropy_repath event per move OUT.phases
# counted, as requester and as responder, each from one flow label to
# another.
ecmp_traced() {
	local c t

	c=$(awk '{ q += $4 + $6; r += $5 + $7 } END { print q + 0, r + 0, 0 }' "$1.phases")
	t=$(ecmp_trace_counts "$1")
	echo "  moves counted (requester responder same-label): $c; traced: $t"
	[ "$c" = "$t" ]
}
