// SPDX-License-Identifier: GPL-2.0
#include "capture.h"

#include <arpa/inet.h>
#include <cstdio>
#include <map>
#include <memory>
#include <pcap/pcap.h>
#include <tuple>

namespace roce
{
namespace
{

constexpr std::size_t kBthLen = 12, kDethLen = 8, kIcrcLen = 4, kMadHdrLen = 24;
constexpr std::uint8_t kMgmtClassCm = 0x07;
constexpr std::uint32_t kGsiQpn = 1;

// Big-endian reads of a bounded buffer.
struct Bytes {
	const std::uint8_t *p;
	std::size_t n;

	bool has(std::size_t off, std::size_t len) const
	{
		return off <= n && len <= n - off;
	}
	std::uint32_t be(std::size_t off, std::size_t len) const
	{
		std::uint32_t v = 0;
		for (std::size_t i = 0; i < len; i++)
			v = v << 8 | p[off + i];
		return v;
	}
	Bytes from(std::size_t off) const
	{
		return {p + off, n - off};
	}
};

bool is_ud(std::uint8_t opcode)
{
	return (opcode & 0xE0) == 0x60;
}

std::string ip_text(int family, const std::uint8_t *addr)
{
	char buf[INET6_ADDRSTRLEN];
	inet_ntop(family, addr, buf, sizeof(buf));
	return buf;
}

// rdma_cm's service IDs are 0x00000000_01PP_pppp: PP the port space, pppp
// the port.
bool rdma_cm_service(std::uint64_t sid)
{
	return (sid >> 24) == 0x01;
}

// The CM fields the grouping needs; false when the MAD is cut short.
bool parse_cm(Bytes mad, CmMad &cm)
{
	const Bytes d = mad.from(kMadHdrLen);
	std::uint64_t sid;

	cm.attr = static_cast<std::uint16_t>(mad.be(16, 2));
	if (!d.has(0, 8))
		return false;
	cm.local_id = d.be(0, 4);
	cm.remote_id = d.be(4, 4);
	switch (cm.attr) {
	case kCmReq:
		if (!d.has(140, 4))
			return false;
		cm.remote_id = 0;
		cm.qpn = d.be(32, 3);
		sid = std::uint64_t{d.be(8, 4)} << 32 | d.be(12, 4);
		if (rdma_cm_service(sid)) {
			cm.dport = static_cast<std::uint16_t>(sid);
			cm.sport = static_cast<std::uint16_t>(d.be(142, 2));
		}
		break;
	case kCmRep:
		if (!d.has(12, 3))
			return false;
		cm.qpn = d.be(12, 3);
		break;
	case kCmSidrReq:
		if (!d.has(16, 4))
			return false;
		cm.remote_id = 0;
		sid = std::uint64_t{d.be(8, 4)} << 32 | d.be(12, 4);
		if (rdma_cm_service(sid)) {
			cm.dport = static_cast<std::uint16_t>(sid);
			cm.sport = static_cast<std::uint16_t>(d.be(18, 2));
		}
		break;
	case kCmSidrRep:
		if (!d.has(8, 3))
			return false;
		cm.remote_id = 0;
		cm.qpn = d.be(8, 3);
		break;
	default:
		break;
	}
	return true;
}

// The UDP payload: BTH, DETH for UD, a CM MAD to QP1.
ParseStatus parse_roce(Bytes udp, RocePacket &pkt)
{
	if (!udp.has(0, kBthLen + kIcrcLen))
		return ParseStatus::Malformed;
	pkt.opcode = static_cast<std::uint8_t>(udp.be(0, 1));
	pkt.dest_qp = udp.be(5, 3);
	if (!is_ud(pkt.opcode))
		return ParseStatus::Roce;
	if (!udp.has(kBthLen, kDethLen + kIcrcLen))
		return ParseStatus::Malformed;
	pkt.src_qp = udp.be(kBthLen + 5, 3);
	if (pkt.dest_qp != kGsiQpn)
		return ParseStatus::Roce;
	const Bytes mad = udp.from(kBthLen + kDethLen);
	if (!mad.has(0, kMadHdrLen))
		return ParseStatus::Malformed;
	if (mad.be(1, 1) != kMgmtClassCm)
		return ParseStatus::Roce;
	CmMad cm;
	if (!parse_cm(mad, cm))
		return ParseStatus::Malformed;
	pkt.cm = cm;
	return ParseStatus::Roce;
}

ParseStatus parse_udp(Bytes ip_payload, RocePacket &pkt)
{
	if (!ip_payload.has(0, 8))
		return ParseStatus::Malformed;
	if (ip_payload.be(2, 2) != kRoceV2Port)
		return ParseStatus::NotRoce;
	const std::size_t len = ip_payload.be(4, 2);
	if (len < 8 || len > ip_payload.n)
		return ParseStatus::Malformed;
	pkt.udp_sport = static_cast<std::uint16_t>(ip_payload.be(0, 2));
	return parse_roce({ip_payload.p + 8, len - 8}, pkt);
}

ParseStatus parse_ip(std::uint32_t ethertype, Bytes l3, RocePacket &pkt)
{
	if (ethertype == 0x0800) {
		if (!l3.has(0, 20) || l3.p[0] >> 4 != 4)
			return ParseStatus::Malformed;
		const std::size_t ihl = (l3.p[0] & 0xF) * 4u, total = l3.be(2, 2);
		if (ihl < 20 || total < ihl || !l3.has(0, total))
			return ParseStatus::Malformed;
		if (l3.p[9] != IPPROTO_UDP || (l3.be(6, 2) & 0x3FFF))
			return ParseStatus::NotRoce; // not UDP, or a fragment
		pkt.src = ip_text(AF_INET, l3.p + 12);
		pkt.dst = ip_text(AF_INET, l3.p + 16);
		return parse_udp({l3.p + ihl, total - ihl}, pkt);
	}
	if (ethertype == 0x86DD) {
		if (!l3.has(0, 40) || l3.p[0] >> 4 != 6)
			return ParseStatus::Malformed;
		const std::size_t payload = l3.be(4, 2);
		if (!l3.has(40, payload))
			return ParseStatus::Malformed;
		if (l3.p[6] != IPPROTO_UDP)
			return ParseStatus::NotRoce;
		pkt.ipv6 = true;
		pkt.flow_label = l3.be(0, 4) & kFlowLabelMask;
		pkt.src = ip_text(AF_INET6, l3.p + 8);
		pkt.dst = ip_text(AF_INET6, l3.p + 24);
		return parse_udp({l3.p + 40, payload}, pkt);
	}
	return ParseStatus::NotRoce;
}

} // namespace

std::string cm_attr_name(std::uint16_t attr)
{
	static constexpr const char *names[] = {"REQ",  "MRA",  "REJ",      "REP",     "RTU",
	                                        "DREQ", "DREP", "SIDR_REQ", "SIDR_REP"};
	if (attr >= kCmReq && attr <= kCmSidrRep)
		return names[attr - kCmReq];
	char buf[8];
	std::snprintf(buf, sizeof(buf), "0x%04x", attr);
	return buf;
}

ParseStatus parse_frame(int linktype, const std::uint8_t *data, std::size_t caplen, RocePacket &pkt)
{
	const Bytes frame{data, caplen};
	std::size_t off;
	std::uint32_t ethertype;

	pkt = RocePacket{};
	switch (linktype) {
	case DLT_EN10MB:
		if (!frame.has(0, 14))
			return ParseStatus::Malformed;
		off = 12;
		ethertype = frame.be(off, 2);
		while (ethertype == 0x8100 || ethertype == 0x88A8) { // VLAN tags
			off += 4;
			if (!frame.has(off, 2))
				return ParseStatus::Malformed;
			ethertype = frame.be(off, 2);
		}
		off += 2;
		break;
	case DLT_LINUX_SLL:
		if (!frame.has(0, 16))
			return ParseStatus::Malformed;
		ethertype = frame.be(14, 2);
		off = 16;
		break;
	case DLT_LINUX_SLL2:
		if (!frame.has(0, 20))
			return ParseStatus::Malformed;
		ethertype = frame.be(0, 2);
		off = 20;
		break;
	default:
		return ParseStatus::NotRoce;
	}
	return parse_ip(ethertype, frame.from(off), pkt);
}

std::vector<RocePacket> read_capture(const std::string &file, unsigned &not_roce,
                                     unsigned &malformed)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	std::unique_ptr<pcap_t, decltype(&pcap_close)> pc(pcap_open_offline(file.c_str(), errbuf),
	                                                  &pcap_close);
	std::vector<RocePacket> packets;
	pcap_pkthdr *hdr;
	const u_char *data;
	int rc;

