// SPDX-License-Identifier: GPL-2.0
// The frame parser's pieces (parse.cpp: IP, UDP, BTH, MADs; link.cpp: link
// layers and encapsulations): a bounded view of a frame that knows how much
// of it was captured and how long it was on the wire.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "capture/capture.h"

namespace roce::capture_detail
{

// Big-endian reads of a frame, or of a part of one: N bytes captured, LEN
// on the wire (N <= LEN).  has() says what may be read; fits() what the
// wire carried, which length fields are checked against.
struct Bytes {
	const std::uint8_t *p;
	std::size_t n, len;

	bool has(std::size_t off, std::size_t l) const
	{
		return off <= n && l <= n - off;
	}
	bool fits(std::size_t off, std::size_t l) const
	{
		return off <= len && l <= len - off;
	}
	std::uint32_t be(std::size_t off, std::size_t l) const
	{
		std::uint32_t v = 0;
		for (std::size_t i = 0; i < l; i++)
			v = v << 8 | p[off + i];
		return v;
	}
	// From OFF on (OFF <= len); the first L bytes (L <= len).
	Bytes from(std::size_t off) const
	{
		const std::size_t k = std::min(off, n);
		return {p + k, n - k, len - off};
	}
	Bytes first(std::size_t l) const
	{
		return {p, std::min(n, l), l};
	}
	// Why L bytes at OFF cannot be read: cut by the snap length, or not
	// on the wire at all.
	ParseStatus short_of(std::size_t off, std::size_t l) const
	{
		return fits(off, l) ? ParseStatus::Truncated : ParseStatus::Malformed;
	}
};

// Encapsulations (VXLAN, GRE) looked through, at most.
inline constexpr int kMaxDepth = 4;

// After an EtherType (VLAN tags, IPv4, IPv6), an Ethernet frame, a GRE
// packet (link.cpp); IP and what it carries (parse.cpp).  DEPTH counts the
// encapsulations around B.
ParseStatus parse_ethertype(std::uint32_t ethertype, Bytes b, RocePacket &pkt, int depth);
ParseStatus parse_ether(Bytes b, RocePacket &pkt, int depth);
ParseStatus parse_gre(Bytes b, RocePacket &pkt, int depth);
ParseStatus parse_ipv4(Bytes b, RocePacket &pkt, int depth);
ParseStatus parse_ipv6(Bytes b, RocePacket &pkt, int depth);

} // namespace roce::capture_detail
