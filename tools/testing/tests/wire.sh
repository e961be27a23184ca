#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The entropy on the wire.  Every connection type, over IPv4 and IPv6, is
# captured in the router namespace, and "roce-entropy pcap" predicts each
# of its packets from the CM ports or QPNs in the capture; every packet of
# every connection, both ways, CM MADs included, must carry the predicted
# UDP source port and, over IPv6, flow label.  The types:
#   rping            rdma_cm RC (rdma-core's);
#   udaddy           rdma_cm UD, SIDR (IPv4 under rfc and mix in parts:
#                    see udaddy_v4);
#   rc_pingpong      ibv_rc_pingpong, RC without CM;
#   ud_pingpong      ibv_ud_pingpong, UD without CM;
#   app_flow_label   roce-ping with an IPv6 flow label of its own, which
#                    must win (IPv6 only: rdma_cm takes it from
#                    sin6_flowinfo);
#   reject           a roce-ping client to a port nobody listens on: its
#                    REQ and the CM's REJ;
#   close_at_once    roce-ping whose two ends disconnect and destroy ID and
#                    QP at once, without waiting for DISCONNECTED: DREQs
#                    that may cross and be answered from the CM's "no
#                    connection" path (whether they crossed is printed);
#   perftest         ib_write_bw and ib_send_bw -R, two rdma_cm connections
#                    each (IPv4 only: perftest 4.5 resolves an rdma_cm
#                    server as IPv4 alone, "Address family for hostname not
#                    supported" for fd02::2).
# On our modules the pass runs under each policy of ENTROPY_WIRE_POLICIES set
# through the knob, with re-path on (roce_repath): nothing is lost, so no
# QP may move; on the kernel's own (STOCK=1: no knob) once, judged as
# builtin, which must be what stock 6.12 does: one predictor judges both.
# Client exit statuses are checked.  Under builtin, and on stock, an rping
# over each family also runs under a policy rule that prohibits UDP port
# 4791 (port_rule): stock's route lookups carry no ports, so it must
# connect, on ours too.
# Time: one capture per policy holds every type, the IPv4 ones side by
# side, then the IPv6 ones (dumpcap starts slowly under TCG); roce-entropy
# reads it once, and each type's connections are found in its verdict by
# address family, transport and rdma_cm service port.
#
# The wire row judges every policy on the test kernel, the stock row
# builtin against 6.12's own modules.  dist runs it under mix: whether
# DKMS's build for Debian's kernel computes what the test build does,
# every connection type (its SIDR REP's flow label is compat/0001's); rfc
# (the opt-in line's policy), off and builtin on that build are the mixed
# rows', against a stock host and between two policies.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_WIRE_POLICIES   the policies, commas between (default
#                       builtin,rfc,mix,off)
STACKS="ours compat stock dist"
CPUS=1
: "${ENTROPY_WIRE_POLICIES:=builtin,rfc,mix,off}"
. "$entropy_repo/tools/testing/lib.sh"

