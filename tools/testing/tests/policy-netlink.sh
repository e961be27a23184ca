#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RoCE v2 entropy settings over rdma netlink (patch 0013), through
# "roce-entropy policy": a port's policy and the policy and re-path setting
# that devices start with, set and shown over netlink, agree with the
# roce_entropy and roce_repath knobs, and where the build has them
# (compat/, the DKMS build) with ib_core's parameters, both ways; what the
# kernel must refuse it refuses with its message, and nothing changes.
# A port set on its own returns to following the default
# (RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY_DEFAULT, through iproute2's rdma
# and by hand), and PORT_GET says which ports follow it.
# Some refusals are requests the tool cannot make, values outside the
# range, sent by hand.
#
# On every build of ours: basic runs it on the test kernel, dist on
# Debian's with the opt-in line in place.
STACKS="ours compat dist"
CPUS=1
requires() {
	_have_knob
}
. "$entropy_repo/tools/testing/lib.sh"

# The series' rdma netlink attributes, for the requests sent by hand: the
# values of roce-entropy's lib/nl/rdma_nl.h, which the series check
# compiles against the patched uAPI header.
NL_PORT=107	# RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY
NL_SYS=108	# RDMA_NLDEV_SYS_ATTR_ROCE_ENTROPY
NL_FOLLOW=110	# RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY_DEFAULT
NL_REPATH=111	# RDMA_NLDEV_SYS_ATTR_ROCE_REPATH (the RFC series)

KNOB_A=/sys/class/infiniband/rxea/ports/1/roce_entropy
KNOB_B=/sys/class/infiniband/rxeb/ports/1/roce_entropy
REPATH_A=/sys/class/infiniband/rxea/ports/1/roce_repath
REPATH_B=/sys/class/infiniband/rxeb/ports/1/roce_repath
PARAM=/sys/module/ib_core/parameters/roce_entropy
# shellcheck disable=SC2034 # read in the eval'd checks
RPARAM=/sys/module/ib_core/parameters/roce_repath

reads() { [ "$(cat "$1")" = "$2" ]; }

# snapshot: the two ports' policies and re-path settings, and the two
# defaults over netlink.
snapshot() {
	echo "$(cat $KNOB_A $KNOB_B $REPATH_A $REPATH_B | paste -sd' ') $(nl_default) $(nl_repath)"
}

# params: the build has ib_core's parameters (compat/).
params() {
	[ -e $PARAM ]
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

# nl_repath: the default re-path setting over netlink.
nl_repath() {
	"$TOOL" policy repath --json | jq -r .repath
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

# raw_set_port DEV PORT VALUE: raw_port_set (below) of the port policy
# attribute ($NL_PORT) holding VALUE.
raw_set_port() {
	raw_port_set "$1" "$2" "$NL_PORT:B:$3"
}

# raw_refused VALUE: the kernel answers EINVAL (22) and nothing changes.
raw_refused() {
	local old err

	old=$(snapshot)
	err=$(raw_set_port rxea 1 "$1") || return 1
	echo "  errno $err"
	[ "$err" = 22 ] && [ "$(snapshot)" = "$old" ]
}

# raw_sys_refused ATTR VALUE: RDMA_NLDEV_CMD_SYS_SET (7) of a default's
# attribute ($NL_SYS the policy, $NL_REPATH re-path) holding VALUE: EINVAL (22), and
# nothing changes.
raw_sys_refused() {
	local old err

	old=$(snapshot)
	err=$(raw_nldev 7 "$1:B:$2") || return 1
	echo "  errno $err"
	[ "$err" = 22 ] && [ "$(snapshot)" = "$old" ]
}

# netns_mode: the network namespace mode as rdma_nl reads it, 1 shared,
# 0 exclusive.
netns_mode() {
	# rdma 6.1's -j system show is no JSON; its text is "netns shared ..."
	case $(rdma system show | awk '{ for (i = 1; i < NF; i++) if ($i == "netns") print $(i + 1) }') in
	shared) echo 1 ;;
	exclusive) echo 0 ;;
	*) return 1 ;;
	esac
}

