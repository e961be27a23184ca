// SPDX-License-Identifier: GPL-2.0
// The RoCE v2 entropy hashes, bit for bit as the kernel computes them in
// include/rdma/roce_entropy.h (checked against the same golden vectors).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace roce
{

enum class Policy { Off, Rfc, Mix };

inline constexpr std::uint32_t kFlowLabelMask = 0xFFFFF;
inline constexpr std::uint16_t kSportBase = 0xC000;
inline constexpr std::uint32_t kMulticastQpn = 0xFFFFFF;
inline constexpr std::uint32_t kGsiQpn = 1;
inline constexpr std::uint16_t kRoceV2Port = 4791;

std::optional<Policy> parse_policy(std::string_view name);
std::string_view policy_name(Policy policy);

// rdma_flow_label_to_udp_sport(): the RFC fold of 20 bits into 0xC000-0xFFFF.
constexpr std::uint16_t udp_sport(std::uint32_t fl)
{
	const std::uint32_t low = fl & 0x3FFF;
	const std::uint32_t high = fl & 0xFC000;
	return static_cast<std::uint16_t>((low ^ (high >> 14)) | kSportBase);
}

// rdma_calc_cm_flow_label(): the RFC hash of the rdma_cm ports.
constexpr std::uint32_t rfc_cm_flow_label(std::uint16_t sport, std::uint16_t dport)
{
	std::uint32_t hash = std::uint32_t{dport} * sport;
	hash ^= hash >> 16;
	hash ^= hash >> 8;
	return hash & kFlowLabelMask;
}

// rdma_calc_flow_label(): the RFC hash of the QP numbers.
constexpr std::uint32_t rfc_qpn_flow_label(std::uint32_t lqpn, std::uint32_t rqpn)
{
	std::uint64_t v = std::uint64_t{lqpn} * rqpn;
	v ^= v >> 20;
	v ^= v >> 40;
	return static_cast<std::uint32_t>(v & kFlowLabelMask);
}

// "mix": top 20 bits of the product times the golden ratio.
constexpr std::uint32_t mix_cm_flow_label(std::uint16_t sport, std::uint16_t dport)
{
	return (std::uint32_t{dport} * sport * 0x61C88647u) >> 12;
}

constexpr std::uint32_t mix_qpn_flow_label(std::uint32_t lqpn, std::uint32_t rqpn)
{
	return static_cast<std::uint32_t>((std::uint64_t{lqpn} * rqpn * 0x61C8864680B583EBull) >>
	                                  44);
}

constexpr std::uint32_t cm_flow_label(Policy policy, std::uint16_t sport, std::uint16_t dport)
{
	switch (policy) {
	case Policy::Rfc:
		return rfc_cm_flow_label(sport, dport);
	case Policy::Mix:
		return mix_cm_flow_label(sport, dport);
	case Policy::Off:
		break;
	}
	return 0;
}

constexpr std::uint32_t qpn_flow_label(Policy policy, std::uint32_t lqpn, std::uint32_t rqpn)
{
	switch (policy) {
	case Policy::Rfc:
		return rfc_qpn_flow_label(lqpn, rqpn);
	case Policy::Mix:
		return mix_qpn_flow_label(lqpn, rqpn);
	case Policy::Off:
		break;
	}
	return 0;
}

// rdma_entropy_flow_label(): the application's flow label wins.
constexpr std::uint32_t flow_label(Policy policy, std::uint32_t app_fl, std::uint32_t lqpn,
                                   std::uint32_t rqpn)
{
	app_fl &= kFlowLabelMask;
	return app_fl ? app_fl : qpn_flow_label(policy, lqpn, rqpn);
}

// rdma_entropy_ud_flow_label(): a send to the multicast QPN counts it as 1;
// QP1 (the CM MADs) only ever uses its AH's flow label.
constexpr std::uint32_t ud_flow_label(Policy policy, std::uint32_t app_fl, std::uint32_t sqpn,
                                      std::uint32_t dqpn)
{
	if (sqpn == kGsiQpn)
		return app_fl & kFlowLabelMask;
	return flow_label(policy, app_fl, sqpn, dqpn == kMulticastQpn ? 1 : dqpn);
}

// References for the simulator: what 6.12 does without this series.
// rdma_cm's flow label: sport * 31 + dport (not symmetric).
constexpr std::uint32_t linux_cma_flow_label(std::uint16_t sport, std::uint16_t dport)
{
	return (std::uint32_t{sport} * 31 + dport) & kFlowLabelMask;
}

// rxe's UD port: 0xC000 + hash_32(qpn, 14).
constexpr std::uint16_t rxe_legacy_sport(std::uint32_t qpn)
{
	return static_cast<std::uint16_t>(kSportBase + (((qpn * 0x61C88647u) >> 18) & 0x3FFF));
}

} // namespace roce
