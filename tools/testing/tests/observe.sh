#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What the kernel shows of the entropy it programmed, on live connections of
# every type, under each policy of ENTROPY_OBSERVE_POLICIES:
#   cm4        roce-ping, rdma_cm RC over IPv4;
#   cm6        roce-ping over IPv6 with a flow label of its own (sin6_flowinfo);
#   rc         ibv_rc_pingpong, RC without rdma_cm;
#   ud         ibv_ud_pingpong, UD without rdma_cm;
#   cmud       udaddy, rdma_cm UD (SIDR).
# All run at once; once each has its QPs and AHs (their trace events are
# the sign), the programs are stopped and the host is read:
#   - `roce-entropy qp --json` (the resource dump's RDMA_NLDEV_ATTR_RES_ROCE_*
#     attributes): the QPs `rdma -j -dd res show qp` lists, each with its
#     roce-entropy, roce-fl-source, roce-flow-label and roce-udp-sport, against `roce-entropy flow-label`'s
#     prediction from the CM ports (`rdma -j res show cm_id`) or the QPNs,
#     and, for UD, the rule of the policy (per send under rfc and mix, the
#     QP's own port under builtin: 0xC000 + hash_32(qpn, 14), written out here);
#   - the roce_entropy trace events: one per connected QP with the values of
#     the dump, and the UD AHs' (udaddy's active side: the CM ports' flow
#     label);
#   - `roce-entropy audit` on the live host: every connected QP agrees.
# The dumps stay in $entropy_out/observe/POLICY/ (the tools' tests keep some).
# On the kernel's own modules (STOCK=1) the test is a skip: they have
# none of these.
#
# basic runs mix and builtin on the test kernel; dist runs rfc, whether
# DKMS's build's resource dump and trace events show it.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_OBSERVE_POLICIES   the policies, commas between (default
#                          rfc,mix,builtin)
STACKS="ours compat dist"
CPUS=1
: "${ENTROPY_OBSERVE_POLICIES:=rfc,mix,builtin}"
. "$entropy_repo/tools/testing/lib.sh"

TRACE=/sys/kernel/tracing
PORT4=7481 PORT6=7482 RC_PORT=18517 UD_PORT=18518 UDADDY_PORT=7174
APP_FL=0x5a5a5
# Enough round trips to outlast the phase; the programs are stopped, then
# killed.  udaddy posts all its messages at once: its CQ of twice as many
# entries must stay within rxe's max_cqe, 2^15 - 1.
ITERS=1000000 UDADDY_MSGS=10000

# ud_sport QPN: 6.12 rxe's port of a UD QP, 0xC000 + hash_32(qpn, 14)
ud_sport() {
	echo $((0xC000 + ((($1 * 0x61C88647) & 0xFFFFFFFF) >> 18)))
}

tracing_on() {
	mountpoint -q $TRACE || mount -t tracefs nodev $TRACE || return 1
	[ -d $TRACE/events/roce_entropy/roce_entropy_qp ] &&
		[ -d $TRACE/events/roce_entropy/roce_entropy_ah ] &&
		echo 1 > $TRACE/events/roce_entropy/enable
}

# counts: how many roce_entropy_qp and _ah events each program has so far.
counts() {
	awk '/roce_entropy_(qp|ah):/ {
		comm = $1; sub(/-[0-9]+$/, "", comm)
		ev = $0; sub(/.*roce_entropy_/, "", ev); sub(/:.*/, "", ev)
		n[comm " " ev]++ }
	END { for (k in n) print k, n[k] }' $TRACE/trace
}