# raw_sys_combined_refused ATTR VALUE: RDMA_NLDEV_CMD_SYS_SET (7) of a
# default's attribute holding VALUE, in one request with the network
# namespace mode (66) as it is: EINVAL (22), neither is applied, nothing
# changes.  (Taking the mode alone and dropping the default would answer
# 0.)
raw_sys_combined_refused() {
	local old err mode

	mode=$(netns_mode) || { echo "  no netns mode from rdma system show"; return 1; }
	old=$(snapshot)
	err=$(raw_nldev 7 "66:B:$mode" "$1:B:$2") || return 1
	echo "  errno $err, netns mode $mode, now $(netns_mode)"
	[ "$err" = 22 ] && [ "$(snapshot)" = "$old" ] && [ "$(netns_mode)" = "$mode" ]
}

# rdma_link_from DEV/PORT: where iproute2's rdma (tools/iproute2) says the
# port's policy comes from, "default" or "port", from PORT_GET's
# RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY_DEFAULT.
rdma_link_from() {
	"$RDMA_SERIES" -j link show "$1" | jq -r 'first(.. | objects | ."roce-entropy-from"? // empty)'
}

# raw_port_set DEV PORT TYPE:FMT:VALUE...: RDMA_NLDEV_CMD_SET (2) of
# DEV_INDEX (1) and PORT_INDEX (3) with these attributes; prints the errno.
raw_port_set() {
	local index

	index=$(rdma -j dev show "$1" | jq '.[0].ifindex')
	raw_nldev 2 "1:I:$index" "3:I:$2" "${@:3}"
}

# raw_follow_refused PORT TYPE:FMT:VALUE...: that SET of rxea's PORT is
# refused with EINVAL (22), and nothing changes: no policy, and rxea/1
# still set on its own.
raw_follow_refused() {
	local old err

	old=$(snapshot)
	err=$(raw_port_set rxea "$@") || return 1
	echo "  errno $err, rxea/1 from $(rdma_link_from rxea/1)"
	[ "$err" = 22 ] && [ "$(snapshot)" = "$old" ] &&
		[ "$(rdma_link_from rxea/1)" = port ]
}

# follows DEV/PORT POLICY: the port reads POLICY (its knob, netlink and
# rdma) and rdma says it comes from the default, which is POLICY.
follows() {
	local knob=/sys/class/infiniband/${1%/*}/ports/${1#*/}/roce_entropy

	echo "  $1: knob $(cat "$knob"), netlink $(nl_policy "$1"), from $(rdma_link_from "$1"), default $(nl_default)"
	reads "$knob" "$2" && [ "$(nl_policy "$1")" = "$2" ] &&
		[ "$(rdma_link_from "$1")" = default ] && [ "$(nl_default)" = "$2" ]
}

# pinned DEV/PORT POLICY: the port reads POLICY, set on its own.
pinned() {
	local knob=/sys/class/infiniband/${1%/*}/ports/${1#*/}/roce_entropy

	echo "  $1: knob $(cat "$knob"), netlink $(nl_policy "$1"), from $(rdma_link_from "$1"), default $(nl_default)"
	reads "$knob" "$2" && [ "$(nl_policy "$1")" = "$2" ] &&
		[ "$(rdma_link_from "$1")" = port ]
}

# every_policy_has_from: in rdma -j link show, each port that has a policy
# (rxea/1 and rxeb/1 at least) says where it comes from, default or port.
every_policy_has_from() {
	local ports

	ports=$("$RDMA_SERIES" -j link show |
		jq -c '.[] | select(has("roce-entropy")) | [.ifname, .port, ."roce-entropy", ."roce-entropy-from"]')
	sed 's/^/  /' <<< "$ports"
	[ "$(echo "$ports" | grep -c '^\["rxe[ab]",1,')" = 2 ] &&
		! echo "$ports" | grep -qv ',"\(default\|port\)"\]$'
}

# as found: restored at the end (the dist run's ports start at the opt-in
# line's policy), and whether each port followed the default
FOUND=$(snapshot)
FROM_A0=$(rdma_link_from rxea/1)
FROM_B0=$(rdma_link_from rxeb/1)
# shellcheck disable=SC2034 # read in the eval'd checks
read -r A0 B0 RA0 RB0 P0 R0 <<< "$FOUND"

