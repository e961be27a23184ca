// SPDX-License-Identifier: GPL-2.0
// The rdma netlink messages of "roce-entropy policy": requests as the
// kernel's nldev reads them, replies and errors as it writes them, built
// here with libmnl; and the command line's refusals, which come before any
// socket.  The kernel's side runs in the VM (tests/policy-netlink.sh).
#include <gtest/gtest.h>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "cli_run.h"
#include "nl/rdma_nl.h"

namespace roce
{
namespace
{

using test::run_roce_entropy;

// Values of Linux 6.12's <rdma/rdma_netlink.h>: the nldev client, its
// commands and attributes (uAPI, fixed); the series appends 104 to 110,
// its RFC 111.
constexpr std::uint16_t kNldev = 5;
constexpr std::uint16_t kCmdGet = 1, kCmdSet = 2, kCmdPortGet = 5, kCmdSysGet = 6, kCmdSysSet = 7,
                        kCmdResQpGet = 10;
constexpr std::uint16_t kDevIndex = 1, kDevName = 2, kPortIndex = 3;
constexpr std::uint16_t kResQp = 19, kResQpEntry = 20, kResLqpn = 21, kResRqpn = 22, kResType = 26,
                        kResState = 27, kResPid = 28, kResKernName = 29, kDriverDetails = 97;

std::uint16_t nldev_type(std::uint16_t op)
{
	return static_cast<std::uint16_t>((kNldev << 10) + op);
}

using AttrMap = std::map<std::uint16_t, std::vector<std::uint8_t>>;

int add_attr(const nlattr *a, void *data)
{
	const auto *p = static_cast<const std::uint8_t *>(mnl_attr_get_payload(a));
	(*static_cast<AttrMap *>(data))[mnl_attr_get_type(a)].assign(
	    p, p + mnl_attr_get_payload_len(a));
	return MNL_CB_OK;
}

// The attributes of a message, by type: their payloads.
AttrMap attrs(const nlmsghdr *nlh)
{
	AttrMap m;
	EXPECT_EQ(mnl_attr_parse(nlh, 0, add_attr, &m), MNL_CB_OK);
	return m;
}

std::vector<std::uint8_t> u32_bytes(std::uint32_t v)
{
	std::vector<std::uint8_t> b(4);
	std::memcpy(b.data(), &v, 4);
	return b;
}

struct Buf {
	std::vector<std::byte> mem = std::vector<std::byte>(nl::buffer_size());
	nlmsghdr *reply(std::uint16_t op)
	{
		nlmsghdr *nlh = mnl_nlmsg_put_header(mem.data());
		nlh->nlmsg_type = nldev_type(op);
		return nlh;
	}
};

TEST(RdmaNl, PolicyValuesAreTheUapiEnum)
{
	// enum rdma_nl_roce_entropy: BUILTIN, OFF, RFC, MIX.
	const std::pair<std::uint8_t, Policy> want[] = {
	    {0, Policy::Builtin}, {1, Policy::Off}, {2, Policy::Rfc}, {3, Policy::Mix}};
	for (const auto &[v, p] : want) {
		EXPECT_EQ(nl::policy_from_nl(v), p) << int(v);
		EXPECT_EQ(nl::policy_to_nl(p), v) << policy_name(p);
	}
	EXPECT_FALSE(nl::policy_from_nl(4));
	EXPECT_FALSE(nl::policy_from_nl(255));
}

TEST(RdmaNl, PortSetRequest)
{
	Buf b;
	const nlmsghdr *nlh = nl::port_set_request(b.mem, 7, 3, 1, Policy::Rfc);
	EXPECT_EQ(nlh->nlmsg_type, nldev_type(kCmdSet));
	EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	EXPECT_EQ(nlh->nlmsg_seq, 7u);
	const auto a = attrs(nlh);
	ASSERT_EQ(a.size(), 3u);
	EXPECT_EQ(a.at(kDevIndex), u32_bytes(3));
	EXPECT_EQ(a.at(kPortIndex), u32_bytes(1));
	EXPECT_EQ(a.at(107), std::vector<std::uint8_t>{2});

	// Back to the default: the flag, 1, and no policy.
	nlh = nl::port_set_request(b.mem, 8, 3, 1, std::nullopt);
	const auto d = attrs(nlh);
	ASSERT_EQ(d.size(), 3u);
	EXPECT_EQ(d.at(kPortIndex), u32_bytes(1));
	EXPECT_EQ(d.at(110), std::vector<std::uint8_t>{1});
	EXPECT_FALSE(d.contains(107));
}

TEST(RdmaNl, SysRequests)
{
	Buf b;
	const nlmsghdr *nlh = nl::sys_set_request(b.mem, 9, Policy::Mix, std::nullopt);
	EXPECT_EQ(nlh->nlmsg_type, nldev_type(kCmdSysSet));
	EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	auto a = attrs(nlh);
	ASSERT_EQ(a.size(), 1u);
	EXPECT_EQ(a.at(108), std::vector<std::uint8_t>{3});

	for (const bool on : {false, true}) {
		nlh = nl::sys_set_request(b.mem, 11, std::nullopt, on);
		EXPECT_EQ(nlh->nlmsg_type, nldev_type(kCmdSysSet));
		EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
		a = attrs(nlh);
		ASSERT_EQ(a.size(), 1u);
		EXPECT_EQ(a.at(111),
		          std::vector<std::uint8_t>{on ? std::uint8_t{1} : std::uint8_t{0}});
	}

	// both in one request, in attribute order
	nlh = nl::sys_set_request(b.mem, 12, Policy::Builtin, true);
	a = attrs(nlh);
	ASSERT_EQ(a.size(), 2u);
	EXPECT_EQ(a.at(108), std::vector<std::uint8_t>{0});
	EXPECT_EQ(a.at(111), std::vector<std::uint8_t>{1});

	nlh = nl::sys_get_request(b.mem, 10);
	EXPECT_EQ(nlh->nlmsg_type, nldev_type(kCmdSysGet));
	EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST);
	EXPECT_TRUE(attrs(nlh).empty());
}

TEST(RdmaNl, DumpRequests)
{
	Buf b;
	const nlmsghdr *nlh = nl::dev_dump_request(b.mem, 1);
	EXPECT_EQ(nlh->nlmsg_type, nldev_type(kCmdGet));
	EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	// The kernel dumps one device's ports: it needs the index.
	nlh = nl::port_dump_request(b.mem, 2, 5);
	EXPECT_EQ(nlh->nlmsg_type, nldev_type(kCmdPortGet));
	EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	const auto a = attrs(nlh);
	ASSERT_EQ(a.size(), 1u);
	EXPECT_EQ(a.at(kDevIndex), u32_bytes(5));
}

TEST(RdmaNl, ParsePort)
{
	Buf b;
	nlmsghdr *nlh = b.reply(kCmdPortGet);
	mnl_attr_put_u32(nlh, kDevIndex, 4);
	mnl_attr_put_strz(nlh, kDevName, "rxe0");
	mnl_attr_put_u32(nlh, kPortIndex, 1);
	mnl_attr_put_u8(nlh, 107, 2);
	auto p = nl::parse_port(nlh);
	EXPECT_EQ(p.dev_index, 4u);
	EXPECT_EQ(p.dev_name, "rxe0");
	EXPECT_EQ(p.port, 1u);
	EXPECT_EQ(p.policy, Policy::Rfc);
	EXPECT_FALSE(p.raw);
	EXPECT_FALSE(p.scope); // a kernel that does not say

	// What the driver programs: here the flow label only.
	mnl_attr_put_u8(nlh, 109, 2);
	p = nl::parse_port(nlh);
	EXPECT_EQ(p.policy, Policy::Rfc);
	EXPECT_EQ(p.scope, 2);
	EXPECT_FALSE(p.follows); // a kernel that does not say

	// Whether it follows the default: 1 yes, 0 set on its own.
	mnl_attr_put_u8(nlh, 110, 1);
	EXPECT_EQ(nl::parse_port(nlh).follows, true);
	nlh = b.reply(kCmdPortGet);
	mnl_attr_put_u32(nlh, kDevIndex, 4);
	mnl_attr_put_u32(nlh, kPortIndex, 1);
	mnl_attr_put_u8(nlh, 107, 2);
	mnl_attr_put_u8(nlh, 110, 0);
	EXPECT_EQ(nl::parse_port(nlh).follows, false);

	// A port without the knob has no policy attribute.
	nlh = b.reply(kCmdPortGet);
	mnl_attr_put_u32(nlh, kDevIndex, 4);
	mnl_attr_put_u32(nlh, kPortIndex, 2);
	p = nl::parse_port(nlh);
	EXPECT_FALSE(p.policy);
	EXPECT_FALSE(p.raw);

	// A value a newer kernel may have is shown, not guessed.
	mnl_attr_put_u8(nlh, 107, 9);
	p = nl::parse_port(nlh);
	EXPECT_FALSE(p.policy);
	EXPECT_EQ(p.raw, 9);
}

TEST(RdmaNl, ParsePortRefusesMalformed)
{
	Buf b;
	nlmsghdr *nlh = b.reply(kCmdPortGet);
	mnl_attr_put_u32(nlh, kDevIndex, 4);
	EXPECT_THROW(nl::parse_port(nlh), std::runtime_error); // no port index

	nlh = b.reply(kCmdPortGet);
	mnl_attr_put_u32(nlh, kDevIndex, 4);
	mnl_attr_put_u32(nlh, kPortIndex, 1);
	mnl_attr_put_u32(nlh, 107, 2); // not a u8
	EXPECT_THROW(nl::parse_port(nlh), std::runtime_error);
}

TEST(RdmaNl, QpDumpRequest)
{
	Buf b;
	const nlmsghdr *nlh = nl::qp_dump_request(b.mem, 3, 2, true);
	EXPECT_EQ(nlh->nlmsg_type, nldev_type(kCmdResQpGet));
	EXPECT_EQ(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_DUMP);
	auto a = attrs(nlh);
	ASSERT_EQ(a.size(), 2u);
	EXPECT_EQ(a.at(kDevIndex), u32_bytes(2));
	EXPECT_EQ(a.at(kDriverDetails), std::vector<std::uint8_t>{1});
	a = attrs(nl::qp_dump_request(b.mem, 4, 2, false));
	EXPECT_EQ(a.size(), 1u);
}

// A RES_QP_GET dump message as nldev writes it: the device, then the table
// of entries.
struct QpDump {
	Buf b;
	nlmsghdr *nlh = b.reply(kCmdResQpGet);
	nlattr *table = nullptr;
	QpDump()
	{
		mnl_attr_put_u32(nlh, kDevIndex, 3);
		mnl_attr_put_strz(nlh, kDevName, "rxea");
		table = mnl_attr_nest_start(nlh, kResQp);
	}
	nlattr *entry(std::uint32_t lqpn)
	{
		nlattr *e = mnl_attr_nest_start(nlh, kResQpEntry);
		mnl_attr_put_u32(nlh, kPortIndex, 1);
		mnl_attr_put_u32(nlh, kResLqpn, lqpn);
		return e;
	}
	const nlmsghdr *done()
	{
		mnl_attr_nest_end(nlh, table);
		return nlh;
	}
};

// Linux's driver table (RDMA_NLDEV_ATTR_DRIVER and its entries).
constexpr std::uint16_t kDriver = 52, kDriverString = 54, kDriverPrintType = 55, kDriverU32 = 57;

// A QP entry's driver table: first, when SQ_WQE_CNT, a u32 entry with a
// print type, as hns puts one (rdma_nl_put_driver_u32_hex()); then the
// strings of KV, keys and values in turn, as rdma_nl_put_driver_string()
// puts them.
void driver_table(nlmsghdr *nlh, std::vector<std::string> kv, bool sq_wqe_cnt = false)
{
	nlattr *t = mnl_attr_nest_start(nlh, kDriver);
	if (sq_wqe_cnt) {
		mnl_attr_put_strz(nlh, kDriverString, "sq_wqe_cnt");
		mnl_attr_put_u8(nlh, kDriverPrintType, 1);
		mnl_attr_put_u32(nlh, kDriverU32, 5);
	}
	for (const auto &s : kv)
		mnl_attr_put_strz(nlh, kDriverString, s.c_str());
	mnl_attr_nest_end(nlh, t);
}

TEST(RdmaNl, ParseQps)
{
	QpDump d;
	// an RC QP of a process, with its entropy
	nlattr *e = d.entry(18);
	mnl_attr_put_u32(d.nlh, kResRqpn, 17);
	mnl_attr_put_u8(d.nlh, kResType, 2);
	mnl_attr_put_u8(d.nlh, kResState, 3);
	mnl_attr_put_u32(d.nlh, kResPid, 151);
	mnl_attr_put_u8(d.nlh, 104, 2);      // rfc
	mnl_attr_put_u32(d.nlh, 105, 0x132); // flow label
	mnl_attr_put_u16(d.nlh, 106, 0xc132);
	driver_table(d.nlh, {"roce_fl_source", "qpn"});
	mnl_attr_nest_end(d.nlh, e);
	// a kernel UD QP: a rule, no flow label or port
	e = d.entry(1);
	mnl_attr_put_u8(d.nlh, kResType, 1);
	mnl_attr_put_strz(d.nlh, kResKernName, "ib_core");
	mnl_attr_put_u8(d.nlh, 104, 3);
	// another driver attribute first, with a print type
	driver_table(d.nlh, {"roce_fl_source", "per-ah"}, true);
	mnl_attr_nest_end(d.nlh, e);
	// a QP of a driver without the series
	e = d.entry(7);
	mnl_attr_nest_end(d.nlh, e);

	const auto qps = nl::parse_qps(d.done());
	ASSERT_EQ(qps.size(), 3u);
	EXPECT_EQ(qps[0].dev_index, 3u);
	EXPECT_EQ(qps[0].dev_name, "rxea");
	EXPECT_EQ(qps[0].port, 1u);
	EXPECT_EQ(qps[0].lqpn, 18u);
	EXPECT_EQ(qps[0].rqpn, 17u);
	EXPECT_EQ(qps[0].type, 2);
	EXPECT_EQ(qps[0].state, 3);
	EXPECT_EQ(qps[0].pid, 151u);
	EXPECT_EQ(qps[0].policy, 2);
	EXPECT_EQ(qps[0].source, "qpn");
	EXPECT_EQ(qps[0].flow_label, 0x132u);
	EXPECT_EQ(qps[0].udp_sport, 0xc132);

	EXPECT_EQ(qps[1].lqpn, 1u);
	EXPECT_FALSE(qps[1].pid);
	EXPECT_EQ(qps[1].kern_name, "ib_core");
	EXPECT_EQ(qps[1].policy, 3);
	EXPECT_EQ(qps[1].source, "per-ah");
	EXPECT_FALSE(qps[1].flow_label);
	EXPECT_FALSE(qps[1].udp_sport);

	EXPECT_EQ(qps[2].lqpn, 7u);
	EXPECT_FALSE(qps[2].policy);
	EXPECT_FALSE(qps[2].source);
	EXPECT_FALSE(qps[2].flow_label);

	// A device without QPs has no table.
	Buf b;
	nlmsghdr *nlh = b.reply(kCmdResQpGet);
	mnl_attr_put_u32(nlh, kDevIndex, 3);
	EXPECT_TRUE(nl::parse_qps(nlh).empty());
}

TEST(RdmaNl, ParseQpsRefusesMalformed)
{
	{
		QpDump d; // no QP number
		nlattr *e = mnl_attr_nest_start(d.nlh, kResQpEntry);
		mnl_attr_put_u32(d.nlh, kPortIndex, 1);
		mnl_attr_nest_end(d.nlh, e);
		EXPECT_THROW(nl::parse_qps(d.done()), std::runtime_error);
	}
	// each entropy attribute of the wrong size
	for (const std::uint16_t type :
	     {std::uint16_t{104}, std::uint16_t{105}, std::uint16_t{106}}) {
		QpDump d;
		nlattr *e = d.entry(18);
		if (type == 105)
			mnl_attr_put_u16(d.nlh, type, 1);
		else
			mnl_attr_put_u32(d.nlh, type, 1);
		mnl_attr_nest_end(d.nlh, e);
		EXPECT_THROW(nl::parse_qps(d.done()), std::runtime_error) << type;
	}
	{
		QpDump d; // the source's key with a number after it
		nlattr *e = d.entry(18);
		nlattr *t = mnl_attr_nest_start(d.nlh, kDriver);
		mnl_attr_put_strz(d.nlh, kDriverString, "roce_fl_source");
		mnl_attr_put_u32(d.nlh, kDriverU32, 1);
		mnl_attr_nest_end(d.nlh, t);
		mnl_attr_nest_end(d.nlh, e);
		EXPECT_THROW(nl::parse_qps(d.done()), std::runtime_error);
	}
	{
		QpDump d; // a key without its value, or another key: no source
		nlattr *e = d.entry(18);
		driver_table(d.nlh, {"mode", "rc", "roce_fl_source"});
		mnl_attr_nest_end(d.nlh, e);
		EXPECT_FALSE(nl::parse_qps(d.done())[0].source);
	}
}

TEST(RdmaNl, ParseDevAndSysDefault)
{
	Buf b;
	nlmsghdr *nlh = b.reply(kCmdGet);
	mnl_attr_put_u32(nlh, kDevIndex, 6);
	mnl_attr_put_strz(nlh, kDevName, "mlx5_0");
	const auto d = nl::parse_dev(nlh);
	EXPECT_EQ(d.index, 6u);
	EXPECT_EQ(d.name, "mlx5_0");

	nlh = b.reply(kCmdSysGet);
	mnl_attr_put_u8(nlh, 103, 1);            // MONITOR_MODE, ignored
	EXPECT_FALSE(nl::parse_sys(nlh).policy); // a kernel without the series
	EXPECT_FALSE(nl::parse_sys(nlh).repath);
	mnl_attr_put_u8(nlh, 108, 0);
	EXPECT_EQ(nl::parse_sys(nlh).policy, 0);
	EXPECT_FALSE(nl::parse_sys(nlh).repath);
	mnl_attr_put_u8(nlh, 111, 1);
	EXPECT_EQ(nl::parse_sys(nlh).repath, 1);
	EXPECT_EQ(nl::parse_sys(nlh).policy, 0);
}

TEST(RdmaNl, ParseError)
{
	Buf b;
	// A capped error with the kernel's extended ack message.
	nlmsghdr *nlh = mnl_nlmsg_put_header(b.mem.data());
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = NLM_F_CAPPED | NLM_F_ACK_TLVS;
	auto *err = static_cast<nlmsgerr *>(mnl_nlmsg_put_extra_header(nlh, sizeof(nlmsgerr)));
	err->error = -95;
	err->msg.nlmsg_len = 64; // the request's, not echoed
	mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, "The port has no RoCE v2 entropy policy");
	auto [e, msg] = nl::parse_error(nlh);
	EXPECT_EQ(e, 95);
	EXPECT_EQ(msg, "The port has no RoCE v2 entropy policy");

