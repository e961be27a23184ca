// SPDX-License-Identifier: GPL-2.0
// The tool's hashes against the golden vectors the kernel's KUnit suite
// checks too (drivers/infiniband/core/roce_entropy_vectors.h, and
// roce_entropy_mix_vectors.h, which the series' last patch adds with "mix"),
// plus the properties that must hold for every policy.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "entropy/entropy.h"
#include "roce_entropy_mix_vectors.h"
#include "roce_entropy_vectors.h"

namespace roce
{
namespace
{

Policy policy_of(const char *name)
{
	auto policy = parse_policy(name);
	EXPECT_TRUE(policy.has_value()) << name;
	return policy.value_or(Policy::Off);
}

class Fold : public testing::TestWithParam<roce_entropy_fold_vector>
{
};

TEST_P(Fold, MatchesGolden)
{
	EXPECT_EQ(udp_sport(GetParam().fl), GetParam().udp_sport);
}

INSTANTIATE_TEST_SUITE_P(Vectors, Fold, testing::ValuesIn(roce_entropy_fold_vectors));

class CmHash : public testing::TestWithParam<roce_entropy_cm_vector>
{
};

TEST_P(CmHash, MatchesGolden)
{
	const auto &v = GetParam();
	const auto fl = cm_flow_label(policy_of(v.policy), static_cast<std::uint16_t>(v.sport),
	                              static_cast<std::uint16_t>(v.dport));
	EXPECT_EQ(fl, v.fl);
	EXPECT_EQ(udp_sport(fl), v.udp_sport);
}

INSTANTIATE_TEST_SUITE_P(Vectors, CmHash, testing::ValuesIn(roce_entropy_cm_vectors));
INSTANTIATE_TEST_SUITE_P(MixVectors, CmHash, testing::ValuesIn(roce_entropy_mix_cm_vectors));

// The QPN rows through rdma_entropy_flow_label(), the UD rows through
// rdma_entropy_ud_flow_label(); each row also gives the folded port.
using QpnFn = std::uint32_t (*)(Policy, std::uint32_t, std::uint32_t, std::uint32_t);

void expect_qpn_vector(const roce_entropy_qpn_vector &v, QpnFn fn)
{
	const auto fl = fn(policy_of(v.policy), v.app_fl, v.lqpn, v.rqpn);
	EXPECT_EQ(fl, v.fl);
	EXPECT_EQ(udp_sport(fl), v.udp_sport);
}

class QpnHash : public testing::TestWithParam<roce_entropy_qpn_vector>
{
};

TEST_P(QpnHash, MatchesGolden)
{
	expect_qpn_vector(GetParam(), flow_label);
}

INSTANTIATE_TEST_SUITE_P(Vectors, QpnHash, testing::ValuesIn(roce_entropy_qpn_vectors));
INSTANTIATE_TEST_SUITE_P(MixVectors, QpnHash, testing::ValuesIn(roce_entropy_mix_qpn_vectors));

class UdSend : public testing::TestWithParam<roce_entropy_qpn_vector>
{
};

TEST_P(UdSend, MatchesGolden)
{
	expect_qpn_vector(GetParam(), ud_flow_label);
}

INSTANTIATE_TEST_SUITE_P(Vectors, UdSend, testing::ValuesIn(roce_entropy_ud_vectors));
INSTANTIATE_TEST_SUITE_P(MixVectors, UdSend, testing::ValuesIn(roce_entropy_mix_ud_vectors));

class Properties : public testing::TestWithParam<Policy>
{
};

TEST_P(Properties, SymmetricMaskedAndInRange)
{
	std::mt19937 rng(42);
	for (int i = 0; i < 100000; ++i) {
		const auto a = static_cast<std::uint32_t>(rng() & 0xFFFFFF);
		const auto b = static_cast<std::uint32_t>(rng() & 0xFFFFFF);
		const auto sa = static_cast<std::uint16_t>(a), sb = static_cast<std::uint16_t>(b);

		ASSERT_EQ(qpn_flow_label(GetParam(), a, b), qpn_flow_label(GetParam(), b, a));
		ASSERT_EQ(cm_flow_label(GetParam(), sa, sb), cm_flow_label(GetParam(), sb, sa));
		ASSERT_EQ(qpn_flow_label(GetParam(), a, b) & ~kFlowLabelMask, 0u);
		ASSERT_EQ(cm_flow_label(GetParam(), sa, sb) & ~kFlowLabelMask, 0u);
		ASSERT_GE(udp_sport(qpn_flow_label(GetParam(), a, b)), 0xC000);
	}
}

TEST_P(Properties, ApplicationFlowLabelWins)
{
	EXPECT_EQ(flow_label(GetParam(), 0xABCDE, 0x12, 0x34), 0xABCDEu);
	EXPECT_EQ(flow_label(GetParam(), 0xFFF12345, 0x12, 0x34), 0x12345u);
	EXPECT_EQ(ud_flow_label(GetParam(), 0x54321, 0x12, kMulticastQpn), 0x54321u);
}

INSTANTIATE_TEST_SUITE_P(AllPolicies, Properties,
                         testing::Values(Policy::Off, Policy::Rfc, Policy::Mix),
                         [](const auto &param_info) {
	                         return std::string(policy_name(param_info.param));
                         });

TEST(Policy, NamesRoundTrip)
{
	for (auto p : {Policy::Off, Policy::Rfc, Policy::Mix, Policy::Builtin})
		EXPECT_EQ(parse_policy(policy_name(p)), p);
	EXPECT_EQ(parse_policy("builtin"), Policy::Builtin);
	// the name before 0.4.0, shown by an ib_core loaded before an upgrade
	EXPECT_EQ(parse_policy("linux"), Policy::Builtin);
	EXPECT_EQ(policy_name(Policy::Builtin), "builtin");
	EXPECT_FALSE(parse_policy("RFC"));
	EXPECT_FALSE(parse_policy(""));
	EXPECT_FALSE(parse_policy("rfc\n"));
	EXPECT_FALSE(parse_policy("linux-cma"));
}

TEST(Linux, CmFlowLabelIsTheCmaHashAndNotSymmetric)
{
	EXPECT_EQ(linux_cma_flow_label(1, 2), 33u);
	EXPECT_EQ(linux_cma_flow_label(2, 1), 63u);
	EXPECT_EQ(cm_flow_label(Policy::Builtin, 1, 2), 33u);
	// 45313 * 31 + 7174 = 1412901 = 0x158b25: 21 bits, masked to 0x58b25;
	// its fold (0x0b25 ^ 0x16) | 0xc000 = 0xcb33.
	EXPECT_EQ(cm_flow_label(Policy::Builtin, 45313, 7174), 0x58B25u);
	EXPECT_EQ(udp_sport(cm_flow_label(Policy::Builtin, 45313, 7174)), 0xCB33);
}

TEST(Linux, QpnFlowLabelIsTheRfcHash)
{
	// ibv_rc_pingpong on stock 6.12 with both QPNs 0x12 sends from 0xc144.
	EXPECT_EQ(qpn_flow_label(Policy::Builtin, 0x12, 0x12), 0x144u);
	EXPECT_EQ(udp_sport(flow_label(Policy::Builtin, 0, 0x12, 0x12)), 0xC144);
	EXPECT_EQ(flow_label(Policy::Builtin, 0xABCDE, 0x12, 0x12), 0xABCDEu);
}

TEST(Linux, RxeLegacyPort)
{
	// 0xC000 + hash_32(qpn, 14): hash_32(1, 14) = 0x61C88647 >> 18 = 0x1872.
	EXPECT_EQ(rxe_legacy_sport(1), 0xC000 + 0x1872);
	// QP1 (GSI): stock 6.12 rxe sends its CM MADs from port 55410 = 0xD872.
	EXPECT_EQ(rxe_legacy_sport(1), 55410);
	// 0x12 * 0x61c88647 = 0x6e01970fe, mod 2^32 0xe01970fe; >> 18 = 0x3806.
	EXPECT_EQ(rxe_legacy_sport(0x12), 0xF806);
	// 0x14 * 0x61c88647 mod 2^32 = 0xa3aa7d8c; >> 18 = 0x28ea.
	EXPECT_EQ(rxe_legacy_sport(0x14), 0xE8EA);
}

TEST(Linux, WhatRxePutsOnTheWire)
{
	EXPECT_EQ(linux_rxe_cm_mad(), (WireEntropy{55410, 0}));
	EXPECT_EQ(linux_rxe_ud(0x12), (WireEntropy{0xF806, 0}));
	// the fold of the flow label, but no flow label in the IPv6 header
	EXPECT_EQ(linux_rxe_rc(0x5A5A5), (WireEntropy{0xE5B3, 0}));
}

// rdma_entropy_path(), as the kernel's KUnit table roce_entropy_path_decision
// has it (base 0xd000: an mlx5 device whose minimum RoCE port is not 0xC000).
struct PathCase {
	Policy policy;
	std::uint32_t fl, lqpn, rqpn;
	std::uint16_t base;
	WireEntropy expected; // {udp_sport, flow_label}
};

class Path : public testing::TestWithParam<PathCase>
{
};

TEST_P(Path, MatchesTheKernel)
{
	const PathCase &c = GetParam();
	EXPECT_EQ(path_entropy(c.policy, c.fl, c.lqpn, c.rqpn, c.base), c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Kernel, Path,
    testing::Values(PathCase{Policy::Builtin, 0, 0x12, 0x12, 0xd000, {0xc144, 0}},
                    PathCase{Policy::Builtin, 0, 0, 0x11, 0xd000, {0xc000, 0}},
                    PathCase{Policy::Builtin, 0x12345, 0x12, 0x12, 0xd000, {0xe341, 0x12345}},
                    PathCase{Policy::Off, 0, 0x12, 0x12, 0xc000, {0xc000, 0}},
                    PathCase{Policy::Off, 0, 0x12, 0x12, 0xd000, {0xd000, 0}},
                    PathCase{Policy::Off, 0xabcde, 0x12, 0x12, 0xd000, {0xfcf4, 0xabcde}},
                    PathCase{Policy::Rfc, 0, 0x12, 0x12, 0xd000, {0xc144, 0x144}},
                    PathCase{Policy::Rfc, 0, 0x11, 0x12, 0xc000, {0xc132, 0x132}},
                    PathCase{Policy::Rfc, 0, 0, 0x11, 0xd000, {0xd000, 0}},
                    PathCase{Policy::Rfc, 0x12345, 0x12, 0x12, 0xd000, {0xe341, 0x12345}},
                    PathCase{Policy::Rfc, 0xfff12345, 0x12, 0x12, 0xd000, {0xe341, 0x12345}},
                    PathCase{Policy::Mix, 0, 0x12, 0x12, 0xd000, {0xdcaf, 0xc1c9f}},
                    PathCase{Policy::Mix, 0, 0xffffff, 0xffffff, 0xc000, {0xcb37, 0x58b21}},
                    PathCase{Policy::Mix, 0xabcde, 0x12, 0x12, 0xc000, {0xfcf4, 0xabcde}}));

} // namespace
} // namespace roce
