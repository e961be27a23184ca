# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # settings for the scripts that source it
# The guest side of the test harness, sourced by vm/init.sh and by every
# test: the standard topology, waits, the kernel's verdict, and results in
# KTAP through the kernel's own ktap_helpers.sh.
. "$rte_ksrc/tools/testing/selftests/kselftest/ktap_helpers.sh"

# jq: gojq, jq's language in Go (Debian's gojq).  Under TCG jq 1.6 takes
# 250 ms to start, compiling its builtins each time, and gojq 30 ms; the
# tests run it hundreds of times.  The host's scripts keep jq.
jq() {
	gojq "$@"
}

# vm_modprobe ARG...: modprobe from the booted kernel's own modules: the
# test kernel's module tree, or a distribution kernel's /lib/modules.
vm_modprobe() {
	if [ "${rte_dist:-0}" = 1 ]; then
		modprobe "$@"
	else
		modprobe -d "$rte_modroot" "$@"
	fi
}

# our_ko M: the file of our build of module M for the booted kernel: the
# run's build directory (build/modules, VM_MODULES=), or on a distribution
# kernel the file its modprobe takes.
our_ko() {
	if [ "${rte_dist:-0}" = 1 ]; then
		modinfo -F filename "$1"
	else
		echo "$rte_modules/$1.ko"
	fi
}

