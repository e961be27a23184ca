# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The ECMP core, sourced by the failover test (tests/failover.sh) and the
# demo's failover act (tools/demo/failover.sh) after lib.sh: the standard
# topology's router r becomes two, r and s, joined by ECMP_LINKS veth links
# with equal-cost routes both ways, picked per packet by the kernel's L4
# multipath hash with a fixed seed (a run is reproducible); static
# neighbours, so that the links carry RoCE only and a link can be turned
# into a black hole without touching a route:
#
#   rxea/a0 -- a1 [r] e0..e7 ==== f0..f7 [s] b1 -- b0/rxeb
#
# ecmp_blackhole LINK DIR makes link LINK drop what goes one way (DIR ab:
# A to B, r's e<LINK> to s's f<LINK>; ba: the other way; both): the
# sending router's neighbour entry for the far end gets a MAC nobody has,
# so the far end receives the frames and drops them (not its address).
# The routes stay, as they do when a switch or a link silently drops.
# ecmp_core_undo puts the standard topology back.  ecmp_failover runs
# steady connections through black holes, the failover test's and the
# demo's act alike.

ECMP_LINKS=${ECMP_LINKS:-8}
ECMP_SEED=${ECMP_SEED:-1234}
# A MAC no interface has (locally administered).
ECMP_NOWHERE=02:00:5e:00:de:ad

# ns_read NS FILE...: FILEs of NS's /sys (sysfs shows a netns's own
# interfaces), one cat in NS.
ns_read() {
	ip netns exec "$1" cat "${@:2}"
}

# ecmp_mac NS DEV: DEV's MAC address, in netns NS ("": the initial one).
ecmp_mac() {
	local mac

	if [ -z "$1" ]; then
		read -r mac < "/sys/class/net/$2/address" && echo "$mac"
	else
		ns_read "$1" "/sys/class/net/$2/address"
	fi
}

# ecmp_neigh_lines DEV IP4 IP6 MAC: the ip -batch lines that make IP4 and
# IP6 permanent neighbours on DEV at MAC.
ecmp_neigh_lines() {
	printf 'neigh replace %s lladdr %s dev %s nud permanent\n' "$2" "$4" "$1" "$3" "$4" "$1"
}

# ecmp_neigh NS DEV IP4 IP6 MAC: NS's permanent neighbours IP4 and IP6 on
# DEV at MAC ("": the initial netns), in one run of ip.
ecmp_neigh() {
	ecmp_neigh_lines "$2" "$3" "$4" "$5" | ip ${1:+-n "$1"} -batch -
}

# ecmp_core: split r into r and s, ECMP_LINKS links between them; their
# MACs, which it chooses (02:00:00:09:LINK:01 on r's e*, :02 on s's f*), in
# ECMP_MAC_R and ECMP_MAC_S.  One ip run per router for all the links.
ECMP_MAC_R=() ECMP_MAC_S=()
ecmp_core() {
	local i hops4_r='' hops6_r='' hops4_s='' hops6_s='' ns links_r='' links_s=''

	step ip netns add s || return 1
	step ip -n r link set b1 netns s || return 1
	ip_batch -n s <<-EOF || return 1
		addr add $RB4/24 dev b1
		addr add $RB6/64 dev b1 nodad
		link set lo up
		link set b1 up
	EOF
	for ns in r s; do
		step ip netns exec $ns sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.forwarding=1 \
			net.ipv4.fib_multipath_hash_policy=1 \
			net.ipv6.fib_multipath_hash_policy=1 \
			net.ipv4.fib_multipath_hash_seed=$ECMP_SEED || return 1
	done
	for ((i = 0; i < ECMP_LINKS; i++)); do
		printf -v "ECMP_MAC_R[$i]" '02:00:00:09:%02x:01' "$i"
		printf -v "ECMP_MAC_S[$i]" '02:00:00:09:%02x:02' "$i"
		links_r+="link add e$i address ${ECMP_MAC_R[$i]} type veth peer name f$i address ${ECMP_MAC_S[$i]} netns s
addr add 10.9.$i.1/24 dev e$i
addr add fd09:$i::1/64 dev e$i nodad
link set e$i up
$(ecmp_neigh_lines e$i 10.9.$i.2 fd09:$i::2 "${ECMP_MAC_S[$i]}")
"
		links_s+="addr add 10.9.$i.2/24 dev f$i
addr add fd09:$i::2/64 dev f$i nodad
link set f$i up
$(ecmp_neigh_lines f$i 10.9.$i.1 fd09:$i::1 "${ECMP_MAC_R[$i]}")
"
		hops4_r="$hops4_r nexthop via 10.9.$i.2 dev e$i"
		hops6_r="$hops6_r nexthop via fd09:$i::2 dev e$i"
		hops4_s="$hops4_s nexthop via 10.9.$i.1 dev f$i"
		hops6_s="$hops6_s nexthop via fd09:$i::1 dev f$i"
	done
	ip_batch -n r <<< "$links_r" || return 1
	ip_batch -n s <<< "$links_s" || return 1
	ip_batch -n r <<-EOF || return 1
		route replace 10.2.0.0/24 $hops4_r
		route replace fd02::/64 $hops6_r
	EOF
	ip_batch -n s <<-EOF || return 1
		route replace 10.1.0.0/24 $hops4_s
		route replace fd01::/64 $hops6_s
	EOF
}

