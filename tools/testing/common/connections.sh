# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Connections: both ports' knobs, the conditions the waits poll, a server
# and its client on one guest (run_pair) or across two (run_split), GID
# indexes, a flow label and port predicted, and B's route from A.  Needs
# base.sh's settings, step and wait_for, remote and the rest of near's
# commands to far (guests.sh), and gid_of (topology.sh).

# ---- connections ----

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
