#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# make fabric's guest side (tools/fabric/run.sh boots the test VM with it):
# a two-tier leaf-spine fabric of Linux routers in network namespaces, RoCE
# hosts on it, and jobs whose completion time is measured per policy.
#
#   rxh0 .. rxh3   rxh4 .. rxh7   ...      hosts: rxe on hN, in init_net
#    h0 .. h3       h4 .. h7
#      |  |          |  |
#    [leaf0]       [leaf1]   ...  [leafL]  d0..d3 down, u0..uS up
#      \\//          \\//
#    [spine0] [spine1] ... [spineS]        v0..vL down to each leaf
#
# A leaf reaches every other leaf's hosts through every spine (one
# multipath route, the kernel's hash picks the next hop per flow); a
# spine reaches each host through its leaf.  Every link is shaped both ways
# with tbf at RATE kbit/s (a queue deep enough not to drop, as a lossless
# fabric pauses rather than drops), so that the fabric, not rxe's CPU, is
# the bottleneck: the calibration proves it before the jobs.  Neighbours
# are static: nothing but RoCE crosses the fabric during a job.
#
# Jobs (roce-flows: every flow starts at once, timed on one clock):
#   perm   a permutation: every host sends BYTES to one host of another
#          leaf (a derangement drawn per seed): AllReduce's ring pattern,
#          ECMP's worst case;
#   a2a    all-to-all: every host sends A2A_BYTES to every other one.
# Each with QPS_LIST QPs per host pair, connected by rdma_cm and by QPN
# (flow label 0, as NCCL leaves it), under each hash (ipv4: the 5-tuple;
# ipv6-label: IPv6's 3-tuple with the flow label, Linux's default;
# ipv6: IPv6's 5-tuple), each policy, each seed (the routers' hash seed,
# the permutation and the order the connections are made in).  All-to-all
# costs four permutations' time and spreads evenly whatever the policy:
# by default it runs under one hash and two seeds (A2A_HASHES, A2A_SEEDS).
# One JSON line per job in $entropy_out/fabric/runs.jsonl, after the plan's
# (how many jobs this boot runs) and the calibration's; roce-lab
# fabric-report judges them on the host.
#
# ENTROPY_FABRIC_* change it (tools/fabric/run.sh passes them): LEAVES (4),
# SPINES (4), HOSTS per leaf (4), RATE (kbit/s, 2000), BYTES (262144),
# A2A_BYTES (16384), SEEDS (1,2,3), POLICIES (builtin,off,rfc,mix; stock
# under STOCK=1), HASHES (ipv4,ipv6-label), JOBS (perm,a2a), QPS (1,4),
# CONNECT (cm,qpn), A2A_HASHES (ipv6-label), A2A_SEEDS (1,2).
. "$entropy_repo/tools/testing/lib.sh"
. "$entropy_repo/tools/testing/ecmp-core.sh"

LEAVES=${ENTROPY_FABRIC_LEAVES:-4}
SPINES=${ENTROPY_FABRIC_SPINES:-4}
HPL=${ENTROPY_FABRIC_HOSTS:-4}
RATE=${ENTROPY_FABRIC_RATE:-2000}
BYTES=${ENTROPY_FABRIC_BYTES:-262144}
A2A_BYTES=${ENTROPY_FABRIC_A2A_BYTES:-16384}
IFS=, read -r -a SEEDS <<< "${ENTROPY_FABRIC_SEEDS:-1,2,3}"
IFS=, read -r -a HASHES <<< "${ENTROPY_FABRIC_HASHES:-ipv4,ipv6-label}"
IFS=, read -r -a A2A_HASHES <<< "${ENTROPY_FABRIC_A2A_HASHES:-ipv6-label}"
IFS=, read -r -a A2A_SEEDS <<< "${ENTROPY_FABRIC_A2A_SEEDS:-1,2}"
IFS=, read -r -a JOBS <<< "${ENTROPY_FABRIC_JOBS:-perm,a2a}"
IFS=, read -r -a QPS_LIST <<< "${ENTROPY_FABRIC_QPS:-1,4}"
IFS=, read -r -a CONNECTS <<< "${ENTROPY_FABRIC_CONNECT:-cm,qpn}"
if [ "$entropy_stock" = 1 ]; then
	POLICIES=(stock)
