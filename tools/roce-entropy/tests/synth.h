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

} // namespace roce
