# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# A mixed fleet: every connection type between two guests, judged under
# each sender's policy (pass, for tests/mixed.sh and tests/rolling.sh).
# Needs base.sh's settings and check, remote (guests.sh), run_split,
# gid_index and the waits' conditions (connections.sh), capture_start and
# capture_end (capture.sh), and jq_family, verdict_files, judge_kind and
# the jq definitions JQ_SHOW and JQ_JUDGE (judge.sh).

# ---- a mixed fleet: every connection type between two guests, judged ----
# mixed.sh and rolling.sh: each connection type with either side active,
# over both families, in one capture, each packet judged under its
# sender's policy.  NEAR_KIND and FAR_KIND name what each guest runs
# (ours, or stock: the kernel's own modules, judged as builtin).  The
# types: rping (rdma_cm RC), udaddy (rdma_cm UD, SIDR), rc_pingpong (RC
# without the CM) and ud_pingpong (UD without the CM).

NEAR_KIND=ours

# The rdma_cm service port of rping (udaddy's is 7174 in the UDP space),
# on each family's address, and the TCP ports the pingpongs exchange their
# QPNs on, over IPv4 for both families: a pair for each.
RPING_PORT=7174 RC_PORT=18515 UD_PORT=18516

# run_kind KIND FAMILY ACTIVE NAME: one connection of KIND over FAMILY,
# the client on ACTIVE (near or far), the server on the other guest.
run_kind() {
	local kind=$1 fam=$2 act=$3 name=$4 where sa ca sdev cdev tcp sg cg port

	if [ "$act" = near ]; then
		where=far sdev=rxeb cdev=rxea tcp=$B4 sa=$B4 ca=$A4
		[ "$fam" = 4 ] || sa=$B6 ca=$A6
	else
		where=near sdev=rxea cdev=rxeb tcp=$A4 sa=$A4 ca=$B4
		[ "$fam" = 4 ] || sa=$A6 ca=$B6
	fi
	case $kind in
	rping)
		run_split "$name" $where "cm_listening $sa $RPING_PORT TCP" \
			rping -s -a "$sa" -p $RPING_PORT -C 3 -V -- \
			rping -c -a "$sa" -I "$ca" -p $RPING_PORT -C 3 -V
		;;
	udaddy)
		run_split "$name" $where "cm_listening $sa 7174 UDP" udaddy -b "$sa" -C 3 -- \
			udaddy -s "$sa" -b "$ca" -C 3
		;;
	rc_pingpong|ud_pingpong)
		if [ "$where" = far ]; then
			sg=$(remote gid_index $sdev "$sa") && cg=$(gid_index $cdev "$ca")
		else
			sg=$(gid_index $sdev "$sa") && cg=$(remote gid_index $cdev "$ca")
		fi || { echo "  $name: no RoCE v2 GID"; return 1; }
		if [ $kind = rc_pingpong ]; then
			port=$((RC_PORT + (fam == 6 ? 2 : 0)))
			run_split "$name" $where "tcp_listening $port" \
				ibv_rc_pingpong -d $sdev -g "$sg" -n 5 -p $port -- \
				ibv_rc_pingpong -d $cdev -g "$cg" -n 5 -p $port "$tcp"
		else
			port=$((UD_PORT + (fam == 6 ? 2 : 0)))
			run_split "$name" $where "tcp_listening $port" \
				ibv_ud_pingpong -d $sdev -g "$sg" -n 5 -s 512 -p $port -- \
				ibv_ud_pingpong -d $cdev -g "$cg" -n 5 -s 512 -p $port "$tcp"
		fi
		;;
	esac
}

KINDS="rping udaddy rc_pingpong ud_pingpong"

# capture_pass TAG POLICY ACTIVE: every type over both families side by
# side, the client on ACTIVE, in one capture; the verdict of roce-entropy
# pcap, near under POLICY and far under FAR_POLICY, in
# $CAPS/TAG.pcapng.json.
capture_pass() {
	local tag=$1 policy=$2 act=$3 fam kind pids=() name t0=$SECONDS

	capture_start "$tag"
	for fam in 4 6; do
		for kind in $KINDS; do
			name=$tag-v$fam-$kind
			{ run_kind $kind $fam "$act" "$name"; echo $? > "$LOGS/$name.rc"; } \
				> "$LOGS/$name.out" 2>&1 &
			pids+=($!)
		done
	done
	wait "${pids[@]}"
	capture_end
	echo "# mixed.sh $tag: $((SECONDS - t0)) s for the connections and the capture"
	pair_pcap "$policy"
}

# pair_pcap POLICY: $CAP judged by roce-entropy pcap into $CAP.json, near
# under POLICY (rfc+repath: rfc) and far under FAR_POLICY; fails, with
# pcap's error, when it wrote nothing.
pair_pcap() {
	"$TOOL" pcap "$CAP" --policy "${1%+repath}" --policy-for "$B4=$FAR_POLICY" \
		--policy-for "$B6=$FAR_POLICY" --json > "$CAP.json" 2> "$CAP.err"
	[ -s "$CAP.json" ] || { cat "$CAP.err"; return 1; }
}