# module_is_ours M: the loaded module M is our build, out of tree (taint
# O): the srcversion of our_ko's file, or on a distribution kernel, whose
# modules record none (Debian's has no CONFIG_MODULE_SRCVERSION_ALL), a
# file DKMS installed.
module_is_ours() {
	local loaded built file

	file=$(our_ko "$1")
	grep -qE "^$1 .*\(O" /proc/modules || { echo "  $1: not loaded out of tree"; return 1; }
	if [ "${rte_dist:-0}" = 1 ]; then
		echo "  $1: modprobe takes $file"
		[[ $file == /lib/modules/$(uname -r)/updates/dkms/* ]]
		return
	fi
	loaded=$(cat "/sys/module/$1/srcversion")
	built=$(modinfo -F srcversion "$file")
	echo "  $1: loaded srcversion $loaded, $file $built"
	[ -n "$loaded" ] && [ "$loaded" = "$built" ]
}

# ulps_rebuilt: the run's module tree has the kernel's other RDMA
# consumers built against the series' headers in updates/: run.sh gives
# only a run of the series that tree (not compat, stock or dist).
ulps_rebuilt() {
	[ -d "$rte_modroot/lib/modules/$(uname -r)/updates" ]
}

# ulps_loaded_rebuilt: every loaded module that updates/ has is that
# build (srcversion), not the test kernel's own; prints how many.
ulps_loaded_rebuilt() {
	local ko m n=0 loaded built

	for ko in "$rte_modroot/lib/modules/$(uname -r)"/updates/*.ko; do
		m=$(basename "$ko" .ko)
		m=${m//-/_}
		[ -d "/sys/module/$m" ] || continue
		loaded=$(cat "/sys/module/$m/srcversion" 2>/dev/null)
		built=$(modinfo -F srcversion "$ko")
		if [ "$loaded" != "$built" ]; then
			echo "  $m: loaded srcversion '$loaded', updates/ has $built"
			return 1
		fi
		n=$((n + 1))
	done
	echo "  $n loaded modules, each the build in updates/"
}

# The standard topology (README.md): rxea on a0, rxeb on b0, both in
# init_net, routed through the router namespace r.
A4=10.1.0.2 B4=10.2.0.2 RA4=10.1.0.1 RB4=10.2.0.1
A6=fd01::2 B6=fd02::2 RA6=fd01::1 RB6=fd02::1
RDMA_MODULES="ib_core ib_cm iw_cm rdma_cm ib_uverbs rdma_ucm rdma_rxe"

step() { echo "+ $*"; "$@"; }

# nap SECONDS: sleep without a process: read times out on a pipe that
# nobody writes (under TCG an exec of sleep costs 0.05-0.35 s, and
# wait_for polls ten times a second).
exec {NAP_FD}<> <(:)
nap() {
	read -r -t "$1" -u "$NAP_FD" _ || :
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
# RTE_WAIT_SCALE=N multiplies SECONDS: the debug kernel (make check-debug)
# runs everything several times slower under TCG.
wait_for() {
	local deadline=$((SECONDS + $1 * ${RTE_WAIT_SCALE:-1}))

	shift
	until "$@" >/dev/null 2>&1; do
		if [ $SECONDS -ge $deadline ]; then
			echo "timed out waiting for: $*" >&2
			return 1
		fi
		nap 0.1
	done
}

# vm_load_stack [PARAM...]: the RDMA stack, ours unless rte_stock=1; PARAMs
# go to our ib_core (roce_entropy=...).  On a distribution kernel
# (rte_dist=1) its modprobe chooses, as on a host: DKMS's modules if
# installed, the kernel's own otherwise, with the host's modprobe.d.
vm_load_stack() {
	local m

	if [ "${rte_dist:-0}" = 1 ]; then
		echo "==> loading the RDMA stack (modprobe of Linux $(uname -r))"
		step modprobe ib_core "$@" && step modprobe -a $RDMA_MODULES
		return
	fi
	echo "==> loading the RDMA stack ($([ "$rte_stock" = 1 ] && echo stock || echo ours))"
	step modprobe -d "$rte_modroot" -a udp_tunnel ip6_udp_tunnel crc32_generic || return 1
	if [ "$rte_stock" = 1 ]; then
		step modprobe -d "$rte_modroot" -a $RDMA_MODULES || return 1
	else
		step insmod "$rte_modules/ib_core.ko" "$@" || return 1
		for m in ${RDMA_MODULES#ib_core }; do
			step insmod "$rte_modules/$m.ko" || return 1
		done
	fi
}

# ip_batch [OPTION...]: the ip commands on stdin, one a line, in one run of
# "ip OPTION... -batch -" (an exec costs a tenth of a second under TCG);
# each line is echoed as step does.  The first that fails ends it.
ip_batch() {
	local cmds

	cmds=$(cat)
	sed "s|^|+ ip${*:+ $*} |" <<< "$cmds"
	ip "$@" -batch - <<< "$cmds"
}

# vm_router: the router r's addresses on a1 and b1, forwarding on.
vm_router() {
	ip_batch -n r <<-EOF || return 1
		addr add $RA4/24 dev a1
		addr add $RB4/24 dev b1
		addr add $RA6/64 dev a1 nodad
		addr add $RB6/64 dev b1 nodad
		link set lo up
		link set a1 up
		link set b1 up
	EOF
	step ip netns exec r sysctl -qw net.ipv4.ip_forward=1 net.ipv6.conf.all.forwarding=1
}

# The two rxe hosts in init_net, the router in netns r; every route between
# them leaves through the wire.  The rules key on the output device: rdma_cm's
# passive side checks the netdev of a REQ with a lookup keyed on it, and
# rules keyed on iif lo do not match that lookup (REJ, error 28).
vm_topology() {
	echo "==> standard topology"
	step ip link set lo up || return 1
	step ip netns add r || return 1
	ip_batch <<-EOF || return 1
		link add a0 type veth peer name a1 netns r
		link add b0 type veth peer name b1 netns r
		addr add $A4/24 dev a0
		addr add $B4/24 dev b0
		addr add $A6/64 dev a0 nodad
		addr add $B6/64 dev b0 nodad
		link set a0 up
		link set b0 up
	EOF
	vm_router || return 1
	step sysctl -qw net.ipv4.conf.all.accept_local=1 net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 net.ipv4.conf.a0.rp_filter=0 \
		net.ipv4.conf.b0.rp_filter=0 net.ipv4.conf.a0.accept_local=1 \
		net.ipv4.conf.b0.accept_local=1
	ip_batch <<-EOF || return 1
		route add 10.2.0.0/24 via $RA4 dev a0 table 100
		route add 10.1.0.0/24 via $RB4 dev b0 table 101
		rule add pref 10 to 10.2.0.0/24 oif a0 lookup 100
		rule add pref 11 to 10.1.0.0/24 oif b0 lookup 101
	EOF
	# ip rule takes its family from -6, not from the prefix: a run apart
	ip_batch -6 <<-EOF || return 1
		route add fd02::/64 via $RA6 dev a0 table 100
		route add fd01::/64 via $RB6 dev b0 table 101
		rule add pref 10 to fd02::/64 oif a0 lookup 100
		rule add pref 11 to fd01::/64 oif b0 lookup 101
		rule add pref 100 lookup local
		rule del pref 0 lookup local
	EOF
	vm_rxe_links
}

# The rxe devices of the standard topology, rxea on a0 and rxeb on b0,
# active and with their IPv6 GIDs.
vm_rxe_links() {
	step rdma link add rxea type rxe netdev a0 || return 1
	step rdma link add rxeb type rxe netdev b0 || return 1
	wait_for 10 port_active rxea || return 1
	wait_for 10 port_active rxeb || return 1
	wait_for 10 rxe_has_gid rxea "$A6" || return 1
	wait_for 10 rxe_has_gid rxeb "$B6" || return 1
}

# ---- two guests (vm/pair.sh) ----
# near holds the standard topology's A side and the router r, whose b1 is
# the virtual link to far; far holds B, rxeb on b0, its end of the link.
# Near runs the tests; far runs what near asks of it (remote) through the
# directory both share.  RTE_FAR says what far runs: stock (the kernel's
# own modules, judged as builtin) or ours, under RTE_FAR_POLICY.

PAIR=/run/rte-pair
FAR_KIND=${RTE_FAR:-stock}
FAR_POLICY=builtin
[ "$FAR_KIND" = stock ] || FAR_POLICY=${RTE_FAR_POLICY:-rfc}

vm_pair_topology() {
	echo "==> two guests: $rte_pair"
	mountpoint -q $PAIR || { echo "init: no directory shared with the other guest" >&2; return 1; }
	step ip link set lo up || return 1
	[ -e /sys/class/net/eth0 ] || step vm_modprobe virtio_net ||
		{ echo "init: no virtio_net in this kernel: the link to the other guest needs it" >&2; return 1; }
	wait_for 10 test -e /sys/class/net/eth0 || return 1
	if [ "$rte_pair" = far ]; then
		step ip link set eth0 name b0 &&
			vm_pair_host rxeb b0 "$B4" "$B6" "$RB4" "$RB6" 10.1.0.0/24 fd01::/64
		return
	fi
	# a0's ifindex differs from b1's (eth0's, 2): 6.12's rdma_cm takes a
	# neighbour update of any namespace for its own (cma_netevent_callback
	# matches ifindex and address only), so r's resolving B on b1, were
	# b1 a0's number, would end A's connection to B at its REQ, UNREACHABLE
	step ip netns add r || return 1
	ip_batch <<-EOF || return 1
		link add a0 index 10 type veth peer name a1 netns r index 11
		link set eth0 netns r
	EOF
	step ip -n r link set eth0 name b1 && vm_router &&
		vm_pair_host rxea a0 "$A4" "$A6" "$RA4" "$RA6" 10.2.0.0/24 fd02::/64
}

# vm_pair_host RXE DEV ADDR4 ADDR6 VIA4 VIA6 TO4 TO6: a guest's side of
# the two: DEV with its addresses, up, the prefixes TO4 and TO6 routed
# through VIA4 and VIA6, and rxe device RXE on it, active with its IPv6
# GID.
vm_pair_host() {
	ip_batch <<-EOF || return 1
		addr add $3/24 dev $2
		addr add $4/64 dev $2 nodad
		link set $2 up
		route add $7 via $5 dev $2
		route add $8 via $6 dev $2
	EOF
	step rdma link add "$1" type rxe netdev "$2" || return 1
	wait_for 10 port_active "$1" && wait_for 10 rxe_has_gid "$1" "$4"
}

# far_agent: far's side: say it is ready, then run every command near
# asks for (cmd.ID), each in the background as soon as it comes, its output
# in out.ID and its status in rc.ID, and stop one when near asks (kill.ID),
# until near is done, or asks far to boot again (far_reboot).  Fails if
# commands were still running then: near left them behind (they are
# stopped, and listed).
far_agent() {
	local f id n=0 left
	local -A pid

	touch "$PAIR/far.ready"
	until [ -e "$PAIR/done" ] || [ -e "$PAIR/reboot" ]; do
		for f in "$PAIR"/cmd.*; do
			[ -e "$f" ] || continue
			id=${f##*/cmd.}
			mv "$f" "$PAIR/run.$id" || continue
			n=$((n + 1))
			echo "+ far: $(< "$PAIR/run.$id")"
			(
				eval "$(< "$PAIR/run.$id")" > "$PAIR/out.$id" 2>&1
				echo $? > "$PAIR/rc.$id.tmp"
				mv "$PAIR/rc.$id.tmp" "$PAIR/rc.$id"
			) &
			pid[$id]=$!
		done
		for f in "$PAIR"/kill.*; do
			[ -e "$f" ] || continue
			id=${f##*/kill.}
			rm -f "$f"
			[ -z "${pid[$id]:-}" ] || pkill -P "${pid[$id]}"
		done
		nap 0.1
	done
	if [ -e "$PAIR/done" ]; then
		echo "far: $n commands, near is done"
	else
		echo "far: $n commands, near asks for a reboot: $(< "$PAIR/reboot")"
	fi
	left=
	for id in "${!pid[@]}"; do
		[ -e "$PAIR/rc.$id" ] || ! kill -0 "${pid[$id]}" 2>/dev/null ||
			left=$left${left:+,}${pid[$id]}
	done
	[ -z "$left" ] && return
	echo "far: still running when near was done, stopped: $(ps -o args= --ppid "$left" | paste -sd ';')"
	pkill -P "$left"
	wait
	return 1
}

# pair_done: near's side: far's agent ends.
pair_done() {
	touch "$PAIR/done"
}

# far_ready: far's agent is running (its topology is up).
far_ready() {
	[ -e "$PAIR/far.ready" ]
}

# far_reboot [VAR=value...]: far ends, and vm/pair.sh boots it again with
# these settings added to its earlier ones (a later value wins:
# VM_APPEND= drops FAR='s command line); far's agent is up again within
# 300 s.  Near's connections to far end as they would with a host's
# reboot.
far_reboot() {
	rm -f "$PAIR/far.ready" &&
		echo "$*" > "$PAIR/reboot.new" && mv "$PAIR/reboot.new" "$PAIR/reboot" &&
		wait_for 300 far_back && far_ready
}

# far_back: far's agent is up, or far is gone for good.
far_back() {
	far_ready || [ -e "$PAIR/far.gone" ]
}

# remote_start ARG...: run the command ARG... (a lib.sh function or a
# program) on far, in the background; FAR_CMD is then its ID, for
# remote_wait and remote_kill.  IDs are unique among near's processes (the
# time in microseconds and the process), so that several may ask at once.
remote_start() {
	FAR_CMD=${EPOCHREALTIME/./}.$BASHPID
	printf '%q ' "$@" > "$PAIR/new.$FAR_CMD" &&
		mv "$PAIR/new.$FAR_CMD" "$PAIR/cmd.$FAR_CMD"
}

# far_exited ID: far's command ID has ended, or far has.
far_exited() {
	[ -e "$PAIR/rc.$1" ] || [ -e "$PAIR/far.gone" ]
}

# remote_wait ID [SECONDS]: far's command ID ends within SECONDS (default
# 120); its status (124 when it did not, or far is gone).  Its output is
# in $PAIR/out.ID.
remote_wait() {
	wait_for "${2:-120}" far_exited "$1" && [ -e "$PAIR/rc.$1" ] ||
		{ echo "far's command did not end: $(cat "$PAIR/run.$1" 2>/dev/null)" >&2; return 124; }
	return "$(< "$PAIR/rc.$1")"
}

# remote_kill ID: far stops its command ID (the command's processes; a
# shell function goes on).
remote_kill() {
	touch "$PAIR/kill.$1"
}

# remote_forget ID: far's files of command ID removed, once read.
remote_forget() {
	rm -f "$PAIR/run.$1" "$PAIR/out.$1" "$PAIR/rc.$1"
}

# remote ARG...: run ARG... on far and wait for it; its output, and its
# status.
remote() {
	local rc=0 id

	remote_start "$@" || return 1
	id=$FAR_CMD
	remote_wait "$id" || rc=$?
	cat "$PAIR/out.$id" 2>/dev/null
	remote_forget "$id"
	return $rc
}

# near_knobs POLICY: near's rxea under POLICY, re-path on for rfc+repath
# (rfc with re-path on) and off otherwise.
near_knobs() {
	local d=/sys/class/infiniband/rxea/ports/1 repath=off

	[ "$1" = "${1%+repath}" ] || repath=on
	echo "${1%+repath}" > $d/roce_entropy && echo $repath > $d/roce_repath
}

# far_knobs POLICY REPATH: far's rxeb under POLICY, re-path REPATH.
far_knobs() {
	remote sh -c "echo $1 > /sys/class/infiniband/rxeb/ports/1/roce_entropy &&
		echo $2 > /sys/class/infiniband/rxeb/ports/1/roce_repath"
}

# far_stock: far answers, and its ib_core is the kernel's own, not ours.
far_stock() {
	remote grep -q '^ib_core ' /proc/modules && ! remote module_is_ours ib_core
}

# pair_start: the checks every test on two guests begins with: far is up,
# near is ours, far is what RTE_FAR says (ours: under FAR_POLICY).  Fails
# when the test cannot go on.
pair_start() {
	check "far is up and its agent runs" wait_for 300 far_ready || return 1
	check "near's ib_core is ours" module_is_ours ib_core || return 1
	if [ "$FAR_KIND" = stock ]; then
		check "far runs the kernel's own ib_core" far_stock
	else
		check "far's ib_core is ours" remote module_is_ours ib_core &&
			check "far's rxeb under $FAR_POLICY, re-path off" far_knobs "$FAR_POLICY" off
	fi
}

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
# $rte_out/sends.txt: what each end sent, CM MADs and data apart (ports
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
	' "$CAPS/$1.pcapng.json" >> "$rte_out/sends.txt"
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

# vm_unload_stack [DEV...]: the rxe devices (default rxea and rxeb) deleted
# and the RDMA modules unloaded.
vm_unload_stack() {
	local m devs=("$@")

	[ $# -gt 0 ] || devs=(rxea rxeb)
	for m in "${devs[@]}"; do
		step rdma link delete "$m" || return 1
	done
	wait_for 10 no_rdma_devices || return 1
	for m in $(echo $RDMA_MODULES | tr ' ' '\n' | tac); do
		step rmmod "$m" || return 1
	done
}

# vm_readd_rxe DEV NETDEV: rxe device DEV deleted and made again on NETDEV:
# the device registers again.
vm_readd_rxe() {
	step rdma link delete "$1" || return 1
	wait_for 10 no_rdma_device "$1" || return 1
	step rdma link add "$1" type rxe netdev "$2" || return 1
	wait_for 10 port_active "$1"
}

# gid_of ADDR: the GID of an IPv6 address, or of an IPv4 address's
# IPv4-mapped one, as sysfs prints it (fd01::2:
# fd01:0000:0000:0000:0000:0000:0000:0002).  No fork: the waits poll it.
gid_of() {
	local a=$1 head tail hs=() ts=() g=() x out='' i

	if [[ $a != *:* ]]; then
		IFS=. read -r -a g <<< "$a"
		printf '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x\n' "${g[@]}"
		return
	fi
	head=${a%%::*} tail=
	[[ $a != *::* ]] || tail=${a#*::}
	IFS=: read -r -a hs <<< "$head"
	IFS=: read -r -a ts <<< "$tail"
	g=("${hs[@]}")
	for ((i = ${#hs[@]} + ${#ts[@]}; i < 8; i++)); do g+=(0); done
	g+=("${ts[@]}")
	for x in "${g[@]}"; do
		printf -v x '%04x' "$((16#$x))"
		out=$out${out:+:}$x
	done
	echo "$out"
}

# rxe_has_gid DEV IPV6: the device's GID table holds that address.
rxe_has_gid() {
	grep -qx "$(gid_of "$2")" /sys/class/infiniband/"$1"/ports/1/gids/* 2>/dev/null
}

# ---- connections ----

TOOL=$rte_repo/build/bin/roce-entropy
PING=$rte_repo/build/bin/roce-ping
# iproute2's rdma with tools/iproute2 (tools/buildlib/iproute2.sh); `rdma` is
# the distribution's
RDMA_SERIES=$rte_repo/build/iproute2/rdma
LOGS=$rte_out/logs
mkdir -p "$LOGS"

# set_policy POLICY: both rxe ports' roce_entropy knob.
set_policy() {
	echo "$1" > /sys/class/infiniband/rxea/ports/1/roce_entropy &&
		echo "$1" > /sys/class/infiniband/rxeb/ports/1/roce_entropy
}

# policies_found: "A B", the policies of rxea's and rxeb's ports now; and
# policies_back "A B" puts them back.  A test that changes them puts back
# what it found: the dist run's ports start at the opt-in line's policy,
# which dist-kernel.sh checks after the others.
policies_found() {
	local a b

	read -r a < /sys/class/infiniband/rxea/ports/1/roce_entropy &&
		read -r b < /sys/class/infiniband/rxeb/ports/1/roce_entropy &&
		echo "$a $b"
}

policies_back() {
	echo "${1% *}" > /sys/class/infiniband/rxea/ports/1/roce_entropy &&
		echo "${1#* }" > /sys/class/infiniband/rxeb/ports/1/roce_entropy
}

# set_repath off|on: both rxe ports' roce_repath knob.
set_repath() {
	echo "$1" > /sys/class/infiniband/rxea/ports/1/roce_repath &&
		echo "$1" > /sys/class/infiniband/rxeb/ports/1/roce_repath
}

# repath_moves DEV: "REQUESTER RESPONDER", the moves DEV's RC QPs made as
# requesters and as responders (its hw counters).
repath_moves() {
	local d=/sys/class/infiniband/$1/ports/1/hw_counters req resp

	read -r req < $d/repath_requester && read -r resp < $d/repath_responder &&
		echo "$req $resp"
}

# The waits below poll every 0.1 s, several at a time: they fork as little
# as they can (a fork is slow under TCG).

# cm_listening [ADDR [PORT [PS]]]: an rdma_cm ID listens on ADDR:PORT in
# port space PS (TCP for RC, UDP for UD); one left empty or out matches
# any.
cm_listening() {
	local re="state LISTEN ps ${3:-[A-Z]+} [^"$'\n'"]* src-addr ${1:-[^ ]*}:${2:-[0-9]+} "

	[[ $(rdma resource show cm_id) =~ $re ]]
}

# tcp_listening PORT: a TCP socket listens on PORT.
tcp_listening() {
	[[ $(ss -ltn) == *":$1 "* ]]
}

# ping_listening LOG: the roce-ping server writing LOG listens.
ping_listening() {
	local line

	read -r line < "$1" && [[ $line == "listening on"* ]]
}

# port_active DEV: port 1 of RDMA device DEV is ACTIVE.
port_active() {
	local state

	read -r state < "/sys/class/infiniband/$1/ports/1/state" 2>/dev/null &&
		[[ $state == *ACTIVE ]]
}

# no_rdma_device DEV: no RDMA device DEV; no_rdma_devices: none at all.
no_rdma_device() {
	[ ! -e "/sys/class/infiniband/$1" ]
}

no_rdma_devices() {
	local devs=(/sys/class/infiniband/*)

	[ ! -e "${devs[0]}" ]
}

# cm_connected N: at least N rdma_cm IDs are connected (both ends count).
cm_connected() {
	local ids

	ids=$(rdma resource show cm_id) || return 1
	ids=${ids//state CONNECT/@}
	ids=${ids//[^@]/}
	[ ${#ids} -ge "$1" ]
}

# gone PID: the process has exited.
gone() {
	! kill -0 "$1" 2>/dev/null
}

# rping_race LOG: the program whose output is LOG failed only by rping's
# teardown race, and says so.  rping's CM thread reads its event channel
# again after DISCONNECTED, and the main thread may have destroyed it by
# then: "rdma_get_cm_event: Bad file descriptor" and exit 1, after a
# connection that completed.  rdma-core fixed it in July 2025 ("rping: Fix
# spurious failure return codes"); Debian 12's rping (rdma-core 44) has it.
rping_race() {
	local lines n

	mapfile -t lines < "$1" || return 1
	n=${#lines[@]}
	[ "$n" -ge 2 ] && [ "${lines[n - 1]}" = "rdma_get_cm_event: Bad file descriptor" ] &&
		[[ ${lines[n - 2]} == *"DISCONNECT EVENT..." ]] || return 1
	echo "# ${1##*/}: rping's teardown race after DISCONNECTED (rdma_get_cm_event on its destroyed channel), not a failed connection"
}

# run_pair NAME READY SERVER_CMD -- CLIENT_CMD: the server in the
# background, once READY (a command) succeeds the client, then the server's
# end; both must exit 0 (or fail only by rping_race).  Their output is in
# $LOGS/NAME-server.log and NAME-client.log, and shown when they fail.
# The server gets a minute to end after its client: a guest beside make
# check's builds twice took more than 20 s, the connection judged sound.
run_pair() {
	local name=$1 ready=$2

	shift 2
	run_split "$name" here "$ready" "$@"
}

# run_split NAME WHERE READY SERVER... -- CLIENT...: run_pair across the
# two guests: the server on WHERE (near or far, where READY runs too), the
# client on the other; WHERE here: both here, run_pair.
run_split() {
	local name=$1 where=$2 ready=$3 server=() client=() slog clog rc=0 crc=0 id spid

	shift 3
	while [ "$1" != -- ]; do server+=("$1"); shift; done
	shift
	client=("$@")
	slog=$LOGS/$name-server.log clog=$LOGS/$name-client.log
	if [ "$where" = far ]; then
		echo "+ far: ${server[*]} &"
		remote_start timeout 180 "${server[@]}" || return 1
		id=$FAR_CMD
		# shellcheck disable=SC2086 # READY: a command and its words
		if ! remote wait_for 30 $ready > /dev/null; then
			remote_kill "$id"
			remote_wait "$id" 10
			echo "  $name: the server did not listen:"
			sed 's/^/    /' "$PAIR/out.$id" 2>/dev/null
			remote_forget "$id"
			return 1
		fi
		echo "+ near: ${client[*]}"
		timeout 120 "${client[@]}" > "$clog" 2>&1 || rping_race "$clog" ||
			{ rc=1; echo "  $name: the client failed:"; sed 's/^/    /' "$clog"; }
		remote_wait "$id" 60 || { [ $rc = 0 ] || remote_kill "$id"; false; } ||
			{ cp "$PAIR/out.$id" "$slog" 2>/dev/null; rping_race "$slog"; } ||
			{ rc=1; echo "  $name: the server failed:"; sed 's/^/    /' "$slog"; }
		cp "$PAIR/out.$id" "$slog" 2>/dev/null
		remote_forget "$id"
		return $rc
	fi
	if [ "$where" = near ]; then echo "+ near: ${server[*]} &"; else echo "+ ${server[*]} &"; fi
	"${server[@]}" > "$slog" 2>&1 &
	spid=$!
	if ! wait_for 30 $ready; then
		kill $spid
		echo "  $name: the server did not listen:"
		sed 's/^/    /' "$slog"
		return 1
	fi
	if [ "$where" = near ]; then
		echo "+ far: ${client[*]}"
		remote_start timeout 120 "${client[@]}" || { kill $spid; return 1; }
		id=$FAR_CMD
		remote_wait "$id" 130 || crc=$?
		cp "$PAIR/out.$id" "$clog" 2>/dev/null
		remote_forget "$id"
	else
		echo "+ ${client[*]}"
		timeout 120 "${client[@]}" > "$clog" 2>&1 || crc=$?
	fi
	[ $crc = 0 ] || rping_race "$clog" ||
		{ rc=1; echo "  $name: the client failed:"; sed 's/^/    /' "$clog"; }
	wait_for 60 gone $spid || { kill $spid; rc=1; }
	wait $spid || rping_race "$slog" ||
		{ rc=1; echo "  $name: the server failed:"; sed 's/^/    /' "$slog"; }
	return $rc
}

# gid_index DEV IPADDR: index of the RoCE v2 GID of that address.
gid_index() {
	local want i d=/sys/class/infiniband/$1/ports/1 gid type

	want=$(gid_of "$2")
	for ((i = 0; i < 16; i++)); do
		read -r gid < "$d/gids/$i" 2>/dev/null || continue
		[ "$gid" = "$want" ] || continue
		read -r type < "$d/gid_attrs/types/$i" 2>/dev/null || continue
		if [ "$type" = "RoCE v2" ]; then
			echo "$i"
			return
		fi
	done
	return 1
}

# predict ARGS...: "flow_label udp_sport" from roce-entropy flow-label.
predict() {
	"$TOOL" flow-label "$@" --json | jq -r '"\(.flow_label) \(.udp_sport)"'
}

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

# ---- captures ----
# In the router namespace on a1, which sees both directions of everything
# between rxea and rxeb exactly once.

CAPS=$rte_out/captures
mkdir -p "$CAPS"

# capture_start NAME [IFACE...]: capture RoCE v2 on r's IFACEs (default
# a1) into $CAPS/NAME.pcapng.
capture_start() {
	local ifs=() i

	CAP=$CAPS/$1.pcapng
	shift
	for i in "${@:-a1}"; do
		ifs+=(-i "$i")
	done
	rm -f "$CAP"
	ip netns exec r dumpcap -q "${ifs[@]}" -f 'udp port 4791' -w "$CAP" > /dev/null 2>&1 &
	CAP_PID=$!
	# a poll: long only when two guests and a build share the host's cores
	wait_for 60 test -s "$CAP"
	sleep 0.5 # dumpcap writes the file header before its filter is live
}

# capture_end: stop the capture.
capture_end() {
	sleep 0.5
	kill -INT "$CAP_PID"
	wait "$CAP_PID"
}

# capture_fields FIELD...: stop the capture and dissect it once with tshark
# for FIELDs; fields NAME... then gives them per RoCE packet.
capture_fields() {
	local args=() f

	capture_end
	CAP_FIELDS=$*
	for f in "$@"; do
		args+=(-e "$f")
	done
	tshark -r "$CAP" -Y infiniband -T fields -E separator='|' "${args[@]}" \
		> "$CAP.txt" 2>/dev/null
}

# fields FIELD...: one line per RoCE packet of $CAP, FIELDs (of those given
# to capture_fields) separated by spaces (empty ones dropped, as awk splits).
fields() {
	awk -F'|' -v want="$*" -v all="$CAP_FIELDS" '
		BEGIN { n = split(all, names, " "); for (i = 1; i <= n; i++) col[names[i]] = i
			m = split(want, w, " ") }
		{ line = ""; for (i = 1; i <= m; i++) line = line (i > 1 ? " " : "") $(col[w[i]]); print line }
	' "$CAP.txt"
}

# ---- NVMe over RDMA ----
# nvmet-rdma exports a memory-backed null_blk namespace; nvme-rdma (nvme-cli)
# connects, writes NVME_MB of random data and reads it back.  Needs a
# kernel with nvmet-rdma, nvme-rdma and null_blk as modules.

NQN=nqn.2026-11.org.example:roce-entropy
HOSTNQN=nqn.2014-08.org.nvmexpress:uuid:6f1c2b5e-1a57-4c1e-9d2a-5ad0f00dcafe
NS_UUID=5d0c7e1a-2b3f-4c6d-8e9f-0a1b2c3d4e5f
NVMET_CFG=/sys/kernel/config/nvmet
NVME_SVC=4420
IO_QUEUES=2
NVME_MB=4

# target_up ADDR4 ADDR6: the subsystem with its namespace, a port on each
# address.
target_up() {
	local n=0 fam addr

	step vm_modprobe null_blk nr_devices=1 memory_backed=1 gb=1 &&
		step vm_modprobe -a nvmet nvmet-rdma nvme-rdma || return 1
	{ ! ulps_rebuilt || ulps_loaded_rebuilt; } || return 1
	mountpoint -q /sys/kernel/config || step mount -t configfs none /sys/kernel/config
	wait_for 10 test -b /dev/nullb0 || return 1
	mkdir -p $NVMET_CFG/subsystems/$NQN/namespaces/1 || return 1
	# the namespace's identifiers a host checks when it reconnects: fixed,
	# as a real target's are, so that a session outlives the target's reboot
	echo 1 > $NVMET_CFG/subsystems/$NQN/attr_allow_any_host &&
		echo $NS_UUID > $NVMET_CFG/subsystems/$NQN/namespaces/1/device_uuid &&
		echo $NS_UUID > $NVMET_CFG/subsystems/$NQN/namespaces/1/device_nguid &&
		echo /dev/nullb0 > $NVMET_CFG/subsystems/$NQN/namespaces/1/device_path &&
		echo 1 > $NVMET_CFG/subsystems/$NQN/namespaces/1/enable || return 1
	for fam in ipv4 ipv6; do
		n=$((n + 1))
		if [ $fam = ipv4 ]; then addr=$1; else addr=$2; fi
		mkdir $NVMET_CFG/ports/$n &&
			echo rdma > $NVMET_CFG/ports/$n/addr_trtype &&
			echo $fam > $NVMET_CFG/ports/$n/addr_adrfam &&
			echo "$addr" > $NVMET_CFG/ports/$n/addr_traddr &&
			echo $NVME_SVC > $NVMET_CFG/ports/$n/addr_trsvcid &&
			ln -s $NVMET_CFG/subsystems/$NQN $NVMET_CFG/ports/$n/subsystems/$NQN || return 1
	done
}

# target_down: the ports, the subsystem, the modules.
target_down() {
	local p

	for p in $NVMET_CFG/ports/*; do
		[ -d "$p" ] || continue
		rm -f "$p/subsystems/$NQN"
		rmdir "$p"
	done
	echo 0 > $NVMET_CFG/subsystems/$NQN/namespaces/1/enable 2>/dev/null
	rmdir $NVMET_CFG/subsystems/$NQN/namespaces/1 $NVMET_CFG/subsystems/$NQN 2>/dev/null
	step vm_modprobe -r nvmet-rdma nvmet nvme-rdma null_blk
}

# nvme_namespace: the block device of $NQN's namespace on the host side.
nvme_namespace() {
	local c n

	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $NQN ] || continue
		for n in "$c"/nvme*n1; do
			n=${n##*/}
			[[ $n =~ ^nvme[0-9]+(c[0-9]+)?n1$ ]] || continue
			echo "${n/c[0-9]*n/n}"
			return 0
		done
		return 0
	done
	return 1
}

# nvme_connect ADDR HOSTADDR [OPTION...]: nvme-rdma (loaded if need be)
# connects to the target at ADDR from HOSTADDR (nvme connect's OPTIONs), and the namespace's block
# device appears.
nvme_connect() {
	local addr=$1 host=$2

	shift 2
	step vm_modprobe nvme-rdma || return 1
	step nvme connect -t rdma -a "$addr" -w "$host" -s $NVME_SVC -n $NQN --hostnqn=$HOSTNQN \
		--hostid=${HOSTNQN##*:} -i $IO_QUEUES "$@" || return 1
	wait_for 30 nvme_namespace && wait_for 10 test -b "/dev/$(nvme_namespace)"
}

# nvme_io MB: MB of random data written to the namespace and read back the
# same.
nvme_io() {
	local dev

	dev=/dev/$(nvme_namespace) || return 1
	head -c $(($1 << 20)) /dev/urandom > /tmp/nvme.in
	step dd if=/tmp/nvme.in of="$dev" bs=1M oflag=direct status=none &&
		step dd if="$dev" of=/tmp/nvme.out bs=1M count="$1" iflag=direct status=none &&
		step cmp /tmp/nvme.in /tmp/nvme.out
}

# nvme_live: the host's controller of $NQN is connected (state live).
nvme_live() {
	local c

	for c in /sys/class/nvme/nvme*; do
		[ "$(cat "$c/subsysnqn" 2>/dev/null)" = $NQN ] || continue
		[ "$(cat "$c/state")" = live ]
		return
	done
	return 1
}

# write_read ADDR HOSTADDR [MB]: connect to the target at ADDR from
# HOSTADDR, write MB (default NVME_MB) of random data, read it back and
# compare, disconnect.
write_read() {
	local rc=0

	nvme_connect "$1" "$2" && nvme_io "${3:-$NVME_MB}" || rc=1
	step nvme disconnect -n $NQN > /dev/null || rc=1
	return $rc
}

# ---- the guest's writable directories and the consumers' daemons ----
# Debian's NFS and iSCSI daemons, unpacked and never installed
# (tools/buildlib/consumer-tools.sh), with their state in overlays of the
# read-only root in the guest.

TOOLROOT=$(realpath -m "$rte_cache/consumer-tools/root")
UNMOUNTS=/run/rte-unmount

# writable DIR: DIR (of the read-only root) writable, its changes in the
# guest's /tmp.  What is mounted below DIR (a distribution root's
# /etc/modprobe.d) is mounted again on the overlay, which would hide it.
# Each mount is added to the front of UNMOUNTS, for writable_undo: a file,
# so that far's agent, whose commands each run in a shell of their own,
# keeps the list too.
writable() {
	local up=/tmp/overlay/${1//\//_} subs=() m i

	while read -r _ _ _ _ m _; do
		[[ $m != "$1"/* ]] || subs+=("$m")
	done < /proc/self/mountinfo
	mkdir -p "$up/upper" "$up/work" || return 1
	for i in "${!subs[@]}"; do
		mkdir -p "$up/held/$i" && mount --bind "${subs[i]}" "$up/held/$i" || return 1
		unmount_later "$up/held/$i"
	done
	step mount -t overlay overlay -o "lowerdir=$1,upperdir=$up/upper,workdir=$up/work" "$1" ||
		return 1
	unmount_later "$1"
	for i in "${!subs[@]}"; do
		step mount --bind "$up/held/$i" "${subs[i]}" || return 1
		unmount_later "${subs[i]}"
	done
}

# unmount_later DIR: DIR first in UNMOUNTS.
unmount_later() {
	{ echo "$1"; [ ! -e "$UNMOUNTS" ] || cat "$UNMOUNTS"; } > "$UNMOUNTS.new" &&
		mv "$UNMOUNTS.new" "$UNMOUNTS"
}

# writable_undo: what writable mounted unmounted, the newest first.
writable_undo() {
	local m

	[ -e "$UNMOUNTS" ] || return 0
	while read -r m; do
		umount "$m"
	done < "$UNMOUNTS"
	rm -f "$UNMOUNTS"
}

# ---- NFS over RDMA ----
# nfsd's rdma listener on NFS_PORT exports a tmpfs, NFSv4's root; a
# proto=rdma mount writes random data and reads it back with O_DIRECT.
# Needs /etc and /var/lib writable (writable) and a kernel with nfsd,
# nfsv4 and rpcrdma as modules.

NFS_PORT=20049
NFS_MOUNTD=/run/rte-nfs-mountd.pid

# nfs_server_up: nfsd listening for NFSv4 over RDMA on NFS_PORT, the
# export in /tmp/nfs-export, rpc.mountd running, the grace period over.
nfs_server_up() {
	local d=/proc/fs/nfsd

	step vm_modprobe -a nfsd nfsv4 rpcrdma || return 1
	mkdir -p /var/lib/nfs/v4recovery /tmp/nfs-export /tmp/nfs-mnt &&
		touch /etc/exports /var/lib/nfs/etab /var/lib/nfs/rmtab || return 1
	mountpoint -q $d || step mount -t nfsd nfsd $d || return 1
	# the export on a tmpfs: fsid=0 (it has no device), the NFSv4 root
	step "$TOOLROOT/usr/sbin/exportfs" -o rw,no_root_squash,no_subtree_check,fsid=0 '*:/tmp/nfs-export' ||
		return 1
	echo "+ rpc.mountd -F -N 3 &"
	"$TOOLROOT/usr/sbin/rpc.mountd" -F -N 3 > "$LOGS/nfs-mountd.log" 2>&1 &
	echo $! > $NFS_MOUNTD
	echo 10 > $d/nfsv4leasetime && echo 10 > $d/nfsv4gracetime &&
		echo "-3 +4 +4.1 +4.2" > $d/versions &&
		echo "rdma $NFS_PORT" > $d/portlist && echo 2 > $d/threads || return 1
	wait_for 20 cm_listening "" $NFS_PORT TCP && echo Y > $d/v4_end_grace
}

# nfs_write_read ADDR MB [EXPORT]: ADDR's export mounted over RDMA, MB of
# random data written to it with O_DIRECT and read back the same (and the
# same in directory EXPORT, when the server is this guest), unmounted.
nfs_write_read() {
	local proto=rdma src="$1:/" rc=0

	[[ $1 != *:* ]] || proto=rdma6 src="[$1]:/"
	step mount -i -t nfs4 -o "vers=4.2,proto=$proto,port=$NFS_PORT,addr=$1" "$src" /tmp/nfs-mnt ||
		return 1
	head -c $(($2 << 20)) /dev/urandom > /tmp/nfs.in
	step dd if=/tmp/nfs.in of=/tmp/nfs-mnt/data bs=1M oflag=direct status=none &&
		step dd if=/tmp/nfs-mnt/data of=/tmp/nfs.out bs=1M iflag=direct status=none &&
		step cmp /tmp/nfs.in /tmp/nfs.out || rc=1
	[ -z "${3:-}" ] || step cmp /tmp/nfs.in "$3/data" || rc=1
	rm -f /tmp/nfs-mnt/data
	step umount /tmp/nfs-mnt || rc=1
	return $rc
}

# nfs_server_down: nfsd stopped, rpc.mountd gone, the modules unloaded.
nfs_server_down() {
	local pid

	echo 0 > /proc/fs/nfsd/threads
	pid=$(cat $NFS_MOUNTD 2>/dev/null) && kill "$pid" 2>/dev/null &&
		wait_for 10 eval "! kill -0 $pid 2>/dev/null"
	rm -f $NFS_MOUNTD
	step "$TOOLROOT/usr/sbin/exportfs" -ua
	umount /proc/fs/nfsd
	step vm_modprobe -r nfsv4 nfsd rpcrdma
}

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

# What the kernel prints for a warning, a bug, an oops, a sanitizer
# (KASAN, UBSAN, kmemleak), lockdep, DEBUG_ATOMIC_SLEEP ("BUG: sleeping
# function called from invalid context"), an RCU stall or a hung task.
# kmemleak counts by its reports and by what stops or confuses it, never by
# its name: a debug kernel prints "kmemleak: Kernel memory leak detector
# initialized" at every boot.
KERNEL_REPORTS='WARNING:|BUG:|Oops|KASAN|UBSAN|general protection|possible (circular|recursive) locking|inconsistent lock state|suspicious RCU usage|INFO: rcu|rcu.*(stall|detected)|INFO: task|soft lockup|hard LOCKUP|suspected memory leak|kmemleak: .*(disabled|unknown object|Cannot|pool empty|Failed|alias|larger than)'

# kernel_reports [LINE [KNOWN]]: print the reports in the kernel log after
# line LINE (default: all of it); fails if there is one.  On the KCSAN
# kernel its data race reports are kcsan-reports.sh's to judge; KNOWN (an
# extended regular expression) leaves out the reports a test judged itself.
kernel_reports() {
	local skip='traps:'

	[ "${RTE_DEBUG:-0}" != kcsan ] || skip='traps:|BUG: KCSAN:'
	[ -z "${2:-}" ] || skip="$skip|$2"
	! dmesg | tail -n +"$((${1:-0} + 1))" | grep -Ev "$skip" | grep -E "$KERNEL_REPORTS"
}

# kmemleak's file; present only in a kernel with DEBUG_KMEMLEAK, once
# debugfs is mounted (kmemleak_mount).
KMEMLEAK=/sys/kernel/debug/kmemleak

kmemleak_mount() {
	mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
	[ -e $KMEMLEAK ]
}

# kmemleak_clean: two scans (an object must be unreferenced over a scan
# period to count), then nothing reported.  A scan is refused once kmemleak
# has turned itself off, so this also proves it was still on.
kmemleak_clean() {
	local leaks

	step sh -c "echo scan > $KMEMLEAK" || return 1
	sleep 6
	step sh -c "echo scan > $KMEMLEAK" || return 1
	leaks=$(cat $KMEMLEAK)
	[ -z "$leaks" ] || { echo "$leaks" | tee "$rte_out/kmemleak.txt" | head -n 60; return 1; }
}

# known_report REGEX: a report a test judged itself (and reported as a
# skip with its reason), which vm_dmesg_clean then leaves out.
known_report() {
	echo "$1" >> "$rte_out/known-reports"
}

# Any kernel warning, bug or sanitizer report fails the run, but those a
# test judged itself (known_report).
vm_dmesg_clean() {
	local known=

	if [ -s "$rte_out/known-reports" ]; then
		known=$(paste -sd '|' "$rte_out/known-reports")
		echo "# left to the tests that judged them: $known"
	fi
	if ! kernel_reports 0 "$known"; then
		echo "vm: FAIL: the kernel reported a problem (above)"
		return 1
	fi
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

# ---- results, in KTAP ----

# check DESCRIPTION CMD...: one result, ok when CMD succeeds, after its time
# (a "#" line, so a slow check shows, and with its own diagnostics).  Its
# status is CMD's (0 or 1), for the checks that depend on it.
check() {
	local desc=$1 start=$SECONDS rc=0

	shift
	"$@" || rc=1
	echo "# $((SECONDS - start)) s"
	if [ $rc = 0 ]; then
		ktap_test_pass "$desc"
	else
		ktap_test_fail "$desc"
	fi
	return $rc
}

# skip DESCRIPTION: a result that was not judged, with the reason in
# DESCRIPTION (a known limitation); counted as skipped, never as passed.
skip() {
	ktap_test_skip "$1"
}

# done_testing: end a test script; its status says whether all passed.
done_testing() {
	ktap_print_totals
	[ "$KTAP_CNT_FAIL" = 0 ]
}
