# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# The demo's failover act, sourced by ecmp.sh once its balance phases are
# done, on the same ECMP core (tools/testing/ecmp-core.sh): 64 rdma_cm RC
# connections from A to B send steadily (a message every 50 ms each, every
# one acknowledged), QP timeout 14 (67.1 ms) and retry count 6; after 2 s
# without loss the link that carries the most is black-holed for 2 s A to
# B, then B to A, then both ways (the routes stay).  Runs: stock 6.12
# (builtin) and rfc with re-path off, the baselines; rfc and mix with it on.
# IPv4: the failover VM test of make check runs IPv6 too.
#
# Writes $entropy_out/demo-failover.json: the settings and per run the client's
# report (each connection's status, longest gap and gaps of 250 ms or
# more), the phases with their times and moves, and the trace events
# counted.  roce-lab ecmp-report judges it on the host.

FAILOVER_RUNS=("builtin off" "rfc off" "rfc on" "mix on")
# 64 connections at 20 messages a second keep a TCG guest busy: gaps of
# 150-250 ms come and go without loss (the report gives the longest of
# the quiet phase), so the gaps listed, and drawn, start at 250 ms (over
# ecmp-failover.sh's 150, which the failover test keeps).
FAILOVER_STALL_MIN=250
FAILOVER_DIRS=(ab ba both)
FAILOVER_OUT=$entropy_out/demo-failover.json

# failover_trace OUT: the run's roce_entropy_repath events as JSON: how
# many moved a requester and a responder, and how many kept their label.
failover_trace() {
	local c out

	out=$(ecmp_trace_counts "$1") || return 1
	read -r -a c <<< "$out"
	echo "{\"requester\": ${c[0]}, \"responder\": ${c[1]}, \"same_label\": ${c[2]}}"
}

# failover_phases OUT: OUT.phases as a JSON array.
failover_phases() {
	awk 'BEGIN { printf "[" }
		{ printf "%s{\"name\": \"%s\", \"start_unix_ms\": %s, \"end_unix_ms\": %s, " \
			"\"moves\": {\"a_requester\": %d, \"a_responder\": %d, " \
			"\"b_requester\": %d, \"b_responder\": %d}}", (NR > 1 ? ", " : ""), \
			$1, $2, $3, $4, $5, $6, $7 }
		END { print "]" }' "$1.phases"
}

# failover_record POLICY REPATH OUT OK: the run whose files are OUT.*,
# appended to $FAILOVER_OUT.runs (the client's report through a file: it
# is too long for an argument).
failover_record() {
	local client=$3.json

	jq -e .connections "$client" > /dev/null 2>&1 || { echo null > "$3.none"; client=$3.none; }
	jq --arg policy "$1" --arg repath "$2" --argjson ok "$4" \
		--argjson link "$(cat "$3.link" 2>/dev/null || echo null)" \
		--argjson phases "$(failover_phases "$3" 2>/dev/null || echo '[]')" \
		--argjson trace "$(failover_trace "$3" 2>/dev/null || echo null)" \
		--slurpfile client "$client" \
		'.runs += [{policy: $policy, repath: ($repath == "on"), family: "ipv4",
			ok: $ok, link: $link, phases: $phases, trace: $trace, client: $client[0]}]' \
		"$FAILOVER_OUT" > "$FAILOVER_OUT.new" && mv "$FAILOVER_OUT.new" "$FAILOVER_OUT"
}

# failover_run POLICY REPATH: one run, appended to $FAILOVER_OUT.runs.
failover_run() {
	local policy=$1 repath=$2 out=$WORK/failover-$1-$2 ok=true t=$SECONDS

	progress "failover, $policy, re-path $repath: $N connections, link black-holed ${FAILOVER_DIRS[*]}"
	set_policy "$policy" && set_repath "$repath" || return 1
	ecmp_failover "$out" 4 "$N" "${FAILOVER_DIRS[@]}" || ok=false
	failover_record "$policy" "$repath" "$out" $ok || ok=false
	jq -r '"  \(.connections | length) connections, \(.failed) failed; longest gap \([.connections[].longest_stall_ms] | max | round) ms"' \
		"$out.json" 2>/dev/null
	awk '{ printf "  %s: rxea moved %s as requester, %s as responder; rxeb %s and %s\n", $1, $4, $5, $6, $7 }' \
		"$out.phases" 2>/dev/null
	echo "  $((SECONDS - t)) s"
	$ok
}

# failover_act: every run of FAILOVER_RUNS; re-path off again after.
failover_act() {
	local run rc=0

	jq -n --argjson n "$N" --argjson t "$FAILOVER_QP_TIMEOUT" --argjson r "$FAILOVER_RETRY" \
		--argjson i "$FAILOVER_INTERVAL" --argjson h "$FAILOVER_HOLE" \
		--argjson s "$FAILOVER_STALL_MIN" \
		'{connections: $n, qp_timeout: $t, retry_count: $r, interval_ms: $i, hole_s: $h,
		  stall_min_ms: $s, runs: []}' > "$FAILOVER_OUT"
	for run in "${FAILOVER_RUNS[@]}"; do
		failover_run $run || rc=1
	done
	set_repath off
	return $rc
}
