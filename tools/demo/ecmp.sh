#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The demo's guest side (make demo runs it through tools/testing/vm/run.sh): the standard
# topology's router r becomes two routers, r and s, joined by 8 equal-cost
# links; r and s pick a link per packet with the kernel's L4 multipath hash.
# rxea's traffic to B also takes one of 4 next hops on a0 (a1 and macvlans
# on it in r, each its own MAC) by its UDP source port, through fib rules on
# sport ranges that see the ports rxe puts in its flowi: 4 hops for IPv4
# (a1, a1m1..a1m3), 4 others for IPv6 (a1m4..a1m7), so that r's receive
# counters tell the families apart.
#
#   rxea/a0 -- a1 (+ a1m1..a1m7) [r] e0..e7 ==== f0..f7 [s] b1 -- b0/rxeb
#
# Each policy, stock 6.12 (builtin) first, runs two phases, each with IPv4
# and IPv6 at once:
#   cm     64 rdma_cm RC connections per family (roce-ping, CM ports from
#          50000), every one making MESSAGES round trips;
#   users  the mix users run, per family: half rdma_cm RC (roce-ping, CM
#          ports from 51000), a quarter RC without CM (roce-qps: QPNs
#          exchanged by hand, as NCCL and UCX do), a quarter UD with an
#          address handle per peer (roce-qps --transport ud), MESSAGES round
#          trips each.
# One capture per phase at r, on every interface (Linux cooked v2, which
# names each packet's interface), of the 8 links only: A to B leaving on
# e*, B to A arriving on e*, each packet once.  The host judges it with
# roce-entropy pcap: which link each connection took each way, which ports
# and flow labels it carried.  The routers' interface counters (e* out, f*
# out) say what the links carried, to check the capture missed nothing;
# r's receive counters of the next hops give the host routes' act (phase
# cm).  Rules, not a multipath route, for the host: 6.12 skips multipath
# selection for a locally generated lookup bound to an output interface
# (fib_select_path(); have_oif_match in ip6_pol_route()), and rxe always
# names its netdev.
#
# Then the failover act (failover.sh): steady connections through a link
# that black-holes, with re-path off and on.
#
# The raw result goes to $entropy_out/demo-raw.json and
# $entropy_out/demo-failover.json, the captures to
# $entropy_out/captures/demo-POLICY-PHASE.pcapng.
#
# ENTROPY_DEMO_CONNECTIONS (64, a multiple of 4), ENTROPY_DEMO_LINKS (8),
# ENTROPY_DEMO_MESSAGES (20) and ENTROPY_DEMO_SEED (the routers'
# fib_multipath_hash_seed, fixed so that a run is reproducible) change it.
N=${ENTROPY_DEMO_CONNECTIONS:-64}
LINKS=${ENTROPY_DEMO_LINKS:-8}
MESSAGES=${ENTROPY_DEMO_MESSAGES:-20}
SEED=${ENTROPY_DEMO_SEED:-1234}
. "$entropy_repo/tools/testing/lib.sh"
. "$entropy_repo/tools/testing/ecmp-core.sh"
. "$entropy_repo/tools/demo/failover.sh"
ECMP_LINKS=$LINKS ECMP_SEED=$SEED
POLICIES=(builtin off rfc mix)
HOPS=4
CM_SPORTS=50000 USERS_SPORTS=51000
QPS=$entropy_repo/build/bin/roce-qps
RAW=$entropy_out/demo-raw.json
WORK=$entropy_out/demo
mkdir -p "$WORK"

progress() { echo "==> demo: $*"; }

# The ECMP core (ecmp-core.sh), and the hosts and routers knowing each
# other's MACs too: no neighbour discovery during a phase.  Nor router
# solicitations: a0 sends them for ever, at doubling intervals, to every
# next hop of the host routes at once (a multicast frame counts on a1 and
# on each macvlan).
core() {
	step sysctl -qw net.ipv6.conf.a0.router_solicitations=0 || return 1
	ecmp_core || return 1
	ecmp_neigh r a1 $A4 $A6 "$(ecmp_mac "" a0)" &&
		ecmp_neigh s b1 $B4 $B6 "$(ecmp_mac "" b0)" &&
		ecmp_neigh "" b0 $RB4 $RB6 "$(ecmp_mac s b1)" || return 1
	ip -n r route show 10.2.0.0/24
}

