// SPDX-License-Identifier: GPL-2.0
// The capture reader on captures written here with libpcap from
// synthesized frames, and on one real capture from the VM's wire tests.
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <pcap/pcap.h>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "capture/capture.h"
#include "cli.h"
#include "synth.h"

namespace roce
{
namespace
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
Conversation cm_rc(bool ipv6, std::uint16_t sport, std::uint32_t fl)
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
	unsigned not_roce = 0, malformed = 0;
};

Judged judge_frames(const std::vector<Buf> &frames, Policy policy, std::uint32_t app_fl = 0,
                    std::vector<std::size_t> caplens = {})
{
	TempCapture cap(frames, DLT_EN10MB, std::move(caplens));
	Judged j;
	auto pkts = read_capture(cap.path(), j.not_roce, j.malformed);
	j.sum = judge_capture(pkts, policy, app_fl);
	return j;
}

// By hand, RFC, CM ports 1 and 7471: h = 7471 = 0x1d2f; h ^= h >> 16 (0);
// h ^= h >> 8: 0x1d2f ^ 0x1d = 0x1d32.  Port 0x1d32 | 0xc000 = 0xdd32.
constexpr std::uint32_t kFlPorts1And7471 = 0x1d32;
constexpr std::uint16_t kSportPorts1And7471 = 0xdd32;

TEST(Capture, CmRcConnectionIsOneConnectionOnItsPredictedPort)
{
	auto c = cm_rc(false, kSportPorts1And7471, 0);
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	const Connection &conn = j.sum.connections[0];
	EXPECT_EQ(conn.src, "10.1.0.2");
	EXPECT_EQ(conn.dst, "10.2.0.2");
	EXPECT_EQ(conn.qpns, (std::vector<std::uint32_t>{0x21, 0x22}));
	ASSERT_TRUE(conn.cm_ports);
	EXPECT_EQ(conn.cm_ports->first, 1);
	EXPECT_EQ(conn.cm_ports->second, 7471);
	EXPECT_EQ(conn.cm_mads, 5u);
	EXPECT_EQ(conn.packets, 9u);
	EXPECT_EQ(conn.forward.packets, 5u); // REQ, RTU, SEND, ACK, DREQ
	EXPECT_EQ(conn.reverse.packets, 4u); // REP, ACK, SEND, DREP
	EXPECT_EQ(conn.forward.udp_sports, std::set<std::uint16_t>{kSportPorts1And7471});
	EXPECT_EQ(conn.expected_flow_label, kFlPorts1And7471);
	EXPECT_TRUE(conn.consistent);
	EXPECT_EQ(j.sum.inconsistent, 0u);
	EXPECT_EQ(j.sum.distinct_udp_sports, 1u);
	EXPECT_EQ(j.malformed, 0u);
}

// A connection made under "off" whose QPs were modified under "rfc": CM MADs
// on 0xC000, data on the QPN port (0x21 * 0x22 = 0x462: port 0xc462).  The
// two sets are reported apart, per direction.
TEST(Capture, CmAndDataPortsAreReportedApart)
{
	Conversation c{false, "10.1.0.2", "10.2.0.2", 0xC000, 0, {}};
	c.mad(true, req(0x1111, 0x21, 1, 7471));
	c.mad(false, rep(0x2222, 0x1111, 0x22));
	c.sport = 0xC462;
	c.add(true, 0x22);
	c.add(false, 0x21);
	c.sport = 0xC000;
	c.mad(true, ids(kCmDreq, 0x1111, 0x2222));
	auto j = judge_frames(c.frames, Policy::Off);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	const Connection &conn = j.sum.connections[0];
	const std::set<std::uint16_t> base{0xC000}, qpn_port{0xC462};
	EXPECT_EQ(conn.forward.cm_udp_sports, base);
	EXPECT_EQ(conn.forward.data_udp_sports, qpn_port);
	EXPECT_EQ(conn.reverse.cm_udp_sports, base);
	EXPECT_EQ(conn.reverse.data_udp_sports, qpn_port);
	EXPECT_EQ(conn.udp_sports, (std::set<std::uint16_t>{0xC000, 0xC462}));
	EXPECT_FALSE(conn.consistent);
}

TEST(Capture, OnePacketOnAnotherPortMakesTheConnectionDisagree)
{
	auto c = cm_rc(false, kSportPorts1And7471, 0);
	Conversation stray = c;
	stray.frames.clear();
	stray.sport = 0xC000;
	stray.add(false, 0x21, {}, {}, 0x11);
	c.frames.push_back(stray.frames[0]);
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_FALSE(j.sum.connections[0].consistent);
	EXPECT_EQ(j.sum.inconsistent, 1u);
	EXPECT_EQ(j.sum.distinct_udp_sports, 2u);
}

TEST(Capture, WrongPolicyDisagrees)
{
	auto c = cm_rc(false, kSportPorts1And7471, 0);
	EXPECT_EQ(judge_frames(c.frames, Policy::Mix).sum.inconsistent, 1u);
	EXPECT_EQ(judge_frames(c.frames, Policy::Off).sum.inconsistent, 1u);
}