# select_kind KIND FAMILY [NAME]: the jq filter of KIND's connections over
# FAMILY; for a pingpong whose client printed both QPNs in its log (run
# NAME), that pair's only: a kernel consumer's connection made before the
# capture began shows no CM MAD either.
select_kind() {
	local qpns

	jq_family "$2"
	case $1 in
	rping) echo '.transport == "RC" and .cm_ports != null' ;;
	udaddy) echo '.transport == "UD" and .cm_ports != null' ;;
	rc_pingpong) echo -n '.transport == "RC" and .cm_ports == null' ;;
	ud_pingpong) echo -n '.transport == "UD" and .cm_ports == null' ;;
	esac
	case $1 in *_pingpong) ;; *) return ;; esac
	qpns=$(sed -n 's/.* address: .*QPN 0x\([0-9a-f]*\),.*/\1/p' "$LOGS/${3:-}-client.log" 2>/dev/null |
		while read -r q; do echo $((16#$q)); done | sort -n | paste -sd,)
	[[ $qpns =~ ^[0-9]+,[0-9]+$ ]] && echo -n " and (.qpns | sort) == [$qpns]"
	echo
}

# udaddy_gap($key; $ppol; $c): rdma_cm UD whose passive side, ours under
# $ppol (rfc or mix), got no flow label with the SIDR REQ (over IPv4, or
# from an active side under builtin or off, which write none): it derives
# the connection's from the CM ports itself, for its SIDR REP (patch 0011);
# udaddy's server replies through an AH built from the work completion,
# which has none either, so rxe gives them the QPN hash's port: the known
# limitation of wire.sh's udaddy_v4, printed and not counted.  Everything
# else as predicted: the active side's packets, the SIDR REP.
JQ_UDADDY_GAP='
def udaddy_gap($key; $ppol; $c):
	(if ($c | length) != 1 then "  not one rdma_cm UD connection in the capture", "verdict false"
	 else $c[0] | show,
		"# known limitation, not counted: the \(.reverse.data_packets) replies of udaddy on \(.dst) (\($ppol), no flow label to reply with) on \(.reverse.data_udp_sports), predicted \(.reverse.expected_data.udp_sport)",
		"verdict \(.unpredicted == 0 and
			.forward.cm_messages.SIDR_REQ > 0 and .forward.cm_udp_sports == [.expected_cm.udp_sport] and
			.forward.data_packets > 0 and .forward.data_udp_sports == [.forward.expected_data.udp_sport] and
			.reverse.cm_messages.SIDR_REP > 0 and .reverse.cm_udp_sports == [.predicted[$ppol].cm.udp_sport] and
			.reverse.data_packets > 0)"
	 end) | "\($key)\t\(.)";
'

# verdicts TAG POLICY ACTIVE: every type's verdict from
# $CAPS/TAG.pcapng.json in one jq run, near under POLICY, each into
# $LOGS/TAG-vFAMILY-KIND.verdict.
verdicts() {
	local tag=$1 fam kind what calls='' apol=$2 ppol=$FAR_POLICY filter

	[ "$3" = near ] || { apol=$FAR_POLICY ppol=$2; }
	for fam in 4 6; do
		for kind in $KINDS; do
			what=cm
			case $kind in *_pingpong) what=qpn ;; esac
			filter="[.connections[] | select($(select_kind $kind $fam "$tag-v$fam-$kind"))]"
			if [ $kind = udaddy ] && { [ "$ppol" = rfc ] || [ "$ppol" = mix ]; } &&
				{ [ $fam = 4 ] || [ "$apol" = builtin ] || [ "$apol" = off ]; }; then
				calls+="${calls:+, }udaddy_gap(\"v$fam-$kind\"; \"$ppol\"; $filter)"
				continue
			fi
			calls+="${calls:+, }judge(\"v$fam-$kind\"; \"$what\"; 1; \"\"; $filter)"
		done
	done
	verdict_files "$tag" "$JQ_SHOW$JQ_JUDGE$JQ_UDADDY_GAP$calls"
}

# sends TAG ACTIVE: a line per connection of $CAPS/TAG.pcapng.json into
# $entropy_out/sends.txt: what each end sent, CM MADs and data apart (ports
# and IPv6 flow labels), and whether the data went both ways on one port.
sends() {
	jq -r --arg tag "$1" --arg act "$2" '
		def hex: if . == null then "-" else
			[recurse(if . >= 16 then (. / 16 | floor) else empty end) | . % 16] |
			reverse | map("0123456789abcdef"[.:. + 1]) | "0x" + join("") end;
		def side(d): "CM \(d.cm_udp_sports | map(hex) | join(",")) data \(d.data_udp_sports | map(hex) | join(",")) label \(d.flow_labels | map(hex) | join(","))";
		.connections[] |
		"\($tag) \(if (.src | contains(":")) then "IPv6" else "IPv4" end) \(.transport)\(if .cm_ports then " rdma_cm" else " QPN" end) \($act) active: " +
		"A sends \(side(if .src | startswith("10.1.") or startswith("fd01:") then .forward else .reverse end)); " +
		"B sends \(side(if .src | startswith("10.1.") or startswith("fd01:") then .reverse else .forward end)); " +
		"data port \(if (.forward.data_udp_sports == .reverse.data_udp_sports and (.forward.data_udp_sports | length) == 1) then "symmetric" else "asymmetric" end)"
	' "$CAPS/$1.pcapng.json" >> "$entropy_out/sends.txt"
}

# pass POLICY ACTIVE [TAG]: every type over both families, near under
# POLICY (rfc+repath: rfc with re-path on), the clients on ACTIVE; TAG
# (default POLICY-ACTIVE) names the capture and the logs.
pass() {
	local policy=${1%+repath} act=$2 tag=${3:-${1/+/-}-$2} label fam kind

	label="near $NEAR_KIND under $1, far $FAR_KIND under $FAR_POLICY, $act active"
	capture_pass "$tag" "$policy" "$act" && verdicts "$tag" "$policy" "$act" &&
		sends "$tag" "$act" ||
		echo "  the capture $label could not be judged"
	for fam in 4 6; do
		for kind in $KINDS; do
			check "$kind IPv$fam, $label: connected, data intact, every packet as its sender's policy predicts" \
				judge_kind "$tag-v$fam-$kind"
		done
	done
}
