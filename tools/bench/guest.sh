#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make bench's guest side (tools/bench/bench.sh runs it through
# tools/testing/vm/run.sh): what the entropy costs on rxe, policy by
# policy, in the standard topology
# (rxea on 10.1.0.2 to rxeb on 10.2.0.2, through the router r):
#
#   write, send  perftest's ib_write_bw / ib_send_bw -R (rdma_cm RC)
#   ud           ib_send_bw -R -c UD, 64 bytes, whose sender picks the
#                entropy per send
#                (all three: the client's messages/s)
#   cm           roce-ping --cycles: rdma_cm connect, 1 round trip,
#                disconnect, one after the other; cycles/s
#
# Rounds interleave the policies: each measurement runs under builtin (stock
# 6.12, the baseline), off, rfc, mix and rfc+repath (rfc with roce_repath
# on, whose cost without loss is measured against rfc) back to back, the
# order rotating by one each round, so that every policy takes every
# position once in five rounds.  The four servers of a measurement start together before it (a perftest server takes seconds to
# start under TCG), idle in their accept until their client comes.
#
# The guest's clock: tools/bench/bench.sh runs QEMU with -icount (the clock counts
# the instructions the guest runs, 1 ns each) and a TSC clocksource at
# 1 GHz, which perftest times with (checked here).  A rate is then per 10^9
# guest instructions: what the host does meanwhile (other jobs on its two
# cores) slows the run down but barely moves the figures.  An idle guest
# skips to its next timer, so that waiting for the host's 9p file system
# (a program's start) can take many guest seconds: the timeouts below are
# generous.
#
# The plan (rounds, measurements) goes to $entropy_out/bench-plan.json, one JSON
# line per run to $entropy_out/bench-raw.jsonl (ok false, with the error, when a
# run failed: the host then reports no figure for it and fails); the guest's
# clock against the host's (the mtime of a file written over 9p) to
# $entropy_out/bench-clock.json; the re-path moves rxea and rxeb made over all
# runs (none expected: nothing is lost) to $entropy_out/bench-repath.json.  The
# status is non-zero if any run failed.
#
# ENTROPY_BENCH_ROUNDS (5), ENTROPY_BENCH_CYCLES (600 cycles per cm run),
# ENTROPY_BENCH_SETTLE (0.5 s of quiet before each run) and ENTROPY_BENCH_PING
# (roce-ping to use, default build/bin/roce-ping) change it.
. "$entropy_repo/tools/testing/lib.sh"

POLICIES=(builtin off rfc mix rfc+repath)
NPOL=${#POLICIES[@]}
ROUNDS=${ENTROPY_BENCH_ROUNDS:-$NPOL}
CYCLES=${ENTROPY_BENCH_CYCLES:-600}
# Seconds of quiet before each run, for the last run's teardown to finish.
SETTLE=${ENTROPY_BENCH_SETTLE:-0.5}
PING=${ENTROPY_BENCH_PING:-$entropy_repo/build/bin/roce-ping}
RAW=$entropy_out/bench-raw.jsonl
PLAN=$entropy_out/bench-plan.json
CLOCK=$entropy_out/bench-clock.json
REPATH=$entropy_out/bench-repath.json
LOGS=$entropy_out/bench-logs
# test:size:iterations: one packet a message (64), 4 and 64 packets a
# message (4096, 65536); two to three seconds of the guest's time each.  A run
# takes a few seconds of the host's, mostly perftest's start and its two
# rdma_cm connections.
MEASUREMENTS=(write:64:40000 write:4096:6000 write:65536:600
	send:64:40000 send:4096:6000 send:65536:600 ud:64:15000 "cm:0:$CYCLES")
PORT=18600

progress() { echo "==> bench: $*"; }

# bench_policy POLICY: both ports' knobs: POLICY's roce_entropy, and
# roce_repath on for POLICY+repath, off otherwise.
bench_policy() {
	case $1 in
	*+repath) set_policy "${1%+repath}" && set_repath on ;;
	*) set_policy "$1" && set_repath off ;;
	esac
}

# moves_json: the re-path moves of both devices so far, as JSON.
moves_json() {
	local a b

	read -r -a a <<< "$(repath_moves rxea)"
	read -r -a b <<< "$(repath_moves rxeb)"

	echo "{\"requester\": $((a[0] + b[0])), \"responder\": $((a[1] + b[1]))}"
}

# Packets r received from A: the runs must cross the router.
router_rx() {
	ip netns exec r cat /sys/class/net/a1/statistics/rx_packets
}

# listening PORT...: every one of them has a listening rdma_cm ID.
listening() {
	local p

	for p in "$@"; do
		cm_listening "" "$p" || return 1
	done
}