TEST(Capture, Ipv6FlowLabelMustMatchToo)
{
	auto good = cm_rc(true, kSportPorts1And7471, kFlPorts1And7471);
	auto j = judge_frames(good.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_TRUE(j.sum.connections[0].ipv6);
	EXPECT_EQ(j.sum.connections[0].flow_labels, std::set<std::uint32_t>{kFlPorts1And7471});
	EXPECT_TRUE(j.sum.connections[0].consistent);

	auto zero_fl = cm_rc(true, kSportPorts1And7471, 0); // 6.12's rxe: always 0
	EXPECT_EQ(judge_frames(zero_fl.frames, Policy::Rfc).sum.inconsistent, 1u);
}

TEST(Capture, OffExpectsTheBasePortAndNoFlowLabel)
{
	auto c = cm_rc(true, 0xC000, 0);
	EXPECT_EQ(judge_frames(c.frames, Policy::Off).sum.inconsistent, 0u);
}

TEST(Capture, ApplicationFlowLabelWins)
{
	// 0x5a5a5: low 14 bits 0x1a5a5 & 0x3fff = 0x25a5, high 0x5a5a5 >> 14 = 0x16;
	// 0x25a5 ^ 0x16 = 0x25b3; port 0xe5b3.
	auto c = cm_rc(true, 0xE5B3, 0x5A5A5);
	EXPECT_EQ(judge_frames(c.frames, Policy::Off, 0x5A5A5).sum.inconsistent, 0u);
	EXPECT_EQ(judge_frames(c.frames, Policy::Rfc, 0x5A5A5).sum.inconsistent, 0u);
	EXPECT_EQ(judge_frames(c.frames, Policy::Rfc).sum.inconsistent, 1u);
}

// By hand, RFC, QPNs 0x11 and 0x12: 0x11 * 0x12 = 0x132, no bits above 20;
// port 0xc132.
TEST(Capture, NonCmRcPairsTheOneQpnSeenEachWay)
{
	Conversation c{false, "10.1.0.2", "10.2.0.2", 0xC132, 0, {}};
	c.add(true, 0x12);
	c.add(false, 0x11, {}, {}, 0x11);
	c.add(false, 0x11);
	c.add(true, 0x12, {}, {}, 0x11);
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].qpns, (std::vector<std::uint32_t>{0x11, 0x12}));
	EXPECT_EQ(j.sum.connections[0].expected_flow_label, 0x132u);
	EXPECT_FALSE(j.sum.connections[0].cm_ports);
	EXPECT_TRUE(j.sum.connections[0].consistent);
}

TEST(Capture, NonCmRcWithoutAPairHasNothingToPredict)
{
	Conversation c{false, "10.1.0.2", "10.2.0.2", 0xC132, 0, {}};
	c.add(true, 0x12);
	c.add(true, 0x13);
	c.add(false, 0x11);
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 3u);
	for (const auto &conn : j.sum.connections) {
		EXPECT_FALSE(conn.expected_flow_label);
		EXPECT_TRUE(conn.consistent); // one port each
	}
}

TEST(Capture, UdPairsBySourceAndDestinationQpn)
{
	Conversation c{false, "10.1.0.2", "10.2.0.2", 0xC132, 0, {}};
	c.add(true, 0x12, 0x11);
	c.add(false, 0x11, 0x12);
	c.add(true, 0x12, 0x11);
	Conversation other{false, "10.1.0.2", "10.2.0.2", 0xC143, 0, {}}; // 0x11 * 0x13
	other.add(true, 0x13, 0x11);
	c.frames.push_back(other.frames[0]);
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 2u);
	EXPECT_TRUE(j.sum.connections[0].ud);
	EXPECT_EQ(j.sum.connections[0].packets, 3u);
	EXPECT_EQ(j.sum.connections[1].packets, 1u);
	EXPECT_EQ(j.sum.inconsistent, 0u);
}

// Found by the capture fuzzer (its input, minimized, is the seed
// fuzz/corpus/capture/regress-ud-then-rc-same-qpn): a UD send, then an RC
// send to the same QPN between the same hosts.  The grouping took every
// packet to that QPN for UD when the first was, and dereferenced the RC
// packet's missing source QPN.  Each now goes its own way.
TEST(Capture, UdAndRcToOneQpnAreTwoConnections)
{
	Conversation c{false, "10.1.0.2", "10.2.0.2", 0xC132, 0, {}};
	c.add(true, 0x12, 0x11);
	c.add(true, 0x12, {}, {}, 0x00); // RC SEND FIRST
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 2u);
	EXPECT_TRUE(j.sum.connections[0].ud);
	EXPECT_EQ(j.sum.connections[0].qpns, (std::vector<std::uint32_t>{0x11, 0x12}));
	EXPECT_EQ(j.sum.connections[0].packets, 1u);
	EXPECT_TRUE(j.sum.connections[0].consistent); // 0x11 * 0x12 = 0x132
	EXPECT_FALSE(j.sum.connections[1].ud);
	EXPECT_EQ(j.sum.connections[1].qpns, (std::vector<std::uint32_t>{0x12}));
	EXPECT_EQ(j.sum.connections[1].packets, 1u);
	EXPECT_EQ(j.sum.packets, 2u);
}

// Found by the capture fuzzer (its input, minimized, is the seed
// fuzz/corpus/capture/regress-rc-to-itself): RC traffic from a host to
// itself, one QPN.  Its lists of QPNs "each way" are one list, so the QPN
// was paired with itself and every packet counted twice.
TEST(Capture, RcFromAHostToItselfIsCountedOnce)
{
	Conversation c{false, "10.1.0.2", "10.1.0.2", 0xC132, 0, {}};
	c.add(true, 0x12);
	c.add(true, 0x12);
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].qpns, (std::vector<std::uint32_t>{0x12}));
	EXPECT_EQ(j.sum.connections[0].packets, 2u);
	EXPECT_EQ(j.sum.connections[0].forward.packets, 2u);
	EXPECT_FALSE(j.sum.connections[0].expected_flow_label);
	EXPECT_EQ(j.sum.packets, 2u);
}