check "netlink shows each port's policy as its knob does" \
	eval '[ "$(nl_policy rxea/1)" = "$(cat $KNOB_A)" ] &&
		[ "$(nl_policy rxeb/1)" = "$(cat $KNOB_B)" ]'
check "rxe programs port and flow label: PORT_GET's scope says both" \
	eval '[ "$("$TOOL" policy show rxea/1 --json | jq -c ".ports[0].scope")" = \
		"[\"sport\",\"flow_label\"]" ]'
check "... and iproute2's rdma link show says so: roce-entropy-scope sport,flow-label" \
	eval '[ "$("$RDMA_SERIES" -j link show rxea/1 |
		jq -r "first(.. | objects | .\"roce-entropy-scope\"? // empty)")" = sport,flow-label ]'
if params; then
	check "netlink shows the defaults as ib_core's parameters do" \
		eval '[ "$(nl_default)" = "$(cat $PARAM)" ] && [ "$(nl_repath)" = "$(cat $RPARAM)" ]'
else
	check "no ib_core parameter (upstream): netlink shows the defaults, $P0 and re-path $R0" \
		eval '[ ! -e $RPARAM ] && [[ $P0 =~ ^(builtin|off|rfc|mix)$ ]] &&
			[[ $R0 =~ ^(off|on)$ ]]'
fi
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
check "root without CAP_NET_ADMIN (capsh --drop) is refused (EPERM)" \
	refused "Operation not permitted" \
	capsh --drop=cap_net_admin -- -c '"$0" policy set rxea/1 off' "$TOOL"
check "root without CAP_NET_ADMIN cannot set the default (EPERM)" \
	refused "Operation not permitted" \
	capsh --drop=cap_net_admin -- -c '"$0" policy default off' "$TOOL"
check "root without CAP_NET_ADMIN cannot set the re-path default (EPERM)" \
	refused "Operation not permitted" \
	capsh --drop=cap_net_admin -- -c '"$0" policy repath on' "$TOOL"
check "another network namespace, where the device is shared, is refused" \
	refused "own network namespace" ip netns exec r "$TOOL" policy set rxea/1 off
check "a value outside the enum, sent by hand, is refused (EINVAL)" raw_refused 4
check "255, sent by hand, is refused (EINVAL)" raw_refused 255
check "the same message with a valid value is taken" \
	eval '[ "$(raw_set_port rxea 1 2)" = 0 ] && reads $KNOB_A rfc'
step "$TOOL" policy set rxea/1 builtin

# The default: what every port not set on its own follows.  rxea/1 was
# set above; rxeb, made again now, is registered before the set and never
# set.
step eval 'vm_readd_rxe rxeb b0 && wait_for 10 rxe_has_gid rxeb "$B6"'
check "set the default to mix over netlink: netlink reads mix (and the parameter)" \
	eval 'step "$TOOL" policy default mix && [ "$(nl_default)" = mix ] &&
		{ ! params || reads $PARAM mix; }'
check "rxea/1, set on its own, keeps its policy (builtin)" reads $KNOB_A builtin
check "rxeb/1, registered before the set and never set, follows it: mix (knob and netlink)" \
	eval 'reads $KNOB_B mix && [ "$(nl_policy rxeb/1)" = mix ]'
check "a device registered now follows mix (knob and netlink)" \
	eval 'vm_readd_rxe rxeb b0 && wait_for 10 rxe_has_gid rxeb "$B6" &&
		reads $KNOB_B mix && [ "$(nl_policy rxeb/1)" = mix ]'
check "a default outside the policies is refused by the tool" \
	refused "unknown policy 'bogus'" "$TOOL" policy default bogus
check "a default outside the enum, sent by hand, is refused (EINVAL)" raw_sys_refused $NL_SYS 4
check "a default sent with the netns mode in one request is refused (EINVAL), neither applied" \
	raw_sys_combined_refused $NL_SYS 2