	if (!pc)
		throw CaptureError(file + ": " + errbuf);
	const int linktype = pcap_datalink(pc.get());
	if (linktype != DLT_EN10MB && linktype != DLT_LINUX_SLL && linktype != DLT_LINUX_SLL2) {
		const char *name = pcap_datalink_val_to_name(linktype);
		throw CaptureError(file + ": link type " + std::string(name ? name : "?") +
		                   " (Ethernet and Linux cooked captures only)");
	}
	not_roce = malformed = 0;
	while ((rc = pcap_next_ex(pc.get(), &hdr, &data)) == 1) {
		RocePacket pkt;
		switch (parse_frame(linktype, data, hdr->caplen, pkt)) {
		case ParseStatus::Roce:
			packets.push_back(std::move(pkt));
			break;
		case ParseStatus::NotRoce:
			not_roce++;
			break;
		case ParseStatus::Malformed:
			malformed++;
			break;
		}
	}
	if (rc == PCAP_ERROR)
		malformed++; // a record cut short at the end of the file
	return packets;
}

namespace
{

// One side of a connection: an address and a QPN.
using End = std::pair<std::string, std::uint32_t>;

struct Group {
	Connection conn;
	std::vector<const RocePacket *> packets;
};

struct CmSession {
	std::string active, passive;
	std::uint32_t active_id = 0, passive_id = 0;
	std::optional<std::uint32_t> active_qpn, passive_qpn;
	std::optional<std::pair<std::uint16_t, std::uint16_t>> ports;
	bool sidr = false;
	std::vector<const RocePacket *> mads;
};

// Which session a CM MAD belongs to; REQ and SIDR_REQ start one.
CmSession *match_session(std::vector<CmSession> &sessions, const RocePacket &pkt)
{
	const CmMad &cm = *pkt.cm;

	for (auto &s : sessions) {
		const bool from_active = pkt.src == s.active && pkt.dst == s.passive;
		const bool from_passive = pkt.src == s.passive && pkt.dst == s.active;
		if (s.sidr) {
			if ((from_active || from_passive) && cm.local_id == s.active_id &&
			    (cm.attr == kCmSidrReq || cm.attr == kCmSidrRep))
				return &s;
			continue;
		}
		if (from_active &&
		    (cm.local_id == s.active_id || (s.passive_id && cm.remote_id == s.passive_id)))
			return &s;
		if (from_passive &&
		    (cm.remote_id == s.active_id || (s.passive_id && cm.local_id == s.passive_id)))
			return &s;
	}
	return nullptr;
}

std::vector<CmSession> cm_sessions(const std::vector<RocePacket> &packets)
{
	std::vector<CmSession> sessions;

	for (const auto &pkt : packets) {
		if (!pkt.cm)
			continue;
		const CmMad &cm = *pkt.cm;
		CmSession *s = match_session(sessions, pkt);
		if (!s) {
			// A REQ or SIDR_REQ starts a session; any other MAD
			// whose session began before the capture starts one
			// from what it says.  A REJ without a local comm ID
			// answers a REQ (no listener, or a duplicate): it
			// comes from the passive side, and names the active
			// side's comm ID.
			const bool rej_to_req = cm.attr == kCmRej && cm.local_id == 0;
			const bool from_passive =
			    cm.attr == kCmRep || cm.attr == kCmSidrRep || rej_to_req;
			CmSession fresh;
			fresh.active = from_passive ? pkt.dst : pkt.src;
			fresh.passive = from_passive ? pkt.src : pkt.dst;
			fresh.active_id = from_passive && (cm.attr == kCmRep || rej_to_req)
			                      ? cm.remote_id
			                      : cm.local_id;
			fresh.passive_id = cm.attr == kCmRep ? cm.local_id
			                   : from_passive    ? 0
			                                     : cm.remote_id;
			fresh.sidr = cm.attr == kCmSidrReq || cm.attr == kCmSidrRep;
			sessions.push_back(fresh);
			s = &sessions.back();
		}
		s->mads.push_back(&pkt);
		if (cm.sport)
			s->ports = {{*cm.sport, *cm.dport}};
		if (cm.attr == kCmReq)
			s->active_qpn = cm.qpn;
		if (cm.attr == kCmRep) {
			s->passive_id = cm.local_id;
			s->passive_qpn = cm.qpn;
		}
		if (cm.attr == kCmSidrRep)
			s->passive_qpn = cm.qpn;
	}
	return sessions;
}

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

} // namespace

