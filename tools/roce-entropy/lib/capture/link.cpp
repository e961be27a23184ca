// SPDX-License-Identifier: GPL-2.0
// Link layers and the encapsulations switches mirror traffic in: Ethernet
// with any stack of VLAN tags (802.1Q 0x8100, 802.1ad 0x88a8, the older
// QinQ 0x9100), Linux cooked captures, GRE with ERSPAN types I, II and III,
// transparent Ethernet bridging or IP inside.  VXLAN is UDP (parse.cpp).
#include <pcap/pcap.h>

#include "capture/bytes.h"

namespace roce::capture_detail
{
namespace
{

constexpr std::uint32_t kEthIpv4 = 0x0800, kEthIpv6 = 0x86DD;
constexpr std::uint32_t kGreErspan12 = 0x88BE, kGreErspan3 = 0x22EB, kGreTeb = 0x6558;
constexpr std::uint32_t kGreChecksum = 0x8000, kGreKey = 0x2000, kGreSeq = 0x1000,
                        kGreVersion = 0x0007;

bool vlan_tag(std::uint32_t ethertype)
{
	return ethertype == 0x8100 || ethertype == 0x88A8 || ethertype == 0x9100;
}

// ERSPAN type II (draft-foschiano-erspan, 8 bytes, version 1) or type III
// (12 bytes, version 2, then 8 more when its O flag says a platform
// specific subheader follows); an Ethernet frame after.  Type III's frame
// type 0 is Ethernet, anything else is not looked into.
ParseStatus parse_erspan(int type, Bytes b, RocePacket &pkt, int depth)
{
	const std::size_t hdr = type == 2 ? 8 : 12;

	if (!b.has(0, hdr))
		return b.short_of(0, hdr);
	if (b.p[0] >> 4 != type - 1)
		return ParseStatus::Malformed; // the version field
	if (type == 2)
		return parse_ether(b.from(hdr), pkt, depth);
	const std::uint32_t bits = b.be(10, 2);
	const std::size_t sub = bits & 1 ? 8 : 0;
	if ((bits >> 10 & 0x1F) != 0)
		return ParseStatus::NotRoce;
	if (!b.fits(hdr, sub))
		return ParseStatus::Malformed;
	return parse_ether(b.from(hdr + sub), pkt, depth);
}

} // namespace

ParseStatus parse_ethertype(std::uint32_t ethertype, Bytes b, RocePacket &pkt, int depth)
{
	while (vlan_tag(ethertype)) {
		if (!b.has(0, 4))
			return b.short_of(0, 4);
		ethertype = b.be(2, 2);
		b = b.from(4);
	}
	if (ethertype == kEthIpv4)
		return parse_ipv4(b, pkt, depth);
	if (ethertype == kEthIpv6)
		return parse_ipv6(b, pkt, depth);
	return ParseStatus::NotRoce;
}

ParseStatus parse_ether(Bytes b, RocePacket &pkt, int depth)
{
	if (!b.has(0, 14))
		return b.short_of(0, 14);
	return parse_ethertype(b.be(12, 2), b.from(14), pkt, depth);
}

// GRE (RFC 2784, 2890): version 0, optional checksum, key and sequence
// number.  ERSPAN's type I has no sequence number, type II has one.
ParseStatus parse_gre(Bytes b, RocePacket &pkt, int depth)
{
	if (++depth > kMaxDepth)
		return ParseStatus::NotRoce;
	if (!b.has(0, 4))
		return b.short_of(0, 4);
	const std::uint32_t flags = b.be(0, 2), proto = b.be(2, 2);
	if (flags & kGreVersion)
		return ParseStatus::NotRoce; // PPTP's enhanced GRE
	const std::size_t off = 4 + (flags & kGreChecksum ? 4 : 0) + (flags & kGreKey ? 4 : 0) +
	                        (flags & kGreSeq ? 4 : 0);
	if (!b.fits(off, 0))
		return ParseStatus::Malformed;
	const Bytes inner = b.from(off);
	switch (proto) {
	case kGreErspan12:
		if (flags & kGreSeq)
			return parse_erspan(2, inner, pkt, depth);
		return parse_ether(inner, pkt, depth); // type I: no ERSPAN header
	case kGreErspan3:
		return parse_erspan(3, inner, pkt, depth);
	case kGreTeb:
		return parse_ether(inner, pkt, depth);
	case kEthIpv4:
	case kEthIpv6:
		return parse_ethertype(proto, inner, pkt, depth);
	default:
		return ParseStatus::NotRoce;
	}
}

} // namespace roce::capture_detail

namespace roce
{

using namespace capture_detail;

ParseStatus parse_frame(int linktype, const std::uint8_t *data, std::size_t caplen, RocePacket &pkt,
                        std::size_t wirelen)
{
	const Bytes frame{data, caplen, wirelen < caplen ? caplen : wirelen};
	ParseStatus status;

	pkt = RocePacket{};
	switch (linktype) {
	case DLT_EN10MB:
		status = parse_ether(frame, pkt, 0);
		break;
	case DLT_LINUX_SLL: // 16 bytes, the protocol last
		if (!frame.has(0, 16))
			return frame.short_of(0, 16);
		status = parse_ethertype(frame.be(14, 2), frame.from(16), pkt, 0);
		break;
	case DLT_LINUX_SLL2: // 20 bytes, the protocol first, then the interface
		if (!frame.has(0, 20))
			return frame.short_of(0, 20);
		pkt.ifindex = frame.be(4, 4);
		status = parse_ethertype(frame.be(0, 2), frame.from(20), pkt, 0);
		break;
	default:
		return ParseStatus::NotRoce;
	}
	pkt.cut = frame.n < frame.len;
	return status;
}

} // namespace roce