else
	IFS=, read -r -a POLICIES <<< "${ENTROPY_FABRIC_POLICIES:-builtin,off,rfc,mix}"
fi
HOSTS=$((LEAVES * HPL))
FLOWS=$entropy_repo/build/bin/roce-flows
OUT=$entropy_out/fabric
RUNS=$OUT/runs.jsonl
mkdir -p "$OUT"
: > "$RUNS"

progress() { echo "==> fabric: $*"; }

host4() { echo "10.100.$1.2"; }
host6() { echo "fd64:$1::2"; }

# The MACs the script gives: host i's hN and the leaf's dN facing it;
# leaf L's uS and spine S's vL.
mac_h() { printf '02:64:01:00:%02x:02' "$1"; }
mac_d() { printf '02:64:01:00:%02x:01' "$1"; }
mac_u() { printf '02:64:02:%02x:%02x:01' "$1" "$2"; }
mac_v() { printf '02:64:02:%02x:%02x:02' "$1" "$2"; }

# shape DEV: tbf at RATE on DEV's egress (as ip -batch lines are run by
# tc's own batch: one line per device).
shape_line() {
	echo "qdisc replace dev $1 root tbf rate ${RATE}kbit burst 4kb limit 8mb"
}

# hosts: hN in init_net, dN in its leaf; addresses, static neighbours,
# the host's own table and rules (keyed on the output device, for rxe's
# and rdma_cm's lookups, and on the source address from lo, for rdma_cm's
# resolution of an address bound to a source); the local table after them,
# as the standard topology does for IPv6.
fabric_hosts() {
	local i l up='' up6='' down=() tc=''

	for ((i = 0; i < HOSTS; i++)); do
		l=$((i / HPL))
		up+="link add h$i address $(mac_h $i) type veth peer name d$i address $(mac_d $i) netns leaf$l
addr add $(host4 $i)/24 dev h$i
addr add $(host6 $i)/64 dev h$i nodad
link set h$i up
$(ecmp_neigh_lines h$i 10.100.$i.1 fd64:$i::1 "$(mac_d $i)")
route add 10.100.0.0/16 via 10.100.$i.1 dev h$i table $((200 + i))
route add fd64::/16 via fd64:$i::1 dev h$i table $((200 + i))
rule add pref 20 to 10.100.0.0/16 oif h$i lookup $((200 + i))
rule add pref 21 from $(host4 $i) to 10.100.0.0/16 iif lo lookup $((200 + i))
"
		up6+="rule add pref 20 to fd64::/16 oif h$i lookup $((200 + i))
rule add pref 21 from $(host6 $i) to fd64::/16 iif lo lookup $((200 + i))
"
		tc+="$(shape_line h$i)
"
		down[l]+="addr add 10.100.$i.1/24 dev d$i
addr add fd64:$i::1/64 dev d$i nodad
link set d$i up
$(ecmp_neigh_lines d$i "$(host4 $i)" "$(host6 $i)" "$(mac_h $i)")
"
	done
	# what the hosts' veths inherit: addresses of other interfaces are
	# local (rp_filter off: the standard topology's), no router
	# solicitations
	sysctl -qw net.ipv4.conf.default.accept_local=1 \
		net.ipv6.conf.default.router_solicitations=0 || return 1
	ip_batch <<< "$up" > /dev/null || return 1
	ip_batch -6 <<< "$up6" > /dev/null || return 1
	for ((l = 0; l < LEAVES; l++)); do
		ip_batch -n leaf$l <<< "${down[l]}" > /dev/null || return 1
	done
	tc -batch - <<< "$tc" || return 1
	# The local table after the hosts' rules, both families (IPv6's moved
	# already: the standard topology).
	ip rule add pref 100 lookup local && ip rule del pref 0 lookup local
}

