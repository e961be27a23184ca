#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The entropy on the wire: for each connection type, over IPv4 and IPv6,
# under each policy set through the knob, every packet of the connection
# (CM MADs included, both directions) carries the UDP source port, and over
# IPv6 the flow label, that the policy predicts from the CM ports or QPNs
# seen in the capture; "roce-entropy pcap" reads the capture and judges
# (udaddy over IPv4 in parts: see udaddy_v4).  Clients are rdma-core's
# own, and their exit status is checked; roce-ping, our rdma_cm client,
# sets an IPv6 flow label of its own, which must win under every policy.
# perftest's ib_write_bw and ib_send_bw -R run over IPv4 only: perftest
# 4.5 resolves an rdma_cm server address as IPv4 alone ("Address family for
# hostname not supported" for fd02::2).
. "$rte_repo/tools/qemu/guest-lib.sh"
. "$rte_repo/tools/qemu/tests/wire-lib.sh"

tcp_listening() {
	ss -ltn | grep -q ":$1 "
}

cm_listening() {
	rdma resource show cm_id | grep LISTEN | grep -qF "$1"
}


# run_pair SERVER_READY SERVER_CMD -- CLIENT_CMD: both must exit 0.
run_pair() {
	local ready=$1 spid rc=0 server=() client=()

	shift
	while [ "$1" != -- ]; do server+=("$1"); shift; done
	shift
	client=("$@")
	"${server[@]}" > /tmp/server.log 2>&1 &
	spid=$!
	if ! wait_for 15 $ready; then
		kill $spid
		cat /tmp/server.log
		return 1
	fi
	timeout 120 "${client[@]}" > /tmp/client.log 2>&1 || { rc=1; cat /tmp/client.log; }
	wait_for 20 bash -c "! kill -0 $spid 2>/dev/null" || { kill $spid; rc=1; }
	wait $spid || { rc=1; cat /tmp/server.log; }
	return $rc
}

# conn NAME KIND FAMILY POLICY: run one connection of KIND and check it.
conn() {
	local name=$1 kind=$2 fam=$3 policy=$4 sa ca dev_idx_b dev_idx_a

	if [ "$fam" = 4 ]; then sa=$B4 ca=$A4; else sa=$B6 ca=$A6; fi
	capture_start "$name"
	case $kind in
	rping)
		run_pair "cm_listening $sa" rping -s -a "$sa" -C 3 -- \
			rping -c -a "$sa" -I "$ca" -C 3 || { capture_end; return 1; }
		;;
	udaddy)
		run_pair "cm_listening $sa" udaddy -b "$sa" -C 3 -- \
			udaddy -s "$sa" -b "$ca" -C 3 || { capture_end; return 1; }
		;;
	app_flow_label)
		run_pair "cm_listening $sa" "$PING" server --bind "$sa" --connections 1 -- \
			"$PING" client --bind "$ca" --server "$sa" --messages 5 \
			--flow-label $APP_FL || { capture_end; return 1; }
		;;
	rc_pingpong|ud_pingpong)
		dev_idx_b=$(gid_index rxeb "$sa") && dev_idx_a=$(gid_index rxea "$ca") ||
			{ capture_end; echo "  no RoCE v2 GID"; return 1; }
		if [ $kind = rc_pingpong ]; then
			run_pair "tcp_listening 18515" ibv_rc_pingpong -d rxeb -g "$dev_idx_b" -n 5 -- \
				ibv_rc_pingpong -d rxea -g "$dev_idx_a" -n 5 "$B4" ||
				{ capture_end; return 1; }
		else
			run_pair "tcp_listening 18515" ibv_ud_pingpong -d rxeb -g "$dev_idx_b" -n 5 -s 512 -- \
				ibv_ud_pingpong -d rxea -g "$dev_idx_a" -n 5 -s 512 "$B4" ||
				{ capture_end; return 1; }
		fi
		;;
	esac
	capture_end
	case $kind in
	rping|udaddy) judge_capture "$policy" CM ;;
	app_flow_label) judge_capture "$policy" CM $APP_FL ;;
	*) judge_capture "$policy" QPN ;;
	esac
}

# sports SRC mad|data: the UDP source ports of $CAP's packets from SRC that
# are CM MADs (sent to QP1) or data (to any other QP), one per line.
sports() {
	fields ip.src ipv6.src infiniband.bth.destqp udp.srcport |
		awk -v src="$1" -v what="$2" \
			'$1 == src && (($2 == "0x000001") == (what == "mad")) { print $3 }'
}

