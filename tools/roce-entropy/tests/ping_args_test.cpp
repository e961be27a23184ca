// SPDX-License-Identifier: GPL-2.0
// roce-ping's command line: the RDMA side runs in the VM tests; here, what
// it is given.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string>
#include <vector>

#include "args_parse.h"
#include "ping.h"

namespace roce
{
namespace
{

test::Parsed<PingOptions> parse_ping(const std::vector<std::string> &args)
{
	return test::parse_args<PingOptions>(parse_ping_args, "roce-ping", args);
}

const sockaddr_in6 &in6(const sockaddr_storage &ss)
{
	return reinterpret_cast<const sockaddr_in6 &>(ss);
}

const sockaddr_in &in4(const sockaddr_storage &ss)
{
	return reinterpret_cast<const sockaddr_in &>(ss);
}

TEST(PingArgs, ClientIpv6WithFlowLabel)
{
	auto p = parse_ping({"client", "--bind", "fd01::2", "--server", "fd02::2", "--flow-label",
	                     "0xabcde", "--connections", "64", "--messages", "5", "--json"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_FALSE(p.opts.server);
	EXPECT_EQ(p.opts.bind.ss_family, AF_INET6);
	EXPECT_EQ(ntohl(in6(p.opts.bind).sin6_flowinfo), 0xabcdeu);
	EXPECT_EQ(in6(p.opts.bind).sin6_port, 0);
	EXPECT_EQ(ntohs(in6(p.opts.remote).sin6_port), 7471);
	EXPECT_EQ(in6(p.opts.remote).sin6_flowinfo, 0u);
	EXPECT_EQ(p.opts.flow_label, 0xabcdeu);
	EXPECT_EQ(p.opts.connections, 64u);
	EXPECT_EQ(p.opts.messages, 5u);
	EXPECT_TRUE(p.opts.json);
}

TEST(PingArgs, ClientIpv4Defaults)
{
	auto p =
	    parse_ping({"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--port", "9000"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.remote.ss_family, AF_INET);
	EXPECT_EQ(ntohs(in4(p.opts.remote).sin_port), 9000);
	EXPECT_EQ(ntohl(in4(p.opts.remote).sin_addr.s_addr), 0x0a020002u);
	EXPECT_EQ(p.opts.connections, 1u);
	EXPECT_EQ(p.opts.messages, 10u);
	EXPECT_EQ(p.opts.size, 64u);
	EXPECT_EQ(p.opts.flow_label, 0u);
	EXPECT_TRUE(p.opts.until.empty());
	EXPECT_EQ(p.opts.sport_base, 0);
	// the QP's: rdma_cm's ACK timeout, 7 retries, and a failure ends the run
	EXPECT_FALSE(p.opts.qp_timeout);
	EXPECT_EQ(p.opts.retry_count, 7u);
	EXPECT_FALSE(p.opts.keep_going);
	EXPECT_EQ(p.opts.interval_ms, 100u);
	EXPECT_EQ(p.opts.stall_min_ms, 250u);
}

// What the failover tests run: steady pings, the QP's timeout and retries,
// every connection's fate reported.
TEST(PingArgs, FailoverClient)
{
	auto p = parse_ping({"client",   "--bind",        "10.1.0.2",    "--server",
	                     "10.2.0.2", "--connections", "16",          "--messages",
	                     "1",        "--until",       "/tmp/stop",   "--interval",
	                     "50",       "--qp-timeout",  "14",          "--retry-count",
	                     "6",        "--keep-going",  "--stall-min", "150",
	                     "--json"});
	ASSERT_FALSE(p.status) << p.err;
	ASSERT_TRUE(p.opts.qp_timeout);
	EXPECT_EQ(*p.opts.qp_timeout, 14);
	EXPECT_EQ(p.opts.retry_count, 6u);
	EXPECT_TRUE(p.opts.keep_going);
	EXPECT_EQ(p.opts.interval_ms, 50u);
	EXPECT_EQ(p.opts.stall_min_ms, 150u);
	EXPECT_EQ(p.opts.until, "/tmp/stop");

	// the edges of each range
	p = parse_ping({"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--qp-timeout", "0",
	                "--retry-count", "0"});
	ASSERT_FALSE(p.status) << p.err;
	ASSERT_TRUE(p.opts.qp_timeout);
	EXPECT_EQ(*p.opts.qp_timeout, 0);
	EXPECT_EQ(p.opts.retry_count, 0u);
	p = parse_ping({"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--qp-timeout",
	                "31", "--retry-count", "7"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(*p.opts.qp_timeout, 31);
	EXPECT_EQ(p.opts.retry_count, 7u);
}

TEST(PingArgs, FailoverServer)
{
	auto p = parse_ping({"server", "--bind", "fd02::2", "--qp-timeout", "0x0e", "--retry-count",
	                     "6", "--keep-going"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_TRUE(p.opts.server);
	ASSERT_TRUE(p.opts.qp_timeout);
	EXPECT_EQ(*p.opts.qp_timeout, 14);
	EXPECT_EQ(p.opts.retry_count, 6u);
	EXPECT_TRUE(p.opts.keep_going);
}

TEST(PingArgs, SourcePortBaseLeavesRoomForEveryConnection)
{
	auto p = parse_ping({"client", "--bind", "10.1.0.2", "--server", "10.2.0.2",
	                     "--connections", "64", "--sport-base", "65472"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.sport_base, 65472);

	p = parse_ping({"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--connections",
	                "64", "--sport-base", "65473"});
	ASSERT_TRUE(p.status);
	EXPECT_EQ(*p.status, 2);
	EXPECT_NE(p.err.find("leaves no room"), std::string::npos) << p.err;
}

TEST(PingArgs, CyclesRepeatConnectPingDisconnect)
{
	auto p = parse_ping({"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--cycles",
	                     "200", "--messages", "1", "--json"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.cycles, 200u);
	EXPECT_EQ(p.opts.messages, 1u);
	EXPECT_EQ(p.opts.connections, 1u);

	p = parse_ping({"client", "--bind", "10.1.0.2", "--server", "10.2.0.2"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.cycles, 0u);

	p = parse_ping({"client", "--bind", "fd01::2", "--server", "fd02::2", "--cycles", "0x10"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.cycles, 16u);
}

TEST(PingArgs, ServerServesUntilKilledByDefault)
{
	auto p = parse_ping({"server", "--bind", "fd02::2"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_TRUE(p.opts.server);
	EXPECT_EQ(p.opts.connections, 0u);
	EXPECT_EQ(ntohs(in6(p.opts.bind).sin6_port), 7471);

	p = parse_ping({"server", "--bind", "10.2.0.2", "--connections", "3"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.connections, 3u);
}

TEST(PingArgs, CloseAtOnceOnBothEnds)
{
	auto p = parse_ping({"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--port",
	                     "7472", "--messages", "5", "--close-at-once"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_TRUE(p.opts.close_at_once);
	EXPECT_FALSE(p.opts.expect_reject);
	EXPECT_EQ(p.opts.messages, 5u);

	p = parse_ping({"server", "--bind", "10.2.0.2", "--port", "7472", "--connections", "1",
	                "--close-at-once", "--messages", "5"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_TRUE(p.opts.server);
	EXPECT_TRUE(p.opts.close_at_once);
	EXPECT_EQ(p.opts.messages, 5u);
	EXPECT_EQ(p.opts.connections, 1u);

	// the server closes after the client's default number of round trips
	p = parse_ping({"server", "--bind", "fd02::2", "--close-at-once"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.messages, 10u);

	p = parse_ping({"client", "--bind", "fd01::2", "--server", "fd02::2"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_FALSE(p.opts.close_at_once);
	EXPECT_FALSE(p.opts.expect_reject);
}

TEST(PingArgs, ExpectReject)
{
	auto p = parse_ping({"client", "--bind", "fd01::2", "--server", "fd02::2", "--port", "7999",
	                     "--expect-reject", "--json"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_TRUE(p.opts.expect_reject);
	EXPECT_EQ(ntohs(in6(p.opts.remote).sin6_port), 7999);
	EXPECT_EQ(p.opts.connections, 1u);
}

class PingArgsBad : public testing::TestWithParam<test::BadArgs>
{
};

TEST_P(PingArgsBad, ExitsTwoWithMessage)
{
	EXPECT_TRUE(test::refused(parse_ping(GetParam().args), GetParam()));
}

const test::BadArgs bad_ping_args[] = {
    {"NoSubcommand", {}, "subcommand"},
    {"MissingServer", {"client", "--bind", "10.1.0.2"}, "--server"},
    {"HostName", {"client", "--bind", "a0", "--server", "10.2.0.2"}, "not a numeric"},
    {"MixedFamilies", {"client", "--bind", "10.1.0.2", "--server", "fd02::2"}, "both be IPv4"},
    {"FlowLabelOnIpv4",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--flow-label", "5"},
     "needs IPv6"},
    {"FlowLabelTooWide",
     {"client", "--bind", "fd01::2", "--server", "fd02::2", "--flow-label", "0x100000"},
     "out of range"},
    {"FlowLabelZero",
     {"client", "--bind", "fd01::2", "--server", "fd02::2", "--flow-label", "0"},
     "below 1"},
    {"PortZero", {"server", "--bind", "10.2.0.2", "--port", "0"}, "below 1"},
    {"PortTooBig", {"server", "--bind", "10.2.0.2", "--port", "65536"}, "out of range"},
    {"ZeroConnections",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--connections", "0"},
     "below 1"},
    {"SizeNotANumber",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--size", "big"},
     "not a number"},
    {"PrivilegedPortBase",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--sport-base", "80"},
     "below 1024"},
    {"UnknownOption", {"server", "--bind", "10.2.0.2", "--flow-label", "1"}, "flow-label"},
    {"ZeroCycles",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--cycles", "0"},
     "below 1"},
    {"TooManyCycles",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--cycles", "1000001"},
     "out of range"},
    {"CyclesNotANumber",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--cycles", "ten"},
     "not a number"},
    {"CyclesWithUntil",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--cycles", "5", "--until", "/tmp/x"},
     "cannot be combined"},
    {"CyclesOnServer", {"server", "--bind", "10.2.0.2", "--cycles", "5"}, "cycles"},
    {"ServerMessagesWithoutCloseAtOnce",
     {"server", "--bind", "10.2.0.2", "--messages", "5"},
     "needs --close-at-once"},
    {"ServerZeroMessages",
     {"server", "--bind", "10.2.0.2", "--close-at-once", "--messages", "0"},
     "below 1"},
    {"CloseAtOnceWithCycles",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--cycles", "5", "--close-at-once"},
     "cannot be combined"},
    {"ExpectRejectWithCloseAtOnce",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--expect-reject", "--close-at-once"},
     "makes no connection"},
    {"ExpectRejectWithMessages",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--expect-reject", "--messages", "3"},
     "makes no connection"},
    {"ExpectRejectWithCycles",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--expect-reject", "--cycles", "3"},
     "makes no connection"},
    {"ExpectRejectOnServer", {"server", "--bind", "10.2.0.2", "--expect-reject"}, "expect-reject"},
    {"QpTimeoutTooBig",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--qp-timeout", "32"},
     "out of range"},
    {"QpTimeoutNotANumber",
     {"server", "--bind", "10.2.0.2", "--qp-timeout", "14ms"},
     "not a number"},
    {"QpTimeoutNegative",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--qp-timeout", "-1"},
     "not a number"},
    {"RetryCountTooBig",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--retry-count", "8"},
     "out of range"},
    {"RetryCountOnServerTooBig",
     {"server", "--bind", "10.2.0.2", "--retry-count", "9"},
     "out of range"},
    {"IntervalWithoutUntil",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--interval", "50"},
     "needs --until"},
    {"IntervalZero",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--until", "/tmp/x", "--interval",
      "0"},
     "below 1"},
    {"StallMinZero",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--stall-min", "0"},
     "below 1"},
    {"IntervalOnServer", {"server", "--bind", "10.2.0.2", "--interval", "5"}, "interval"},
    {"KeepGoingWithCycles",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--keep-going", "--cycles", "3"},
     "cannot be combined"},
    {"KeepGoingWithExpectReject",
     {"client", "--bind", "10.1.0.2", "--server", "10.2.0.2", "--keep-going", "--expect-reject"},
     "cannot be combined"},
    {"KeepGoingWithCloseAtOnce",
     {"server", "--bind", "10.2.0.2", "--keep-going", "--close-at-once"},
     "cannot be combined"},
};

INSTANTIATE_TEST_SUITE_P(Cases, PingArgsBad, testing::ValuesIn(bad_ping_args),
                         [](const auto &param_info) { return std::string(param_info.param.name); });

} // namespace
} // namespace roce