# server TEST SIZE ITERS PORT LOG: start one server in the background.
server() {
	local test=$1 size=$2 iters=$3 port=$4 log=$5

	case $test in
	write) ib_write_bw -d rxeb -R -F -s "$size" -n "$iters" -p "$port" ;;
	send) ib_send_bw -d rxeb -R -F -s "$size" -n "$iters" -p "$port" ;;
	ud) ib_send_bw -d rxeb -R -F -c UD -s "$size" -n "$iters" -p "$port" ;;
	cm) "$PING" server --bind "$B4" --port "$port" --connections "$iters" ;;
	esac > "$log" 2>&1 &
}

# client TEST SIZE ITERS PORT LOG: run one client; prints its figure.
client() {
	local test=$1 size=$2 iters=$3 port=$4 log=$5 line

	case $test in
	write)
		timeout 600 ib_write_bw -d rxea -R -F -s "$size" -n "$iters" -p "$port" \
			--source_ip "$A4" "$B4" ;;
	send)
		timeout 600 ib_send_bw -d rxea -R -F -s "$size" -n "$iters" -p "$port" \
			--source_ip "$A4" "$B4" ;;
	ud)
		timeout 600 ib_send_bw -d rxea -R -F -c UD -s "$size" -n "$iters" -p "$port" \
			--source_ip "$A4" "$B4" ;;
	cm)
		timeout 600 "$PING" client --bind "$A4" --server "$B4" --port "$port" \
			--cycles "$iters" --messages 1 --json ;;
	esac > "$log" 2>&1 || { echo "client exit status $?"; return 1; }
	if [ "$test" = cm ]; then
		jq -e --argjson n "$iters" 'select(.cycles == $n) | .cycles_per_second' "$log" ||
			{ echo "no rate in the client's output"; return 1; }
		return
	fi
	# "#bytes #iterations BW-peak BW-average[MB/s] MsgRate[Mpps]": the
	# message rate, which perftest prints with more digits than MB/s.
	line=$(grep -A1 '#bytes' "$log" | tail -n 1)
	awk -v size="$size" -v iters="$iters" '
		$1 == size && $2 == iters && $4 + 0 > 0 && $5 + 0 > 0 {
			printf "%.6g\n", $5 * 1e6; ok = 1 }
		END { exit !ok }' <<< "$line" ||
		{ echo "no figure in the client's output: '$line'"; return 1; }
}

# record ROUND TEST SIZE ITERS POLICY OK VALUE|ERROR PACKETS ATTEMPTS SECONDS
record() {
	jq -nc --argjson round "$1" --arg test "$2" --argjson size "$3" --argjson iters "$4" \
		--arg policy "$5" --argjson ok "$6" --arg v "$7" --argjson packets "$8" \
		--argjson attempts "$9" --argjson seconds "${10}" \
		'{round: $round, test: $test, size: $size, iterations: $iters, policy: $policy,
		  ok: $ok, router_packets: $packets, attempts: $attempts, client_seconds: $seconds}
		 + (if $ok then {value: ($v | tonumber)} else {error: $v} end)' >> "$RAW"
}

# run_one TEST SIZE ITERS PORT PID LOG: one client against its server PID;
# sets OUT to the figure (or the error), PACKETS and CLIENT_SECONDS (the
# client's whole run, start to exit); fails if the run did.
run_one() {
	local test=$1 size=$2 iters=$3 port=$4 pid=$5 log=$6 rx0 rx1 t0 rc ok=true

	rx0=$(router_rx) t0=$(date +%s.%N)
	OUT=$(client "$test" "$size" "$iters" "$port" "$log.client") || ok=false
	rx1=$(router_rx)
	PACKETS=$((rx1 - rx0))
	CLIENT_SECONDS=$(awk -v t0="$t0" -v t1="$(date +%s.%N)" 'BEGIN { printf "%.3f", t1 - t0 }')
	if ! wait_for 120 bash -c "! kill -0 $pid 2>/dev/null"; then
		kill "$pid" 2>/dev/null
		$ok && OUT="the server did not finish"
		ok=false
	fi
	wait "$pid"
	rc=$?
	if [ $rc != 0 ]; then
		$ok && OUT="server exit status $rc"
		ok=false
	fi
	# Every message crossed r (a cm cycle is at least a REQ).
	if $ok && [ "$PACKETS" -lt "$iters" ]; then
		OUT="only $PACKETS packets crossed the router for $iters messages"
		ok=false
	fi
	$ok
}