# routers: the namespaces, their uplinks, routes and neighbours.
fabric_routers() {
	local l s ns hops4 hops6 leaf='' spine=() i

	for ((l = 0; l < LEAVES; l++)); do
		step ip netns add leaf$l || return 1
	done
	for ((s = 0; s < SPINES; s++)); do
		step ip netns add spine$s || return 1
	done
	for ((l = 0; l < LEAVES; l++)); do
		leaf="link set lo up
"
		hops4='' hops6=''
		for ((s = 0; s < SPINES; s++)); do
			leaf+="link add u$s address $(mac_u $l $s) type veth peer name v$l address $(mac_v $l $s) netns spine$s
addr add 10.$((110 + l)).$s.1/24 dev u$s
addr add fd6e:$l:$s::1/64 dev u$s nodad
link set u$s up
$(ecmp_neigh_lines u$s 10.$((110 + l)).$s.2 fd6e:$l:$s::2 "$(mac_v $l $s)")
"
			hops4+=" nexthop via 10.$((110 + l)).$s.2 dev u$s"
			hops6+=" nexthop via fd6e:$l:$s::2 dev u$s"
			spine[s]+="addr add 10.$((110 + l)).$s.2/24 dev v$l
addr add fd6e:$l:$s::2/64 dev v$l nodad
link set v$l up
$(ecmp_neigh_lines v$l 10.$((110 + l)).$s.1 fd6e:$l:$s::1 "$(mac_u $l $s)")
"
			for ((i = l * HPL; i < (l + 1) * HPL; i++)); do
				spine[s]+="route add 10.100.$i.0/24 via 10.$((110 + l)).$s.1 dev v$l
route add fd64:$i::/64 via fd6e:$l:$s::1 dev v$l
"
			done
		done
		leaf+="route add 10.100.0.0/16$hops4
route add fd64::/16$hops6
"
		ip_batch -n leaf$l <<< "$leaf" > /dev/null || return 1
	done
	for ((s = 0; s < SPINES; s++)); do
		ip_batch -n spine$s <<< "link set lo up
${spine[s]}" > /dev/null || return 1
	done
	for ns in $(routers); do
		ip netns exec "$ns" sysctl -qw net.ipv4.ip_forward=1 \
			net.ipv6.conf.all.forwarding=1 || return 1
	done
}

routers() {
	local l s

	for ((l = 0; l < LEAVES; l++)); do echo leaf$l; done
	for ((s = 0; s < SPINES; s++)); do echo spine$s; done
}

# The routers' links shaped, both ways: d*, u* in the leaves, v* in the
# spines.
fabric_shape() {
	local l s i tc

	for ((l = 0; l < LEAVES; l++)); do
		tc=''
		for ((i = l * HPL; i < (l + 1) * HPL; i++)); do
			tc+="$(shape_line d$i)
"
		done
		for ((s = 0; s < SPINES; s++)); do
			tc+="$(shape_line u$s)
"
		done
		ip netns exec leaf$l tc -batch - <<< "$tc" || return 1
	done
	for ((s = 0; s < SPINES; s++)); do
		tc=''
		for ((l = 0; l < LEAVES; l++)); do
			tc+="$(shape_line v$l)
"
		done
		ip netns exec spine$s tc -batch - <<< "$tc" || return 1
	done
}

# The rxe devices, rxhN on hN, active with both GIDs.
fabric_rxe() {
	local i

	for ((i = 0; i < HOSTS; i++)); do
		rdma link add rxh$i type rxe netdev h$i || return 1
	done
	for ((i = 0; i < HOSTS; i++)); do
		wait_for 20 port_active rxh$i && wait_for 20 rxe_has_gid rxh$i "$(host6 $i)" || return 1
	done
}

# set_hash HASH SEED: every router hashes as HASH says, with SEED.
set_hash() {
	local v4=1 v6=1 ns

	[ "$1" != ipv6-label ] || v6=0
	for ns in $(routers); do
		ip netns exec "$ns" sysctl -qw net.ipv4.fib_multipath_hash_policy=$v4 \
			net.ipv6.fib_multipath_hash_policy=$v6 \
			net.ipv4.fib_multipath_hash_seed="$2" || return 1
	done
}

