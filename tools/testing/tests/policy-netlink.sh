#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The RoCE v2 entropy policies over rdma netlink (patch 0008), through
# "roce-entropy policy": a port's policy and the default that devices start
# with, set and shown over netlink, agree with the roce_entropy knob and
# the ib_core parameter both ways; what the kernel must refuse it refuses
# with its message, and nothing changes.  The last refusal is a request
# the tool cannot make, a value outside the enum, sent by hand.
. "$rte_repo/tools/testing/lib.sh"

KNOB_A=/sys/class/infiniband/rxea/ports/1/roce_entropy
KNOB_B=/sys/class/infiniband/rxeb/ports/1/roce_entropy
PARAM=/sys/module/ib_core/parameters/roce_entropy

reads() { [ "$(cat "$1")" = "$2" ]; }

snapshot() {
	cat $KNOB_A $KNOB_B $PARAM | paste -sd' '
}

# nl_policy DEV/PORT: the port's policy as "roce-entropy policy show" gets
# it over netlink.
nl_policy() {
	"$TOOL" policy show "$1" --json | jq -r '.ports[0].policy'
}

# nl_default: the default policy over netlink.
nl_default() {
	"$TOOL" policy default --json | jq -r .default
}

# set_reads_back POLICY: set rxea/1 over netlink; the knob and netlink read
# POLICY, rxeb is untouched.
set_reads_back() {
	local b

	b=$(cat $KNOB_B)
	step "$TOOL" policy set rxea/1 "$1" || return 1
	echo "  knob $(cat $KNOB_A), netlink $(nl_policy rxea/1), rxeb $(cat $KNOB_B)"
	reads $KNOB_A "$1" && [ "$(nl_policy rxea/1)" = "$1" ] && reads $KNOB_B "$b"
}

# knob_shows POLICY: written to rxeb's knob, netlink shows it.
knob_shows() {
	echo "$1" > $KNOB_B && [ "$(nl_policy rxeb/1)" = "$1" ]
}

# refused WANT CMD...: CMD exits non-zero, its message holds WANT, and no
# policy changed.
refused() {
	local old out want=$1 rc=0

	shift
	old=$(snapshot)
	out=$("$@" 2>&1) || rc=$?
	echo "  exit $rc: $out"
	[ $rc != 0 ] || return 1
	[[ $out == *"$want"* ]] || { echo "  expected '$want'"; return 1; }
	[ "$(snapshot)" = "$old" ] || { echo "  policies were '$old', now '$(snapshot)'"; return 1; }
}

# raw_nldev CMD TYPE:FMT:VALUE...: one nldev request CMD with these
# attributes (struct format I for u32, B for u8), built by hand, whatever
# their values; prints the kernel's errno (0 for an ack).
raw_nldev() {
	python3 - "$@" <<'PY'
import socket, struct, sys
def attr(t, payload):
    n = 4 + len(payload)
    return struct.pack("=HH", n, t) + payload + b"\0" * (-n % 4)
cmd, body = int(sys.argv[1]), b""
for a in sys.argv[2:]:
    t, fmt, v = a.split(":")
    body += attr(int(t), struct.pack("=" + fmt, int(v)))
# RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd); NLM_F_REQUEST | NLM_F_ACK
msg = struct.pack("=IHHII", 16 + len(body), (5 << 10) + cmd, 0x1 | 0x4, 1, 0) + body
s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 20)
s.bind((0, 0))
s.send(msg)
reply = s.recv(8192)
length, typ = struct.unpack_from("=IH", reply)
assert typ == 2, f"not an NLMSG_ERROR: {typ}"
print(-struct.unpack_from("=i", reply, 16)[0])
PY
}

# raw_set_port DEV PORT VALUE: RDMA_NLDEV_CMD_SET (2) of DEV_INDEX (1),
# PORT_INDEX (3) and the port policy attribute (104) holding VALUE.
raw_set_port() {
	local index

	index=$(rdma -j dev show "$1" | jq '.[0].ifindex')
	raw_nldev 2 "1:I:$index" "3:I:$2" "104:B:$3"
}

