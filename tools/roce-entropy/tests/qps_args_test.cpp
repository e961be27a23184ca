// SPDX-License-Identifier: GPL-2.0
// roce-qps's command line and its birthday expectation; the verbs side runs
// in the VM's many-QPs test.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "args_parse.h"
#include "qps.h"

namespace roce
{
namespace
{

test::Parsed<QpsOptions> parse_qps(const std::vector<std::string> &args)
{
	return test::parse_args<QpsOptions>(parse_qps_args, "roce-qps", args);
}

const std::vector<std::string> kDevs = {"--dev-a", "rxea", "--dev-b", "rxeb",
                                        "--gid-a", "1",    "--gid-b", "0x1"};

std::vector<std::string> with_devs(std::vector<std::string> more)
{
	std::vector<std::string> args = kDevs;

	args.insert(args.end(), more.begin(), more.end());
	return args;
}

TEST(QpsArgs, Defaults)
{
	auto p = parse_qps(kDevs);
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.dev_a, "rxea");
	EXPECT_EQ(p.opts.dev_b, "rxeb");
	EXPECT_EQ(p.opts.gid_a, 1u);
	EXPECT_EQ(p.opts.gid_b, 1u);
	EXPECT_EQ(p.opts.port, 1u);
	EXPECT_EQ(p.opts.pairs, 1u);
	EXPECT_EQ(p.opts.batch, 256u);
	EXPECT_EQ(p.opts.size, 16u);
	EXPECT_EQ(p.opts.timeout, 20u);
	EXPECT_FALSE(p.opts.policy);
	EXPECT_FALSE(p.opts.json);
	EXPECT_FALSE(p.opts.ud);
	EXPECT_EQ(p.opts.round_trips, 0u);
}

TEST(QpsArgs, UdAndRoundTrips)
{
	auto p = parse_qps(with_devs({"--transport", "ud", "--round-trips", "20"}));
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_TRUE(p.opts.ud);
	EXPECT_EQ(p.opts.round_trips, 20u);
	p = parse_qps(with_devs({"--transport", "rc", "--round-trips", "1000000"}));
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_FALSE(p.opts.ud);
	EXPECT_EQ(p.opts.round_trips, 1000000u);
	p = parse_qps(with_devs({"--round-trips", "0x10"}));
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.round_trips, 16u);
}

TEST(QpsArgs, EverySetting)
{
	auto p =
	    parse_qps(with_devs({"--pairs", "4096", "--batch", "512", "--size", "64", "--policy",
	                         "mix", "--port", "2", "--timeout", "60", "--json"}));
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.pairs, 4096u);
	EXPECT_EQ(p.opts.batch, 512u);
	EXPECT_EQ(p.opts.size, 64u);
	EXPECT_EQ(p.opts.port, 2u);
	EXPECT_EQ(p.opts.timeout, 60u);
	ASSERT_TRUE(p.opts.policy);
	EXPECT_EQ(*p.opts.policy, Policy::Mix);
	EXPECT_TRUE(p.opts.json);
}

TEST(QpsArgs, Limits)
{
	auto p = parse_qps(with_devs({"--pairs", "65536", "--batch", "4096", "--size", "4096"}));
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.pairs, 65536u);
	EXPECT_EQ(p.opts.batch, 4096u);
	EXPECT_EQ(p.opts.size, 4096u);
}

TEST(QpsArgs, Help)
{
	auto p = parse_qps({"--help"});
	ASSERT_TRUE(p.status);
	EXPECT_EQ(*p.status, 0);
}

class QpsArgsBad : public testing::TestWithParam<test::BadArgs>
{
};

TEST_P(QpsArgsBad, ExitsTwoWithMessage)
{
	EXPECT_TRUE(test::refused(parse_qps(GetParam().args), GetParam()));
}

