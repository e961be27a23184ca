// SPDX-License-Identifier: GPL-2.0
// The RoCE v2 entropy hashes, bit for bit as the kernel computes them in
// include/rdma/roce_entropy.h (checked against the same golden vectors).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace roce
{

// Off, Rfc and Mix are this series' policies; Builtin is the stock
// behaviour (the knob's "builtin"): rdma_cm's sport * 31 + dport, the RFC QPN
// hash where rdma_cm gave no flow label, and on rxe a port of its own for
// every UD QP (CM MADs included) and no IPv6 flow label at all.
enum class Policy { Off, Rfc, Mix, Builtin };

inline constexpr std::uint32_t kFlowLabelMask = 0xFFFFF;
inline constexpr std::uint32_t kQpnMask = 0xFFFFFF;
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

// 6.12's rdma_cm flow label, cma_get_roce_udp_flow_label(): sport * 31 +
// dport, sport the active side's rdma_cm port, dport the service port (not
// symmetric: the order matters).
constexpr std::uint32_t linux_cma_flow_label(std::uint16_t sport, std::uint16_t dport)
{
	return (std::uint32_t{sport} * 31 + dport) & kFlowLabelMask;
}

// 6.12 rxe's port of a UD QP (QP1, the CM MADs, included), set when the QP
// is created and used for every destination: 0xC000 + hash_32(qpn, 14).
constexpr std::uint16_t rxe_legacy_sport(std::uint32_t qpn)
{
	return static_cast<std::uint16_t>(kSportBase + (((qpn * 0x61C88647u) >> 18) & 0x3FFF));
}

constexpr std::uint32_t cm_flow_label(Policy policy, std::uint16_t sport, std::uint16_t dport)
{
	switch (policy) {
	case Policy::Rfc:
		return rfc_cm_flow_label(sport, dport);
	case Policy::Mix:
		return mix_cm_flow_label(sport, dport);
	case Policy::Builtin:
		return linux_cma_flow_label(sport, dport);
	case Policy::Off:
		break;
	}
	return 0;
}

// Linux: 6.12's rdma_get_udp_sport() hashes the QPNs with
// rdma_calc_flow_label() when a QP's address has no flow label.
constexpr std::uint32_t qpn_flow_label(Policy policy, std::uint32_t lqpn, std::uint32_t rqpn)
{
	lqpn &= kQpnMask;
	rqpn &= kQpnMask;
	switch (policy) {
	case Policy::Rfc:
	case Policy::Builtin:
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
// QP1 (the CM MADs) only ever uses its AH's flow label, and so does every
// UD send under builtin (6.12 generated none per send).
constexpr std::uint32_t ud_flow_label(Policy policy, std::uint32_t app_fl, std::uint32_t sqpn,
                                      std::uint32_t dqpn)
{
	sqpn &= kQpnMask;
	dqpn &= kQpnMask;
	if (sqpn == kGsiQpn || policy == Policy::Builtin)
		return app_fl & kFlowLabelMask;
	return flow_label(policy, app_fl, sqpn, dqpn == kMulticastQpn ? 1 : dqpn);
}

// The UDP source port and IPv6 flow label of one packet on the wire.
struct WireEntropy {
	std::uint16_t udp_sport = 0;
	std::uint32_t flow_label = 0;

	friend constexpr bool operator==(const WireEntropy &, const WireEntropy &) = default;
};

// What a packet capture's connection or a host's QP shows against what its
// policy predicts (roce-entropy pcap and audit): it agrees, it disagrees, or
// it cannot be judged.
enum class Verdict { Agrees, Disagrees, Unjudged };

// rdma_entropy_path(): the port and flow label the kernel programs into a
// connected QP (RC, UC, XRC) whose address has the flow label ADDR_FL (0 if
// none), BASE being the device's port without entropy (0xC000 on rxe).
// Under builtin the port is 6.12's rdma_get_udp_sport() and the flow label
// the address's (mlx5 programs it; rxe sends none at all); under off, and
// whenever no flow label results, the port is BASE.
constexpr WireEntropy path_entropy(Policy policy, std::uint32_t addr_fl, std::uint32_t lqpn,
                                   std::uint32_t rqpn, std::uint16_t base = kSportBase)
{
	const std::uint32_t fl = flow_label(policy, addr_fl, lqpn, rqpn);

	if (policy == Policy::Builtin)
		return {udp_sport(fl), addr_fl & kFlowLabelMask};
	return {fl ? udp_sport(fl) : base, fl};
}

// What stock 6.12 rxe puts on the wire (Policy::Builtin).
// A CM MAD, both ways: QP1's own port, hash_32(1, 14) = 0x1872: 0xD872.
constexpr WireEntropy linux_rxe_cm_mad()
{
	return {rxe_legacy_sport(kGsiQpn), 0};
}

// UD data: the sending QP's own port, whatever its AH says.
constexpr WireEntropy linux_rxe_ud(std::uint32_t sqpn)
{
	return {rxe_legacy_sport(sqpn), 0};
}

// RC data: the fold of the QP's flow label (the application's, rdma_cm's or
// the QPN hash: flow_label(Policy::Builtin, ...)), the same both ways; the
// IPv6 header carries none, even the application's.
constexpr WireEntropy linux_rxe_rc(std::uint32_t fl)
{
	return {udp_sport(fl), 0};
}

} // namespace roce
