// SPDX-License-Identifier: GPL-2.0
// roce-flows's command line and how a flow's bytes are shared among its
// QPs; the verbs side runs in the VM (make fabric, and its smoke run in
// make check).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "args_parse.h"
#include "flows.h"

namespace roce
{
namespace
{

test::Parsed<FlowsOptions> parse_flows(const std::vector<std::string> &args)
{
	return test::parse_args<FlowsOptions>(parse_flows_args, "roce-flows", args);
}

TEST(FlowsArgs, Defaults)
{
	auto p = parse_flows({"--bytes", "1000", "10.100.0.2,10.100.5.2"});
	ASSERT_FALSE(p.status) << p.err;
	ASSERT_EQ(p.opts.flows.size(), 1u);
	EXPECT_EQ(p.opts.flows[0].src, "10.100.0.2");
	EXPECT_EQ(p.opts.flows[0].dst, "10.100.5.2");
	EXPECT_EQ(p.opts.bytes, 1000u);
	EXPECT_FALSE(p.opts.cm);
	EXPECT_EQ(p.opts.qps, 1u);
	EXPECT_EQ(p.opts.message, 16384u);
	EXPECT_EQ(p.opts.depth, 2u);
	EXPECT_EQ(p.opts.cm_port, 18700u);
	EXPECT_EQ(p.opts.ack_timeout, 20u);
	EXPECT_EQ(p.opts.retry_count, 7u);
	EXPECT_EQ(p.opts.timeout, 60u);
	EXPECT_FALSE(p.opts.keep_going);
	EXPECT_TRUE(p.opts.started.empty());
	EXPECT_FALSE(p.opts.json);
}

TEST(FlowsArgs, EverySettingAndManyFlows)
{
	auto p = parse_flows({"--cm",
	                      "--qps",
	                      "4",
	                      "--bytes",
	                      "0x100000",
	                      "--message",
	                      "4096",
	                      "--depth",
	                      "8",
	                      "--cm-port",
	                      "18800",
	                      "--ack-timeout",
	                      "18",
	                      "--retry-count",
	                      "0",
	                      "--timeout",
	                      "30",
	                      "--keep-going",
	                      "--started",
	                      "/tmp/go",
	                      "--json",
	                      "fd64:1::2,fd64:2::2",
	                      "fd64:2::2,fd64:1::2"});
	ASSERT_FALSE(p.status) << p.err;
	ASSERT_EQ(p.opts.flows.size(), 2u);
	EXPECT_EQ(p.opts.flows[1].src, "fd64:2::2");
	EXPECT_EQ(p.opts.flows[1].dst, "fd64:1::2");
	EXPECT_TRUE(p.opts.cm);
	EXPECT_EQ(p.opts.qps, 4u);
	EXPECT_EQ(p.opts.bytes, 1048576u);
	EXPECT_EQ(p.opts.message, 4096u);
	EXPECT_EQ(p.opts.depth, 8u);
	EXPECT_EQ(p.opts.cm_port, 18800u);
	EXPECT_EQ(p.opts.ack_timeout, 18u);
	EXPECT_EQ(p.opts.retry_count, 0u);
	EXPECT_EQ(p.opts.timeout, 30u);
	EXPECT_TRUE(p.opts.keep_going);
	EXPECT_EQ(p.opts.started, "/tmp/go");
	EXPECT_TRUE(p.opts.json);
}

class FlowsArgsBad : public testing::TestWithParam<test::BadArgs>
{
};

TEST_P(FlowsArgsBad, ExitsTwoWithMessage)
{
	EXPECT_TRUE(test::refused(parse_flows(GetParam().args), GetParam()));
}

const test::BadArgs bad_flows_args[] = {
    {"NoFlow", {"--bytes", "1"}, "flow is required"},
    {"NoBytes", {"10.0.0.1,10.0.0.2"}, "--bytes is required"},
    {"ZeroBytes", {"--bytes", "0", "10.0.0.1,10.0.0.2"}, "below 1"},
    {"NoComma", {"--bytes", "1", "10.0.0.1"}, "give SRC,DST"},
    {"NotAnAddress", {"--bytes", "1", "10.0.0.1,rxeb"}, "rxeb is not an IPv4 or IPv6"},
    {"EmptySource", {"--bytes", "1", ",10.0.0.2"}, "is not an IPv4 or IPv6"},
    {"TwoFamilies", {"--bytes", "1", "10.0.0.1,fd00::1"}, "one family for both ends"},
    {"ToItself", {"--bytes", "1", "fd00::1,fd00::1"}, "a flow between two addresses"},
    {"ZeroQps", {"--qps", "0", "--bytes", "1", "10.0.0.1,10.0.0.2"}, "below 1"},
    {"TooManyQps", {"--qps", "65", "--bytes", "1", "10.0.0.1,10.0.0.2"}, "out of range"},
    {"ZeroDepth", {"--depth", "0", "--bytes", "1", "10.0.0.1,10.0.0.2"}, "below 1"},
    {"ZeroMessage", {"--message", "0", "--bytes", "1", "10.0.0.1,10.0.0.2"}, "below 1"},
    {"AckTimeoutTooBig",
     {"--ack-timeout", "32", "--bytes", "1", "10.0.0.1,10.0.0.2"},
     "out of range"},
    {"RetryCountOverSeven",
     {"--retry-count", "8", "--bytes", "1", "10.0.0.1,10.0.0.2"},
     "out of range"},
    {"CmPortZero", {"--cm-port", "0", "--bytes", "1", "10.0.0.1,10.0.0.2"}, "below 1"},
    {"BytesOverAGibibyte", {"--bytes", "1073741825", "10.0.0.1,10.0.0.2"}, "out of range"},
};

INSTANTIATE_TEST_SUITE_P(Cases, FlowsArgsBad, testing::ValuesIn(bad_flows_args),
                         [](const auto &param_info) { return std::string(param_info.param.name); });

// Shares worked out by hand: 10 bytes over 4 QPs are 3, 3, 2, 2; 3 bytes
// over 4 leave the last QP nothing to write.
TEST(QpShare, SplitsTheBytesEvenlyFirstQpsTakeTheRest)
{
	struct Case {
		std::uint64_t bytes;
		unsigned qps, index, message;
		std::uint64_t want_bytes, want_writes;
	};
	for (const Case &c : std::vector<Case>{{10, 4, 0, 2, 3, 2},
	                                       {10, 4, 1, 2, 3, 2},
	                                       {10, 4, 2, 2, 2, 1},
	                                       {10, 4, 3, 2, 2, 1},
	                                       {3, 4, 3, 16384, 0, 0},
	                                       {3, 4, 2, 16384, 1, 1},
	                                       {1048576, 1, 0, 16384, 1048576, 64},
	                                       {1048577, 1, 0, 16384, 1048577, 65},
	                                       {1048576, 4, 3, 16384, 262144, 16},
	                                       {5, 2, 2, 1, 0, 0},
	                                       {5, 0, 0, 1, 0, 0}}) {
		const QpShare s = qp_share(c.bytes, c.qps, c.index, c.message);
		EXPECT_EQ(s.bytes, c.want_bytes)
		    << c.bytes << " over " << c.qps << ", QP " << c.index;
		EXPECT_EQ(s.writes, c.want_writes)
		    << c.bytes << " over " << c.qps << ", QP " << c.index;
	}
}

// Property: the shares add up to the flow's bytes, and each QP's writes
// cover its share with no more than one partial message.
TEST(QpShare, SharesAddUpToTheFlow)
{
	for (std::uint64_t bytes : {1ull, 7ull, 16384ull, 100000ull, 1048576ull + 3})
		for (unsigned qps = 1; qps <= 8; qps++) {
			std::uint64_t sum = 0;
			for (unsigned i = 0; i < qps; i++) {
				const QpShare s = qp_share(bytes, qps, i, 4096);
				sum += s.bytes;
				EXPECT_GE(s.writes * 4096, s.bytes);
				EXPECT_LT(s.writes * 4096, s.bytes + 4096);
			}
			EXPECT_EQ(sum, bytes) << bytes << " over " << qps;
		}
}

} // namespace
} // namespace roce
