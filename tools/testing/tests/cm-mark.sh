#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# rdma_cm's mark, as user space sees it.  RDMA_USER_CM_CMD_INIT_QP_ATTR for
# RTR gives a user QP its address (librdmacm hands it to ibv_modify_qp());
# on a port that re-paths, a flow label rdma_cm derived from the CM ports
# comes back with RDMA_ENTROPY_FL_CM, bit 31, so that the driver may move
# it.  Any rdma_ucm user can make that call as often as it likes: 10000
# calls in a row must all return the same address, and a connection made
# afterwards must be marked as well (nothing is kept per device that calls
# could fill).  With re-path off nothing above the label's 20 bits comes
# back: bit for bit what 6.12 returned.  IPv4, policy rfc.
. "$rte_repo/tools/testing/lib.sh"

MARK_PY=$rte_repo/tools/testing/tests/cm-mark.py
MARK_PORT=7483
CALLS=${RTE_CM_MARK_CALLS:-10000}

# connect NAME CALLS: one connection, the client asking CALLS times; its
# JSON line in $LOGS/NAME.json.
connect() {
	local spid rc=0

	/usr/bin/python3 "$MARK_PY" server "$B4" $MARK_PORT > "$LOGS/$1-server.log" 2>&1 &
	spid=$!
	wait_for 30 cm_listening "$B4" $MARK_PORT TCP || { kill $spid; return 1; }
	timeout 120 /usr/bin/python3 "$MARK_PY" client "$A4" "$B4" $MARK_PORT "$2" \
		> "$LOGS/$1.json" 2> "$LOGS/$1-client.log" || rc=1
	kill $spid
	wait $spid 2> /dev/null
	[ $rc = 0 ] || { cat "$LOGS/$1-client.log" "$LOGS/$1-server.log"; return 1; }
	jq -c . "$LOGS/$1.json" | sed 's/^/  /'
}

# labels NAME: the flow labels the calls returned, one a line.
labels() { jq -r '.flow_labels[]' "$LOGS/$1.json"; }

# marked NAME: one label came back from every call, marked, with a label
# of 20 bits under the mark.
marked() {
	local l

	mapfile -t l < <(labels "$1")
	[ ${#l[@]} = 1 ] && (((l[0] & 0x80000000) && (l[0] & 0xfffff) &&
		!(l[0] & 0x7ff00000)))
}

# unmarked NAME: one label, of 20 bits, nothing above them.
unmarked() {
	local l

	mapfile -t l < <(labels "$1")
	[ ${#l[@]} = 1 ] && (((l[0] & 0xfffff) && !(l[0] & 0xfff00000)))
}

step set_policy rfc
step set_repath on
check "re-path on: rdma_cm's label comes back marked, the same in all $CALLS calls" \
	eval 'connect flood "$CALLS" && marked flood'
check "re-path on: a connection made after the calls is marked as well" \
	eval 'connect after 1 && marked after'
step set_repath off
check "re-path off: no bit above the label's 20, as 6.12" \
	eval 'connect off 1 && unmarked off'
step set_policy builtin
done_testing