set_fabric_policy() {
	local i

	[ "$1" != stock ] || return 0
	for ((i = 0; i < HOSTS; i++)); do
		echo "$1" > /sys/class/infiniband/rxh$i/ports/1/roce_entropy || return 1
	done
}

# A process in each router's namespace, whose /proc/PID/net/dev gives that
# namespace's counters without a fork (ip netns exec mounts a sysfs each
# time: a tenth of a guest second, in the middle of a job).
declare -A NSPID
ns_sleepers() {
	local ns

	for ns in $(routers); do
		# not holding the script's output open (init waits for its end)
		ip netns exec "$ns" sleep infinity > /dev/null 2>&1 < /dev/null &
		NSPID[$ns]=$!
	done
	trap 'kill "${NSPID[@]}" 2> /dev/null' EXIT
}

# ns_tx NS DEV...: the bytes each DEV of NS sent, appended to TXB.
ns_tx() {
	local ns=$1 line name f=() d
	local -A tx=()

	while read -r line; do
		[[ $line == *:* ]] || continue
		name=${line%%:*}
		read -r -a f <<< "${line#*:}"
		tx[$name]=${f[8]}
	done < "/proc/${NSPID[$ns]}/net/dev"
	shift
	for d; do
		TXB+=("${tx[$d]:-0}")
	done
}

# uplinks: UP, the bytes every leaf-spine link sent, as a JSON array: leaf
# L's uS (L*SPINES+S), then spine S's vL (LEAVES*SPINES + S*LEAVES+L);
# TXB, the same as a bash array.
uplinks() {
	local l s d=()

	TXB=()
	for ((s = 0; s < SPINES; s++)); do d[s]=u$s; done
	for ((l = 0; l < LEAVES; l++)); do ns_tx leaf$l "${d[@]}"; done
	d=()
	for ((l = 0; l < LEAVES; l++)); do d[l]=v$l; done
	for ((s = 0; s < SPINES; s++)); do ns_tx spine$s "${d[@]}"; done
	local IFS=,
	UP="[${TXB[*]}]"
}

# perm_pairs SEED: "SRC DST" per host, DST on another leaf, the pairs in a
# shuffled order; drawn with bash's RANDOM seeded by SEED.
perm_pairs() {
	local i j t dst=() ok

	RANDOM=$1
	while :; do
		for ((i = 0; i < HOSTS; i++)); do dst[i]=$i; done
		for ((i = HOSTS - 1; i > 0; i--)); do
			j=$((RANDOM % (i + 1)))
			t=${dst[i]} dst[i]=${dst[j]} dst[j]=$t
		done
		ok=1
		for ((i = 0; i < HOSTS; i++)); do
			[ $((i / HPL)) != $((dst[i] / HPL)) ] || { ok=0; break; }
		done
		[ $ok = 0 ] || break
	done
	shuffled "$1" $HOSTS | while read -r i; do echo "$i ${dst[i]}"; done
}

# a2a_pairs SEED: every ordered pair of hosts, in a shuffled order.
# shellcheck disable=SC2317 # called as ${kind}_pairs
a2a_pairs() {
	local n=$((HOSTS * HOSTS)) k

	shuffled "$1" "$n" | while read -r k; do
		[ $((k / HOSTS)) = $((k % HOSTS)) ] || echo "$((k / HOSTS)) $((k % HOSTS))"
	done
}

# shuffled SEED N: 0..N-1 in an order drawn with RANDOM seeded by SEED.
shuffled() {
	local i j t a=()

	RANDOM=$(($1 * 7919))
	for ((i = 0; i < $2; i++)); do a[i]=$i; done
	for ((i = $2 - 1; i > 0; i--)); do
		j=$((RANDOM % (i + 1)))
		t=${a[i]} a[i]=${a[j]} a[j]=$t
	done
	printf '%s\n' "${a[@]}"
}