TEST(Capture, SidrJoinsItsUdTrafficThroughTheRepQpn)
{
	Conversation c{true, "fd01::2", "fd02::2", kSportPorts1And7471, kFlPorts1And7471, {}};
	Mad sidr_req = Mad(kCmSidrReq)
	                   .at(0, 0x77, 4)
	                   .at(8, 0x0000000001110000ull | 7471, 8) // RDMA_PS_UDP
	                   .at(16, 0, 2)
	                   .at(18, 1, 2);
	c.mad(true, sidr_req);
	c.mad(false, Mad(kCmSidrRep).at(0, 0x77, 4).at(8, 0x30, 3));
	c.add(true, 0x30, 0x40);
	c.add(false, 0x40, 0x30);
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	const Connection &conn = j.sum.connections[0];
	EXPECT_TRUE(conn.ud);
	EXPECT_EQ(conn.qpns, (std::vector<std::uint32_t>{0x40, 0x30}));
	EXPECT_EQ(conn.cm_mads, 2u);
	EXPECT_EQ(conn.packets, 4u);
	EXPECT_TRUE(conn.consistent);
}

TEST(Capture, OtherFramesAreSkippedAndCounted)
{
	auto c = cm_rc(false, kSportPorts1And7471, 0);
	Frame dns;
	dns.src = "10.1.0.2";
	dns.dst = "10.2.0.2";
	dns.dport = 53;
	c.frames.push_back(build(dns));
	Buf arp(42, 0);
	put(arp, 12, 0x0806, 2);
	c.frames.push_back(arp);
	auto j = judge_frames(c.frames, Policy::Rfc);
	EXPECT_EQ(j.not_roce, 2u);
	EXPECT_EQ(j.malformed, 0u);
	EXPECT_EQ(j.sum.packets, 9u);
}

// Each frame cut short at CUT bytes: counted as malformed, never parsed.
class CaptureTruncated : public testing::TestWithParam<std::size_t>
{
};

TEST_P(CaptureTruncated, IsCountedNotParsed)
{
	auto c = cm_rc(false, kSportPorts1And7471, 0);
	const std::size_t cut = GetParam();
	// frame 0 is the REQ (14 + 20 + 8 + 12 + 8 + 256 + 4 bytes)
	auto j = judge_frames(c.frames, Policy::Rfc, 0, {cut});
	EXPECT_EQ(j.malformed, 1u);
	EXPECT_EQ(j.sum.packets, 8u);
}

// Ethernet, IPv4 header, UDP header, BTH, DETH, MAD header, REQ's ports.
INSTANTIATE_TEST_SUITE_P(Cuts, CaptureTruncated, testing::Values(10, 30, 40, 50, 60, 80, 200));

TEST(Capture, LengthsThatLieAreMalformed)
{
	Frame f;
	f.src = "10.1.0.2";
	f.dst = "10.2.0.2";
	f.dqpn = 0x12;
	Buf bad_udp_len = build(f);
	put(bad_udp_len, 14 + 20 + 4, 2000, 2);
	Buf bad_ihl = build(f);
	bad_ihl[14] = 0x44;
	Buf bad_total = build(f);
	put(bad_total, 14 + 2, 4000, 2);
	Buf short_udp = build(f);
	put(short_udp, 14 + 20 + 4, 8 + 4, 2); // no room for a BTH
	auto j = judge_frames({bad_udp_len, bad_ihl, bad_total, short_udp}, Policy::Rfc);
	EXPECT_EQ(j.malformed, 4u);
	EXPECT_TRUE(j.sum.connections.empty());
}

TEST(Capture, LinuxCookedCaptureReads)
{
	auto c = cm_rc(false, kSportPorts1And7471, 0);
	std::vector<Buf> sll;
	for (const auto &eth : c.frames) {
		Buf f(16, 0);
		put(f, 14, 0x0800, 2);
		f.insert(f.end(), eth.begin() + 14, eth.end());
		sll.push_back(f);
	}
	TempCapture cap(sll, DLT_LINUX_SLL);
	unsigned not_roce, malformed;
	auto pkts = read_capture(cap.path(), not_roce, malformed);
	EXPECT_EQ(pkts.size(), 9u);
	EXPECT_EQ(judge_capture(pkts, Policy::Rfc, 0).inconsistent, 0u);
}

// ---- linux: stock 6.12 rxe, predicted per packet ----

// By hand: 6.12 rxe's QP1 port 0xc000 + hash_32(1, 14) = 0xc000 + 0x1872.
constexpr std::uint16_t kQp1Port = 0xD872;
// rdma_cm's 6.12 flow label of CM ports 1 and 7471: 1 * 31 + 7471 = 0x1d4e,
// folded (no bits above 13) port 0xdd4e.
constexpr std::uint16_t kLinuxSportPorts1And7471 = 0xDD4E;
// hash_32(q, 14) = (q * 0x61c88647 mod 2^32) >> 18: 0x11 -> 0x7e50eab7 >>
// 18 = 0x1f94; 0x12 -> 0xe01970fe >> 18 = 0x3806; 0x30 -> 0x55992d50 >>
// 18 = 0x1566; 0x40 -> 0x722191c0 >> 18 = 0x1c88.
constexpr std::uint16_t kLegacy11 = 0xDF94, kLegacy12 = 0xF806, kLegacy30 = 0xD566,
                        kLegacy40 = 0xDC88;

// cm_rc()'s connection as stock 6.12 rxe sends it: CM MADs on QP1's port,
// data on DATA_SPORT, flow label FL (0 on stock) on everything.
Conversation linux_cm_rc(bool ipv6, std::uint16_t data_sport, std::uint32_t fl = 0)
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

