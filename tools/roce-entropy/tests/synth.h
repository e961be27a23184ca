// SPDX-License-Identifier: GPL-2.0
// Synthesized RoCE v2 frames and captures, for the capture reader's tests
// and benchmark.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roce
{

using Buf = std::vector<std::uint8_t>;

// Store V big-endian in LEN bytes at OFF, growing B as needed.
void put(Buf &b, std::size_t off, std::uint64_t v, std::size_t len);

// A 256-byte CM MAD: header, then the CM message fields at their IBTA
// offsets (relative to the end of the 24-byte header).
struct Mad {
	Buf b = Buf(256, 0);

	explicit Mad(std::uint16_t attr);
	Mad &at(std::size_t off, std::uint64_t v, std::size_t len);
};

// An rdma_cm REQ (RDMA_PS_TCP) with its ports in the service ID and cma_hdr.
Mad req(std::uint32_t comm_id, std::uint32_t qpn, std::uint16_t sport, std::uint16_t dport);
Mad rep(std::uint32_t comm_id, std::uint32_t remote, std::uint32_t qpn);
// RTU, DREQ, DREP, REJ: the two comm IDs.
Mad ids(std::uint16_t attr, std::uint32_t local, std::uint32_t remote);
// An rdma_cm SIDR REQ (RDMA_PS_UDP) with its ports in the service ID and
// cma_hdr, and the SIDR REP that answers it from QPN.
Mad sidr_req(std::uint32_t req_id, std::uint16_t sport, std::uint16_t dport);
Mad sidr_rep(std::uint32_t req_id, std::uint32_t qpn);

struct Frame {
	bool ipv6 = false;
	std::string src, dst;
	std::uint16_t sport = 0xC000, dport = 4791;
	std::uint32_t fl = 0;
	std::uint8_t opcode = 0x04; // RC SEND ONLY
	std::uint32_t dqpn = 0;
	std::optional<std::uint32_t> sqpn; // adds a DETH
	Buf payload;
};

// Ethernet, IPv4 or IPv6, UDP, BTH, DETH when asked, payload, ICRC.
Buf build(const Frame &f);

// Write FRAMES to a pcap file; CAPLENS[i], when given and not 0, cuts frame i.
void write_capture(const std::string &path, const std::vector<Buf> &frames, int linktype,
                   const std::vector<std::size_t> &caplens = {});

// The frames of a capture (the project's own, tests/data), as captured.
std::vector<Buf> read_frames(const std::string &path);

// Ethernet frame ETH with VLAN tags of TPIDS pushed in front of its
// EtherType, outermost first (0x88a8, 0x8100: an 802.1ad QinQ frame).
Buf with_vlans(const Buf &eth, const std::vector<std::uint16_t> &tpids);

// IPv6 frame ETH (untagged) with extension headers of the types NEXT
// (0 hop-by-hop, 43 routing, 44 fragment, 60 destination options, 51 AH)
// between its IPv6 header and its UDP, in order.
Buf with_ipv6_ext(const Buf &eth, const std::vector<std::uint8_t> &next);

// How a switch mirrors a frame: VXLAN (UDP 4789), GRE with ERSPAN type I,
// II or III (III with its platform subheader when SUBHEADER), over IPv4
// or IPv6 between two mirror endpoints, in an outer Ethernet frame.
enum class Mirror { Vxlan, Erspan1, Erspan2, Erspan3 };
Buf mirrored(const Buf &eth, Mirror how, bool outer_ipv6 = false, bool subheader = false);

} // namespace roce