# Four next hops per family for rxea's traffic to B, each for a quarter of
# 0xC000-0xFFFF by UDP source port.  IPv4: r's a1 and macvlans a1m1..a1m3;
# IPv6: macvlans a1m4..a1m7.
host_routes() {
	local j m gw gw6 lo range width=$((0x4000 / HOPS)) mac macvlans='' neigh routes='' rules4='' rules6=''

	neigh=$(ecmp_neigh_lines a0 $RA4 $RA6 "$(ecmp_mac r a1)")$'\n'
	for ((m = 1; m < 2 * HOPS; m++)); do
		printf -v mac '02:00:00:0a:%02x:01' "$m"
		macvlans+="link add link a1 name a1m$m address $mac type macvlan mode private
addr add 10.1.0.1$m/24 dev a1m$m
addr add fd01::1$m/64 dev a1m$m nodad
link set a1m$m up
"
		neigh+=$(ecmp_neigh_lines a0 10.1.0.1$m fd01::1$m $mac)$'\n'
	done
	for ((j = 0; j < HOPS; j++)); do
		gw=10.1.0.1$j gw6=fd01::1$((HOPS + j))
		[ "$j" != 0 ] || gw=$RA4
		lo=$((0xC000 + j * width))
		# The kernel refuses a range ending at 65535: the last quarter
		# is the rest of UDP.
		range="sport $lo-$((lo + width - 1))"
		[ "$j" != $((HOPS - 1)) ] || range=
		routes+="route add 10.2.0.0/24 via $gw dev a0 table $((200 + j))
route add fd02::/64 via $gw6 dev a0 table $((200 + j))
"
		rules4+="rule add pref $((5 + j)) to 10.2.0.0/24 oif a0 ipproto udp $range lookup $((200 + j))
"
		rules6+="rule add pref $((5 + j)) to fd02::/64 oif a0 ipproto udp $range lookup $((200 + j))
"
	done
	# ip rule takes its family from -6, not from the prefix
	ip_batch -n r <<< "$macvlans" && ip_batch <<< "$neigh$routes$rules4" &&
		ip_batch -6 <<< "$rules6"
}