# ecmp_core_undo: the standard topology again (b1 back in r, s gone).
ecmp_core_undo() {
	step ip -n s link set b1 netns r || return 1
	step ip netns del s || return 1
	ip_batch -n r <<-EOF || return 1
		addr add $RB4/24 dev b1
		addr add $RB6/64 dev b1 nodad
		link set b1 up
	EOF
	wait_for 10 ip -n r route get $B4
}

# ecmp_link_restore LINK: both ways of LINK deliver again (no lookup: the
# black hole ends at once).
ecmp_link_restore() {
	ecmp_neigh r "e$1" "10.9.$1.2" "fd09:$1::2" "${ECMP_MAC_S[$1]}" &&
		ecmp_neigh s "f$1" "10.9.$1.1" "fd09:$1::1" "${ECMP_MAC_R[$1]}"
}

# ecmp_blackhole LINK ab|ba|both: LINK drops A to B, B to A, or both.
ecmp_blackhole() {
	local link=$1 dir=$2

	case $dir in
	ab|both) ecmp_neigh r "e$link" "10.9.$link.2" "fd09:$link::2" $ECMP_NOWHERE || return 1 ;;
	esac
	case $dir in
	ba|both) ecmp_neigh s "f$link" "10.9.$link.1" "fd09:$link::1" $ECMP_NOWHERE || return 1 ;;
	esac
	echo "+ link $link: black hole $dir"
}

# ecmp_tx_read NS PREFIX: TX, the tx packets of PREFIX0..PREFIXn.
ecmp_tx_read() {
	local i f=()

	for ((i = 0; i < ECMP_LINKS; i++)); do
		f+=("/sys/class/net/$2$i/statistics/tx_packets")
	done
	mapfile -t TX < <(ns_read "$1" "${f[@]}")
	[ ${#TX[@]} = "$ECMP_LINKS" ]
}

# ecmp_busiest: the index of r's link whose count grew most since
# ECMP_TX0 (the first of equals).
ecmp_busiest() {
	local i best=0 grew max=-1

	ecmp_tx_read r e || return 1
	for i in "${!TX[@]}"; do
		grew=$((TX[i] - ECMP_TX0[i]))
		[ $grew -le $max ] || { max=$grew; best=$i; }
	done
	echo $best
}

# The failover runs' settings: the QP's timeout (4.096 us * 2^N) and
# retry count (rxe takes 7 as "retry forever": 6 is the most that ends),
# a message every FAILOVER_INTERVAL ms per connection, the gaps listed from
# FAILOVER_STALL_MIN ms, each black hole FAILOVER_HOLE s.
FAILOVER_QP_TIMEOUT=${FAILOVER_QP_TIMEOUT:-14}
FAILOVER_RETRY=${FAILOVER_RETRY:-6}
FAILOVER_INTERVAL=${FAILOVER_INTERVAL:-50}
FAILOVER_STALL_MIN=${FAILOVER_STALL_MIN:-150}
FAILOVER_HOLE=${FAILOVER_HOLE:-2}
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
# turn, restored after each; with ECMP_BOTH_BUSIEST=1, "both" takes the
# link that carried the most in the phase before it (failover.sh; make
# demo keeps one link for every phase).  Leaves OUT.json (the client's report),
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
		if [ "$dir" = both ] && [ "${ECMP_BOTH_BUSIEST:-0}" = 1 ]; then
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