TEST(CaptureLinux, CmMadsOnQp1sPortRcDataOnTheCmaHash)
{
	for (bool ipv6 : {false, true}) {
		auto c = linux_cm_rc(ipv6, kLinuxSportPorts1And7471);
		auto j = judge_frames(c.frames, Policy::Linux);
		ASSERT_EQ(j.sum.connections.size(), 1u);
		const Connection &conn = j.sum.connections[0];
		EXPECT_EQ(conn.packets, 9u);
		EXPECT_EQ(conn.cm_mads, 5u);
		EXPECT_EQ(conn.udp_sports,
		          (std::set<std::uint16_t>{kLinuxSportPorts1And7471, kQp1Port}));
		EXPECT_EQ(conn.expected_cm, (WireEntropy{kQp1Port, 0}));
		EXPECT_EQ(conn.forward.expected_data, (WireEntropy{kLinuxSportPorts1And7471, 0}));
		EXPECT_EQ(conn.reverse.expected_data, (WireEntropy{kLinuxSportPorts1And7471, 0}));
		EXPECT_EQ(conn.forward.cm_packets, 3u); // REQ, RTU, DREQ
		EXPECT_EQ(conn.reverse.cm_packets, 2u); // REP, DREP
		EXPECT_FALSE(conn.expected_flow_label); // no one port per connection
		EXPECT_EQ(conn.mismatched, 0u);
		EXPECT_EQ(conn.unpredicted, 0u);
		EXPECT_TRUE(conn.consistent) << ipv6;
		// the one-port policies see two ports
		EXPECT_EQ(judge_frames(c.frames, Policy::Rfc).sum.inconsistent, 1u);
		EXPECT_EQ(judge_frames(c.frames, Policy::Off).sum.inconsistent, 1u);
	}
}

TEST(CaptureLinux, AnythingElseDisagrees)
{
	// one CM MAD on the connection's data port
	auto c = linux_cm_rc(false, kLinuxSportPorts1And7471);
	Conversation stray = c;
	stray.frames.clear();
	stray.sport = kLinuxSportPorts1And7471;
	stray.mad(false, ids(kCmDrep, 0x2222, 0x1111));
	c.frames.push_back(stray.frames[0]);
	auto j = judge_frames(c.frames, Policy::Linux);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].mismatched, 1u);
	EXPECT_FALSE(j.sum.connections[0].consistent);

	// the data on this series' rfc port, or the CM MADs on its base port
	EXPECT_EQ(judge_frames(linux_cm_rc(false, kSportPorts1And7471).frames, Policy::Linux)
	              .sum.connections[0]
	              .mismatched,
	          4u);
	auto base = cm_rc(false, 0xC000, 0);
	EXPECT_EQ(judge_frames(base.frames, Policy::Linux).sum.connections[0].mismatched, 9u);

	// a flow label in the IPv6 header: stock rxe writes none
	auto labelled = linux_cm_rc(true, kLinuxSportPorts1And7471, 0x1D4E);
	j = judge_frames(labelled.frames, Policy::Linux);
	EXPECT_EQ(j.sum.connections[0].mismatched, 9u);
	EXPECT_EQ(j.sum.inconsistent, 1u);
}

// roce-ping --flow-label 0x5a5a5 on stock: the RC data on its fold 0xe5b3
// (as ApplicationFlowLabelWins), the CM MADs on QP1's port, flow label 0
// everywhere.
TEST(CaptureLinux, ApplicationFlowLabelMovesTheDataOnly)
{
	auto c = linux_cm_rc(true, 0xE5B3);
	auto j = judge_frames(c.frames, Policy::Linux, 0x5A5A5);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_TRUE(j.sum.connections[0].consistent);
	EXPECT_EQ(j.sum.connections[0].forward.expected_data, (WireEntropy{0xE5B3, 0}));
	EXPECT_EQ(judge_frames(c.frames, Policy::Linux).sum.inconsistent, 1u);
}

// ibv_rc_pingpong with both QPNs 0x12 on stock 6.12 rxe: 0xc144 both ways.
TEST(CaptureLinux, NonCmRcOnTheQpnHash)
{
	Conversation c{true, "fd01::2", "fd02::2", 0xC144, 0, {}};
	c.add(true, 0x12);
	c.add(false, 0x12, {}, {}, 0x11);
	c.add(false, 0x12);
	c.add(true, 0x12, {}, {}, 0x11);
	auto j = judge_frames(c.frames, Policy::Linux);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].forward.expected_data, (WireEntropy{0xC144, 0}));
	EXPECT_TRUE(j.sum.connections[0].consistent);
	// rfc would send the flow label too
	EXPECT_EQ(judge_frames(c.frames, Policy::Rfc).sum.inconsistent, 1u);
}

