#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Connections side by side: a knob switch between two connections, and 32
# concurrent rdma_cm connections.
#
# On the test kernel only: a scale test runs the same code under more
# connections.
STACKS="ours"
CPUS=1
requires() {
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

# What the checks read of a capture (capture_fields).
REQ_FIELDS="infiniband.cm.req.localqpn infiniband.cm.req.ip_cm.sport
	infiniband.cm.req.serviceid.dport infiniband.bth.destqp udp.srcport"

# req_fields FIELD...: one line per CM REQ of $CAP.
req_fields() {
	fields infiniband.cm.req.localqpn "$@" | awk 'NF > 1 { $1 = ""; sub(/^ /, ""); print }'
}

# ports_of_qpn QPN: the UDP source ports of the data packets to QPN.
ports_of_qpn() {
	fields infiniband.bth.destqp udp.srcport | awk -v q="$1" '$1 == q { print $2 }' | sort -u
}

# cm_up PID: process PID's rdma_cm ID is connected, or PID has ended
# (how it ended is judged when it is waited for).
cm_up() {
	gone "$1" || rdma -j resource show cm_id |
		jq -e --argjson p "$1" 'any(.[]; .pid == $p and .state == "CONNECT")'
}

# knob_switch_fail WHAT: say which step of knob_switch failed, with the
# programs' own words, and fail it (knob_switch's rc).
knob_switch_fail() {
	local f

	rc=1
	echo "  $1"
	for f in server long short; do
		[ -s "$entropy_out/switch-$f.log" ] || continue
		echo "  $f:"
		tail -n 5 "$entropy_out/switch-$f.log" | sed 's/^/    /'
	done
	return 1
}

# One connection runs under rfc; the knob goes to mix; a second connection
# starts.  The first keeps its rfc port, the second gets its mix port.  The
# first is roce-ping's, which keeps pinging until told to stop: it runs
# across the switch however slow the machine.  Each step of the clients
# may take 60 s (roce-ping's --timeout): a loaded host can stall TCG for
# longer than its default 20.
knob_switch() {
	local spid lpid rc=0 long short lq sq lp sp stop=/tmp/knob-switch.stop
	local client=("$PING" client --bind "$A4" --server "$B4" --messages 3 --timeout 60)

	set_policy rfc
	rm -f $stop
	capture_start switch
	"$PING" server --bind "$B4" > "$entropy_out/switch-server.log" 2>&1 &
	spid=$!
	wait_for 10 cm_listening "$B4" || knob_switch_fail "the server did not listen"
	"${client[@]}" --until $stop > "$entropy_out/switch-long.log" 2>&1 &
	lpid=$!
	# connected (its route, and so its flow label, resolved under rfc)
	wait_for 60 cm_connected 1 ||
		knob_switch_fail "the first connection did not connect"
	step set_policy mix
	timeout 120 "${client[@]}" > "$entropy_out/switch-short.log" 2>&1 ||
		knob_switch_fail "the second connection failed (exit $?)"
	sleep 1 # the first connection pings on under mix
	touch $stop
	wait $lpid || knob_switch_fail "the first connection failed (exit $?)"
	kill $spid
	wait $spid || knob_switch_fail "the server failed (exit $?)"
	capture_fields $REQ_FIELDS
	set_policy rfc
	[ $rc = 0 ] || return 1

	# REQs in order: the long connection's first.
	long=$(req_fields infiniband.cm.req.ip_cm.sport infiniband.cm.req.serviceid.dport \
		infiniband.cm.req.localqpn | sed -n 1p)
	short=$(req_fields infiniband.cm.req.ip_cm.sport infiniband.cm.req.serviceid.dport \
		infiniband.cm.req.localqpn | sed -n 2p)
	set -- $long
	lp=$(predict --policy rfc --cm-ports "$1" "$2" | cut -d' ' -f2)
	lq=$3
	set -- $short
	sp=$(predict --policy mix --cm-ports "$1" "$2" | cut -d' ' -f2)
	sq=$3
	echo "  long connection (rfc): QPN $lq, ports [ $(ports_of_qpn "$lq" | tr '\n' ' ')], expected $lp"
	echo "  short connection (mix): QPN $sq, ports [ $(ports_of_qpn "$sq" | tr '\n' ' ')], expected $sp"
	[ "$(ports_of_qpn "$lq")" = "$lp" ] && [ "$(ports_of_qpn "$sq")" = "$sp" ]
}

# 32 concurrent rping connections under rfc: each on its predicted port,
# judged by roce-entropy pcap (every packet both ways, CM MADs included),
# and spread: at least 28 distinct ports.  rdma_cm's source ports are
# random, so two connections share a port by chance now and then (32 in
# 0xC000-0xFFFF: about 3% of runs, seen once); five shared ones by chance is
# below one in a billion, while a policy that did not spread would share
# most.  The server is one persistent rping (-P), a thread per connection.
many() {
	local spid pids=() pid log st i rc=0 n=32 out

	set_policy rfc
	capture_start many
	rping -s -a "$B4" -P > /tmp/server.log 2>&1 &
	spid=$!
	wait_for 10 cm_listening "$B4" || return 1
	# rping's server listens with a backlog of 3: a connection request it
	# has not yet read counts against it, and one over it is dropped, to
	# be sent again by ib_cm seconds later (ucma's -ENOMEM).  So each
	# client starts once the one before has connected; each runs long
	# enough for all 32 to overlap.
	for i in $(seq $n); do
		if [ "$i" -gt 1 ] && ! wait_for 60 cm_up "${pids[-1]}"; then
			rc=1
			echo "  client $((i - 1)) did not connect in 60 s"
		fi
		rping -c -a "$B4" -I "$A4" -C 60 > "$entropy_out/many-$i.log" 2>&1 &
		pids+=($!)
	done
	for i in $(seq $n); do
		pid=${pids[$((i - 1))]} log=$entropy_out/many-$i.log
		if ! wait_for 120 gone "$pid"; then
			kill "$pid"
			rc=1
			echo "  client $i still running after 120 s:"
			tail -n 3 "$log"
			continue
		fi
		wait "$pid" && continue
		st=$?
		rping_race "$log" && continue
		rc=1
		echo "  client $i failed (exit $st):"
		tail -n 3 "$log"
	done
	kill $spid
	wait $spid
	capture_end
	[ $rc = 0 ] || { echo "  a client failed"; return 1; }
	"$TOOL" pcap "$CAP" --policy rfc --json > "$CAP.json" 2> "$CAP.err" ||
		{ cat "$CAP.err"; return 1; }
	# what was seen, then "verdict true" or "verdict false"
	out=$(jq -r --argjson n $n '[.connections[] | select(.transport == "RC")] as $c |
		([$c[].udp_sports[]] | unique | length) as $ports |
		"  \($c | length) rdma_cm RC connections, \($ports) distinct UDP source ports, \([$c[] | select(.verdict != "ok")] | length) off their prediction",
		"# \($n) concurrent rdma_cm connections: \($ports) distinct source ports",
		"verdict \(($c | length) == $n and $ports >= $n - 4 and
			all($c[]; .verdict == "ok" and .cm_ports != null and .cm_mads >= 2 and
				(.udp_sports | length) == 1 and
				.forward.data_packets > 0 and .reverse.data_packets > 0))"' "$CAP.json") ||
		return 1
	echo "${out%$'\n'verdict *}"
	[ "${out##*verdict }" = true ]
}

check "a knob switch changes the next connection and leaves the running one alone" knob_switch
check "32 concurrent rdma_cm connections, each on its predicted port" many
done_testing