! params ||
	check "the parameter's writes show over netlink" \
		eval 'echo rfc > $PARAM && [ "$(nl_default)" = rfc ]'

# The default re-path setting: the same.
step sh -c "echo off > $REPATH_A"
step eval 'vm_readd_rxe rxeb b0 && wait_for 10 rxe_has_gid rxeb "$B6"'
check "set the re-path default on over netlink: netlink reads on (and the parameter)" \
	eval 'step "$TOOL" policy repath on && [ "$(nl_repath)" = on ] &&
		{ ! params || reads $RPARAM on; }'
check "rxea/1, set on its own, keeps re-path off" reads $REPATH_A off
check "rxeb/1, registered before the set and never set, follows it: on" reads $REPATH_B on
check "a device registered now follows re-path on; rxea keeps off" \
	eval 'vm_readd_rxe rxeb b0 && wait_for 10 rxe_has_gid rxeb "$B6" &&
		reads $REPATH_B on && reads $REPATH_A off'
check "a re-path setting other than off or on is refused by the tool" \
	refused "unknown re-path setting 'yes'" "$TOOL" policy repath yes
check "2, sent by hand, is refused (EINVAL)" raw_sys_refused $NL_REPATH 2
check "a re-path default sent with the netns mode in one request is refused, neither applied" \
	raw_sys_combined_refused $NL_REPATH 1
check "off, sent by hand, is taken" \
	eval '[ "$(raw_nldev 7 $NL_REPATH:B:0)" = 0 ] && [ "$(nl_repath)" = off ]'
! params ||
	check "the re-path parameter's writes show over netlink" \
		eval 'echo on > $RPARAM && [ "$(nl_repath)" = on ]'

# iproute2's rdma with tools/iproute2: the same settings through rdma link
# and rdma system.
rdma_link_policy() {
	"$RDMA_SERIES" -j link show "$1" | jq -r 'first(.. | objects | ."roce-entropy"? // empty)'
}
# (rdma system show of iproute2 6.1 prints no JSON)
rdma_sys_policy() {
	"$RDMA_SERIES" system show | sed -n 's/.*roce-entropy \([a-z]*\).*/\1/p'
}
check "rdma (tools/iproute2) link show gives each port's policy as its knob does" \
	eval '"$RDMA_SERIES" link show rxea/1 | sed "s/^/  /" &&
		echo "  rxea/1 $(rdma_link_policy rxea/1), rxeb/1 $(rdma_link_policy rxeb/1)" &&
		[ "$(rdma_link_policy rxea/1)" = "$(cat $KNOB_A)" ] &&
		[ "$(rdma_link_policy rxeb/1)" = "$(cat $KNOB_B)" ]'
check "rdma link set rxea/1 roce-entropy mix: the knob and netlink read mix" \
	eval 'step "$RDMA_SERIES" link set rxea/1 roce-entropy mix &&
		reads $KNOB_A mix && [ "$(nl_policy rxea/1)" = mix ]'
check "rdma link set with an unknown policy is refused, nothing changes" \
	refused "Unknown RoCE v2 entropy policy 'bogus'" \
	"$RDMA_SERIES" link set rxea/1 roce-entropy bogus
check "rdma link set of a port that does not exist is refused, nothing changes" \
	refused "Wrong device name" "$RDMA_SERIES" link set rxea/2 roce-entropy rfc
check "rdma system show gives the default as netlink does" \
	eval '"$RDMA_SERIES" system show | sed "s/^/  /" &&
		echo "  rdma $(rdma_sys_policy), netlink $(nl_default)" &&
		[ "$(rdma_sys_policy)" = "$(nl_default)" ]'
check "rdma system set roce-entropy off: netlink reads off" \
	eval 'step "$RDMA_SERIES" system set roce-entropy off && [ "$(nl_default)" = off ]'
check "rdma system set with an unknown policy is refused, nothing changes" \
	refused "Unknown RoCE v2 entropy policy 'fast'" \
	"$RDMA_SERIES" system set roce-entropy fast