// Each direction of a UD conversation on its sender QP's own port.
TEST(CaptureLinux, UdDirectionsOnTheirSendersPorts)
{
	Conversation c{false, "10.1.0.2", "10.2.0.2", kLegacy11, 0, {}};
	c.add(true, 0x12, 0x11);
	c.add(true, 0x12, 0x11);
	c.sport = kLegacy12;
	c.add(false, 0x11, 0x12);
	c.add(false, 0x11, 0x12);
	c.add(false, 0x11, 0x12);
	auto j = judge_frames(c.frames, Policy::Linux);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	const Connection &conn = j.sum.connections[0];
	EXPECT_TRUE(conn.ud);
	EXPECT_EQ(conn.udp_sports, (std::set<std::uint16_t>{kLegacy11, kLegacy12}));
	EXPECT_EQ(conn.forward.expected_data, (WireEntropy{kLegacy11, 0}));
	EXPECT_EQ(conn.reverse.expected_data, (WireEntropy{kLegacy12, 0}));
	EXPECT_FALSE(conn.expected_cm);
	EXPECT_TRUE(conn.consistent);
	EXPECT_EQ(judge_frames(c.frames, Policy::Rfc).sum.inconsistent, 1u);

	// both directions on the first sender's port: the replies disagree
	Conversation one_port{false, "10.1.0.2", "10.2.0.2", kLegacy11, 0, {}};
	one_port.add(true, 0x12, 0x11);
	one_port.add(false, 0x11, 0x12);
	one_port.add(false, 0x11, 0x12);
	j = judge_frames(one_port.frames, Policy::Linux);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].mismatched, 2u);
	EXPECT_FALSE(j.sum.connections[0].consistent);
}

// rdma_cm UD (udaddy) on stock: SIDR REQ and REP on QP1's port, each
// direction of the data on its sender's.
TEST(CaptureLinux, SidrOnQp1sPortDataOnTheSendersPorts)
{
	Conversation c{true, "fd01::2", "fd02::2", kQp1Port, 0, {}};
	c.mad(true, Mad(kCmSidrReq)
	                .at(0, 0x77, 4)
	                .at(8, 0x0000000001110000ull | 7471, 8)
	                .at(16, 0, 2)
	                .at(18, 1, 2));
	c.mad(false, Mad(kCmSidrRep).at(0, 0x77, 4).at(8, 0x30, 3));
	c.sport = kLegacy40;
	c.add(true, 0x30, 0x40);
	c.sport = kLegacy30;
	c.add(false, 0x40, 0x30);
	auto j = judge_frames(c.frames, Policy::Linux);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	const Connection &conn = j.sum.connections[0];
	EXPECT_EQ(conn.cm_mads, 2u);
	EXPECT_EQ(conn.packets, 4u);
	EXPECT_EQ(conn.expected_cm, (WireEntropy{kQp1Port, 0}));
	EXPECT_EQ(conn.forward.expected_data, (WireEntropy{kLegacy40, 0}));
	EXPECT_EQ(conn.reverse.expected_data, (WireEntropy{kLegacy30, 0}));
	EXPECT_TRUE(conn.consistent);
}

// ---- a REQ answered by a REJ, and DREQs that cross ----

// A REQ to a port nobody listens on and the CM's REJ: REJ's remote comm ID
// is the REQ's local one, its local comm ID 0.
Conversation rejected(bool ipv6, std::uint16_t req_sport, std::uint16_t rej_sport)
{
	Conversation c{
	    ipv6, ipv6 ? "fd01::2" : "10.1.0.2", ipv6 ? "fd02::2" : "10.2.0.2", req_sport, 0, {}};
	if (ipv6 && req_sport != kQp1Port)
		c.fl = kFlPorts1And7471;
	c.mad(true, req(0x3333, 0x31, 1, 7471));
	c.sport = rej_sport;
	c.mad(false, ids(kCmRej, 0, 0x3333));
	return c;
}

TEST(CaptureReject, RejIsPartOfItsReqsConnection)
{
	for (bool ipv6 : {false, true}) {
		auto c = rejected(ipv6, kSportPorts1And7471, kSportPorts1And7471);
		auto j = judge_frames(c.frames, Policy::Rfc);
		ASSERT_EQ(j.sum.connections.size(), 1u);
		const Connection &conn = j.sum.connections[0];
		EXPECT_EQ(conn.src, ipv6 ? "fd01::2" : "10.1.0.2");
		EXPECT_EQ(conn.cm_mads, 2u);
		EXPECT_EQ(conn.forward.packets, 1u);
		EXPECT_EQ(conn.reverse.packets, 1u);
		EXPECT_EQ(conn.reverse.cm_packets, 1u);
		ASSERT_TRUE(conn.cm_ports);
		EXPECT_EQ(conn.cm_ports->second, 7471);
		EXPECT_EQ(conn.qpns, (std::vector<std::uint32_t>{0x31}));
		EXPECT_EQ(conn.expected_flow_label, kFlPorts1And7471);
		EXPECT_TRUE(conn.consistent);
	}
}

// Our kernel before the fix: the REJ on the base port, off the REQ's.
TEST(CaptureReject, RejOnTheBasePortDisagreesUnderRfc)
{
	auto c = rejected(false, kSportPorts1And7471, 0xC000);
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].mismatched, 1u);
	EXPECT_FALSE(j.sum.connections[0].consistent);
	// under off both are on the base port
	EXPECT_EQ(
	    judge_frames(rejected(false, 0xC000, 0xC000).frames, Policy::Off).sum.inconsistent, 0u);
}

TEST(CaptureReject, BothOnQp1sPortUnderLinux)
{
	auto c = rejected(true, kQp1Port, kQp1Port);
	auto j = judge_frames(c.frames, Policy::Linux);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].expected_cm, (WireEntropy{kQp1Port, 0}));
	EXPECT_FALSE(j.sum.connections[0].forward.expected_data);
	EXPECT_TRUE(j.sum.connections[0].consistent);
}

// A REJ whose REQ the capture missed: from the passive side, to the active.
TEST(CaptureReject, RejAloneNamesTheActiveSide)
{
	auto c = rejected(false, kSportPorts1And7471, kSportPorts1And7471);
	c.frames.erase(c.frames.begin());
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].src, "10.1.0.2");
	EXPECT_EQ(j.sum.connections[0].dst, "10.2.0.2");
	EXPECT_EQ(j.sum.connections[0].reverse.packets, 1u);
}

