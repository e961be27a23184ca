// SPDX-License-Identifier: GPL-2.0
// One captured frame to a RoCE v2 packet: link layer, IP, UDP, BTH, DETH
// and the CM MAD fields the grouping uses.
#include <arpa/inet.h>
#include <cstdio>
#include <pcap/pcap.h>

#include "capture/capture.h"

namespace roce
{
namespace
{

constexpr std::size_t kBthLen = 12, kDethLen = 8, kIcrcLen = 4, kMadHdrLen = 24;
constexpr std::uint8_t kMgmtClassCm = 0x07;

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
		pkt.ifindex = frame.be(4, 4);
		off = 20;
		break;
	default:
		return ParseStatus::NotRoce;
	}
	return parse_ip(ethertype, frame.from(off), pkt);
}

} // namespace roce