	// An acknowledgment.
	nlh = mnl_nlmsg_put_header(b.mem.data());
	nlh->nlmsg_type = NLMSG_ERROR;
	err = static_cast<nlmsgerr *>(mnl_nlmsg_put_extra_header(nlh, sizeof(nlmsgerr)));
	err->error = 0;
	std::tie(e, msg) = nl::parse_error(nlh);
	EXPECT_EQ(e, 0);
	EXPECT_EQ(msg, "");
}

TEST(RdmaNl, ParseDone)
{
	Buf b;
	nlmsghdr *nlh = mnl_nlmsg_put_header(b.mem.data());
	nlh->nlmsg_type = NLMSG_DONE;
	auto *err = static_cast<int *>(mnl_nlmsg_put_extra_header(nlh, sizeof(int)));
	*err = 0;
	EXPECT_EQ(nl::parse_done(nlh), 0);
	*err = -19; // the device went away during the dump
	EXPECT_EQ(nl::parse_done(nlh), 19);
	nlh = mnl_nlmsg_put_header(b.mem.data()); // no payload
	nlh->nlmsg_type = NLMSG_DONE;
	EXPECT_EQ(nl::parse_done(nlh), 0);
}

// Refused before any socket is opened: exit 2 with a message.
TEST(PolicyCli, RefusesBadArguments)
{
	const std::pair<std::vector<std::string>, std::string> cases[] = {
	    {{"policy", "set", "rxe0", "rfc"}, "names no port"},
	    {{"policy", "set", "rxe0/1", "bogus"}, "unknown policy 'bogus'"},
	    {{"policy", "set", "/1", "rfc"}, "is not DEV or DEV/PORT"},
	    {{"policy", "set", "rxe0/0", "rfc"}, "port 0 is below 1"},
	    {{"policy", "set", "rxe0/x", "rfc"}, "port 'x' is not a number"},
	    {{"policy", "set", "rxe0/1"}, "policy is required"},
	    {{"policy", "show", "rxe0/65536"}, "port 65536 is out of range (max 65535)"},
	    {{"policy", "default", "random"}, "unknown policy 'random'"},
	    {{"policy", "repath", "yes"}, "unknown re-path setting 'yes' (off or on)"},
	    {{"policy", "repath", "On"}, "unknown re-path setting 'On'"},
	};
	for (const auto &[args, want] : cases) {
		const auto r = run_roce_entropy(args);
		EXPECT_EQ(r.status, 2) << args[1] << " " << args[2];
		EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
		EXPECT_EQ(r.out, "");
	}
}

} // namespace
} // namespace roce
