# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Two guests: each one's side of the link, far's agent, and near's
# commands to far (remote and the rest).  Needs PAIR, FAR_KIND, FAR_POLICY,
# step, nap, wait_for and check (base.sh), ip_batch, vm_router and
# rxe_has_gid (topology.sh), vm_modprobe and module_is_ours (stack.sh), and
# port_active (connections.sh).

# ---- two guests (vm/pair.sh) ----
# near holds the standard topology's A side and the router r, whose b1 is
# the virtual link to far; far holds B, rxeb on b0, its end of the link.
# Near runs the tests; far runs what near asks of it (remote) through the
# directory both share.  ENTROPY_FAR says what far runs: stock (the kernel's
# own modules, judged as builtin) or ours, under ENTROPY_FAR_POLICY.

vm_pair_topology() {
	echo "==> two guests: $entropy_pair"
	mountpoint -q $PAIR || { echo "init: no directory shared with the other guest" >&2; return 1; }
	step ip link set lo up || return 1
	[ -e /sys/class/net/eth0 ] || step vm_modprobe virtio_net ||
		{ echo "init: no virtio_net in this kernel: the link to the other guest needs it" >&2; return 1; }
	wait_for 10 test -e /sys/class/net/eth0 || return 1
	if [ "$entropy_pair" = far ]; then
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
# near is ours, far is what ENTROPY_FAR says (ours: under FAR_POLICY).  Fails
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
