// SPDX-License-Identifier: GPL-2.0
// The capture tests' fixtures: conversations of synthesized frames, written
// to a temporary capture and judged.
#pragma once

#include <cstdio>
#include <optional>
#include <pcap/pcap.h>
#include <string>
#include <unistd.h>
#include <vector>

#include "capture/capture.h"
#include "synth.h"
#include "test_paths.h"

namespace roce::test
{

// Frames of one connection: every one from A to B or back, one port.
struct Conversation {
	bool ipv6;
	std::string a, b;
	std::uint16_t sport;
	std::uint32_t fl;
	std::vector<Buf> frames;

	void add(bool from_a, std::uint32_t dqpn, std::optional<std::uint32_t> sqpn = {},
	         Buf payload = {}, std::uint8_t opcode = 0x04)
	{
		Frame f;
		f.ipv6 = ipv6;
		f.src = from_a ? a : b;
		f.dst = from_a ? b : a;
		f.sport = sport;
		f.fl = fl;
		f.dqpn = dqpn;
		f.sqpn = sqpn;
		f.payload = std::move(payload);
		f.opcode = sqpn ? 0x64 : opcode; // UD SEND ONLY with a DETH
		frames.push_back(build(f));
	}
	void mad(bool from_a, const Mad &m)
	{
		add(from_a, 1, 1, m.b);
	}
};

// An rdma_cm RC connection: REQ, REP, RTU, data both ways, DREQ, DREP.
inline Conversation cm_rc(bool ipv6, std::uint16_t sport, std::uint32_t fl)
{
	Conversation c{
	    ipv6, ipv6 ? "fd01::2" : "10.1.0.2", ipv6 ? "fd02::2" : "10.2.0.2", sport, fl, {}};
	c.mad(true, req(0x1111, 0x21, 1, 7471));
	c.mad(false, rep(0x2222, 0x1111, 0x22));
	c.mad(true, ids(kCmRtu, 0x1111, 0x2222));
	c.add(true, 0x22);
	c.add(false, 0x21, {}, {}, 0x11); // ACK
	c.add(false, 0x21);               // B's send to A's QP
	c.add(true, 0x22, {}, {}, 0x11);
	c.mad(true, ids(kCmDreq, 0x1111, 0x2222));
	c.mad(false, ids(kCmDrep, 0x2222, 0x1111));
	return c;
}

class TempCapture
{
public:
	explicit TempCapture(const std::vector<Buf> &frames, int linktype = DLT_EN10MB,
	                     std::vector<std::size_t> caplens = {})
	{
		char tmpl[] = "/tmp/capture-test-XXXXXX";
		int fd = mkstemp(tmpl);
		close(fd);
		path_ = tmpl;
		write_capture(path_, frames, linktype, caplens);
	}
	~TempCapture()
	{
		std::remove(path_.c_str());
	}
	TempCapture(const TempCapture &) = delete;
	TempCapture &operator=(const TempCapture &) = delete;
	const std::string &path() const
	{
		return path_;
	}

private:
	std::string path_;
};

struct Judged {
	CaptureSummary sum;
	unsigned not_roce = 0, malformed = 0, truncated = 0, cut = 0;
};

inline Judged judge_frames(const std::vector<Buf> &frames, Policy policy, std::uint32_t app_fl = 0,
                           std::vector<std::size_t> caplens = {})
{
	TempCapture cap(frames, DLT_EN10MB, std::move(caplens));
	Judged j;
	ReadCounts rc;
	auto pkts = read_capture(cap.path(), rc);
	j.not_roce = rc.not_roce;
	j.malformed = rc.malformed;
	j.truncated = rc.truncated;
	j.cut = rc.cut;
	j.sum = judge_capture(pkts, policy, app_fl);
	return j;
}

// The project's capture tests/data/NAME judged under POLICY.
inline CaptureSummary judge_file(const std::string &name, Policy policy,
                                 ReadCounts *counts = nullptr)
{
	ReadCounts rc;
	auto pkts = read_capture(test::data_dir() + "/" + name, rc);
	if (counts)
		*counts = rc;
	return judge_capture(pkts, policy, 0);
}

// By hand, RFC, CM ports 1 and 7471: h = 7471 = 0x1d2f; h ^= h >> 16 (0);
// h ^= h >> 8: 0x1d2f ^ 0x1d = 0x1d32.  Port 0x1d32 | 0xc000 = 0xdd32.
inline constexpr std::uint32_t kFlPorts1And7471 = 0x1d32;
inline constexpr std::uint16_t kSportPorts1And7471 = 0xdd32;

// By hand: 6.12 rxe's QP1 port 0xc000 + hash_32(1, 14) = 0xc000 + 0x1872.
inline constexpr std::uint16_t kQp1Port = 0xD872;
// rdma_cm's 6.12 flow label of CM ports 1 and 7471: 1 * 31 + 7471 = 0x1d4e,
// folded (no bits above 13) port 0xdd4e.
inline constexpr std::uint16_t kLinuxSportPorts1And7471 = 0xDD4E;
// hash_32(q, 14) = (q * 0x61c88647 mod 2^32) >> 18: 0x11 -> 0x7e50eab7 >>
// 18 = 0x1f94; 0x12 -> 0xe01970fe >> 18 = 0x3806; 0x30 -> 0x55992d50 >>
// 18 = 0x1566; 0x40 -> 0x722191c0 >> 18 = 0x1c88.
inline constexpr std::uint16_t kLegacy11 = 0xDF94, kLegacy12 = 0xF806, kLegacy30 = 0xD566,
                               kLegacy40 = 0xDC88;

// cm_rc()'s connection as stock 6.12 rxe sends it: CM MADs on QP1's port,
// data on DATA_SPORT, flow label FL (0 on stock) on everything.
inline Conversation linux_cm_rc(bool ipv6, std::uint16_t data_sport, std::uint32_t fl = 0)
{
	Conversation c{
	    ipv6, ipv6 ? "fd01::2" : "10.1.0.2", ipv6 ? "fd02::2" : "10.2.0.2", kQp1Port, fl, {}};
	c.mad(true, req(0x1111, 0x21, 1, 7471));
	c.mad(false, rep(0x2222, 0x1111, 0x22));
	c.mad(true, ids(kCmRtu, 0x1111, 0x2222));
	c.sport = data_sport;
	c.add(true, 0x22);
	c.add(false, 0x21, {}, {}, 0x11);
	c.add(false, 0x21);
	c.add(true, 0x22, {}, {}, 0x11);
	c.sport = kQp1Port;
	c.mad(true, ids(kCmDreq, 0x1111, 0x2222));
	c.mad(false, ids(kCmDrep, 0x2222, 0x1111));
	return c;
}

} // namespace roce::test