CaptureSummary judge_capture(const std::vector<RocePacket> &packets, Policy policy,
                             std::uint32_t app_fl,
                             const std::map<std::uint16_t, std::uint32_t> &port_fl)
{
	std::vector<CmSession> sessions = cm_sessions(packets);
	std::vector<Group> groups;
	using Key = std::tuple<std::string, std::string, std::uint32_t>; // src, dst, dest QPN
	std::map<Key, std::size_t> to_group;
	// Data not claimed by a session, UD (with a DETH) apart from the rest:
	// a QPN that receives both is not one connection.
	std::map<Key, std::vector<const RocePacket *>> loose, loose_ud;

	// Sessions first: their data is what goes to the QPNs they name.
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
			to_group[{s.active, s.passive, *s.passive_qpn}] = groups.size();
		}
		if (s.active_qpn)
			to_group[{s.passive, s.active, *s.active_qpn}] = groups.size();
		groups.push_back(std::move(g));
	}
	for (const auto &pkt : packets) {
		if (pkt.cm)
			continue;
		auto it = to_group.find({pkt.src, pkt.dst, pkt.dest_qp});
		if (it != to_group.end()) {
			Group &g = groups[it->second];
			g.packets.push_back(&pkt);
			// SIDR: the active side's UD QPN, learnt from its first send.
			if (g.conn.ud && g.conn.qpns.size() == 2 && g.conn.qpns[0] == 0 &&
			    pkt.src_qp) {
				g.conn.qpns[0] = *pkt.src_qp;
				to_group[{g.conn.dst, g.conn.src, *pkt.src_qp}] = it->second;
			}
			continue;
		}
		(pkt.src_qp ? loose_ud : loose)[{pkt.src, pkt.dst, pkt.dest_qp}].push_back(&pkt);
	}

	// Without CM: UD names both QPNs in every packet; RC and UC pair the
	// one QPN seen each way between two hosts.
	std::map<std::pair<End, End>, std::size_t> ud_pairs;
	for (const auto &[key, pkts] : loose_ud) {
		const auto &[src, dst, dqpn] = key;
		for (const RocePacket *p : pkts) {
			const End a{src, *p->src_qp}, b{dst, dqpn};
			auto [it, fresh] = ud_pairs.try_emplace(
			    a < b ? std::pair{a, b} : std::pair{b, a}, groups.size());
			if (fresh) {
				Group g;
				g.conn.src = src;
				g.conn.dst = dst;
				g.conn.ud = true;
				g.conn.qpns = {*p->src_qp, dqpn};
				groups.push_back(std::move(g));
			}
			groups[it->second].packets.push_back(p);
		}
	}
	std::map<std::pair<std::string, std::string>, std::vector<std::uint32_t>> rc_qpns;
	for (const auto &entry : loose) {
		const auto &[src, dst, dqpn] = entry.first;
		rc_qpns[{src, dst}].push_back(dqpn);
	}
	std::set<Key> claimed;
	for (const auto &[key, pkts] : loose) {
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
			const auto &more = loose.at(peer);
			g.conn.qpns = {back.front(), dqpn};
			g.packets.insert(g.packets.end(), more.begin(), more.end());
			claimed.insert(peer);
		} else {
			g.conn.qpns = {dqpn}; // which QP sends here is not in the packets
		}
		groups.push_back(std::move(g));
	}

	CaptureSummary sum;
	std::set<std::uint16_t> all_sports;
	for (auto &g : groups) {
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
			c.ipv6 = p->ipv6;
			if (p->ipv6) {
				d.flow_labels.insert(p->flow_label);
				c.flow_labels.insert(p->flow_label);
			}
		}
		c.packets = static_cast<unsigned>(g.packets.size());
		std::erase(c.qpns, 0u); // a SIDR client whose sends were not seen
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