# A port's return to the default: rxea/1 was set above, rxeb/1 was made
# again and never set since.  The default is off (rdma system set above).
check "rdma link show: rxea/1, set on its own, from port; rxeb/1 from default" \
	eval 'pinned rxea/1 mix && follows rxeb/1 off'
check "PORT_GET has the flag beside the policy of every port: rdma -j link show" \
	every_policy_has_from
check "rdma link set rxea/1 roce-entropy default: it follows the default, off" \
	eval 'step "$RDMA_SERIES" link set rxea/1 roce-entropy default && follows rxea/1 off'
check "it follows a new default, rfc, as rxeb/1 does" \
	eval 'step "$TOOL" policy default rfc && follows rxea/1 rfc && follows rxeb/1 rfc'
check "set to the default's policy (rfc), it is set on its own and keeps rfc under mix" \
	eval 'step "$RDMA_SERIES" link set rxea/1 roce-entropy rfc && pinned rxea/1 rfc &&
		step "$TOOL" policy default mix && pinned rxea/1 rfc && follows rxeb/1 mix'
check "the knob's default shows over netlink: rxea/1 from default, mix" \
	eval 'echo default > $KNOB_A && follows rxea/1 mix'
check "roce-entropy policy show says so too: follows_default true, rxea/1 mix" \
	eval '[ "$("$TOOL" policy show rxea/1 --json |
		jq -c ".ports[0] | [.policy, .follows_default]")" = "[\"mix\",true]" ]'
check "roce-entropy policy set rxea/1 off: set on its own, follows_default false" \
	eval 'step "$TOOL" policy set rxea/1 off && pinned rxea/1 off &&
		[ "$("$TOOL" policy show rxea/1 --json | jq .ports[0].follows_default)" = false ]'
check "roce-entropy policy set rxea/1 default: it follows the default, mix" \
	eval 'step "$TOOL" policy set rxea/1 default && follows rxea/1 mix'
step "$RDMA_SERIES" link set rxea/1 roce-entropy off
check "the flag with a policy in one request, sent by hand, is refused (EINVAL)" \
	raw_follow_refused 1 $NL_PORT:B:2 $NL_FOLLOW:B:1
check "the flag 0, sent by hand, is refused (EINVAL)" raw_follow_refused 1 $NL_FOLLOW:B:0
check "the flag 2, sent by hand, is refused (EINVAL)" raw_follow_refused 1 $NL_FOLLOW:B:2
check "the flag for a port that does not exist, sent by hand, is refused (EINVAL)" \
	raw_follow_refused 2 $NL_FOLLOW:B:1
check "root without CAP_NET_ADMIN cannot make a port follow the default (EPERM)" \
	refused "Operation not permitted" \
	capsh --drop=cap_net_admin -- -c '"$0" link set rxea/1 roce-entropy default' "$RDMA_SERIES"
check "rxea/1 is still set on its own: off" pinned rxea/1 off
check "rdma link set of a port that does not exist with default is refused" \
	refused "Wrong device name" "$RDMA_SERIES" link set rxea/2 roce-entropy default
check "the flag 1 alone, sent by hand, is taken: rxea/1 follows mix" \
	eval '[ "$(raw_port_set rxea 1 $NL_FOLLOW:B:1)" = 0 ] && follows rxea/1 mix'

check "put back as found: $FOUND, rxea/1 from $FROM_A0, rxeb/1 from $FROM_B0" \
	eval 'step "$TOOL" policy default "$P0" && step "$TOOL" policy repath "$R0" &&
		step "$TOOL" policy set rxea/1 "$A0" && step "$TOOL" policy set rxeb/1 "$B0" &&
		{ [ "$FROM_A0" != default ] || step "$RDMA_SERIES" link set rxea/1 roce-entropy default; } &&
		{ [ "$FROM_B0" != default ] || step "$RDMA_SERIES" link set rxeb/1 roce-entropy default; } &&
		echo "$RA0" > $REPATH_A && echo "$RB0" > $REPATH_B && [ "$(snapshot)" = "$FOUND" ] &&
		[ "$(rdma_link_from rxea/1)" = "$FROM_A0" ] && [ "$(rdma_link_from rxeb/1)" = "$FROM_B0" ]'
done_testing
