// SPDX-License-Identifier: GPL-2.0
// simulate --fabric: the switches' hashes against their standards' check
// values, the jobs' QPs, and properties of the bound (what more QPs, a flow
// label and a destination-QP hash do), exact where the inputs make it so.
#include <gtest/gtest.h>

#include <set>

#include "sim/fabric_sim.h"

namespace roce
{
namespace
{

const std::vector<std::uint8_t> kCheck = {'1', '2', '3', '4', '5', '6', '7', '8', '9'};

TEST(SwitchPick, CheckValues)
{
	// CRC-32 of "123456789" is 0xCBF43926, CRC-16/CCITT-FALSE 0x29B1
	EXPECT_EQ(switch_pick(SwitchHash::Crc32, kCheck, 7), 0xCBF43926u % 7);
	EXPECT_EQ(switch_pick(SwitchHash::Crc32, kCheck, 4), 0xCBF43926u % 4);
	EXPECT_EQ(switch_pick(SwitchHash::Crc16, kCheck, 7), 0x29B1u % 7);
	// 0x1234 ^ 0x5678 = 0x444c; a fifth byte is the high half of a word
	const std::vector<std::uint8_t> four = {0x12, 0x34, 0x56, 0x78};
	const std::vector<std::uint8_t> five = {0x12, 0x34, 0x56, 0x78, 0x9a};
	EXPECT_EQ(switch_pick(SwitchHash::Xor, four, 5), 0x444Cu % 5);
	EXPECT_EQ(switch_pick(SwitchHash::Xor, five, 5), 0xDE4Cu % 5);
	for (unsigned paths : {1u, 2u, 3u, 16u})
		EXPECT_LT(switch_pick(SwitchHash::Jhash, kCheck, paths), paths);
}

FabricSimParams params(SimPolicy policy, FabricHash hash, unsigned qps, bool cm)
{
	FabricSimParams p;
	p.policy = policy;
	p.hash = hash;
	p.qps = qps;
	p.cm = cm;
	p.trials = 64;
	return p;
}

TEST(FabricSimQps, PermutationCrossesLeavesAndNumbersQpsPerHost)
{
	auto p = params(SimPolicy::Rfc, FabricHash::Ipv4, 4, true);
	const auto qps = fabric_sim_qps(p, 3);
	ASSERT_EQ(qps.size(), 16u * 4);
	std::set<unsigned> srcs, dsts;
	for (std::size_t i = 0; i < qps.size(); i++) {
		const auto &q = qps[i];
		EXPECT_NE(p.topo.leaf_of(q.src), p.topo.leaf_of(q.dst));
		srcs.insert(q.src);
		dsts.insert(q.dst);
		// a pair's QPs are made one after the other: QPNs in sequence
		if (i % 4) {
			EXPECT_EQ(q.lqpn, qps[i - 1].lqpn + 1);
			EXPECT_EQ(q.rqpn, qps[i - 1].rqpn + 1);
		}
		EXPECT_GE(q.cm_sport, 32768);
		EXPECT_LE(q.cm_sport, 60999);
		EXPECT_EQ(q.cm_dport, 18700);
		// rfc over rdma_cm: the RFC's CM hash, folded
		const auto fl = rfc_cm_flow_label(q.cm_sport, q.cm_dport);
		EXPECT_EQ(q.wire.flow_label, fl);
		EXPECT_EQ(q.wire.udp_sport, udp_sport(fl));
	}
	EXPECT_EQ(srcs.size(), 16u);
	EXPECT_EQ(dsts.size(), 16u);
	// the same trial, the same QPs
	const auto again = fabric_sim_qps(p, 3);
	EXPECT_EQ(again[17].lqpn, qps[17].lqpn);
	EXPECT_EQ(again[17].cm_sport, qps[17].cm_sport);
}

TEST(FabricSimQps, AllToAllAndStockWithoutCm)
{
	auto p = params(SimPolicy::Builtin, FabricHash::Ipv6Label, 1, false);
	p.all_to_all = true;
	const auto qps = fabric_sim_qps(p, 0);
	ASSERT_EQ(qps.size(), 16u * 15);
	for (const auto &q : qps) {
		// stock rxe: the QPN hash's port, no IPv6 flow label
		EXPECT_EQ(q.wire.flow_label, 0u);
		EXPECT_EQ(q.wire.udp_sport, udp_sport(rfc_qpn_flow_label(q.lqpn, q.rqpn)));
	}
}

TEST(FabricSim, OneSpineIsTheIdeal)
{
	auto p = params(SimPolicy::Off, FabricHash::Ipv4, 1, true);
	p.topo = {4, 1, 1, 1000};
	const auto r = simulate_fabric(p);
	EXPECT_DOUBLE_EQ(r.over_ideal_mean, 1.0);
	EXPECT_DOUBLE_EQ(r.over_ideal_max, 1.0);
}

// Without a flow label, IPv6's 3-tuple sees a host pair's QPs as one: four
// QPs take one path, exactly as one does.
TEST(FabricSim, StockQpsShareAPathUnderTheLabelHash)
{
	const auto one =
	    simulate_fabric(params(SimPolicy::Builtin, FabricHash::Ipv6Label, 1, false));
	const auto four =
	    simulate_fabric(params(SimPolicy::Builtin, FabricHash::Ipv6Label, 4, false));
	EXPECT_DOUBLE_EQ(one.over_ideal_mean, four.over_ideal_mean);
	EXPECT_DOUBLE_EQ(one.over_ideal_max, four.over_ideal_max);
	EXPECT_GT(one.over_ideal_mean, 1.0);
}

TEST(FabricSim, LabelsAndDestinationQpsSpreadAPairsQps)
{
	const double stock =
	    simulate_fabric(params(SimPolicy::Builtin, FabricHash::Ipv6Label, 4, false))
	        .over_ideal_mean;
	for (auto pol : {SimPolicy::Rfc, SimPolicy::Mix})
		EXPECT_LT(
		    simulate_fabric(params(pol, FabricHash::Ipv6Label, 4, false)).over_ideal_mean,
		    stock);
	// off: one port for all; a switch that hashes the destination QP still
	// spreads a pair's QPs
	EXPECT_LT(
	    simulate_fabric(params(SimPolicy::Off, FabricHash::Dqp, 4, false)).over_ideal_mean,
	    simulate_fabric(params(SimPolicy::Off, FabricHash::Ipv4, 4, false)).over_ideal_mean);
}

// All-to-all without labels sends the same headers in every trial; the
// leaves' seed changes per trial, so the trials are draws, not one draw
// repeated.
TEST(FabricSim, TrialsDrawTheLeavesSeedAfresh)
{
	auto p = params(SimPolicy::Builtin, FabricHash::Ipv6Label, 1, false);
	p.all_to_all = true;
	for (auto fn : {SwitchHash::Crc16, SwitchHash::Jhash}) {
		p.fn = fn;
		const auto qps = fabric_sim_qps(p, 0);
		std::set<unsigned> spines;
		for (unsigned trial = 0; trial < 16; trial++)
			spines.insert(fabric_sim_spine(p, qps[0], trial));
		EXPECT_GT(spines.size(), 1u) << name_of(fn);
	}
}

TEST(FabricSim, MoreQpsBringRandomPortsNearerTheIdeal)
{
	const auto one = simulate_fabric(params(SimPolicy::Ideal, FabricHash::Ipv4, 1, true));
	const auto sixteen = simulate_fabric(params(SimPolicy::Ideal, FabricHash::Ipv4, 16, true));
	EXPECT_LT(sixteen.over_ideal_mean, one.over_ideal_mean);
	EXPECT_GE(sixteen.over_ideal_mean, 1.0);
	EXPECT_LE(one.over_ideal_p95, one.over_ideal_max);
}

TEST(FabricHashNames, RoundTrip)
{
	for (auto h : {FabricHash::Ipv4, FabricHash::Ipv6Label, FabricHash::Ipv6, FabricHash::Dqp})
		EXPECT_EQ(parse_fabric_hash(name_of(h)), h);
	EXPECT_FALSE(parse_fabric_hash("ipv5"));
}

} // namespace
} // namespace roce