# udaddy_v4 POLICY: rdma_cm UD over IPv4.  Neither the SIDR REQ nor IPv4
# carries a flow label, so the passive side derives the connection's from
# the CM ports itself (patch 0006): the SIDR REQ and REP and the active
# side's data must be on the predicted port.  udaddy's server replies
# through an AH that it builds from the work completion, without a flow
# label over IPv4, so rxe gives the replies the QPN hash's port: a known
# limitation, printed and not counted, except under off, where both are
# 0xC000 and the replies are checked too.
udaddy_v4() {
	local policy=$1 json want c src what list ports n qpns qpn_sport rc=0

	capture_start "udaddy-v4-$policy"
	run_pair "cm_listening $B4" udaddy -b "$B4" -C 3 -- \
		udaddy -s "$B4" -b "$A4" -C 3 || { capture_end; return 1; }
	capture_stop
	json=$("$TOOL" pcap "$CAP" --policy "$policy" --json)
	want=$(echo "$json" | jq -e '.connections | select(length == 1) | .[0] |
		select(.cm_ports != null and .transport == "UD") | .expected_udp_sport') ||
		{ echo "  not one rdma_cm UD connection in the capture"; return 1; }
	echo "$json" | jq -r '.connections[0] |
		"  \(.src) -> \(.dst): QPNs \(.qpns), CM ports \(.cm_ports), \(.cm_mads) CM MADs; predicted \(.expected_udp_sport)"'
	for c in "$A4 mad SIDR-REQ" "$B4 mad SIDR-REP" "$A4 data data" "$B4 data replies"; do
		read -r src what name <<< "$c"
		list=$(sports "$src" "$what")
		n=$(echo "$list" | sed '/^$/d' | wc -l)
		ports=$(echo "$list" | sort -u | tr '\n' ' ')
		if [ "$name" = replies ] && [ "$policy" != off ]; then
			qpns=$(echo "$json" | jq -r '.connections[0].qpns | join(" ")')
			qpn_sport=$(predict --policy "$policy" --qpn $qpns | cut -d' ' -f2)
			echo "# known limitation, not counted: udaddy IPv4 under $policy:" \
				"the $n replies from $src on [ $ports], predicted $want;" \
				"the QPN hash of $qpns gives $qpn_sport (udaddy builds their AH" \
				"from the work completion: no flow label over IPv4)"
			continue
		fi
		echo "  $name: $n from $src on [ $ports], expected $want"
		[ "$n" -gt 0 ] && [ "$ports" = "$want " ] || rc=1
	done
	return $rc
}

perftest_listening() {
	rdma resource show cm_id | grep LISTEN | grep -q ":$1 "
}

PERFTEST_PORT=18600

# perftest TEST POLICY: perftest's ib_TEST -R, rdma_cm RC over IPv4, 50
# messages of 4 KiB.  It makes two rdma_cm connections, its control channel
# and its test QP's, each judged as rping's is.  Its client connects the
# test QP as soon as the control channel is up, and a server slower to
# listen for it (TCG) rejects the REQ (invalid service ID, 8): that race,
# and only that, is run again with a fresh server and capture, twice at
# most, and said.
perftest() {
	local test=$1 policy=$2 attempt port spid rc

	for attempt in 1 2 3; do
		port=$PERFTEST_PORT PERFTEST_PORT=$((PERFTEST_PORT + 1))
		capture_start "perftest-$test-$policy"
		"ib_$test" -d rxeb -R -F -s 4096 -n 50 -p $port > /tmp/server.log 2>&1 &
		spid=$!
		if ! wait_for 60 perftest_listening $port; then
			kill $spid
			capture_end
			cat /tmp/server.log
			return 1
		fi
		rc=0
		timeout 120 "ib_$test" -d rxea -R -F -s 4096 -n 50 -p $port \
			--source_ip "$A4" "$B4" > /tmp/client.log 2>&1 || rc=$?
		if [ $rc = 0 ]; then
			wait_for 20 bash -c "! kill -0 $spid 2>/dev/null" || { kill $spid; rc=1; }
			wait $spid || { rc=1; cat /tmp/server.log; }
			capture_end
			break
		fi
		kill $spid 2>/dev/null
		wait $spid 2>/dev/null
		capture_end
		grep -q 'RDMA_CM_EVENT_REJECTED; error: 8' /tmp/client.log &&
			[ $attempt -lt 3 ] || { cat /tmp/client.log; return 1; }
		echo "  attempt $attempt: perftest's client reached the server before it listened" \
			"(REJ, invalid service ID): again"
	done
	[ $rc = 0 ] || return 1
	grep -E '^ *4096 +50 ' /tmp/client.log | sed 's/^/  perftest: /'
	judge_capture "$policy" CM "" 2 && return
	late_dreps
}

# late_dreps: $CAP's connections are judged again without the DREPs on the
# base port.  When both ends disconnect and destroy their rdma_cm IDs at
# once (perftest's control channel), a DREQ can arrive after the other
# side's ID is gone; the CM answers it with a DREP addressed from the DREQ
# alone, with no connection to take a flow label from: over IPv4, the
# base port (Documentation, "rdma_cm").  Printed, not counted.
late_dreps() {
	local late='infiniband.mad.attributeid == 0x0016 && udp.srcport == 49152' n orig=$CAP

	n=$(tshark -r "$CAP" -Y "$late" 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || return 1
	tshark -r "$CAP" -Y "!($late)" -w "$CAP.late.pcapng" 2>/dev/null || return 1
	CAP=$CAP.late.pcapng
	echo "  again without the $n DREP(s) on 49152:"
	judge_capture "$policy" CM "" 2 || { CAP=$orig; return 1; }
	CAP=$orig
	echo "# known limitation, not counted: perftest under $policy: $n DREP(s) on 49152," \
		"answering a DREQ that came after the connection's rdma_cm ID was gone"
}

# The application's flow label (roce-ping sets sin6_flowinfo; rdma_cm has no
# such input on IPv4).
APP_FL=0x5a5a5

for policy in rfc mix off; do
	step set_policy $policy
	for fam in 4 6; do
		for kind in rping udaddy rc_pingpong ud_pingpong app_flow_label; do
			case $kind/$fam in
			app_flow_label/4) continue ;;
			udaddy/4)
				what="SIDR REQ and REP and the active side's data"
				[ $policy != off ] || what="$what, and the replies,"
				check "udaddy IPv4 under $policy: $what on the predicted port" \
					udaddy_v4 $policy
				continue
				;;
			esac
			check "$kind IPv$fam under $policy: one port per connection, as predicted" \
				conn "$kind-v$fam-$policy" $kind $fam $policy
		done
	done
done
step route_b_from_a
for policy in rfc mix off; do
	step set_policy $policy
	for test in write_bw send_bw; do
		check "perftest ib_$test -R IPv4 under $policy: its two connections, one port each, as predicted" \
			perftest $test $policy
	done
done
step route_b_from_a undo
step set_policy rfc
done_testing
