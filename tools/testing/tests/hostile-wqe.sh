#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A hostile or old provider's UD send: rxe-wqe-av writes WQEs by hand into
# rxea's user-mapped send queue with ah_num 0 and the address vector in the
# WQE, its av.port_num set to ports rxe does not have (2 and 255; rxe has
# port 1 only), and rings the doorbell (tools/roce-entropy/rxe-wqe-av/
# main.cpp says how).  The kernel must not index its port array with that
# number: each such send either completes with an error, or goes out on the
# UDP source port that the QP's own port's policy predicts for a UD send
# without a flow label, as the program's normal sends (through an AH, one
# before the hostile ones and one after) do.
# Per policy, captured at r's a1, IPv4 from rxea to rxeb:
#   - the program exited 0 (queue found, every send completed, every
#     success arrived at rxeb with its tag, and the QP still worked after
#     the hostile sends);
#   - the first normal send is on the predicted port (the premise);
#   - every hostile send completed in error, or is in the capture on the
#     predicted port (the sends are one at a time, so the Nth packet of the
#     sender's QP is its Nth successful send);
#   - the sender's QP sent one packet per successful send and nothing from
#     rxea is on any other port;
# and, at the end, the kernel reported nothing while the test ran.
#
# On the test kernel only: rxe's UD send is source that compat/ leaves
# alone, the same in both builds.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_HOSTILE_POLICIES   the policies, commas between: vm/run.sh passes
#                          no spaces (default rfc,off)
#   ENTROPY_WQE_AV             another rxe-wqe-av binary (default
#                          build/bin/rxe-wqe-av)
STACKS="ours"
CPUS=1
: "${ENTROPY_HOSTILE_POLICIES:=rfc,off}"
: "${ENTROPY_WQE_AV:=$entropy_repo/build/bin/rxe-wqe-av}"
requires() {
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

WQE_AV=$ENTROPY_WQE_AV
POLICIES=$ENTROPY_HOSTILE_POLICIES
POLICIES=${POLICIES//,/ }
# The hostile av.port_num values; 1 would be the valid one.
AV_PORTS="2 255"
SCALE=$WAIT_SCALE # ENTROPY_WAIT_SCALE's (base.sh)

dmesg_start=$(dmesg | wc -l)

# sender_ports [SQPN DQPN]: the UDP source ports of $CAP's packets from
# rxea, in capture order; with QPNs, only those from QP SQPN to QP DQPN.
sender_ports() {
	local src sqp dqp sport

	while IFS='|' read -r src sqp dqp sport; do
		[ "$src" = "$A4" ] || continue
		if [ $# = 2 ]; then
			[ -n "$sqp" ] && [ -n "$dqp" ] || continue
			[ $((sqp)) = "$1" ] && [ $((dqp)) = "$2" ] || continue
		fi
		echo "$sport"
	done < "$CAP.txt"
}

# hostile_run POLICY: the program under POLICY, captured; its JSON in
# $JSON, its status in $RC, the predicted port in $WANT.
hostile_run() {
	local policy=$1 ga gb dmac av_ports=() p sqpn dqpn

	RC=1 WANT=none JSON=$entropy_out/hostile-$policy.json
	rm -f "$JSON"
	ga=$(gid_index rxea "$A4") && gb=$(gid_index rxeb "$B4") ||
		{ echo "  no RoCE v2 GID"; return 1; }
	dmac=$(ip -n r link show a1 | awk '$1 == "link/ether" { print $2 }')
	[ -n "$dmac" ] || { echo "  no MAC address on r's a1"; return 1; }
	for p in $AV_PORTS; do
		av_ports+=(--av-port "$p")
	done
	step set_policy "$policy"
	capture_start "hostile-$policy"
	echo "+ $WQE_AV --send-dev rxea --recv-dev rxeb --send-gid $ga --recv-gid $gb" \
		"--dmac $dmac ${av_ports[*]}"
	RC=0
	timeout $((300 * SCALE)) "$WQE_AV" --send-dev rxea --recv-dev rxeb \
		--send-gid "$ga" --recv-gid "$gb" --dmac "$dmac" "${av_ports[@]}" \
		--timeout $((10 * SCALE)) > "$JSON" 2> "$JSON.err" || RC=$?
	capture_end
	sed 's/^/  /' "$JSON.err"
	tshark -r "$CAP" -Y infiniband -T fields -E separator='|' -e ip.src \
		-e infiniband.deth.srcqp -e infiniband.bth.destqp -e udp.srcport \
		> "$CAP.txt" 2>/dev/null
	jq -r '"  sqpn \(.sqpn), dqpn \(.dqpn); ring \(.ring)",
		(.sends[] | "  \(.kind) send, av_port \(.av_port): \(.status // "no completion"), received \(.received)")' \
		"$JSON" 2>/dev/null
	sqpn=$(jq -er .sqpn "$JSON" 2>/dev/null) && dqpn=$(jq -er .dqpn "$JSON" 2>/dev/null) &&
		WANT=$(predict --policy "$policy" --qpn "$sqpn" "$dqpn" | cut -d' ' -f2) ||
		{ echo "  no QPNs from the program"; WANT=none; }
	echo "  $(sender_ports | wc -l) packets from $A4 on ports [ $(sender_ports | sort -u |
		tr '\n' ' ')]; $policy predicts $WANT for QPNs $sqpn, $dqpn"
}

# judge_send I PORT: send I of $JSON, a hostile one with av.port_num PORT,
# completed in error or sent on $WANT.
judge_send() {
	local i=$1 status nth sport

	[ "$(jq -r ".sends[$i].kind, .sends[$i].av_port" "$JSON" 2>/dev/null | paste -sd' ')" = \
		"hostile $2" ] || { echo "  send $i is not the hostile av_port $2 one"; return 1; }
	status=$(jq -r ".sends[$i].status // \"none\"" "$JSON")
	case $status in
	none)
		echo "  no completion"
		return 1
		;;
	success) ;;
	*)
		echo "  completed with an error: $status"
		return 0
		;;
	esac
	jq -e ".sends[$i].received" "$JSON" > /dev/null || { echo "  not received"; return 1; }
	nth=$(jq "[.sends[0:$((i + 1))][] | select(.status == \"success\")] | length" "$JSON")
	sport=$(sender_ports "$(jq .sqpn "$JSON")" "$(jq .dqpn "$JSON")" | sed -n "${nth}p")
	echo "  sent and received; packet $nth of the sender's QP: UDP source port ${sport:-none}," \
		"predicted $WANT"
	[ -n "$sport" ] && [ "$sport" = "$WANT" ]
}

