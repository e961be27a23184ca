#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What user space sees of rdma_cm's re-path grants: nothing.
# RDMA_USER_CM_CMD_INIT_QP_ATTR for RTR gives a user QP its address
# (librdmacm hands it to ibv_modify_qp()); on a port that re-paths, rdma_cm
# grants a flow label it derived beside the address (ib_core keeps the
# grant), never in it.  The address is 6.12's bit for bit: 20 bits of
# label, nothing above, with re-path on as with it off, and ibv_query_qp()
# on both QPs returns the label the connection has, below 1 << 20.  Any
# rdma_ucm user can make that call as often as it likes: ENTROPY_CM_GRANT_CALLS
# calls in a row must all return the same address (rdma_cm keeps one grant
# per ID, replaced at each call), and a connection made afterwards is the
# same.  IPv4, policy rfc.  That a granted label moves and an
# application's does not is failover.sh's.
#
# On every build of ours: dist-more runs it on Debian's kernel with DKMS's
# build too.
#
# Parameters (the row's VAR=value, or the environment):
#   ENTROPY_CM_GRANT_CALLS   the calls of the first connection (default 10000)
STACKS="ours compat dist"
CPUS=1
: "${ENTROPY_CM_GRANT_CALLS:=10000}"
requires() {
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

GRANT_PY=$entropy_repo/tools/testing/tests/cm-grant.py
GRANT_PORT=7483
CALLS=$ENTROPY_CM_GRANT_CALLS

# connect NAME CALLS: one connection, the client asking CALLS times; its
# JSON line in $LOGS/NAME.json.
connect() {
	local spid rc=0

	/usr/bin/python3 "$GRANT_PY" server "$B4" $GRANT_PORT > "$LOGS/$1-server.log" 2>&1 &
	spid=$!
	wait_for 30 cm_listening "$B4" $GRANT_PORT TCP || { kill $spid; return 1; }
	timeout 120 /usr/bin/python3 "$GRANT_PY" client "$A4" "$B4" $GRANT_PORT "$2" \
		> "$LOGS/$1.json" 2> "$LOGS/$1-client.log" || rc=1
	kill $spid
	wait $spid 2> /dev/null
	[ $rc = 0 ] || { cat "$LOGS/$1-client.log" "$LOGS/$1-server.log"; return 1; }
	jq -c . "$LOGS/$1.json" | sed 's/^/  /'
}

# labels NAME: the flow labels the calls returned, one a line.
labels() { jq -r '.flow_labels[]' "$LOGS/$1.json"; }

# plain NAME: one label came back from every call, of 20 bits, nothing
# above them, and ibv_query_qp() returned it on the client's QP and on the
# server's.
plain() {
	local l q s

	mapfile -t l < <(labels "$1")
	q=$(jq -r .query_flow_label "$LOGS/$1.json")
	s=$(grep '^{' "$LOGS/$1-server.log" | jq -r .query_flow_label)
	echo "  INIT_QP_ATTR: ${l[*]}; ibv_query_qp(): client $q, server $s"
	[ ${#l[@]} = 1 ] && (((l[0] & 0xfffff) && !(l[0] & 0xfff00000))) &&
		[ "$q" = "${l[0]}" ] && [ "$s" = "${l[0]}" ]
}

step set_policy rfc
step set_repath on
check "re-path on: rdma_cm's label comes back as 20 bits, the same in all $CALLS calls and from ibv_query_qp() on both QPs" \
	eval 'connect flood "$CALLS" && plain flood'
check "re-path on: a connection made after the calls is the same" \
	eval 'connect after 1 && plain after'
step set_repath off
check "re-path off: the same, as 6.12" \
	eval 'connect off 1 && plain off'
step set_policy builtin
done_testing
