// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <set>

#include "entropy/entropy.h"
#include "sim/simulate.h"

namespace roce
{
namespace
{

TEST(Simulate, OffPutsEverythingOnOnePath)
{
	SimParams p;
	p.policy = SimPolicy::Off;
	p.connections = 64;
	p.paths = 8;
	for (auto h : {SwitchHash::Crc16, SwitchHash::Crc32, SwitchHash::Xor, SwitchHash::Jhash}) {
		p.hash = h;
		const auto r = simulate(p);
		EXPECT_DOUBLE_EQ(r.max_mean, 8.0) << name_of(h);
		EXPECT_DOUBLE_EQ(r.distinct_ports, 1.0);
	}
}

TEST(Simulate, PortsAreThePoliciesPorts)
{
	SimParams p;
	p.policy = SimPolicy::Rfc;
	p.scenario = Scenario::SeqQpns;
	p.connections = 3;
	const auto ports = sim_ports(p, 0);
	ASSERT_EQ(ports.size(), 3u);
	// QPNs 0x11, 0x12, 0x13 on both ends: the golden 0x12 row gives 0xC144.
	EXPECT_EQ(ports[1], 0xC144);
	EXPECT_EQ(ports[0], udp_sport(rfc_qpn_flow_label(0x11, 0x11)));
}

// Stock 6.12 ("builtin"): rdma_cm's sport * 31 + dport for the port
// scenarios, the RFC QPN hash for the QPN ones.
TEST(Simulate, LinuxIsStock612)
{
	SimParams p;
	p.policy = SimPolicy::Builtin;
	p.connections = 2;
	const auto ports = sim_ports(p, 0);
	ASSERT_EQ(ports.size(), 2u);
	// 0xc000 * 31 + 7174 = 0x175c06, masked 0x75c06: (0x1c06 ^ 0x1d) | 0xc000
	EXPECT_EQ(ports[0], 0xDC1B);
	// 0xc001 * 31 + 7174 = 0x175c25, masked 0x75c25: (0x1c25 ^ 0x1d) | 0xc000
	EXPECT_EQ(ports[1], 0xDC38);
	p.scenario = Scenario::SeqQpns;
	p.connections = 3;
	SimParams rfc = p;
	rfc.policy = SimPolicy::Rfc;
	EXPECT_EQ(sim_ports(p, 0), sim_ports(rfc, 0));
	EXPECT_EQ(sim_ports(p, 0)[1], 0xC144);
}

TEST(Simulate, PathsInRangeAndLoadAddsUp)
{
	SimParams p;
	p.connections = 1000;
	p.paths = 7;
	p.scenario = Scenario::RandomQpns;
	p.trials = 2;
	for (auto h : {SwitchHash::Crc16, SwitchHash::Crc32, SwitchHash::Xor, SwitchHash::Jhash}) {
		p.hash = h;
		const auto r = simulate(p);
		unsigned total = 0;
		for (auto l : r.load)
			total += l;
		EXPECT_EQ(total, 1000u);
		EXPECT_EQ(r.load.size(), 7u);
		EXPECT_GE(r.max_mean, 1.0);
	}
}

// The weakness the mix policy exists for: equal small QPNs behind
// a low-bit switch hash.
TEST(Simulate, MixBeatsRfcOnSequentialQpnsBehindXor)
{
	SimParams p;
	p.scenario = Scenario::SeqQpns;
	p.hash = SwitchHash::Xor;
	p.connections = 256;
	p.paths = 8;
	p.policy = SimPolicy::Rfc;
	const double rfc = simulate(p).max_mean;
	p.policy = SimPolicy::Mix;
	const double mix = simulate(p).max_mean;
	p.policy = SimPolicy::Ideal;
	const auto ideal = simulate(p);
	EXPECT_GT(rfc, 2.0);
	EXPECT_LE(mix, ideal.max_mean_p95);
}

TEST(Simulate, IdealIsNearTheBirthdayBound)
{
	SimParams p;
	p.policy = SimPolicy::Ideal;
	p.connections = 1024;
	p.paths = 16;
	p.trials = 200;
	const auto r = simulate(p);
	EXPECT_NEAR(r.collisions, birthday_collisions(1024), 0.01);
	EXPECT_GT(r.max_mean, 1.05);
	EXPECT_LT(r.max_mean, 1.5);
}

// The spread of a result over its trials: none where every trial gives the
// same figure, some for random ports.
TEST(Simulate, StandardDeviationOverTrials)
{
	SimParams p;
	p.policy = SimPolicy::Off;
	p.scenario = Scenario::RandomPorts;
	p.connections = 64;
	p.paths = 8;
	p.trials = 10;
	auto r = simulate(p);
	EXPECT_EQ(r.trials, 10u);
	EXPECT_DOUBLE_EQ(r.max_mean_sd, 0.0); // 8.0 in every trial
	p.policy = SimPolicy::Mix;
	p.scenario = Scenario::SeqPorts;
	r = simulate(p);
	EXPECT_EQ(r.trials, 1u); // deterministic: one trial
	EXPECT_DOUBLE_EQ(r.max_mean_sd, 0.0);
	p.policy = SimPolicy::Ideal;
	p.trials = 2000;
	r = simulate(p);
	// Random ports, 64 over 8: max/mean spreads about 0.2 around 1.52.
	EXPECT_GT(r.max_mean_sd, 0.1);
	EXPECT_LT(r.max_mean_sd, 0.3);
	EXPECT_GT(r.max_mean_p95, r.max_mean + r.max_mean_sd);
}

// Two results compared: 1.96 standard deviations of the difference of two
// draws, each the mean of TRIALS trials.
TEST(Simulate, ComparisonNoise)
{
	SimResult ideal;
	ideal.max_mean_sd = 0.1;
	EXPECT_NEAR(comparison_noise(ideal, 1), 0.277186, 1e-6);  // 1.96 * 0.1 * sqrt(2)
	EXPECT_NEAR(comparison_noise(ideal, 64), 0.034648, 1e-6); // 1.96 * 0.1 * sqrt(2 / 64)
	EXPECT_NEAR(comparison_noise(ideal, 0), 0.277186, 1e-6);  // no trials: as one
}

TEST(Simulate, VersusABaseline)
{
	EXPECT_EQ(versus(1.0, 1.2, 0.1), Versus::Better);
	EXPECT_EQ(versus(1.15, 1.2, 0.1), Versus::Equal);
	EXPECT_EQ(versus(1.25, 1.2, 0.1), Versus::Equal);
	EXPECT_EQ(versus(1.31, 1.2, 0.1), Versus::Worse);
	EXPECT_EQ(versus(1.2, 1.2, 0.0), Versus::Equal);
	EXPECT_EQ(name_of(Versus::Worse), "worse");
	EXPECT_EQ(name_of(Versus::Better), "better");
}

TEST(Simulate, Names)
{
	EXPECT_EQ(parse_sim_policy("builtin"), SimPolicy::Builtin);
	EXPECT_EQ(name_of(SimPolicy::Builtin), "builtin");
	EXPECT_EQ(parse_sim_policy("linux-cma"), SimPolicy::Builtin); // its former name
	EXPECT_EQ(parse_scenario("stride8-qpns"), Scenario::Stride8Qpns);
	EXPECT_EQ(parse_switch_hash("jhash"), SwitchHash::Jhash);
	EXPECT_FALSE(parse_switch_hash("md5"));
}

} // namespace
} // namespace roce
