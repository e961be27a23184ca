// SPDX-License-Identifier: GPL-2.0
// ecmp-report's judgement of the demo's runs (judge, max_over_mean);
// ecmp_parse_test.cpp reads the raw result and runs the command.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "lab/ecmp_report.h"

namespace roce
{
namespace
{

struct MaxMeanCase {
	const char *name;
	std::vector<std::uint64_t> load;
	double expected;
};

class MaxMean : public testing::TestWithParam<MaxMeanCase>
{
};

TEST_P(MaxMean, IsBusiestOverMean)
{
	EXPECT_DOUBLE_EQ(max_mean(GetParam().load), GetParam().expected);
}

const MaxMeanCase max_mean_cases[] = {
    {"Even", {10, 10, 10, 10}, 1.0}, {"OneLink", {0, 40, 0, 0}, 4.0},
    {"TwoLinks", {3, 1}, 1.5},       {"EightLinksOneHalf", {32, 0, 0, 0, 8, 8, 8, 8}, 4.0},
    {"Nothing", {0, 0, 0}, 0.0},
};

INSTANTIATE_TEST_SUITE_P(Cases, MaxMean, testing::ValuesIn(max_mean_cases),
                         [](const auto &param_info) { return std::string(param_info.param.name); });

// A connection on one port and link, both ways.
DemoConnection on(unsigned link, std::uint16_t sport, const char *kind = "rdma_cm RC")
{
	DemoConnection c;
	c.kind = kind;
	c.found = c.consistent = true;
	c.udp_sports = {sport};
	c.forward_links = {{link, 10}};
	c.reverse_links = {{link, 10}};
	return c;
}

EcmpRun run_of(const char *policy, std::vector<std::uint64_t> fwd, std::vector<std::uint64_t> rev)
{
	EcmpRun ecmp_run;
	ecmp_run.act = "ecmp";
	ecmp_run.mix = "cm";
	ecmp_run.family = "ipv4";
	ecmp_run.policy = policy;
	ecmp_run.forward = std::move(fwd);
	ecmp_run.reverse = std::move(rev);
	ecmp_run.connections = {on(0, 0xC000), on(1, 0xC001)};
	ecmp_run.connection_count = 2;
	ecmp_run.clients_ok = true;
	ecmp_run.balance_asserted = std::string(policy) == "rfc" || std::string(policy) == "mix";
	ecmp_run.ideal_p95 = 1.88;
	return ecmp_run;
}

TEST(EcmpJudge, OffOnOneLinkPasses)
{
	auto v = judge(run_of("off", {0, 0, 500, 0}, {0, 500, 0, 0}));
	EXPECT_TRUE(v.ok) << v.why;
	EXPECT_DOUBLE_EQ(v.forward_max_mean, 4.0);
}

TEST(EcmpJudge, OffToleratesAStrayNeighbourPacket)
{
	EXPECT_TRUE(judge(run_of("off", {1, 0, 999, 0}, {0, 1000, 0, 0})).ok);
	EXPECT_FALSE(judge(run_of("off", {20, 0, 980, 0}, {0, 1000, 0, 0})).ok);
}

TEST(EcmpJudge, OffSpreadFails)
{
	auto v = judge(run_of("off", {250, 250, 250, 250}, {0, 1000, 0, 0}));
	EXPECT_FALSE(v.ok);
	EXPECT_NE(v.why.find("one link"), std::string::npos);
}

TEST(EcmpJudge, PoliciesWithinTheIdealPass)
{
	// 1.8 = 450 / (1000 / 4)
	auto v = judge(run_of("rfc", {450, 250, 200, 100}, {300, 300, 200, 200}));
	EXPECT_TRUE(v.ok) << v.why;
	EXPECT_EQ(v.why, "within random ports' p95; every connection on one port");
	EXPECT_TRUE(judge(run_of("mix", {250, 250, 250, 250}, {250, 250, 250, 250})).ok);
}

TEST(EcmpJudge, EitherDirectionBeyondTheIdealFails)
{
	// forward 2.0
	EXPECT_FALSE(judge(run_of("rfc", {500, 200, 200, 100}, {250, 250, 250, 250})).ok);
	// reverse 2.0
	EXPECT_FALSE(judge(run_of("mix", {250, 250, 250, 250}, {500, 200, 200, 100})).ok);
}

// The users' mix: QPNs differ from run to run, its balance is reported.
TEST(EcmpJudge, UnassertedBalanceIsReported)
{
	auto ecmp_run = run_of("mix", {500, 200, 200, 100}, {250, 250, 250, 250});
	ecmp_run.balance_asserted = false;
	auto v = judge(ecmp_run);
	EXPECT_TRUE(v.ok) << v.why;
	EXPECT_FALSE(v.within_p95);
	EXPECT_NE(v.why.find("not asserted"), std::string::npos);
}

TEST(EcmpJudge, FailedClientOrNoPacketsFails)
{
	auto ecmp_run = run_of("rfc", {250, 250, 250, 250}, {250, 250, 250, 250});
	ecmp_run.clients_ok = false;
	EXPECT_EQ(judge(ecmp_run).why, "a client failed");
	EXPECT_FALSE(judge(ecmp_run).ok);
	EXPECT_FALSE(judge(run_of("off", {0, 0}, {0, 0})).ok);
}

TEST(EcmpJudge, HostRunsHaveOneDirection)
{
	auto ecmp_run = run_of("rfc", {260, 240, 250, 250}, {});
	ecmp_run.act = "host";
	ecmp_run.connections.clear();
	EXPECT_TRUE(judge(ecmp_run).ok);
	ecmp_run.forward = {1000, 0, 0, 0};
	EXPECT_FALSE(judge(ecmp_run).ok);
	ecmp_run.policy = "off";
	EXPECT_TRUE(judge(ecmp_run).ok);
	ecmp_run.policy = "builtin"; // stock rxe gives the route lookup no ports: reported
	auto v = judge(ecmp_run);
	EXPECT_TRUE(v.ok);
	EXPECT_EQ(v.why, "reported");
}

TEST(EcmpJudge, RfcAndMixKeepEveryConnectionOnOnePort)
{
	auto ecmp_run = run_of("mix", {250, 250, 250, 250}, {250, 250, 250, 250});
	ecmp_run.connections[1].udp_sports.insert(0xD872);
	auto v = judge(ecmp_run);
	EXPECT_FALSE(v.ok);
	EXPECT_EQ(v.split, 1u);
	EXPECT_NE(v.why.find("1 connections on more than one port"), std::string::npos) << v.why;
	ecmp_run.policy = "off";
	ecmp_run.forward = {1000, 0, 0, 0};
	ecmp_run.reverse = {1000, 0, 0, 0};
	EXPECT_FALSE(judge(ecmp_run).ok);
}

// Stock 6.12 splits exactly the connections its rules split, and some.
TEST(EcmpJudge, LinuxSplitsWhatStockSplits)
{
	auto ecmp_run = run_of("builtin", {250, 250, 250, 250}, {250, 250, 250, 250});
	ecmp_run.connections[0].udp_sports.insert(0xD872);
	ecmp_run.connections[0].linux_splits = true;
	auto v = judge(ecmp_run);
	EXPECT_TRUE(v.ok) << v.why;
	EXPECT_EQ(v.why, "stock splits 1 of 2 connections, as predicted");
	ecmp_run.connections[1].linux_splits = true; // predicted, not seen
	v = judge(ecmp_run);
	EXPECT_FALSE(v.ok);
	EXPECT_NE(v.why.find("1 connections on more than one port, stock 6.12 splits 2"),
	          std::string::npos)
	    << v.why;
	ecmp_run = run_of("builtin", {250, 250, 250, 250}, {250, 250, 250, 250});
	EXPECT_FALSE(judge(ecmp_run).ok); // stock splits none: the demo shows nothing
}

TEST(EcmpJudge, EveryConnectionInTheCaptureAsPredicted)
{
	auto ecmp_run = run_of("rfc", {250, 250, 250, 250}, {250, 250, 250, 250});
	ecmp_run.connections[0].found = false;
	auto v = judge(ecmp_run);
	EXPECT_FALSE(v.ok);
	EXPECT_EQ(v.missing, 1u);
	ecmp_run.connections[0].found = true;
	ecmp_run.connections[1].consistent = false;
	v = judge(ecmp_run);
	EXPECT_FALSE(v.ok);
	EXPECT_NE(v.why.find("off the policy's prediction"), std::string::npos);
	ecmp_run.connections[1].consistent = true;
	ecmp_run.capture_coverage = 0.98;
	v = judge(ecmp_run);
	EXPECT_FALSE(v.ok);
	EXPECT_NE(v.why.find("98.0%"), std::string::npos) << v.why;
}

TEST(EcmpJudge, DirectionsApartAndIpv6FlowLabels)
{
	auto ecmp_run = run_of("rfc", {250, 250, 250, 250}, {250, 250, 250, 250});
	ecmp_run.family = "ipv6";
	ecmp_run.connections[0].reverse_links = {{3, 10}};
	ecmp_run.connections[0].flow_labels = {0x12345};
	ecmp_run.connections[1].flow_labels = {0};
	auto v = judge(ecmp_run);
	EXPECT_EQ(v.apart, 1u);
	EXPECT_EQ(v.fl_zero, 1u);
	EXPECT_EQ(v.fl_set, 1u);
	EXPECT_FALSE(v.ok); // rfc gives every IPv6 connection a flow label
	ecmp_run.policy = "builtin";
	ecmp_run.connections[0].flow_labels = {0};
	ecmp_run.connections[0].udp_sports.insert(0xD872);
	ecmp_run.connections[0].linux_splits = true;
	v = judge(ecmp_run);
	EXPECT_TRUE(v.ok) << v.why;
	EXPECT_EQ(v.fl_zero, 2u);
}

} // namespace
} // namespace roce
