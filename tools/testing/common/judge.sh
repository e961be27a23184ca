# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # jq definitions for mixed-fleet.sh and the tests
# Judging connections: what roce-entropy pcap found in a capture, judged
# with jq (JQ_SHOW, JQ_JUDGE and JQ_UDADDY_V4, which mixed-fleet.sh and the
# tests use too), and a kernel consumer's connections in a pair's capture.
# Needs base.sh's settings and check, CAP (capture.sh), pair_pcap
# (mixed-fleet.sh) and repath_moves (connections.sh).

# ---- judging connections ----

# jq_family FAMILY: the start of a jq filter of connections over FAMILY (4
# or 6), to be followed by the rest of the condition.
jq_family() {
	if [ "$1" = 6 ]; then
		echo -n '(.src | contains(":")) and '
	else
		echo -n '(.src | contains(":") | not) and '
	fi
}

# jq definitions: show, what roce-entropy pcap found for one connection:
# its CM MADs by kind each way, its ports (CM MADs and data apart), flow
# labels, and what the policy predicted for each kind of packet (a one-port
# policy predicts the same for all three).
JQ_SHOW='
def msgs(d): ["REQ", "MRA", "REJ", "REP", "RTU", "DREQ", "DREP", "SIDR_REQ", "SIDR_REP"] as $o |
	d.cm_messages | to_entries | sort_by(.key as $k | $o | index($k) // 99) |
	map("\(.key) \(.value)") | join(" ");
def port(e): if e == null then "-" else "\(e.udp_sport)" end;
def show:
	"  \(.transport) \(.src) -> \(.dst): QPNs \(.qpns), CM ports \(.cm_ports // "none"), \(.cm_mads) CM MADs (-> \(msgs(.forward)), <- \(msgs(.reverse)))",
	"  -> \(.forward.packets) packets, CM on \(.forward.cm_udp_sports), data on \(.forward.data_udp_sports); <- \(.reverse.packets), CM on \(.reverse.cm_udp_sports), data on \(.reverse.data_udp_sports)",
	"  predicted: CM \(port(.expected_cm)), data -> \(port(.forward.expected_data)), <- \(port(.reverse.expected_data)); \(.mismatched) packets off, \(.unpredicted) unpredicted",
	(select(.flow_labels != []) | "  IPv6 flow labels \(.flow_labels), predicted \((.expected_cm // .forward.expected_data // .reverse.expected_data).flow_label)");
'

# More jq: judge($key; $what; $n; $note; $c), the lines that say what
# the connections $c (a list, from roce-entropy pcap --json) are and, last,
# "verdict true" or "verdict false", each line after "$key<TAB>".  True when
# they are $n connections of kind $what, each with packets both ways, every
# packet predicted and on its prediction:
#   cm      rdma_cm: its CM ports, CM MADs and data both ways;
#   qpn     no CM: both QPNs, no CM MAD;
#   reject  a REQ and the REJ that answers it, and nothing else.
# $note, if not "", names a "#" line that says whether the DREQs crossed.
JQ_JUDGE='
def judge($key; $what; $n; $note; $c):
	(($c[] | show),
	 (select($note != "" and ($c | length) == 1) | $c[0] |
		[.forward.cm_messages.DREQ // 0, .reverse.cm_messages.DREQ // 0] as $d |
		if $d[0] > 0 and $d[1] > 0 then "# \($note): the DREQs crossed"
		else "# \($note): the DREQs did not cross this time (-> and <-: \($d[0]) \($d[1]))" end),
	 "verdict \(($c | length) == $n and
		all($c[]; .consistent and .unpredicted == 0 and .mismatched == 0 and
		    .forward.packets > 0 and .reverse.packets > 0 and
		    if $what == "cm" then
			.cm_ports != null and .cm_mads >= 2 and
			.forward.data_packets > 0 and .reverse.data_packets > 0
		    elif $what == "qpn" then (.qpns | length) == 2 and .cm_mads == 0
		    else .cm_ports != null and .cm_mads == .packets and
			.forward.cm_messages.REQ > 0 and .reverse.cm_messages.REJ > 0
		    end))") | "\($key)\t\(.)";
'

# udaddy_v4($key; $policy; $c): rdma_cm UD over IPv4 under rfc or mix, as
# judge() (JQ_JUDGE above) says it.  Neither the SIDR REQ nor IPv4 carries a
# flow label, so the passive side derives the connection's from the CM
# ports itself (patch 0011): the SIDR REQ and REP and the active side's
# data must be on the predicted port.  udaddy's server replies through an
# AH that it builds from the work completion, without a flow label over
# IPv4, so rxe gives the replies the QPN hash's port: a known limitation,
# printed and not counted.  (Under off both are 0xC000, and under builtin the
# replies are UD data on the server QP's own port: both are judged like
# everything else.)
JQ_UDADDY_V4='
def udaddy_v4($key; $policy; $c):
	(if ($c | length) != 1 then "  not one rdma_cm UD connection in the capture", "verdict false"
	 else $c[0] | .expected_udp_sport as $want | show,
		"# known limitation, not counted: udaddy IPv4 under \($policy): the \(.reverse.data_packets) replies from \(.dst) on \(.reverse.data_udp_sports), predicted \($want); the QPN hash of \(.qpns) gives \(.predicted[$policy].qpn.udp_sport) (udaddy builds their AH from the work completion: no flow label over IPv4)",
		"verdict \(.unpredicted == 0 and
			.forward.cm_messages.SIDR_REQ > 0 and .forward.cm_udp_sports == [$want] and
			.reverse.cm_messages.SIDR_REP > 0 and .reverse.cm_udp_sports == [$want] and
			.forward.data_packets > 0 and .forward.data_udp_sports == [$want] and
			.reverse.data_packets > 0)"
	 end) | "\($key)\t\(.)";
'

# verdict_files TAG JQ: run the jq program JQ on $CAPS/TAG.pcapng.json;
# each "KEY<TAB>LINE" it prints goes to $LOGS/TAG-KEY.verdict, for
# judge_kind.  One jq run for all of a capture's checks: jq starts slowly
# under TCG.
verdict_files() {
	rm -f "$LOGS/$1"-*.verdict
	jq -r "$2" "$CAPS/$1.pcapng.json" |
		while IFS=$'\t' read -r key line; do
			echo "$line" >> "$LOGS/$1-$key.verdict"
		done
}

# judge_kind NAME: the run NAME (TAG-vFAMILY-KIND) exited 0, and its
# connections are as verdicts() found.
judge_kind() {
	local line last=

	while IFS= read -r line; do echo "$line"; done < "$LOGS/$1.out"
	[ -s "$LOGS/$1.verdict" ] || { echo "  no verdict"; return 1; }
	while IFS= read -r line; do
		[ -z "$last" ] || echo "$last"
		last=$line
	done < "$LOGS/$1.verdict"
	[ "$(cat "$LOGS/$1.rc" 2>/dev/null)" = 0 ] && [ "$last" = "verdict true" ]
}

# judged_ulp FAMILY ACTIVE SVC MIN [moved] [REPATH]: the rdma_cm
# connections in $CAP.json over FAMILY (4 or 6) to service port SVC whose
# client is on ACTIVE (near: A, far: B): MIN at least, each with data both
# ways and every packet as its sender's policy predicts.  With "moved",
# those that moved no data (attempts a target refused while it was down)
# are left out, and counted.  REPATH: how many times near's re-path moved
# a QP during the capture (0 if none); that many connections may have
# near's data on more ports than the predicted one, which they must have
# used first, while far's data and every CM MAD stay as predicted: under
# load (TCG) RC timeouts are real, and moving is what re-path is for.
judged_ulp() {
	local host near sel n bad moved=0 all=

	case $2$1 in
	near4) host=$A4 ;;
	near6) host=$A6 ;;
	far4) host=$B4 ;;
	far6) host=$B6 ;;
	esac
	near=$A4
	[ "$1" = 4 ] || near=$A6
	sel="[.connections[] | select(.src == \"$host\" and .cm_ports[1] == $3)]"
	if [ "${5:-}" = moved ]; then
		all=$(jq "$sel | length" "$CAP.json")
		sel="($sel | map(select(.forward.data_packets > 0)))"
	fi
	jq -r "$JQ_SHOW$sel | .[] | show" "$CAP.json"
	n=$(jq "$sel | length" "$CAP.json")
	bad=$(jq "$sel | map(select(.verdict != \"ok\" or .mismatched != 0 or
		.forward.data_packets == 0 or .reverse.data_packets == 0))" "$CAP.json")
	if [ "${6:-0}" -gt 0 ]; then
		moved=$(jq --arg near "$near" 'map(select(
			(if .src == $near then [.forward, .reverse] else [.reverse, .forward] end) as [$n, $f] |
			.forward.data_packets > 0 and .reverse.data_packets > 0 and
			($n.data_udp_sports | index($n.expected_data.udp_sport) != null) and
			($n.data_udp_sports | length) > 1 and
			$f.data_udp_sports == [$f.expected_data.udp_sport] and
			.forward.cm_udp_sports == [.expected_cm.udp_sport])) | length' <<< "$bad")
		[ "$moved" -le "$6" ] || moved=$6
		echo "  IPv$1, client on $2: near's re-path moved QPs $6 time(s) during the capture; $moved connection(s) moved near's data from the predicted port"
	fi
	bad=$(($(jq length <<< "$bad") - moved))
	[ -z "$all" ] || echo "  IPv$1, client on $2: $((all - n)) attempts to port $3 that moved no data"
	echo "  IPv$1, client on $2: $n connections to port $3, $bad not as predicted"
	[ "$n" -ge "$4" ] && [ "$bad" = 0 ]
}

# judged_ulps POLICY SVC MIN LABEL WHAT [REPATH]: $CAP, a pair's capture
# with near under POLICY and far under FAR_POLICY, judged, each packet
# under its sender's policy; then, for each family and each guest as the
# client, its connections to service port SVC (judged_ulp, MIN at least,
# REPATH re-path moves of near's allowed), checked as "IPv4, LABEL, near's
# WHAT as its sender's policy predicts".
judged_ulps() {
	local fam act

	check "the capture under $1 was judged" pair_pcap "$1" || return
	for fam in 4 6; do
		for act in near far; do
			check "IPv$fam, $4, $act's $5 as its sender's policy predicts" \
				judged_ulp $fam $act "$2" "$3" "" "${6:-0}"
		done
	done
}

# repath_total DEV: the moves DEV's re-path made so far, both roles.
repath_total() {
	local m

	m=$(repath_moves "$1") || { echo 0; return; }
	echo $(( ${m% *} + ${m#* } ))
}
