// SPDX-License-Identifier: GPL-2.0
// judge_capture(): CM sessions first, then the data they name, then what
// is left paired by QPN; each group judged under the policy.
#include <map>
#include <set>
#include <tuple>

#include "capture/group.h"

namespace roce
{
namespace
{

using namespace capture_detail;

// One side of a connection: an address and a QPN.
using End = std::pair<std::string, std::uint32_t>;
using Key = std::tuple<std::string, std::string, std::uint32_t>; // src, dst, dest QPN
using Loose = std::map<Key, std::vector<const RocePacket *>>;

struct Grouping {
	std::vector<Group> groups;
	std::map<Key, std::size_t> to_group; // the data each group expects
	// Data not claimed by a session, UD (with a DETH) apart from the rest:
	// a QPN that receives both is not one connection.
	Loose loose, loose_ud;
};

// Sessions first: their data is what goes to the QPNs they name.
void add_sessions(Grouping &gr, const std::vector<CmSession> &sessions)
{
	for (const auto &s : sessions) {
		Group g;
		g.conn.src = s.active;
		g.conn.dst = s.passive;
		g.conn.cm_ports = s.ports;
		g.conn.ud = s.sidr;
		g.packets = s.mads;
		g.conn.cm_mads = static_cast<unsigned>(s.mads.size());
		if (s.active_qpn)
			g.conn.qpns.push_back(*s.active_qpn);
		if (s.passive_qpn) {
			if (!s.active_qpn && s.sidr)
				g.conn.qpns.push_back(0); // the active QPN comes from its data
			g.conn.qpns.push_back(*s.passive_qpn);
			gr.to_group[{s.active, s.passive, *s.passive_qpn}] = gr.groups.size();
		}
		if (s.active_qpn)
			gr.to_group[{s.passive, s.active, *s.active_qpn}] = gr.groups.size();
		gr.groups.push_back(std::move(g));
	}
}

// Each data packet to its session's group, or to the loose ones.
void add_data(Grouping &gr, const std::vector<RocePacket> &packets)
{
	for (const auto &pkt : packets) {
		if (pkt.cm)
			continue;
		auto it = gr.to_group.find({pkt.src, pkt.dst, pkt.dest_qp});
		if (it == gr.to_group.end()) {
			(pkt.src_qp ? gr.loose_ud : gr.loose)[{pkt.src, pkt.dst, pkt.dest_qp}]
			    .push_back(&pkt);
			continue;
		}
		Group &g = gr.groups[it->second];
		g.packets.push_back(&pkt);
		// SIDR: the active side's UD QPN, learnt from its first send.
		if (g.conn.ud && g.conn.qpns.size() == 2 && g.conn.qpns[0] == 0 && pkt.src_qp) {
			g.conn.qpns[0] = *pkt.src_qp;
			gr.to_group[{g.conn.dst, g.conn.src, *pkt.src_qp}] = it->second;
		}
	}
}

// Without CM, UD names both QPNs in every packet.
void pair_loose_ud(Grouping &gr)
{
	std::map<std::pair<End, End>, std::size_t> ud_pairs;

	for (const auto &[key, pkts] : gr.loose_ud) {
		const auto &[src, dst, dqpn] = key;
		for (const RocePacket *p : pkts) {
			const End a{src, *p->src_qp}, b{dst, dqpn};
			auto [it, fresh] = ud_pairs.try_emplace(
			    a < b ? std::pair{a, b} : std::pair{b, a}, gr.groups.size());
			if (fresh) {
				Group g;
				g.conn.src = src;
				g.conn.dst = dst;
				g.conn.ud = true;
				g.conn.qpns = {*p->src_qp, dqpn};
				gr.groups.push_back(std::move(g));
			}
			gr.groups[it->second].packets.push_back(p);
		}
	}
}

// Without CM, RC and UC pair the one QPN seen each way between two hosts.
void pair_loose_rc(Grouping &gr)
{
	std::map<std::pair<std::string, std::string>, std::vector<std::uint32_t>> rc_qpns;
	std::set<Key> claimed;

	for (const auto &entry : gr.loose) {
		const auto &[src, dst, dqpn] = entry.first;
		rc_qpns[{src, dst}].push_back(dqpn);
	}
	for (const auto &[key, pkts] : gr.loose) {
		const auto &[src, dst, dqpn] = key;
		if (claimed.count(key))
			continue;
		const auto &fwd = rc_qpns[{src, dst}];
		const auto &back = rc_qpns[{dst, src}];
		Group g;
		g.conn.src = src;
		g.conn.dst = dst;
		g.packets = pkts;
		// A host's traffic to itself has one list both ways: nothing to pair.
		if (src != dst && fwd.size() == 1 && back.size() == 1) {
			const Key peer{dst, src, back.front()};
			const auto &more = gr.loose.at(peer);
			g.conn.qpns = {back.front(), dqpn};
			g.packets.insert(g.packets.end(), more.begin(), more.end());
			claimed.insert(peer);
		} else {
			g.conn.qpns = {dqpn}; // which QP sends here is not in the packets
		}
		gr.groups.push_back(std::move(g));
	}
}

// The counts of G's packets, per direction and in all; ALL_SPORTS gathers
// every UDP source port seen.
void count_packets(Group &g, std::set<std::uint16_t> &all_sports)
{
	Connection &c = g.conn;

	for (const RocePacket *p : g.packets) {
		Direction &d = p->src == c.src ? c.forward : c.reverse;
		d.packets++;
		if (p->cm) {
			d.cm_packets++;
			d.cm_attrs[p->cm->attr]++;
		}
		d.udp_sports.insert(p->udp_sport);
		(p->cm ? d.cm_udp_sports : d.data_udp_sports).insert(p->udp_sport);
		c.udp_sports.insert(p->udp_sport);
		all_sports.insert(p->udp_sport);
		if (p->ifindex)
			d.interfaces[*p->ifindex]++;
		c.ipv6 = p->ipv6;
		if (p->ipv6) {
			d.flow_labels.insert(p->flow_label);
			c.flow_labels.insert(p->flow_label);
		}
	}
	c.packets = static_cast<unsigned>(g.packets.size());
	std::erase(c.qpns, 0u); // a SIDR client whose sends were not seen
}

} // namespace

CaptureSummary judge_capture(const std::vector<RocePacket> &packets, Policy policy,
                             std::uint32_t app_fl,
                             const std::map<std::uint16_t, std::uint32_t> &port_fl)
{
	Grouping gr;
	CaptureSummary sum;
	std::set<std::uint16_t> all_sports;

	add_sessions(gr, cm_sessions(packets));
	add_data(gr, packets);
	pair_loose_ud(gr);
	pair_loose_rc(gr);
	for (auto &g : gr.groups) {
		Connection &c = g.conn;
		count_packets(g, all_sports);
		auto fl = c.cm_ports ? port_fl.find(c.cm_ports->second) : port_fl.end();
		judge_group(g, policy, fl != port_fl.end() ? fl->second : app_fl);
		sum.inconsistent += !c.consistent;
		sum.packets += c.packets;
		sum.connections.push_back(std::move(c));
	}
	sum.distinct_udp_sports = static_cast<unsigned>(all_sports.size());
	return sum;
}

} // namespace roce