# The rdma_cm service ports that tell the types apart in a capture (udaddy
# and rping both use 7174, in the UDP and TCP port spaces).
RPING_PORT=7174 APP_FL_PORT=7471 CLOSE_PORT=7472 NOBODY_PORT=7999
# The application's flow label (roce-ping sets sin6_flowinfo; rdma_cm has
# no such input on IPv4).
APP_FL=0x5a5a5
# run_kind KIND FAMILY NAME: one connection of KIND.
run_kind() {
	local kind=$1 fam=$2 name=$3 sa ca ga gb

	if [ "$fam" = 4 ]; then sa=$B4 ca=$A4; else sa=$B6 ca=$A6; fi
	case $kind in
	rping)
		run_pair "$name" "cm_listening $sa $RPING_PORT TCP" \
			rping -s -a "$sa" -p $RPING_PORT -C 3 -- \
			rping -c -a "$sa" -I "$ca" -p $RPING_PORT -C 3
		;;
	udaddy)
		run_pair "$name" "cm_listening $sa 7174 UDP" udaddy -b "$sa" -C 3 -- \
			udaddy -s "$sa" -b "$ca" -C 3
		;;
	rc_pingpong|ud_pingpong)
		gb=$(gid_index rxeb "$sa") && ga=$(gid_index rxea "$ca") ||
			{ echo "  $name: no RoCE v2 GID"; return 1; }
		if [ $kind = rc_pingpong ]; then
			run_pair "$name" "tcp_listening 18515" \
				ibv_rc_pingpong -d rxeb -g "$gb" -n 5 -p 18515 -- \
				ibv_rc_pingpong -d rxea -g "$ga" -n 5 -p 18515 "$B4"
		else
			run_pair "$name" "tcp_listening 18516" \
				ibv_ud_pingpong -d rxeb -g "$gb" -n 5 -s 512 -p 18516 -- \
				ibv_ud_pingpong -d rxea -g "$ga" -n 5 -s 512 -p 18516 "$B4"
		fi
		;;
	app_flow_label)
		run_pair "$name" "ping_listening $LOGS/$name-server.log" \
			"$PING" server --bind "$sa" --port $APP_FL_PORT --connections 1 -- \
			"$PING" client --bind "$ca" --server "$sa" --port $APP_FL_PORT \
			--messages 5 --flow-label $APP_FL
		;;
	close_at_once)
		run_pair "$name" "ping_listening $LOGS/$name-server.log" \
			"$PING" server --bind "$sa" --port $CLOSE_PORT --connections 1 \
			--close-at-once --messages 5 -- \
			"$PING" client --bind "$ca" --server "$sa" --port $CLOSE_PORT \
			--messages 5 --close-at-once
		;;
	reject)
		timeout 120 "$PING" client --bind "$ca" --server "$sa" --port $NOBODY_PORT \
			--expect-reject > "$LOGS/$name-client.log" 2>&1 ||
			{ echo "  $name: not rejected:"; sed 's/^/    /' "$LOGS/$name-client.log"; return 1; }
		;;
	esac
}

# perftest's rdma_cm ports: ib_write_bw from 18600, ib_send_bw from 18610
# (the two run side by side; a retry takes the next).
declare -A PERFTEST_PORT=([write_bw]=18600 [send_bw]=18610)

# perftest TEST NAME: perftest's ib_TEST -R, rdma_cm RC over IPv4, 50
# messages of 4 KiB, into the capture running.  Its client connects the
# test QP as soon as the control channel is up, and a server slower to
# listen for it (TCG) rejects the REQ (invalid service ID, 8): that race,
# and only that, is run again with a fresh server on the next port, five
# times at most, and said (three were not enough once, beside a cold make
# check's builds).  The port of the run that completed goes to
# $LOGS/NAME.port: its two connections are the ones judged.
perftest() {
	local test=$1 name=$2 attempt port spid rc

	for attempt in 1 2 3 4 5 6; do
		port=$((PERFTEST_PORT[$test] + attempt - 1))
		"ib_$test" -d rxeb -R -F -s 4096 -n 50 -p $port > "$LOGS/$name-server.log" 2>&1 &
		spid=$!
		if ! wait_for 60 cm_listening "" $port; then
			kill $spid
			sed 's/^/    /' "$LOGS/$name-server.log"
			return 1
		fi
		rc=0
		timeout 120 "ib_$test" -d rxea -R -F -s 4096 -n 50 -p $port \
			--source_ip "$A4" "$B4" > "$LOGS/$name-client.log" 2>&1 || rc=$?
		if [ $rc = 0 ]; then
			wait_for 60 gone $spid || { kill $spid; rc=1; }
			wait $spid || { rc=1; sed 's/^/    /' "$LOGS/$name-server.log"; }
			break
		fi
		kill $spid 2>/dev/null
		wait $spid 2>/dev/null
		grep -q 'RDMA_CM_EVENT_REJECTED; error: 8' "$LOGS/$name-client.log" &&
			[ $attempt -lt 6 ] || { sed 's/^/    /' "$LOGS/$name-client.log"; return 1; }
		echo "  perftest ib_$test: attempt $attempt reached the server before it listened" \
			"(REJ, invalid service ID): again on port $((port + 1))"
	done
	[ $rc = 0 ] || return 1
	echo $port > "$LOGS/$name.port"
	grep -E '^ *4096 +50 ' "$LOGS/$name-client.log" | sed "s/^/  ib_$test: /"
}