# judge_normal: the normal send, the first of the sender's QP, on $WANT.
judge_normal() {
	local sport

	[ "$(jq -r '.sends[0].kind + " " + .sends[0].status' "$JSON" 2>/dev/null)" = \
		"normal success" ] || return 1
	sport=$(sender_ports "$(jq .sqpn "$JSON")" "$(jq .dqpn "$JSON")" | head -n 1)
	echo "  UDP source port ${sport:-none}, predicted $WANT"
	[ "$sport" = "$WANT" ]
}

# judge_all: one packet of the sender's QP per successful send, and every
# packet from rxea on $WANT.
judge_all() {
	local ok n ports

	ok=$(jq '[.sends[] | select(.status == "success")] | length' "$JSON" 2>/dev/null) ||
		return 1
	n=$(sender_ports "$(jq .sqpn "$JSON")" "$(jq .dqpn "$JSON")" | wc -l)
	ports=$(sender_ports | sort -u | tr '\n' ' ')
	echo "  $n packets of the sender's QP for $ok successful sends;" \
		"ports from $A4: [ $ports], predicted $WANT"
	[ "$n" = "$ok" ] && [ "$ports" = "$WANT " ]
}

for policy in $POLICIES; do
	echo "==> hostile WQEs under $policy"
	hostile_run "$policy"
	check "$policy: rxe-wqe-av exited 0 (status $RC)" test "$RC" = 0
	check "$policy: the normal send, through an AH, on the predicted port" judge_normal
	i=1
	for p in $AV_PORTS; do
		check "$policy: hostile send with av.port_num $p: an error completion, or sent on the predicted port" \
			judge_send $i "$p"
		i=$((i + 1))
	done
	check "$policy: one packet per successful send, every packet from rxea on the predicted port" \
		judge_all
done
step set_policy rfc

check "no kernel report while the hostile WQEs ran" kernel_reports "$dmesg_start"
done_testing