# job POLICY HASH JOB QPS CONNECT SEED: one job, its JSON line appended to
# $RUNS.
CM_PORT=18700
job() {
	local policy=$1 hash=$2 kind=$3 qps=$4 connect=$5 seed=$6 fam=4 bytes flows=() s d
	local before after out rc=0 cm=() pairs=''

	[ "$hash" = ipv4 ] || fam=6
	if [ "$kind" = perm ]; then bytes=$BYTES; else bytes=$A2A_BYTES; fi
	while read -r s d; do
		flows+=("$(host$fam "$s"),$(host$fam "$d")")
		pairs+="${pairs:+,}[$s,$d]"
	done < <("${kind}_pairs" "$seed")
	[ "$connect" = qpn ] || cm=(--cm --cm-port $((CM_PORT++)))
	set_hash "$hash" "$seed" || return 1
	out=$OUT/job.json
	uplinks
	before=$UP
	timeout 600 "$FLOWS" "${cm[@]}" --qps "$qps" --bytes "$bytes" --json "${flows[@]}" \
		> "$out" 2> "$OUT/job.err" || rc=$?
	uplinks
	after=$UP
	if [ $rc != 0 ]; then
		echo "  $policy $hash $kind x$qps $connect seed $seed: roce-flows failed ($rc):"
		sed 's/^/    /' "$OUT/job.err"
		return 1
	fi
	jq -c --arg policy "$policy" --arg hash "$hash" --arg job "$kind" \
		--argjson seed "$seed" --argjson before "$before" --argjson after "$after" \
		--argjson leaves "$LEAVES" --argjson spines "$SPINES" --argjson hpl "$HPL" \
		--argjson rate "$RATE" --argjson pairs "[$pairs]" \
		'{policy: $policy, hash: $hash, job: $job, seed: $seed,
		  topology: {leaves: $leaves, spines: $spines, hosts_per_leaf: $hpl,
			     rate_kbit: $rate},
		  pairs: $pairs,
		  uplink_bytes: [$after, $before] | transpose | map(.[0] - .[1]),
		  flows: .}' "$out" >> "$RUNS"
	jq -r '"  \(.connect) x\(.qps_per_flow): \(.flows | length) flows, the last done after \(.job_seconds * 1000 | round / 1000) s"' "$out"
}

# calibrate: one flow alone, then a permutation whose flows the leaves pin
# to one uplink each (every uplink carries one flow, each host link one):
# their rates against RATE.  Near 1 (headers take about 6%), the fabric
# is the bottleneck; the report says so or warns.
calibrate() {
	local l s i j flows=() out=$OUT/calibrate.json one all

	progress "calibration: one flow alone, then a permutation pinned to every uplink once"
	set_fabric_policy "${POLICIES[0]}" && set_hash ipv4 1 || return 1
	"$FLOWS" --bytes "$BYTES" --json "$(host4 0),$(host4 "$HPL")" > "$OUT/calibrate-one.json" ||
		return 1
	# host i to host i+HPL (the next leaf), by uplink i % SPINES (HPL is
	# SPINES or less for every uplink to carry one flow)
	for ((l = 0; l < LEAVES; l++)); do
		for ((s = 0; s < SPINES; s++)); do
			ip -n leaf$l route add 10.100.0.0/16 via 10.$((110 + l)).$s.2 dev u$s table $((300 + s)) ||
				return 1
		done
		for ((i = l * HPL; i < (l + 1) * HPL; i++)); do
			ip -n leaf$l rule add pref 30 from "$(host4 $i)" to 10.100.0.0/16 iif d$i \
				lookup $((300 + i % SPINES)) || return 1
		done
	done
	for ((i = 0; i < HOSTS; i++)); do
		j=$(((i + HPL) % HOSTS))
		flows+=("$(host4 $i),$(host4 $j)")
	done
	"$FLOWS" --bytes "$BYTES" --json "${flows[@]}" > "$out" || return 1
	for ((l = 0; l < LEAVES; l++)); do
		for ((i = l * HPL; i < (l + 1) * HPL; i++)); do
			ip -n leaf$l rule del pref 30 from "$(host4 $i)" to 10.100.0.0/16 iif d$i || return 1
		done
	done
	one=$(jq --argjson r "$RATE" '.bytes_per_flow * 8 / 1000 / .job_seconds / $r' "$OUT/calibrate-one.json")
	all=$(jq --argjson r "$RATE" '.bytes_per_flow * (.flows | length) * 8 / 1000 / .job_seconds / $r / (.flows | length)' "$out")
	printf '  one flow: %.3f of the link rate; %d pinned flows: %.3f of the fabric capacity\n' \
		"$one" "$HOSTS" "$all"
	jq -nc --argjson one "$one" --argjson all "$all" --argjson hosts "$HOSTS" \
		--argjson rate "$RATE" '{calibration: {one_flow: $one, pinned: $all, flows: $hosts, rate_kbit: $rate}}' \
		>> "$RUNS"
}