// A connection and a rejected REQ between the same hosts: two connections.
TEST(CaptureReject, RejectedReqBesideAConnection)
{
	auto c = cm_rc(false, kSportPorts1And7471, 0);
	auto r = rejected(false, kSportPorts1And7471, kSportPorts1And7471);
	c.frames.insert(c.frames.begin() + 3, r.frames.begin(), r.frames.end());
	auto j = judge_frames(c.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 2u);
	EXPECT_EQ(j.sum.connections[0].packets, 9u);
	EXPECT_EQ(j.sum.connections[1].packets, 2u);
	EXPECT_EQ(j.sum.inconsistent, 0u);
}

// Both ends disconnect and destroy their IDs at once: the DREQs cross, and
// each is answered by the CM's "no connection" path (cm_issue_drep()), its
// comm IDs taken from the DREQ.  Those DREPs belong to the connection; the
// one from B leaves on B_DREP_SPORT.
Conversation crossing(std::uint16_t b_drep_sport)
{
	Conversation c{false, "10.1.0.2", "10.2.0.2", kSportPorts1And7471, 0, {}};
	c.mad(true, req(0x1111, 0x21, 1, 7471));
	c.mad(false, rep(0x2222, 0x1111, 0x22));
	c.mad(true, ids(kCmRtu, 0x1111, 0x2222));
	c.add(true, 0x22);
	c.add(false, 0x21, {}, {}, 0x11);
	c.mad(true, ids(kCmDreq, 0x1111, 0x2222));
	c.mad(false, ids(kCmDreq, 0x2222, 0x1111));
	c.mad(true, ids(kCmDrep, 0x1111, 0x2222));
	c.sport = b_drep_sport;
	c.mad(false, ids(kCmDrep, 0x2222, 0x1111));
	return c;
}

TEST(CaptureLateDrep, OnTheConnectionsPortIsOk)
{
	auto j = judge_frames(crossing(kSportPorts1And7471).frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].cm_mads, 7u);
	EXPECT_EQ(j.sum.connections[0].packets, 9u);
	const std::map<std::uint16_t, unsigned> from_a{
	    {kCmReq, 1}, {kCmRtu, 1}, {kCmDreq, 1}, {kCmDrep, 1}};
	const std::map<std::uint16_t, unsigned> from_b{{kCmRep, 1}, {kCmDreq, 1}, {kCmDrep, 1}};
	EXPECT_EQ(j.sum.connections[0].forward.cm_attrs, from_a);
	EXPECT_EQ(j.sum.connections[0].reverse.cm_attrs, from_b);
	EXPECT_TRUE(j.sum.connections[0].consistent);
}

TEST(Capture, CmAttributeNames)
{
	EXPECT_EQ(cm_attr_name(kCmReq), "REQ");
	EXPECT_EQ(cm_attr_name(kCmDrep), "DREP");
	EXPECT_EQ(cm_attr_name(kCmSidrRep), "SIDR_REP");
	EXPECT_EQ(cm_attr_name(0x19), "0x0019"); // LAP
	EXPECT_EQ(cm_attr_name(0x0F), "0x000f");
}

TEST(CaptureLateDrep, OnTheBasePortDisagreesUnderRfc)
{
	auto j = judge_frames(crossing(0xC000).frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u); // still its connection's
	EXPECT_EQ(j.sum.connections[0].cm_mads, 7u);
	EXPECT_EQ(j.sum.connections[0].mismatched, 1u);
	EXPECT_EQ(j.sum.connections[0].reverse.cm_udp_sports,
	          (std::set<std::uint16_t>{0xC000, kSportPorts1And7471}));
	EXPECT_FALSE(j.sum.connections[0].consistent);
	EXPECT_EQ(j.sum.inconsistent, 1u);
}

struct CliRun {
	int status;
	std::string out, err;
};

CliRun pcap_cli(std::vector<std::string> args)
{
	std::vector<const char *> argv{"roce-entropy", "pcap"};
	for (const auto &a : args)
		argv.push_back(a.c_str());
	std::ostringstream out, err;
	int status = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
	return {status, out.str(), err.str()};
}

TEST(PcapCli, JsonAndExitStatus)
{
	TempCapture good(cm_rc(true, kSportPorts1And7471, kFlPorts1And7471).frames);
	auto r = pcap_cli({good.path(), "--policy", "rfc", "--json"});
	ASSERT_EQ(r.status, 0) << r.err << r.out;
	auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["inconsistent"], 0);
	EXPECT_EQ(j["distinct_udp_sports"], 1);
	ASSERT_EQ(j["connections"].size(), 1u);
	EXPECT_EQ(j["connections"][0]["cm_ports"], (nlohmann::json{1, 7471}));
	EXPECT_EQ(j["connections"][0]["expected_udp_sport"], kSportPorts1And7471);
	EXPECT_EQ(j["connections"][0]["expected_flow_label"], kFlPorts1And7471);
	EXPECT_EQ(j["connections"][0]["qpns"], (nlohmann::json{0x21, 0x22}));
	EXPECT_EQ(j["connections"][0]["consistent"], true);
	EXPECT_EQ(j["connections"][0]["forward"]["packets"], 5);
	EXPECT_EQ(j["connections"][0]["reverse"]["flow_labels"],
	          (nlohmann::json{kFlPorts1And7471}));

	r = pcap_cli({good.path(), "--policy", "mix"});
	EXPECT_EQ(r.status, 1);
	EXPECT_NE(r.out.find("DISAGREES"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("1 disagree with mix"), std::string::npos) << r.out;
}