# ready: every connection has its QPs (roce-ping's four, ibv_rc_pingpong's
# two) and its AHs (ibv_ud_pingpong's two, udaddy's two).
ready() {
	local c

	c=$(counts)
	[[ $c =~ "roce-ping qp "([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 4 ] &&
		[[ $c =~ "ibv_rc_pingpong qp "([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 2 ] &&
		[[ $c =~ "ibv_ud_pingpong ah "([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 2 ] &&
		[[ $c =~ "udaddy ah "([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 2 ]
}

# hold_udaddy PID...: stop both udaddy as soon as both have their AH (the
# client's comes with the SIDR REP, the server's with the first message).
# They post all their messages at once, and a fast kernel (Debian's,
# without the test kernel's debug options) sends them all and ends them
# before the other programs are ready.
hold_udaddy() {
	local n=0

	until [ "$(grep -c '^ *udaddy-[0-9]* .*roce_entropy_ah:' $TRACE/trace)" -ge 2 ]; do
		[ $n -lt 900 ] || return 0
		sleep 0.1
		n=$((n + 1))
	done
	kill -STOP "$@" 2>/dev/null
}

# start POLICY: every connection type at once, servers first; the pids of
# the programs to stop in $STOP, roce-ping's in $PINGS.
start() {
	local ga gb

	HOLDER=
	gb=$(gid_index rxeb "$B4") && ga=$(gid_index rxea "$A4") || return 1
	rm -f "$HOLD"
	"$PING" server --bind "$B4" --port $PORT4 --connections 1 > "$L-cm4-server.log" 2>&1 &
	PINGS="$!"
	"$PING" server --bind "$B6" --port $PORT6 --connections 1 > "$L-cm6-server.log" 2>&1 &
	PINGS+=" $!"
	ibv_rc_pingpong -d rxeb -g "$gb" -e -n $ITERS -p $RC_PORT > "$L-rc-server.log" 2>&1 &
	STOP="$!"
	ibv_ud_pingpong -d rxeb -g "$gb" -e -n $ITERS -s 512 -p $UD_PORT > "$L-ud-server.log" 2>&1 &
	STOP+=" $!"
	udaddy -b "$B4" -C $UDADDY_MSGS > "$L-cmud-server.log" 2>&1 &
	STOP+=" $!"
	UDADDY="$!"
	wait_for 30 cm_listening "$B4" $PORT4 TCP && wait_for 30 cm_listening "$B6" $PORT6 TCP &&
		wait_for 30 tcp_listening $RC_PORT && wait_for 30 tcp_listening $UD_PORT &&
		wait_for 30 cm_listening "$B4" $UDADDY_PORT UDP || return 1
	"$PING" client --bind "$A4" --server "$B4" --port $PORT4 --messages 1 \
		--until "$HOLD" > "$L-cm4-client.log" 2>&1 &
	PINGS+=" $!"
	"$PING" client --bind "$A6" --server "$B6" --port $PORT6 --messages 1 \
		--flow-label $APP_FL --until "$HOLD" > "$L-cm6-client.log" 2>&1 &
	PINGS+=" $!"
	ibv_rc_pingpong -d rxea -g "$ga" -e -n $ITERS -p $RC_PORT "$B4" > "$L-rc-client.log" 2>&1 &
	STOP+=" $!"
	ibv_ud_pingpong -d rxea -g "$ga" -e -n $ITERS -s 512 -p $UD_PORT "$B4" \
		> "$L-ud-client.log" 2>&1 &
	STOP+=" $!"
	udaddy -s "$B4" -b "$A4" -C $UDADDY_MSGS > "$L-cmud-client.log" 2>&1 &
	STOP+=" $!"
	UDADDY+=" $!"
	hold_udaddy $UDADDY &
	HOLDER=$!
}

# stop: roce-ping's connections closed (they must end well), the others
# killed; every program gone.
stop() {
	local p rc=0

	touch "$HOLD"
	if [ -n "$HOLDER" ]; then
		kill "$HOLDER" 2>/dev/null
		wait "$HOLDER" 2>/dev/null
	fi
	# shellcheck disable=SC2086
	kill -KILL $STOP 2>/dev/null
	for p in $PINGS; do
		wait_for 30 gone "$p" || { kill "$p"; rc=1; }
		wait "$p" || rc=1
	done
	for p in $STOP; do
		wait "$p" 2>/dev/null
	done
	return $rc
}

# read_host: the dumps, the trace and the audit, while the programs are
# stopped; the dumps as lines for the checks below.
read_host() {
	"$TOOL" qp --json > "$D/qp.json" && rdma -j res show cm_id > "$D/cm_id.json" &&
		"$TOOL" qp > "$D/qp.txt" && rdma -j -dd res show qp > "$D/rdma-qp.json" &&
		"$RDMA_SERIES" -j -dd res show qp > "$D/rdma-series-qp.json" &&
		"$RDMA_SERIES" -dd res show qp > "$D/rdma-series-qp.txt" || return 1
	cp $TRACE/trace "$D/trace.txt"
	"$TOOL" audit --port-flow-label $PORT6:$APP_FL --json > "$D/audit.json" 2> "$D/audit.err"
	echo $? > "$D/audit.rc"
	"$TOOL" audit --port-flow-label $PORT6:$APP_FL > "$D/audit.txt" 2>&1
	# dev lqpn rqpn type comm policy source flow_label udp_sport
	jq -r '.. | objects | select(has("lqpn") and has("type")) |
		[.ifname, .lqpn, (.rqpn // "-"), .type, (.comm // "-"),
		 (."roce-entropy" // "-"), (."roce-fl-source" // "-"),
		 (."roce-flow-label" // "-"), (."roce-udp-sport" // "-")] | @tsv' "$D/qp.json" > "$D/qps.tsv" &&
	# dev lqpn state ps src dst
	jq -r '.. | objects | select(has("ps")) |
		[.ifname, (.lqpn // "-"), .state, .ps, (.["src-addr"] // "-"),
		 (.["dst-addr"] // "-")] | @tsv' "$D/cm_id.json" > "$D/cm_ids.tsv"
}

# qp DEV LQPN: the QP's line of the dump.
qp() {
	awk -F'\t' -v d="$1" -v q="$2" '$1 == d && $2 == q' "$D/qps.tsv"
}

# qp_is DEV LQPN POLICY SOURCE FLOW_LABEL UDP_SPORT: the dump says so ("-":
# no such attribute).
qp_is() {
	local line want

	line=$(qp "$1" "$2")
	want="$3"$'\t'"$4"$'\t'"$5"$'\t'"$6"
	echo "  $1 QP $2: $(cut -f 4- <<< "$line" | tr '\t' ' '); predicted $3 $4 $5 $6"
	[ -n "$line" ] && [ "$(cut -f 6- <<< "$line")" = "$want" ]
}

# event_is DEV LQPN RQPN POLICY SOURCE FLOW_LABEL UDP_SPORT: the trace has
# that QP's event with those values.
event_is() {
	local want

	want=$(printf 'roce_entropy_qp: device=%s port=1 qpn=%u rqpn=%u policy=%s source=%s flow_label=0x%05x udp_sport=%u' "$@")
	grep -qF "$want" "$D/trace.txt" || { echo "  no event: $want"; return 1; }
}

# cm_qps PS PORT: "dev lqpn sport dport" of both ends of the rdma_cm
# connection to service PORT, sport the active side's port.
cm_qps() {
	awk -F'\t' -v ps="$1" -v port="$2" '
		function port_of(a) { sub(/.*:/, "", a); return a }
		$4 == ps && $2 != "-" && $3 != "LISTEN" {
			s = port_of($5); d = port_of($6)
			if (s == port) print $1, $2, d, s
			else if (d == port) print $1, $2, s, d }' "$D/cm_ids.tsv"
}

# the connected QPs judged, "dev lqpn rqpn policy source fl sport", for the
# trace check
CONNECTED=()

# check_cm NAME PORT [APP_FL]: both QPs of the rdma_cm RC connection to PORT.
check_cm() {
	local name=$1 port=$2 app=${3:-} dev lqpn sport dport fl psport n=0 ok=0 rqpn

	while read -r dev lqpn sport dport; do
		n=$((n + 1))
		read -r fl psport <<< "$(predict --policy "$POLICY" --cm-ports "$sport" "$dport" \
			${app:+--flow-label "$app"})" || return 1
		# under builtin rxe sends no flow label: the port is the fold of rdma_cm's
		[ "$POLICY" != builtin ] || fl=0
		qp_is "$dev" "$lqpn" "$POLICY" address "$fl" "$psport" && ok=$((ok + 1))
		rqpn=$(qp "$dev" "$lqpn" | cut -f 3)
		CONNECTED+=("$dev $lqpn $rqpn $POLICY address $fl $psport")
	done < <(cm_qps TCP "$port")
	echo "  $name: $n rdma_cm QPs, $ok as predicted"
	[ $n = 2 ] && [ $ok = 2 ]
}

# check_rc: both QPs of ibv_rc_pingpong, from their QPNs.
check_rc() {
	local dev lqpn rqpn type comm rest fl psport n=0 ok=0

	while IFS=$'\t' read -r dev lqpn rqpn type comm rest; do
		[ "$comm" = ibv_rc_pingpong ] && [ "$type" = RC ] || continue
		n=$((n + 1))
		read -r fl psport <<< "$(predict --policy "$POLICY" --qpn "$lqpn" "$rqpn")" || return 1
		[ "$POLICY" != builtin ] || fl=0
		qp_is "$dev" "$lqpn" "$POLICY" qpn "$fl" "$psport" && ok=$((ok + 1))
		CONNECTED+=("$dev $lqpn $rqpn $POLICY qpn $fl $psport")
	done < "$D/qps.tsv"
	echo "  ibv_rc_pingpong: $n QPs, $ok as predicted"
	[ $n = 2 ] && [ $ok = 2 ]
}

# check_ud COMM: both UD QPs of COMM: per send under rfc and mix, the
# QP's own port under linux.
check_ud() {
	local dev lqpn rqpn type comm rest n=0 ok=0

	while IFS=$'\t' read -r dev lqpn rqpn type comm rest; do
		[ "$comm" = "$1" ] && [ "$type" = UD ] || continue
		n=$((n + 1))
		if [ "$POLICY" = builtin ]; then
			qp_is "$dev" "$lqpn" builtin per-qp 0 "$(ud_sport "$lqpn")"
		else
			qp_is "$dev" "$lqpn" "$POLICY" per-send - -
		fi && ok=$((ok + 1))
	done < "$D/qps.tsv"
	echo "  $1: $n UD QPs, $ok as predicted"
	[ $n = 2 ] && [ $ok = 2 ]
}

# check_gsi: QP1 of both devices: its AHs' under rfc and mix (the CM's,
# with the connection's flow label), 55410 under linux.
check_gsi() {
	local dev ok=0

	for dev in rxea rxeb; do
		if [ "$POLICY" = builtin ]; then
			qp_is $dev 1 builtin per-qp 0 "$(ud_sport 1)"
		else
			qp_is $dev 1 "$POLICY" per-ah - -
		fi && ok=$((ok + 1))
	done
	[ $ok = 2 ]
}

# check_events: the event of each connected QP above, with its values.
check_events() {
	local c ok=0

	for c in "${CONNECTED[@]}"; do
		# shellcheck disable=SC2086
		event_is $c && ok=$((ok + 1))
	done
	echo "  $ok of ${#CONNECTED[@]} connected QPs have their event"
	[ ${#CONNECTED[@]} = 6 ] && [ $ok = 6 ]
}

# ah_events COMM DEV: the sources, flow labels and ports of COMM's AH
# events on DEV under the policy.
ah_events() {
	awk -v comm="$1" -v dev="$2" -v pol="$POLICY" '
		$1 ~ "^" comm "-[0-9]+$" && /roce_entropy_ah:/ && $0 ~ "device=" dev " " &&
		$0 ~ "policy=" pol " " {
			for (i = 1; i <= NF; i++)
				if ($i ~ /^(source|flow_label|udp_sport)=/) printf "%s ", $i
			print "" }' "$D/trace.txt" | sort -u
}

# check_ah_events: ibv_ud_pingpong's AHs: per send (rfc, mix) or the QP's
# own port (builtin); udaddy's: the active side's carries the flow label of
# the CM ports, and so does the passive side's from its rdma_cm event (the
# series gives both ends one value); an AH the passive side makes from a
# work completion over IPv4 has none, per send.
check_ah_events() {
	local a b ca cb fl sport dev lqpn s d

	read -r dev lqpn s d <<< "$(cm_qps UDP $UDADDY_PORT | grep '^rxea ')"
	[ -n "$s" ] || { echo "  no rdma_cm UD connection in the dump"; return 1; }
	read -r fl sport <<< "$(predict --policy "$POLICY" --cm-ports "$s" "$d")" || return 1
	a=$(ah_events ibv_ud_pingpong rxea) b=$(ah_events ibv_ud_pingpong rxeb)
	ca=$(ah_events udaddy rxea) cb=$(ah_events udaddy rxeb)
	echo "  ibv_ud_pingpong: rxea $a; rxeb $b"
	echo "  udaddy (CM ports $s $d): rxea $ca; rxeb ${cb//$'\n'/; }"
	if [ "$POLICY" = builtin ]; then
		# the sending QP's own port, whatever the AH says
		local q="source=per-qp flow_label=0x00000 udp_sport=0 "
		[ "$a" = "$q" ] && [ "$b" = "$q" ] && [ "$ca" = "$q" ] && [ "$cb" = "$q" ]
	else
		local p="source=per-send flow_label=0x00000 udp_sport=0 " cm
		cm=$(printf 'source=address flow_label=0x%05x udp_sport=%u ' "$fl" "$sport")
		[ "$a" = "$p" ] && [ "$b" = "$p" ] && [ "$ca" = "$cm" ] &&
			grep -qxF "$cm" <<< "$cb" && [ -z "$(grep -vxF -e "$cm" -e "$p" <<< "$cb")" ]
	fi
}

# check_same_qps: roce-entropy qp lists the QPs rdma lists, each with the
# same port, numbers, type and state (its own reading of the dump).
check_same_qps() {
	local f='[.. | objects | select(has("lqpn") and has("type")) |
		"\(.ifname)/\(.port) \(.lqpn) \(.rqpn // "-") \(.type) \(.state)"] | sort | .[]'

	diff <(jq -r "$f" "$D/rdma-qp.json") <(jq -r "$f" "$D/qp.json") &&
		echo "  $(jq -r "$f" "$D/qp.json" | wc -l) QPs, the same in both"
}

# check_rdma_series: iproute2's rdma with tools/iproute2 shows each QP's
# entropy as roce-entropy qp does, under the same keys (the source, a
# string of the QP's driver table, as drv_roce_fl_source), for the 12 QPs
# (both devices' QP1 and five programs' QPs); its text gives the flow
# labels in hexadecimal.
check_rdma_series() {
	local n f='[.. | objects | select(has("lqpn") and has("roce-entropy")) |
		"\(.ifname)/\(.lqpn) \(."roce-entropy") \(."roce-fl-source" // ."drv_roce_fl_source") \(."roce-flow-label" // "-") \(."roce-udp-sport" // "-")"] | sort | .[]'

	diff <(jq -r "$f" "$D/qp.json") <(jq -r "$f" "$D/rdma-series-qp.json") || return 1
	n=$(jq -r "$f" "$D/qp.json" | wc -l)
	echo "  $n QPs with entropy, the same in both; in rdma's text:"
	grep -E ' lqpn [0-9]+ rqpn ' "$D/rdma-series-qp.txt" | head -n 2 | sed 's/^/    /'
	[ "$n" -ge 12 ] &&
		[ "$(grep -cE 'roce-flow-label 0x[0-9a-f]+ roce-udp-sport [0-9]+' "$D/rdma-series-qp.txt")" -ge 6 ]
}

# check_stock_rdma_source: the distribution's own rdma, without the patch,
# shows each QP's source with -dd (the driver table is no uAPI of ours),
# the same as roce-entropy qp.
check_stock_rdma_source() {
	local f='[.. | objects | select(has("lqpn") and has("type")) |
		"\(.ifname)/\(.lqpn) \(."roce-fl-source" // ."drv_roce_fl_source" // "-")"] | sort | .[]'

	diff <(jq -r "$f" "$D/qp.json") <(jq -r "$f" "$D/rdma-qp.json") &&
		[ "$(jq -r "$f" "$D/rdma-qp.json" | grep -cv ' -$')" -ge 12 ]
}

# check_audit: roce-entropy audit on the live host: exit 0, the six
# connected QPs among those that agree, none that disagrees.
check_audit() {
	sed 's/^/  /' "$D/audit.txt"
	[ "$(cat "$D/audit.rc")" = 0 ] &&
		jq -e '.disagree == 0 and .agree >= 6 and
			([.qps[] | select(.verdict == "agrees" and (.type == "RC"))] | length) >= 6' \
			"$D/audit.json" > /dev/null
}

phase() {
	local t0=$SECONDS ok=1

	POLICY=$1 D=$entropy_out/observe/$1 L=$LOGS/observe-$1 HOLD=$entropy_out/observe/$1/hold
	CONNECTED=()
	mkdir -p "$D"
	check "the knob takes $POLICY on both devices" set_policy "$POLICY" || return
	echo > $TRACE/trace
	start || { echo "  the servers did not start"; ok=0; }
	if [ $ok = 1 ] && ! wait_for 90 ready; then
		echo "  not every connection came up:"; counts | sed 's/^/    /'
		tail -n 3 "$L"-*.log | sed 's/^/    /'
		ok=0
	fi
	# shellcheck disable=SC2086
	kill -STOP $STOP 2>/dev/null
	[ $ok = 0 ] || read_host || ok=0
	check "$POLICY: roce-ping's connections end well" stop
	echo "# observe.sh $POLICY: connections up and read in $((SECONDS - t0)) s"
	if [ $ok = 0 ]; then
		ktap_test_fail "$POLICY: the host could not be read with every connection up (above)"
		return
	fi
	check "$POLICY: roce-entropy qp lists the QPs of rdma res show qp, as rdma shows them" \
		check_same_qps
	check "$POLICY: rdma with tools/iproute2 shows each QP's entropy as roce-entropy qp does" \
		check_rdma_series
	check "$POLICY: Debian's own rdma -dd shows each QP's source (drv_roce_fl_source)" \
		check_stock_rdma_source
	check "$POLICY: rdma_cm RC IPv4 (roce-ping): both QPs have the CM ports' flow label and port" \
		check_cm "roce-ping IPv4" $PORT4
	check "$POLICY: rdma_cm RC IPv6 with the application's flow label: both QPs have it, and its port" \
		check_cm "roce-ping IPv6" $PORT6 $APP_FL
	check "$POLICY: RC without rdma_cm (ibv_rc_pingpong): both QPs have the QPNs' flow label and port" \
		check_rc
	check "$POLICY: UD without rdma_cm (ibv_ud_pingpong): both QPs show the policy's UD rule" \
		check_ud ibv_ud_pingpong
	check "$POLICY: rdma_cm UD (udaddy): both QPs show the policy's UD rule" check_ud udaddy
	check "$POLICY: QP1 of both devices shows the policy's rule" check_gsi
	check "$POLICY: a roce_entropy_qp event for each connected QP, with its values" check_events
	check "$POLICY: the roce_entropy_ah events of the UD programs" check_ah_events
	check "$POLICY: roce-entropy audit on the live host: every connected QP agrees" check_audit
	echo "# observe.sh $POLICY: $((SECONDS - t0)) s"
}

t0=$SECONDS
if [ "$entropy_stock" = 1 ]; then
	skip "the kernel's own modules have no roce_entropy attributes or events"
	done_testing
	exit
fi
if ! check "the roce_entropy trace events exist and are enabled" tracing_on; then
	done_testing
	exit
fi
found=$(policies_found) # put back at the end
for policy in $(echo "$ENTROPY_OBSERVE_POLICIES" | tr , ' '); do
	phase "$policy"
done
step policies_back "$found"
echo 0 > $TRACE/events/roce_entropy/enable
echo "# observe.sh: $((SECONDS - t0)) s"
done_testing