# The failure act: a permutation of FAIL_BYTES a flow twice, on a whole
# fabric and with the leaf uplink that carried most in its first
# FAIL_AFTER seconds black-holed then (leaf to spine; ecmp-core.sh's way:
# the leaf's neighbour entry for the spine gets a MAC nobody has, the
# route stays, as when a link silently drops), under FAIL_POLICIES: rfc
# with re-path off and on (rfc+repath), stock.  Its QPs time out after
# 4.096 us * 2^16 (268 ms; shorter WRITEs keep the queues below it) and
# give up after 6 retries (rxe takes 7 as "for ever"); the others go on
# (--keep-going).  Constants, not ENTROPY_FABRIC_* settings.
FAIL_BYTES=1048576
FAIL_AFTER=0.5
if [ "$entropy_stock" = 1 ]; then
	FAIL_POLICIES=(stock)
else
	FAIL_POLICIES=(rfc rfc+repath)
fi

# blackhole on|off L S: leaf L's uplink to spine S drops what the leaf
# sends (on) or carries it again (off).
blackhole() {
	local mac

	mac=$(mac_v "$2" "$3")
	[ "$1" = off ] || mac=$ECMP_NOWHERE
	ip -n "leaf$2" -batch - <<< "$(ecmp_neigh_lines "u$3" "10.$((110 + $2)).$3.2" \
		"fd6e:$2:$3::2" "$mac")"
}

# busiest_uplink BEFORE...: "L S", the leaf uplink whose count grew most
# since BEFORE (TXB's, from uplinks), to TXB now.
busiest_uplink() {
	local i best=0 grew max=-1 before=("$@")

	for ((i = 0; i < LEAVES * SPINES; i++)); do
		grew=$((TXB[i] - before[i]))
		[ $grew -le $max ] || { max=$grew; best=$i; }
	done
	echo "$((best / SPINES)) $((best % SPINES))"
}

set_fabric_repath() {
	local i

	[ "$entropy_stock" = 0 ] || return 0
	for ((i = 0; i < HOSTS; i++)); do
		echo "$1" > /sys/class/infiniband/rxh$i/ports/1/roce_repath || return 1
	done
}