# counters: the phase's counters as JSON: packets out of each of r's e*
# (A to B) and s's f* (B to A); what each next hop received, per family
# (IPv4: a1's own, all it received less what its macvlans took, then
# a1m1..a1m3; IPv6: a1m4..a1m7).  A multicast frame would count once on
# a1 and once on each macvlan, so a1's own count over a phase could come
# out below 0 when it took no RoCE traffic: the phase's next-hop counts are
# 0 at least (hops() below).
counters() {
	local i fwd rev f=(/sys/class/net/a1/statistics/rx_packets) r sum=0 n4='' n6='' IFS=,

	ecmp_tx_read r e || return 1
	fwd="${TX[*]}"
	ecmp_tx_read s f || return 1
	rev="${TX[*]}"
	for ((i = 1; i < 2 * HOPS; i++)); do
		f+=("/sys/class/net/a1m$i/statistics/rx_packets")
	done
	mapfile -t r < <(ns_read r "${f[@]}")
	[ ${#r[@]} = $((2 * HOPS)) ] || return 1
	for ((i = 1; i < 2 * HOPS; i++)); do
		sum=$((sum + r[i]))
		if [ "$i" -lt "$HOPS" ]; then n4="$n4,${r[i]}"; else n6="$n6${n6:+,}${r[i]}"; fi
	done
	echo "{\"forward\": [$fwd], \"reverse\": [$rev], \"ipv4\": [$((r[0] - sum))$n4], \"ipv6\": [$n6]}"
}

# capture_phase NAME: capture RoCE v2 on r's links into
# $CAPS/demo-NAME.pcapng: every interface (Linux cooked v2, which names it),
# the links only (by interface index), so that each packet is there once.
capture_phase() {
	local i filter=

	for i in $(seq 0 $((LINKS - 1))); do
		filter="$filter${filter:+ or }ifindex ${IFINDEX[$i]}"
	done
	CAP=$CAPS/demo-$1.pcapng
	rm -f "$CAP"
	ip netns exec r dumpcap -q -i any -y LINUX_SLL2 -B 64 \
		-f "udp port 4791 and ($filter)" -w "$CAP" > "$WORK/dumpcap-$1.log" 2>&1 &
	CAP_PID=$!
}

# A background job of a phase: its output in $WORK/NAME.json, its status
# in JOB_STATUS[NAME] once waited for.
declare -A JOB_PID JOB_STATUS
job() {
	local name=$1

	shift
	"$@" > "$WORK/$name.json" 2> "$WORK/$name.err" &
	JOB_PID[$name]=$!
}

wait_jobs() {
	local name

	for name in "${!JOB_PID[@]}"; do
		if wait "${JOB_PID[$name]}"; then
			JOB_STATUS[$name]=true
		else
			JOB_STATUS[$name]=false
			echo "  $name failed:"
			sed 's/^/    /' "$WORK/$name.err" | tail -n 20
		fi
	done
	JOB_PID=()
}

# workload FAMILY KIND NAME [SERVER]: the phase's record of one job (and
# the server it needs): both must have succeeded.
workload() {
	local conns ok=${JOB_STATUS[$3]:-false}

	[ -z "${4:-}" ] || ${JOB_STATUS[$4]:-false} || ok=false
	conns=$(jq -c '.connections // []' "$WORK/$3.json" 2>/dev/null) || conns='[]'
	[ -n "$conns" ] || conns='[]'
	jq -nc --arg family "$1" --arg kind "$2" --argjson ok "$ok" \
		--argjson conns "$conns" \
		'{family: $family, kind: $kind, ok: $ok, connections: $conns}'
}

# phase MIX POLICY: both families' connections of MIX under POLICY at once,
# captured; appends the phase to $RAW.phases.
phase() {
	local mix=$1 policy=$2 fam a b ga gb ncm base t=$SECONDS c0 c1 works=() w ok=true name
	local f k n s

	progress "$policy, $mix: $N connections per family, IPv4 and IPv6 at once, $MESSAGES round trips each"
	set_policy "$policy" || return 1
	JOB_STATUS=()
	if [ "$mix" = cm ]; then ncm=$N base=$CM_SPORTS; else ncm=$((N / 2)) base=$USERS_SPORTS; fi
	capture_phase "$policy-$mix"
	for fam in ipv4 ipv6; do
		if [ $fam = ipv6 ]; then b=$B6; else b=$B4; fi
		job "server-$fam" "$PING" server --bind "$b" --connections "$ncm"
	done
	wait_for 20 test -s "$CAP" && wait_for 20 cm_listening "$B4" && wait_for 20 cm_listening "$B6" ||
		{ echo "  the capture or the servers did not start"; ok=false; }
	sleep 0.5 # dumpcap writes the file header before its filter is live
	c0=$(counters)
	for fam in ipv4 ipv6; do
		if [ $fam = ipv6 ]; then a=$A6 b=$B6; else a=$A4 b=$B4; fi
		job "client-$fam" timeout 300 "$PING" client --bind "$a" --server "$b" \
			--connections "$ncm" --messages "$MESSAGES" --sport-base "$base" --json
		works+=("$fam|rdma_cm RC|client-$fam|server-$fam")
		[ "$mix" = users ] || continue
		ga=${GID[a-$fam]} gb=${GID[b-$fam]}
		job "rc-$fam" timeout 300 "$QPS" --dev-a rxea --dev-b rxeb --gid-a "$ga" --gid-b "$gb" \
			--pairs $((N / 4)) --round-trips "$MESSAGES" --policy "$policy" --json
		job "ud-$fam" timeout 300 "$QPS" --dev-a rxea --dev-b rxeb --gid-a "$ga" --gid-b "$gb" \
			--transport ud --pairs $((N / 4)) --round-trips "$MESSAGES" --policy "$policy" --json
		works+=("$fam|RC|rc-$fam|" "$fam|UD|ud-$fam|")
	done
	wait_jobs
	sleep 0.2 # the last ACKs
	c1=$(counters)
	kill -INT "$CAP_PID"
	wait "$CAP_PID" || { echo "  dumpcap failed:"; cat "$WORK/dumpcap-$policy-$mix.log"; ok=false; }
	for w in "${works[@]}"; do
		IFS='|' read -r f k n s <<< "$w"
		workload "$f" "$k" "$n" "$s"
	done > "$WORK/workloads.jsonl"
	jq --arg policy "$policy" --arg mix "$mix" --arg cap "captures/demo-$policy-$mix.pcapng" \
		--argjson c0 "$c0" --argjson c1 "$c1" --slurpfile works "$WORK/workloads.jsonl" '
		def delta(k): [range($c1[k] | length) as $i | $c1[k][$i] - $c0[k][$i]];
		def hops(k): delta(k) | map(if . < 0 then 0 else . end);
		.phases += [{policy: $policy, mix: $mix, capture: $cap,
			counters: {forward: delta("forward"), reverse: delta("reverse")},
			workloads: $works}
			+ (if $mix == "cm" then {host: {ipv4: hops("ipv4"), ipv6: hops("ipv6")}}
			   else {} end)]' "$RAW" > "$RAW.new" && mv "$RAW.new" "$RAW"
	echo "  A>B per link: $(jq -c '.phases[-1].counters.forward' "$RAW"), B>A: $(jq -c '.phases[-1].counters.reverse' "$RAW")"
	[ "$mix" = users ] ||
		echo "  host next hops IPv4: $(jq -c '.phases[-1].host.ipv4' "$RAW"), IPv6: $(jq -c '.phases[-1].host.ipv6' "$RAW")"
	echo "  $((SECONDS - t)) s"
	for name in "${!JOB_STATUS[@]}"; do
		${JOB_STATUS[$name]} || ok=false
	done
	$ok
}

t0=$SECONDS
progress "ECMP core: $LINKS links between routers r and s, L4 hash, seed $SEED; host routes by port"
if ! core || ! host_routes; then
	echo "demo: FAIL: could not build the topology"
	exit 1
fi
declare -A GID
GID[a-ipv4]=$(gid_index rxea $A4) GID[b-ipv4]=$(gid_index rxeb $B4)
GID[a-ipv6]=$(gid_index rxea $A6) GID[b-ipv6]=$(gid_index rxeb $B6)
f=()
for ((i = 0; i < LINKS; i++)); do
	f+=("/sys/class/net/e$i/ifindex")
done
mapfile -t IFINDEX < <(ns_read r "${f[@]}")
jq -n --argjson n "$N" --argjson links "$LINKS" --argjson hops "$HOPS" --argjson m "$MESSAGES" \
	--argjson seed "$SEED" --arg a4 $A4 --arg b4 $B4 --arg a6 $A6 --arg b6 $B6 \
	--argjson ifindex "[$(IFS=,; echo "${IFINDEX[*]}")]" \
	'{connections: $n, links: $links, hops: $hops, messages: $m, seed: $seed,
	  addresses: {ipv4: {a: $a4, b: $b4}, ipv6: {a: $a6, b: $b6}},
	  link_ifindex: $ifindex, phases: []}' > "$RAW"
ulimit -l unlimited
rc=0
for policy in "${POLICIES[@]}"; do
	for mix in cm users; do
		phase $mix "$policy" || rc=1
	done
done
failover_act || rc=1
set_policy rfc
progress "raw counts in $RAW and $FAILOVER_OUT; the phases took $((SECONDS - t0)) s"
exit $rc