const test::BadArgs bad_qps_args[] = {
    {"NoArguments", {}, "--dev-a"},
    {"MissingGidB", {"--dev-a", "rxea", "--dev-b", "rxeb", "--gid-a", "1"}, "--gid-b"},
    {"EmptyDevice",
     {"--dev-a", "", "--dev-b", "rxeb", "--gid-a", "1", "--gid-b", "1"},
     "must not be empty"},
    {"GidIndexTooBig",
     {"--dev-a", "rxea", "--dev-b", "rxeb", "--gid-a", "256", "--gid-b", "1"},
     "out of range"},
    {"GidIndexNotANumber",
     {"--dev-a", "rxea", "--dev-b", "rxeb", "--gid-a", "one", "--gid-b", "1"},
     "not a number"},
    {"ZeroPairs", with_devs({"--pairs", "0"}), "below 1"},
    {"TooManyPairs", with_devs({"--pairs", "65537"}), "out of range"},
    {"ZeroBatch", with_devs({"--batch", "0"}), "below 1"},
    {"BatchTooBig", with_devs({"--batch", "4097"}), "out of range"},
    {"SizeBelowIndex", with_devs({"--size", "3"}), "below 4"},
    {"PortZero", with_devs({"--port", "0"}), "below 1"},
    {"NegativePairs", with_devs({"--pairs", "-1"}), "not a number"},
    {"UnknownPolicy", with_devs({"--policy", "random"}), "unknown policy"},
    {"PolicyUpperCase", with_devs({"--policy", "RFC"}), "unknown policy"},
    {"ZeroTimeout", with_devs({"--timeout", "0"}), "below 1"},
    {"UnknownOption", with_devs({"--flow-label", "5"}), "flow-label"},
    {"Positional", with_devs({"extra"}), "extra"},
    {"UnknownTransport", with_devs({"--transport", "uc"}), "unknown transport 'uc'"},
    {"TransportUpperCase", with_devs({"--transport", "UD"}), "unknown transport"},
    {"EmptyTransport", with_devs({"--transport", ""}), "unknown transport"},
    {"TooManyRoundTrips", with_devs({"--round-trips", "1000001"}), "out of range"},
    {"NegativeRoundTrips", with_devs({"--round-trips", "-1"}), "not a number"},
};

INSTANTIATE_TEST_SUITE_P(Cases, QpsArgsBad, testing::ValuesIn(bad_qps_args),
                         [](const auto &param_info) { return std::string(param_info.param.name); });

// Two draws from two values: one distinct value or two, each with
// probability 1/2.
TEST(Birthday, TwoDrawsTwoSlots)
{
	const Birthday b = birthday_distinct(2, 2);
	EXPECT_DOUBLE_EQ(b.mean, 1.5);
	EXPECT_DOUBLE_EQ(b.sd, 0.5);
}

// Three draws from three values, counted by hand over the 27 outcomes:
// 3 with one value, 18 with two, 6 with three.
TEST(Birthday, ThreeDrawsThreeSlots)
{
	const double mean = (3 * 1 + 18 * 2 + 6 * 3) / 27.0;
	const double sq = (3 * 1 + 18 * 4 + 6 * 9) / 27.0;
	const Birthday b = birthday_distinct(3, 3);
	EXPECT_NEAR(b.mean, mean, 1e-12);
	EXPECT_NEAR(b.sd, std::sqrt(sq - mean * mean), 1e-9);
}

TEST(Birthday, OneDrawIsOneValue)
{
	const Birthday b = birthday_distinct(1, kSportSlots);
	EXPECT_NEAR(b.mean, 1.0, 1e-9);
	EXPECT_NEAR(b.sd, 0.0, 1e-4);
}

TEST(Birthday, NoDrawsNoSlots)
{
	EXPECT_EQ(birthday_distinct(0, kSportSlots).mean, 0.0);
	EXPECT_EQ(birthday_distinct(5, 0).mean, 0.0);
	EXPECT_EQ(birthday_distinct(5, 1).mean, 1.0);
	EXPECT_EQ(birthday_distinct(5, 1).sd, 0.0);
}

// The many-QPs test's figure: 4096 ports drawn from 16384.
TEST(Birthday, FourThousandPortsOfSixteenThousand)
{
	const Birthday b = birthday_distinct(4096, kSportSlots);
	EXPECT_NEAR(b.mean, 16384.0 * (1.0 - std::exp(4096.0 * std::log1p(-1.0 / 16384.0))), 1e-6);
	EXPECT_NEAR(b.mean, 3624.23, 0.01);
	EXPECT_NEAR(b.sd, 18.39, 0.01);
}

} // namespace
} // namespace roce