# run_group TAG FAMILY: every type over FAMILY, side by side (over IPv4
# perftest's two too, with B routed from A meanwhile); each run's output in
# $LOGS/TAG-vFAMILY-KIND.out, its status in .rc.
run_group() {
	local tag=$1 fam=$2 kind pids=() name

	[ "$fam" = 6 ] || route_b_from_a > /dev/null ||
		echo "  could not route B from A for perftest"
	for kind in $(kinds "$fam"); do
		name=$tag-v$fam-$kind
		case $kind in
		write_bw|send_bw)
			{ perftest $kind "$name"; echo $? > "$LOGS/$name.rc"; } \
				> "$LOGS/$name.out" 2>&1 &
			;;
		*)
			{ run_kind "$kind" "$fam" "$name"; echo $? > "$LOGS/$name.rc"; } \
				> "$LOGS/$name.out" 2>&1 &
			;;
		esac
		pids+=($!)
	done
	wait "${pids[@]}"
	[ "$fam" = 6 ] || route_b_from_a undo > /dev/null
}

# capture_pass TAG POLICY: both families in one capture, IPv4's types
# first, then IPv6's; the verdict of roce-entropy pcap under POLICY in
# $CAPS/TAG.pcapng.json.
capture_pass() {
	local tag=$1 policy=$2 t0=$SECONDS t4 t6

	capture_start "$tag"
	t4=$SECONDS
	run_group "$tag" 4
	t6=$SECONDS
	run_group "$tag" 6
	capture_end
	"$TOOL" pcap "$CAP" --policy "$policy" --port-flow-label $APP_FL_PORT:$APP_FL --json \
		> "$CAP.json" 2> "$CAP.err"
	echo "# wire.sh $tag: capture $((SECONDS - t0)) s (IPv4 $((t6 - t4)) s, IPv6" \
		"$((SECONDS - t6)) s with the capture's end and the verdict)"
	[ -s "$CAP.json" ] || { cat "$CAP.err"; return 1; }
}

kinds() {
	echo rping udaddy rc_pingpong ud_pingpong reject close_at_once
	[ "$1" = 4 ] && echo write_bw send_bw || echo app_flow_label
}

# select_kind KIND FAMILY NAME: the jq filter of KIND's connections over
# FAMILY (NAME: its run, for perftest's port).
select_kind() {
	jq_family "$2"
	case $1 in
	rping) echo ".transport == \"RC\" and .cm_ports[1] == $RPING_PORT" ;;
	udaddy) echo '.transport == "UD" and .cm_ports != null' ;;
	rc_pingpong) echo '.transport == "RC" and .cm_ports == null' ;;
	ud_pingpong) echo '.transport == "UD" and .cm_ports == null' ;;
	app_flow_label) echo ".cm_ports[1] == $APP_FL_PORT" ;;
	close_at_once) echo ".cm_ports[1] == $CLOSE_PORT" ;;
	reject) echo ".cm_ports[1] == $NOBODY_PORT" ;;
	write_bw|send_bw) echo ".cm_ports[1] == $(cat "$LOGS/$3.port" 2>/dev/null || echo -1)" ;;
	esac
}

# verdicts TAG POLICY: every type's verdict from $CAPS/TAG.pcapng.json in
# one jq run (jq starts slowly under TCG), each into
# $LOGS/TAG-vFAMILY-KIND.verdict.
verdicts() {
	local tag=$1 policy=$2 fam kind filter what n note calls=

	for fam in 4 6; do
		for kind in $(kinds $fam); do
			filter="[.connections[] | select($(select_kind $kind $fam "$tag-v$fam-$kind"))]"
			what=cm n=1 note=
			case $kind in
			rc_pingpong|ud_pingpong) what=qpn ;;
			reject) what=reject ;;
			write_bw|send_bw) n=2 ;;
			close_at_once) note="close_at_once IPv$fam ($tag)" ;;
			udaddy)
				if [ $fam = 4 ] && { [ "$policy" = rfc ] || [ "$policy" = mix ]; }; then
					calls+="${calls:+, }udaddy_v4(\"v$fam-$kind\"; \"$policy\"; $filter)"
					continue
				fi
				;;
			esac
			calls+="${calls:+, }judge(\"v$fam-$kind\"; \"$what\"; $n; \"$note\"; $filter)"
		done
	done
	verdict_files "$tag" "$JQ_SHOW$JQ_JUDGE$JQ_UDADDY_V4$calls"
}