TEST(PcapCli, LinuxJsonPredictsPerKind)
{
	TempCapture cap(linux_cm_rc(true, kLinuxSportPorts1And7471).frames);
	auto r = pcap_cli({cap.path(), "--policy", "linux", "--json"});
	ASSERT_EQ(r.status, 0) << r.err << r.out;
	auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["policy"], "linux");
	const auto c = j["connections"][0];
	EXPECT_EQ(c["expected_udp_sport"], nullptr);
	EXPECT_EQ(c["expected_cm"], (nlohmann::json{{"udp_sport", kQp1Port}, {"flow_label", 0}}));
	EXPECT_EQ(c["forward"]["expected_data"],
	          (nlohmann::json{{"udp_sport", kLinuxSportPorts1And7471}, {"flow_label", 0}}));
	EXPECT_EQ(c["reverse"]["expected_data"]["udp_sport"], kLinuxSportPorts1And7471);
	EXPECT_EQ(c["forward"]["cm_packets"], 3);
	EXPECT_EQ(c["forward"]["cm_messages"],
	          (nlohmann::json{{"REQ", 1}, {"RTU", 1}, {"DREQ", 1}}));
	EXPECT_EQ(c["reverse"]["cm_messages"], (nlohmann::json{{"REP", 1}, {"DREP", 1}}));
	EXPECT_EQ(c["forward"]["data_packets"], 2);
	EXPECT_EQ(c["mismatched"], 0);
	EXPECT_EQ(c["unpredicted"], 0);
	EXPECT_EQ(c["consistent"], true);

	r = pcap_cli({cap.path(), "--policy", "linux"});
	EXPECT_EQ(r.status, 0);
	EXPECT_NE(r.out.find("expected CM MADs 0xd872, data -> 0xdd4e, data <- 0xdd4e, flow "
	                     "label 0: ok"),
	          std::string::npos)
	    << r.out;

	r = pcap_cli({cap.path(), "--policy", "rfc"});
	EXPECT_EQ(r.status, 1);
	EXPECT_NE(r.out.find("DISAGREES (9 packets off their prediction)"), std::string::npos)
	    << r.out;
}

// One application set a flow label, the other not: --port-flow-label
// names the first by its service port (7471, cm_rc()'s).
TEST(PcapCli, PortFlowLabelForOneServiceOnly)
{
	auto fl = cm_rc(true, 0xE5B3, 0x5A5A5); // ApplicationFlowLabelWins's port
	// the second connection: other comm IDs, QPNs and service port 7472
	// (1 * 7472 = 0x1d30; ^ >> 8: 0x1d2d; port 0xdd2d)
	Conversation other{true, "fd01::2", "fd02::2", 0xDD2D, 0x1D2D, {}};
	other.mad(true, req(0x5555, 0x41, 1, 7472));
	other.mad(false, rep(0x6666, 0x5555, 0x42));
	other.add(true, 0x42);
	other.add(false, 0x41);
	std::vector<Buf> frames = fl.frames;
	frames.insert(frames.end(), other.frames.begin(), other.frames.end());
	TempCapture cap(frames);

	auto r = pcap_cli({cap.path(), "--policy", "rfc", "--port-flow-label", "7471:0x5a5a5"});
	EXPECT_EQ(r.status, 0) << r.out << r.err;
	EXPECT_NE(r.out.find("0 disagree with rfc"), std::string::npos) << r.out;
	// the global one would claim the other connection too
	r = pcap_cli({cap.path(), "--policy", "rfc", "--flow-label", "0x5a5a5"});
	EXPECT_EQ(r.status, 1);
	EXPECT_NE(r.out.find("1 disagree with rfc"), std::string::npos) << r.out;
	r = pcap_cli({cap.path(), "--policy", "rfc", "--port-flow-label", "7472:0x5a5a5"});
	EXPECT_NE(r.out.find("2 disagree with rfc"), std::string::npos) << r.out;
	EXPECT_EQ(pcap_cli({cap.path(), "--port-flow-label", "7471"}).status, 2);
	EXPECT_EQ(pcap_cli({cap.path(), "--port-flow-label", "7471:0x100000"}).status, 2);
	EXPECT_EQ(pcap_cli({cap.path(), "--port-flow-label", "65536:1"}).status, 2);
}

TEST(PcapCli, BadInputsExitTwo)
{
	EXPECT_EQ(pcap_cli({"/nonexistent.pcap"}).status, 2);
	TempCapture good(cm_rc(false, kSportPorts1And7471, 0).frames);
	EXPECT_EQ(pcap_cli({good.path(), "--policy", "fast"}).status, 2);
	EXPECT_EQ(pcap_cli({good.path(), "--flow-label", "0x100000"}).status, 2);
	TempCapture raw_ip(cm_rc(false, kSportPorts1And7471, 0).frames, DLT_RAW);
	auto r = pcap_cli({raw_ip.path()});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("link type"), std::string::npos) << r.err;
	char tmpl[] = "/tmp/capture-test-XXXXXX";
	int fd = mkstemp(tmpl);
	EXPECT_EQ(write(fd, "not a capture", 13), 13);
	close(fd);
	EXPECT_EQ(pcap_cli({tmpl}).status, 2);
	std::remove(tmpl);
}

} // namespace
} // namespace roce

