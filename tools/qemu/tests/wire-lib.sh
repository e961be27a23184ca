# SPDX-License-Identifier: GPL-2.0
# Capture helpers for the on-the-wire tests: sourced after guest-lib.sh.
# Captures run in the router namespace on a1, which sees both directions of
# everything between rxea and rxeb exactly once.

TOOL=$rte_repo/build/bin/roce-entropy
PING=$rte_repo/build/bin/roce-ping
CAPS=$rte_out/captures
mkdir -p "$CAPS"

set_policy() {
	echo "$1" > /sys/class/infiniband/rxea/ports/1/roce_entropy &&
		echo "$1" > /sys/class/infiniband/rxeb/ports/1/roce_entropy
}

# capture_start NAME: capture RoCE v2 on r/a1 into $CAPS/NAME.pcapng.
capture_start() {
	CAP=$CAPS/$1.pcapng
	rm -f "$CAP"
	ip netns exec r dumpcap -q -i a1 -f 'udp port 4791' -w "$CAP" > /dev/null 2>&1 &
	CAP_PID=$!
	wait_for 10 test -s "$CAP"
	sleep 0.5 # dumpcap writes the file header before its filter is live
}

# The fields the checks read; tshark runs once per capture (it takes a
# second to start under TCG).
CAP_FIELDS="ip.src ipv6.src ip.dst ipv6.dst udp.srcport ipv6.flow
	infiniband.bth.opcode infiniband.bth.destqp
	infiniband.cm.req.ip_cm.sport infiniband.cm.req.serviceid.dport
	infiniband.cm.req.localqpn"

# capture_end: stop the capture.
capture_end() {
	sleep 0.5
	kill -INT "$CAP_PID"
	wait "$CAP_PID"
}

# capture_stop: stop it and dissect it with tshark for fields.
capture_stop() {
	local args=() f

	capture_end
	for f in $CAP_FIELDS; do
		args+=(-e "$f")
	done
	tshark -r "$CAP" -Y infiniband -T fields -E separator='|' "${args[@]}" \
		> "$CAP.txt" 2>/dev/null
}

# fields FIELD...: one line per RoCE packet of $CAP, FIELDs separated by
# spaces (empty ones dropped, as awk splits).
fields() {
	awk -F'|' -v want="$*" -v all="$(echo $CAP_FIELDS)" '
		BEGIN { n = split(all, names, " "); for (i = 1; i <= n; i++) col[names[i]] = i
			m = split(want, w, " ") }
		{ line = ""; for (i = 1; i <= m; i++) line = line (i > 1 ? " " : "") $(col[w[i]]); print line }
	' "$CAP.txt"
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

# perftest 4.5's -R client, even given --source_ip, resolves B from no
# source address here, which the local table answers: rxeb to itself, off
# the wire (no packet crosses r).  route_b_from_a makes locally generated
# lookups to B take A's table first (the local table moves behind that
# rule, as for IPv6 in the standard topology), so that B is reached from
# A's address through r; the passive side's own rules (keyed on oif, no
# iif) are not affected.  route_b_from_a undo puts the standard rules back.
route_b_from_a() {
	if [ "${1:-}" = undo ]; then
		step ip rule add pref 0 lookup local &&
			step ip rule del pref 100 lookup local &&
			step ip rule del pref 5 to 10.2.0.0/24 iif lo lookup 100
		return
	fi
	step ip rule add pref 5 to 10.2.0.0/24 iif lo lookup 100 &&
		step ip rule add pref 100 lookup local &&
		step ip rule del pref 0 lookup local &&
		ip route get "$B4" | grep -q "dev a0 .*src $A4"
}

# predict ARGS...: "flow_label udp_sport" from the tool.
predict() {
	"$TOOL" flow-label "$@" --json | jq -r '"\(.flow_label) \(.udp_sport)"'
}

# gid_index DEV IPADDR: index of the RoCE v2 GID of that address.
gid_index() {
	local want i

	want=$(python3 -c 'import ipaddress,sys
a = ipaddress.ip_address(sys.argv[1])
if a.version == 4:
    a = ipaddress.IPv6Address("::ffff:" + str(a))
print(a.exploded)' "$2")
	for i in $(seq 0 15); do
		if [ "$(cat /sys/class/infiniband/"$1"/ports/1/gids/"$i" 2>/dev/null)" = "$want" ] &&
			[ "$(cat /sys/class/infiniband/"$1"/ports/1/gid_attrs/types/"$i" 2>/dev/null)" = "RoCE v2" ]; then
			echo "$i"
			return
		fi
	done
	return 1
}

# expect_wire FL SPORT [CM]: every packet of $CAP, both directions, carries
# UDP source port SPORT and, over IPv6, flow label FL; with CM, CM MADs
# (sends to QP1) are among them.  SPORT "any" asks for one port, whichever.
expect_wire() {
	local fl=$1 sport=$2 ports flows srcs mads

	ports=$(fields udp.srcport | sort -u | tr '\n' ' ')
	srcs=$(fields ip.src ipv6.src | tr -d ' ' | sort -u | wc -l)
	mads=$(fields infiniband.bth.destqp | grep -cx 0x000001)
	echo "  $(fields udp.srcport | wc -l) packets, $srcs sources, $mads CM MADs;" \
		"ports [ $ports], expected $sport"
	if [ "$sport" = any ]; then
		[ "$(echo $ports | wc -w)" = 1 ] || return 1
	else
		[ "$ports" = "$sport " ] || return 1
	fi
	[ "$srcs" = 2 ] || return 1
	if [ "${3:-}" = CM ] && [ "$mads" -lt 2 ]; then
		return 1
	fi
	flows=$(fields ipv6.flow | sed '/^$/d' | sort -u)
	if [ -n "$flows" ]; then
		echo "  IPv6 flow labels [ $flows ], expected $fl"
		[ "$(printf '%s\n' "$flows" | wc -l)" = 1 ] || return 1
		[ "$fl" = any ] || [ $((flows)) = "$fl" ]
	fi
}

# cm_ports: "sport dport" of the connection's CM REQ.
cm_ports() {
	fields infiniband.cm.req.ip_cm.sport infiniband.cm.req.serviceid.dport |
		sed '/^ *$/d' | head -n 1
}

# qpns: "qpn_a qpn_b": the QPN of each end, from the destination QPN of the
# data packets sent to it (CM MADs go to QP1).
qpns() {
	local to_a to_b

	to_a=$(fields ip.dst ipv6.dst infiniband.bth.destqp |
		awk -v a="$A4|$A6" '$NF != "0x000001" && $1 ~ "^(" a ")$" { print $NF }' | sort -u)
	to_b=$(fields ip.dst ipv6.dst infiniband.bth.destqp |
		awk -v b="$B4|$B6" '$NF != "0x000001" && $1 ~ "^(" b ")$" { print $NF }' | sort -u)
	[ "$(echo $to_a | wc -w)" = 1 ] && [ "$(echo $to_b | wc -w)" = 1 ] || return 1
	echo "$to_a $to_b"
}