# measure ROUND TEST SIZE ITERS: the policies back to back.
measure() {
	local round=$1 test=$2 size=$3 iters=$4 i policy port pid log ok attempt
	local pids=() ports=() order=()

	for i in $(seq 0 $((NPOL - 1))); do
		order+=("${POLICIES[$(((i + round - 1) % NPOL))]}")
		ports+=($((PORT + i)))
		server "$test" "$size" "$iters" "${ports[$i]}" \
			"$LOGS/r$round-$test-$size-${order[$i]}.server"
		pids+=($!)
	done
	PORT=$((PORT + NPOL))
	wait_for 300 listening "${ports[@]}" || echo "  the servers did not listen"
	for i in $(seq 0 $((NPOL - 1))); do
		policy=${order[$i]} port=${ports[$i]} pid=${pids[$i]}
		log=$LOGS/r$round-$test-$size-$policy
		bench_policy "$policy" || { echo "bench: FAIL: cannot set policy $policy"; exit 1; }
		attempt=1
		# perftest's client connects its test QP as soon as its control
		# connection is up; a server slower to listen for it (TCG) rejects
		# the REQ (invalid service ID, 8).  That race, and only that, is
		# run again with a fresh server, four times at most, and counted.
		while :; do
			sleep "$SETTLE"
			if run_one "$test" "$size" "$iters" "$port" "$pid" "$log"; then
				ok=true
				break
			fi
			ok=false
			if [ $attempt = 5 ] ||
				! grep -q 'RDMA_CM_EVENT_REJECTED; error: 8' "$log.client"; then
				break
			fi
			echo "  round $round $test $size $policy: perftest's connection race, again"
			attempt=$((attempt + 1)) port=$PORT PORT=$((PORT + 1))
			server "$test" "$size" "$iters" "$port" "$log.server$attempt"
			pid=$!
			wait_for 300 listening "$port" || echo "  the server did not listen"
		done
		record "$round" "$test" "$size" "$iters" "$policy" $ok "$OUT" "$PACKETS" $attempt \
			"$CLIENT_SECONDS"
		if $ok; then
			echo "  round $round $test $size $policy: $OUT (client ran ${CLIENT_SECONDS%.*} s)"
		else
			echo "  round $round $test $size $policy: FAILED: $OUT"
			echo "  (logs: $log.client, $log.server*)"
			FAILED=$((FAILED + 1))
		fi
	done
}

# The host's clock, through the mtime of a file it writes for us.
host_clock() {
	touch "$entropy_out/bench-clock" && stat -c %.9Y "$entropy_out/bench-clock"
}

ulimit -l unlimited
mkdir -p "$LOGS"
: > "$RAW"
FAILED=0
clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource)
if [ "$clocksource" != tsc ]; then
	echo "bench: FAIL: clocksource $clocksource: perftest needs the TSC (tools/bench/bench.sh boots with it)"
	exit 1
fi
[ -x "$PING" ] || { echo "bench: FAIL: no roce-ping at $PING"; exit 1; }
route_b_from_a || { echo "bench: FAIL: cannot route to B from A's address"; exit 1; }
ip route get "$B4"
vcpus=$(grep -c ^processor /proc/cpuinfo)
printf '%s\n' "${MEASUREMENTS[@]}" |
	jq -R -s --argjson rounds "$ROUNDS" --arg ping "$PING" --argjson vcpus "$vcpus" \
		--arg clocksource "$clocksource" --arg policies "${POLICIES[*]}" \
		'{rounds: $rounds, policies: ($policies | split(" ")), roce_ping: $ping,
		  guest_vcpus: $vcpus, guest_clocksource: $clocksource,
		  measurements: [split("\n")[] | select(. != "") | split(":") |
			{test: .[0], size: (.[1] | tonumber), iterations: (.[2] | tonumber)}]}' \
		> "$PLAN" || { echo "bench: FAIL: cannot write $PLAN"; exit 1; }
progress "$ROUNDS rounds of: ${MEASUREMENTS[*]} (test:size:count), under ${POLICIES[*]}"
progress "clocksource $clocksource, $vcpus vCPU(s), roce-ping $PING"
g0=$(date +%s.%N) h0=$(host_clock) m0=$(moves_json)
for round in $(seq 1 "$ROUNDS"); do
	progress "round $round of $ROUNDS"
	for m in "${MEASUREMENTS[@]}"; do
		IFS=: read -r test size iters <<< "$m"
		measure "$round" "$test" "$size" "$iters"
	done
done
g1=$(date +%s.%N) h1=$(host_clock)
jq -n --argjson g0 "$g0" --argjson g1 "$g1" --argjson h0 "$h0" --argjson h1 "$h1" \
	'{guest_seconds: ($g1 - $g0), host_seconds: ($h1 - $h0)}' > "$CLOCK"
progress "guest clock over the runs:" \
	"$(jq -r '"\(.guest_seconds) s, host \(.host_seconds) s"' "$CLOCK")"
jq -n --argjson a "$m0" --argjson b "$(moves_json)" \
	'{requester: ($b.requester - $a.requester), responder: ($b.responder - $a.responder)}' > "$REPATH"
progress "re-path moves over the runs: $(jq -c . "$REPATH")"
bench_policy rfc
progress "$(wc -l < "$RAW") runs, $FAILED failed; raw figures in $RAW"
[ "$FAILED" = 0 ]