# raw_refused VALUE: the kernel answers EINVAL (22) and nothing changes.
raw_refused() {
	local old err

	old=$(snapshot)
	err=$(raw_set_port rxea 1 "$1") || return 1
	echo "  errno $err"
	[ "$err" = 22 ] && [ "$(snapshot)" = "$old" ]
}

# raw_sys_refused VALUE: RDMA_NLDEV_CMD_SYS_SET (7) of the default
# attribute (105) holding VALUE: EINVAL (22), and nothing changes.
raw_sys_refused() {
	local old err

	old=$(snapshot)
	err=$(raw_nldev 7 "105:B:$1") || return 1
	echo "  errno $err"
	[ "$err" = 22 ] && [ "$(snapshot)" = "$old" ]
}

# as found: restored at the end (the dist run's ports start at the opt-in
# line's policy)
read -r A0 B0 P0 <<< "$(snapshot)"

check "netlink shows each port's policy as its knob does" \
	eval '[ "$(nl_policy rxea/1)" = "$(cat $KNOB_A)" ] &&
		[ "$(nl_policy rxeb/1)" = "$(cat $KNOB_B)" ]'
check "netlink shows the default as the ib_core parameter does" \
	eval '[ "$(nl_default)" = "$(cat $PARAM)" ]'
for p in rfc mix off builtin; do
	check "set rxea/1 to $p over netlink: the knob reads $p, rxeb unchanged" \
		set_reads_back $p
done
for p in mix builtin; do
	check "rxeb's knob set to $p: netlink shows $p" knob_shows $p
done
check "an unknown policy is refused by the tool" \
	refused "unknown policy 'bogus'" "$TOOL" policy set rxea/1 bogus
check "a port that does not exist is refused by the kernel" \
	refused "No such port" "$TOOL" policy set rxea/2 rfc
check "a device that does not exist is refused" \
	refused "no RDMA device nosuch" "$TOOL" policy set nosuch/1 rfc
check "a user without CAP_NET_ADMIN is refused (EPERM)" \
	refused "Operation not permitted" \
	setpriv --reuid=65534 --regid=65534 --clear-groups "$TOOL" policy set rxea/1 off
check "another network namespace, where the device is shared, is refused" \
	refused "own network namespace" ip netns exec r "$TOOL" policy set rxea/1 off
check "a value outside the enum, sent by hand, is refused (EINVAL)" raw_refused 4
check "255, sent by hand, is refused (EINVAL)" raw_refused 255
check "the same message with a valid value is taken" \
	eval '[ "$(raw_set_port rxea 1 2)" = 0 ] && reads $KNOB_A rfc'
step "$TOOL" policy set rxea/1 builtin

# The default: what devices registered from then on start with.
check "set the default to mix over netlink: the ib_core parameter reads mix" \
	eval 'step "$TOOL" policy default mix && reads $PARAM mix && [ "$(nl_default)" = mix ]'
check "registered devices keep their policies" \
	eval 'reads $KNOB_A builtin && reads $KNOB_B builtin'
check "a device registered now starts with mix (knob and netlink)" \
	eval 'vm_readd_rxe rxeb b0 && wait_for 10 rxe_has_gid rxeb "$B6" &&
		reads $KNOB_B mix && [ "$(nl_policy rxeb/1)" = mix ]'
check "a default outside the policies is refused by the tool" \
	refused "unknown policy 'bogus'" "$TOOL" policy default bogus
check "a default outside the enum, sent by hand, is refused (EINVAL)" raw_sys_refused 4
check "the parameter's writes show over netlink" \
	eval 'echo rfc > $PARAM && [ "$(nl_default)" = rfc ]'
check "put back over netlink as found: $A0 $B0, default $P0" \
	eval 'step "$TOOL" policy default "$P0" && step "$TOOL" policy set rxea/1 "$A0" &&
		step "$TOOL" policy set rxeb/1 "$B0" && [ "$(snapshot)" = "$A0 $B0 $P0" ]'
done_testing