# failover POLICY: the permutation of seed 1 whole, then with the hole; one
# JSON line.
failover() {
	local label=$1 policy=${1%+repath} repath=off flows=() s d pairs='' run go rc
	local base=$OUT/failover-base.json hole=$OUT/failover-hole.json c0=() t0 t1 at=0 link=()
	local pid

	[ "$label" = "$policy" ] || repath=on
	progress "failure act: $label, a permutation of $FAIL_BYTES bytes a flow, the busiest leaf uplink black-holed after $FAIL_AFTER s"
	set_fabric_policy "$policy" && set_fabric_repath "$repath" && set_hash ipv4 1 || return 1
	while read -r s d; do
		flows+=("$(host4 "$s"),$(host4 "$d")")
		pairs+="${pairs:+,}[$s,$d]"
	done < <(perm_pairs 1)
	for run in base hole; do
		go=$OUT/failover-go
		rm -f "$go"
		rc=0
		timeout 600 "$FLOWS" --cm --cm-port $((CM_PORT++)) --bytes "$FAIL_BYTES" --message 4096 \
			--ack-timeout 16 --retry-count 6 --keep-going --started "$go" --json "${flows[@]}" \
			> "$OUT/failover-$run.json" 2> "$OUT/failover-$run.err" &
		pid=$!
		if [ $run = hole ]; then
			# no fork between the start and the hole but ip's
			if wait_for 120 test -e "$go"; then
				t0=$EPOCHREALTIME
				uplinks
				c0=("${TXB[@]}")
				nap "$FAIL_AFTER"
				uplinks
				read -r -a link <<< "$(busiest_uplink "${c0[@]}")"
				blackhole on "${link[@]}" || rc=1
				t1=$EPOCHREALTIME
				# when it took effect, from when the start was seen
				at=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }')
				echo "  leaf${link[0]}'s uplink to spine${link[1]} black-holed $at s in"
			else
				rc=1
			fi
		fi
		wait $pid || [ $run = hole ] || rc=1
		[ $run = base ] || [ ${#link[@]} != 2 ] || blackhole off "${link[@]}" || rc=1
		# (jq -e succeeds on an empty file)
		if [ $rc != 0 ] || [ ! -s "$OUT/failover-$run.json" ] ||
			! jq -e .flows "$OUT/failover-$run.json" > /dev/null 2>&1; then
			echo "  failure act $label, $run: roce-flows failed:"
			sed 's/^/    /' "$OUT/failover-$run.err"
			set_fabric_repath off
			return 1
		fi
		jq -r --arg run "$run" '"  \($run): \((.flows | length) - .failed) of \(.flows | length) flows done, the last after \(.job_seconds * 1000 | round / 1000) s, longest gap \([.flows[].longest_gap_seconds] | max * 1000 | round) ms"' "$OUT/failover-$run.json"
	done
	set_fabric_repath off || return 1
	jq -nc --arg policy "$label" --argjson pairs "[$pairs]" --argjson after "$at" \
		--slurpfile base "$base" --slurpfile hole "$hole" \
		--arg link "leaf${link[0]}-spine${link[1]}" \
		'{failover: {policy: $policy, link: $link, after_seconds: $after,
			     pairs: $pairs, base: $base[0], hole: $hole[0]}}' >> "$RUNS"
}

progress "$LEAVES leaves, $SPINES spines, $HOSTS hosts ($HPL per leaf), every link ${RATE} kbit/s"
planned=0
for kind in "${JOBS[@]}"; do
	if [ "$kind" = a2a ]; then
		planned=$((planned + ${#A2A_HASHES[@]} * ${#A2A_SEEDS[@]}))
	else
		planned=$((planned + ${#HASHES[@]} * ${#SEEDS[@]}))
	fi
done
planned=$((planned * ${#POLICIES[@]} * ${#QPS_LIST[@]} * ${#CONNECTS[@]}))
echo "{\"plan\": {\"jobs\": $planned, \"failover\": ${#FAIL_POLICIES[@]}}}" >> "$RUNS"
t=$SECONDS
if ! { fabric_routers && fabric_hosts && fabric_shape && fabric_rxe && ns_sleepers; }; then
	echo "the fabric did not come up"
	exit 1
fi
echo "  up in $((SECONDS - t)) s"
calibrate || { echo "the calibration failed"; exit 1; }
rc=0
for policy in "${POLICIES[@]}"; do
	set_fabric_policy "$policy" || { echo "policy $policy: the knob refused it"; exit 1; }
	for kind in "${JOBS[@]}"; do
		hashes=("${HASHES[@]}") seeds=("${SEEDS[@]}")
		[ "$kind" != a2a ] || hashes=("${A2A_HASHES[@]}") seeds=("${A2A_SEEDS[@]}")
		for hash in "${hashes[@]}"; do
			for qps in "${QPS_LIST[@]}"; do
				for connect in "${CONNECTS[@]}"; do
					progress "$policy, hash $hash, $kind, $qps QP(s) per pair, $connect"
					for seed in "${seeds[@]}"; do
						job "$policy" "$hash" "$kind" "$qps" "$connect" "$seed" || rc=1
					done
				done
			done
		done
	done
done
for policy in "${FAIL_POLICIES[@]}"; do
	failover "$policy" || rc=1
done
exit $rc
