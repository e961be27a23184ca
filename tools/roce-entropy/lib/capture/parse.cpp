// SPDX-License-Identifier: GPL-2.0
// IP (IPv6 extension headers included), UDP (RoCE v2, VXLAN), the BTH,
// the DETH and the CM MAD fields the grouping uses.  A frame cut by the
// snap length is read as far as it was kept: a field not captured is left
// unknown, and only a length field that the frame on the wire contradicts
// makes it malformed.
#include <arpa/inet.h>
#include <cstdio>

#include "capture/bytes.h"

namespace roce
{

std::string IpAddr::text() const
{
	char buf[INET6_ADDRSTRLEN];
	inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), buf, sizeof(buf));
	return buf;
}

std::optional<IpAddr> IpAddr::parse(std::string_view text)
{
	const std::string s(text);
	IpAddr a;

	if (inet_pton(AF_INET, s.c_str(), a.bytes.data()) == 1)
		return a;
	a.v6 = true;
	if (inet_pton(AF_INET6, s.c_str(), a.bytes.data()) == 1)
		return a;
	return std::nullopt;
}

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

} // namespace roce

namespace roce::capture_detail
{
namespace
{

constexpr std::size_t kBthLen = 12, kDethLen = 8, kIcrcLen = 4, kMadHdrLen = 24;
constexpr std::uint8_t kMgmtClassCm = 0x07;
constexpr std::uint32_t kVxlanPort = 4789;
constexpr unsigned kMaxExtHeaders = 8;

// The IP header's part of a RoCE v2 packet, kept until its UDP says RoCE.
struct IpHdr {
	IpAddr src, dst;
	std::uint32_t flow_label = 0;
};

bool is_ud(std::uint8_t opcode)
{
	return (opcode & 0xE0) == 0x60;
}

// rdma_cm's service IDs are 0x00000000_01PP_pppp: PP the port space, pppp
// the port.
bool rdma_cm_service(std::uint64_t sid)
{
	return (sid >> 24) == 0x01;
}

// A REQ's or SIDR_REQ's rdma_cm ports: the service ID at 8 in D, the
// active side's port at PORT_OFF (in the cma_hdr of the private data).
void cm_ports(Bytes d, std::size_t port_off, CmMad &cm)
{
	if (!d.has(8, 8)) {
		cm.ports_cut = true;
		return;
	}
	const std::uint64_t sid = std::uint64_t{d.be(8, 4)} << 32 | d.be(12, 4);
	if (!rdma_cm_service(sid))
		return;
	if (!d.has(port_off, 2)) {
		cm.ports_cut = true;
		return;
	}
	cm.dport = static_cast<std::uint16_t>(sid);
	cm.sport = static_cast<std::uint16_t>(d.be(port_off, 2));
}

// The CM fields the grouping needs, as far as captured.  The message must
// have been long enough on the wire for them; its comm IDs must be there.
ParseStatus parse_cm(Bytes mad, CmMad &cm)
{
	static constexpr std::size_t wire_need[] = {
	    144, 8, 8, 15, 8, 8, 8, 20, 11}; // REQ ... SIDR_REP: the last field's end
	const Bytes d = mad.from(kMadHdrLen);

	cm.attr = static_cast<std::uint16_t>(mad.be(16, 2));
	const std::size_t need =
	    cm.attr >= kCmReq && cm.attr <= kCmSidrRep ? wire_need[cm.attr - kCmReq] : 8;
	if (!d.fits(0, need))
		return ParseStatus::Malformed;
	if (!d.has(0, 8))
		return ParseStatus::Truncated;
	cm.local_id = d.be(0, 4);
	cm.remote_id = d.be(4, 4);
	auto qpn_at = [&](std::size_t off) {
		if (d.has(off, 3))
			cm.qpn = d.be(off, 3);
	};
	switch (cm.attr) {
	case kCmReq:
		cm.remote_id = 0;
		qpn_at(32);
		cm_ports(d, 142, cm);
		break;
	case kCmRep:
		qpn_at(12);
		break;
	case kCmSidrReq:
		cm.remote_id = 0;
		cm_ports(d, 18, cm);
		break;
	case kCmSidrRep:
		cm.remote_id = 0;
		qpn_at(8);
		break;
	default:
		break;
	}
	return ParseStatus::Roce;
}

// The UDP payload: BTH, DETH for UD, a CM MAD to QP1.  The ICRC ends it on
// the wire; it need not have been captured.
ParseStatus parse_roce(Bytes b, const IpHdr &ip, RocePacket &pkt)
{
	if (!b.fits(0, kBthLen + kIcrcLen))
		return ParseStatus::Malformed;
	if (!b.has(0, kBthLen))
		return ParseStatus::Truncated;
	pkt.src = ip.src;
	pkt.dst = ip.dst;
	pkt.flow_label = ip.flow_label;
	pkt.opcode = static_cast<std::uint8_t>(b.be(0, 1));
	pkt.dest_qp = b.be(5, 3);
	if (!is_ud(pkt.opcode))
		return ParseStatus::Roce;
	if (!b.fits(kBthLen, kDethLen + kIcrcLen))
		return ParseStatus::Malformed;
	if (!b.has(kBthLen, kDethLen))
		return ParseStatus::Truncated;
	pkt.src_qp = b.be(kBthLen + 5, 3);
	if (pkt.dest_qp != kGsiQpn)
		return ParseStatus::Roce;
	const Bytes mad = b.from(kBthLen + kDethLen);
	if (!mad.fits(0, kMadHdrLen + kIcrcLen))
		return ParseStatus::Malformed;
	if (!mad.has(0, kMadHdrLen))
		return ParseStatus::Truncated;
	if (mad.be(1, 1) != kMgmtClassCm)
		return ParseStatus::Roce;
	CmMad cm;
	const ParseStatus status = parse_cm(mad.first(mad.len - kIcrcLen), cm);
	if (status == ParseStatus::Roce)
		pkt.cm = cm;
	return status;
}

// UDP to RoCE v2's port, or VXLAN's (its 8-byte header, then Ethernet).
ParseStatus parse_udp(Bytes b, const IpHdr &ip, RocePacket &pkt, int depth)
{
	if (!b.has(0, 8))
		return b.short_of(0, 8);
	const std::uint32_t dport = b.be(2, 2);
	if (dport != kRoceV2Port && dport != kVxlanPort)
		return ParseStatus::NotRoce;
	const std::size_t len = b.be(4, 2);
	if (len < 8 || len > b.len)
		return ParseStatus::Malformed;
	const Bytes payload = b.first(len).from(8);
	if (dport == kRoceV2Port) {
		pkt.udp_sport = static_cast<std::uint16_t>(b.be(0, 2));
		return parse_roce(payload, ip, pkt);
	}
	if (++depth > kMaxDepth)
		return ParseStatus::NotRoce;
	if (!payload.has(0, 8))
		return payload.short_of(0, 8);
	return parse_ether(payload.from(8), pkt, depth);
}

// What an IP header carries: UDP, or GRE.
ParseStatus parse_transport(std::uint32_t proto, Bytes b, const IpHdr &ip, RocePacket &pkt,
                            int depth)
{
	if (proto == IPPROTO_UDP)
		return parse_udp(b, ip, pkt, depth);
	if (proto == IPPROTO_GRE)
		return parse_gre(b, pkt, depth);
	return ParseStatus::NotRoce;
}

} // namespace

ParseStatus parse_ipv4(Bytes b, RocePacket &pkt, int depth)
{
	if (!b.has(0, 20))
		return b.short_of(0, 20);
	if (b.p[0] >> 4 != 4)
		return ParseStatus::Malformed;
	const std::size_t ihl = (b.p[0] & 0xF) * 4u, total = b.be(2, 2);
	if (ihl < 20 || total < ihl || !b.fits(0, total))
		return ParseStatus::Malformed;
	if (b.be(6, 2) & 0x3FFF)
		return ParseStatus::NotRoce; // a fragment
	IpHdr ip;
	std::copy_n(b.p + 12, 4, ip.src.bytes.begin());
	std::copy_n(b.p + 16, 4, ip.dst.bytes.begin());
	return parse_transport(b.p[9], b.first(total).from(ihl), ip, pkt, depth);
}

// IPv6 and its extension headers: hop-by-hop options, routing,
// destination options (8-byte units after the first 8), the fragment
// header (a fragment is not looked into) and AH (4-byte units).
ParseStatus parse_ipv6(Bytes b, RocePacket &pkt, int depth)
{
	if (!b.has(0, 40))
		return b.short_of(0, 40);
	if (b.p[0] >> 4 != 6)
		return ParseStatus::Malformed;
	const std::size_t payload = b.be(4, 2);
	if (!b.fits(40, payload))
		return ParseStatus::Malformed;
	IpHdr ip;
	ip.src.v6 = ip.dst.v6 = true;
	ip.flow_label = b.be(0, 4) & kFlowLabelMask;
	std::copy_n(b.p + 8, 16, ip.src.bytes.begin());
	std::copy_n(b.p + 24, 16, ip.dst.bytes.begin());

	const Bytes body = b.first(40 + payload).from(40);
	std::uint32_t next = b.p[6];
	std::size_t off = 0;
	for (unsigned i = 0; i < kMaxExtHeaders; i++) {
		std::size_t len;
		if (next != 0 && next != 43 && next != 44 && next != 60 && next != 51)
			break;
		if (!body.has(off, 2))
			return body.short_of(off, 2);
		if (next == 44) { // fragment: 8 bytes
			if (!body.has(off, 8))
				return body.short_of(off, 8);
			if (body.be(off + 2, 2) & 0xFFF9)
				return ParseStatus::NotRoce; // an offset, or more fragments
			len = 8;
		} else if (next == 51) {
			len = (body.p[off + 1] + 2u) * 4;
		} else {
			len = (body.p[off + 1] + 1u) * 8;
		}
		next = body.p[off];
		off += len;
		if (!body.fits(off, 0))
			return ParseStatus::Malformed;
	}
	return parse_transport(next, body.from(off), ip, pkt, depth);
}

} // namespace roce::capture_detail