namespace roce
{
namespace
{

const std::string kData = ROCE_TEST_DATA;

// Captured in the VM by tools/qemu/tests/wire.sh (2026-11-22): rping over
// IPv6 under rfc, three round trips.  By hand, RFC, CM ports 45313 and
// 7174: 45313 * 7174 = 0x13604206; ^ >> 16: 0x13605166; ^ >> 8:
// 0x13733137; flow label 0x33137; port (0x3137 ^ 0xc) | 0xc000 = 0xf13b.
TEST(RealCapture, RpingIpv6UnderRfc)
{
	unsigned not_roce, malformed;
	auto pkts = read_capture(kData + "/rping-v6-rfc.pcapng", not_roce, malformed);
	auto sum = judge_capture(pkts, Policy::Rfc, 0);
	ASSERT_EQ(sum.connections.size(), 1u);
	const Connection &c = sum.connections[0];
	EXPECT_EQ(c.src, "fd01::2");
	EXPECT_EQ(c.dst, "fd02::2");
	ASSERT_TRUE(c.cm_ports);
	EXPECT_EQ(c.cm_ports->first, 45313);
	EXPECT_EQ(c.cm_ports->second, 7174);
	EXPECT_EQ(c.cm_mads, 5u);
	EXPECT_EQ(c.packets, 41u);
	EXPECT_EQ(c.udp_sports, std::set<std::uint16_t>{0xf13b});
	EXPECT_EQ(c.flow_labels, std::set<std::uint32_t>{0x33137});
	EXPECT_TRUE(c.consistent);
	EXPECT_EQ(malformed, 0u);
}

// Captured in the VM on stock 6.12 (STOCK=1, build/vm-h2-1, 2026-11-23):
// rping over IPv4, CM ports 60471 and 7174, QPNs 0x11 both.  By hand:
// 60471 * 31 + 7174 = 0x1cb6af, masked 0xcb6af; port (0x36af ^ 0x32) |
// 0xc000 = 0xf69d for the data, QP1's 0xd872 for the CM MADs.
TEST(RealCapture, RpingIpv4OnStock)
{
	unsigned not_roce, malformed;
	auto pkts = read_capture(kData + "/rping-v4-stock.pcapng", not_roce, malformed);
	auto sum = judge_capture(pkts, Policy::Linux, 0);
	ASSERT_EQ(sum.connections.size(), 1u);
	const Connection &c = sum.connections[0];
	ASSERT_TRUE(c.cm_ports);
	EXPECT_EQ(c.cm_ports->first, 60471);
	EXPECT_EQ(c.cm_mads, 5u);
	EXPECT_EQ(c.packets, 41u);
	EXPECT_EQ(c.udp_sports, (std::set<std::uint16_t>{0xd872, 0xf69d}));
	EXPECT_EQ(c.forward.data_udp_sports, std::set<std::uint16_t>{0xf69d});
	EXPECT_EQ(c.reverse.data_udp_sports, std::set<std::uint16_t>{0xf69d});
	EXPECT_EQ(c.forward.cm_udp_sports, std::set<std::uint16_t>{0xd872});
	EXPECT_EQ(c.reverse.cm_udp_sports, std::set<std::uint16_t>{0xd872});
	EXPECT_TRUE(c.consistent);
	EXPECT_EQ(judge_capture(pkts, Policy::Rfc, 0).inconsistent, 1u);
}

// The same run: udaddy over IPv6, client QPN 0x17, server QPN 0x16.  By
// hand: hash_32(0x17, 14) = (0x17 * 0x61c88647 mod 2^32) >> 18 =
// 0xc9041061 >> 18 = 0x3241, port 0xf241; hash_32(0x16, 14) = 0x673b8a1a
// >> 18 = 0x19ce, port 0xd9ce; SIDR REQ and REP on 0xd872; flow label 0.
TEST(RealCapture, UdaddyIpv6OnStock)
{
	unsigned not_roce, malformed;
	auto pkts = read_capture(kData + "/udaddy-v6-stock.pcapng", not_roce, malformed);
	auto sum = judge_capture(pkts, Policy::Linux, 0);
	ASSERT_EQ(sum.connections.size(), 1u);
	const Connection &c = sum.connections[0];
	EXPECT_TRUE(c.ud);
	EXPECT_EQ(c.qpns, (std::vector<std::uint32_t>{0x17, 0x16}));
	EXPECT_EQ(c.cm_mads, 2u);
	EXPECT_EQ(c.forward.data_udp_sports, std::set<std::uint16_t>{0xf241});
	EXPECT_EQ(c.reverse.data_udp_sports, std::set<std::uint16_t>{0xd9ce});
	EXPECT_EQ(c.flow_labels, std::set<std::uint32_t>{0});
	EXPECT_TRUE(c.consistent);
	EXPECT_EQ(judge_capture(pkts, Policy::Rfc, 0).inconsistent, 1u);
}

// udaddy over IPv4 under rfc: the known gap (Documentation): the passive
// side's SIDR REP and replies do not use the connection's port.
TEST(RealCapture, UdaddyIpv4GapIsReported)
{
	unsigned not_roce, malformed;
	auto pkts = read_capture(kData + "/udaddy-v4-rfc.pcapng", not_roce, malformed);
	auto sum = judge_capture(pkts, Policy::Rfc, 0);
	ASSERT_EQ(sum.connections.size(), 1u);
	const Connection &c = sum.connections[0];
	EXPECT_TRUE(c.ud);
	EXPECT_EQ(c.cm_mads, 2u);
	EXPECT_GT(c.udp_sports.size(), 1u);
	EXPECT_FALSE(c.consistent);
	EXPECT_EQ(sum.inconsistent, 1u);
}

} // namespace
} // namespace roce