# pass POLICY: every type over both families under POLICY (stock: the
# kernel's own modules, judged as builtin).
pass() {
	local tag=$1 policy=$1 label fam kind what t0

	if [ "$tag" = stock ]; then
		policy=builtin label="on stock 6.12 (judged as builtin)"
	else
		label="under $policy"
		check "the knob takes $policy on both devices" set_policy "$policy" || return
	fi
	t0=$SECONDS
	capture_pass "$tag" "$policy" && verdicts "$tag" "$policy" ||
		echo "  the capture $label could not be judged"
	for fam in 4 6; do
		for kind in $(kinds $fam); do
			case $kind in
			rping|app_flow_label) what="one rdma_cm RC connection" ;;
			udaddy) what="one rdma_cm UD connection"
				[ $fam = 6 ] || [ "$policy" = builtin ] || [ "$policy" = off ] ||
					what="$what (SIDR REQ and REP and the active side's data)" ;;
			rc_pingpong) what="one RC connection without CM" ;;
			ud_pingpong) what="one UD conversation without CM" ;;
			reject) what="the REQ to a port nobody listens on and its REJ" ;;
			close_at_once) what="one connection closed at once by both ends, every DREP" ;;
			*) what="ib_$kind -R: its two rdma_cm connections" ;;
			esac
			check "$kind IPv$fam $label: $what, every packet as predicted" \
				judge_kind "$tag-v$fam-$kind"
		done
	done
	if [ "$policy" = builtin ]; then
		for fam in 4 6; do
			check "rping IPv$fam $label under a policy rule that prohibits UDP port 4791: not matched, as on stock" \
				port_rule $fam "$tag-v$fam-port-rule"
		done
	fi
	echo "# wire.sh $tag: $((SECONDS - t0)) s in all"
}

# port_rule FAMILY NAME: an rdma_cm RC connection while policy rules
# prohibit every output route lookup through a0 or b0 for UDP destination
# port 4791 (keyed on the output device: an input lookup of a received
# packet carries its ports, and the IPv6 local table sits behind these
# rules).  Stock 6.12's rxe looks its routes up without ports (and rdma_cm's
# address resolution without a protocol), so the rules never match them;
# under "builtin" ours must do the same, or the rules would take the
# connection down.
port_rule() {
	local rc=0 dev

	for dev in a0 b0; do
		step ip -"$1" rule add pref 5 oif $dev ipproto udp dport 4791 prohibit || rc=1
	done
	[ $rc = 0 ] && { run_kind rping "$1" "$2" || rc=1; }
	for dev in a0 b0; do
		step ip -"$1" rule del pref 5 oif $dev ipproto udp dport 4791 prohibit || rc=1
	done
	return $rc
}

t0=$SECONDS
if [ "$entropy_stock" = 1 ]; then
	pass stock
else
	found=$(policies_found) # put back at the end
	# Re-path on throughout: without loss no QP may move, and a move
	# would put a connection's packets off their prediction.
	check "re-path on for every pass" set_repath on
	moves0="$(repath_moves rxea) $(repath_moves rxeb)"
	for policy in $(echo "$ENTROPY_WIRE_POLICIES" | tr , ' '); do
		pass "$policy"
	done
	moves1="$(repath_moves rxea) $(repath_moves rxeb)"
	echo "# re-path moves (rxea requester responder, rxeb the same): before $moves0, after $moves1"
	check "re-path on, nothing lost: no QP moved in any pass" test "$moves0" = "$moves1"
	step set_repath off # the default
	step policies_back "$found"
fi
echo "# wire.sh: $((SECONDS - t0)) s"
done_testing
