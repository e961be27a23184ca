// SPDX-License-Identifier: GPL-2.0
// What a policy predicts for each packet of a connection, and the verdict.
#include <set>

#include "capture/group.h"

namespace roce::capture_detail
{
namespace
{

// The expected flow label of a connection, if the capture says enough.
std::optional<std::uint32_t> expect(const Connection &c, Policy policy, std::uint32_t app_fl)
{
	if (c.cm_ports)
		return app_fl ? app_fl
		              : cm_flow_label(policy, c.cm_ports->first, c.cm_ports->second);
	if (c.qpns.size() == 2)
		return c.ud ? ud_flow_label(policy, app_fl, c.qpns[0], c.qpns[1])
		            : flow_label(policy, app_fl, c.qpns[0], c.qpns[1]);
	return std::nullopt;
}

// Linux: the flow label of the connection's RC QPs, 6.12's: the
// application's, else rdma_cm's sport * 31 + dport, else the QPN hash.
std::optional<std::uint32_t> linux_rc_flow_label(const Connection &c, std::uint32_t app_fl)
{
	if (app_fl)
		return app_fl;
	if (c.cm_ports)
		return linux_cma_flow_label(c.cm_ports->first, c.cm_ports->second);
	if (c.qpns.size() == 2)
		return flow_label(Policy::Linux, 0, c.qpns[0], c.qpns[1]);
	return std::nullopt;
}

// What POLICY predicts for one packet of C.
std::optional<WireEntropy> predict(const Connection &c, const RocePacket &p, Policy policy,
                                   std::uint32_t app_fl)
{
	if (policy != Policy::Linux) {
		if (!c.expected_flow_label)
			return std::nullopt;
		return WireEntropy{udp_sport(*c.expected_flow_label), *c.expected_flow_label};
	}
	if (p.cm)
		return linux_rxe_cm_mad();
	if (p.src_qp)
		return linux_rxe_ud(*p.src_qp);
	if (auto fl = linux_rc_flow_label(c, app_fl))
		return linux_rxe_rc(*fl);
	return std::nullopt;
}

bool matches(const RocePacket &p, const WireEntropy &e)
{
	return p.udp_sport == e.udp_sport && (!p.ipv6 || p.flow_label == e.flow_label);
}

} // namespace

// Judge every packet of G against its prediction.
void judge_group(Group &g, Policy policy, std::uint32_t app_fl)
{
	Connection &c = g.conn;
	std::set<std::uint16_t> loose_sports;
	std::set<std::uint32_t> loose_fls;

	c.expected_flow_label = policy == Policy::Linux ? std::nullopt : expect(c, policy, app_fl);
	for (const RocePacket *p : g.packets) {
		Direction &d = p->src == c.src ? c.forward : c.reverse;
		const auto want = predict(c, *p, policy, app_fl);
		if (!want) {
			c.unpredicted++;
			loose_sports.insert(p->udp_sport);
			if (p->ipv6)
				loose_fls.insert(p->flow_label);
			continue;
		}
		if (p->cm && !c.expected_cm)
			c.expected_cm = want;
		if (!p->cm && !d.expected_data)
			d.expected_data = want;
		c.mismatched += !matches(*p, *want);
	}
	c.consistent = c.mismatched == 0 && loose_sports.size() <= 1 && loose_fls.size() <= 1;
}

} // namespace roce::capture_detail
