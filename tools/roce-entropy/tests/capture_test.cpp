// SPDX-License-Identifier: GPL-2.0
// The capture reader and the grouping on captures written here with libpcap
// from synthesized frames.
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
#include "capture_fixture.h"
#include "cli.h"
#include "synth.h"

namespace roce
{
namespace
{

using namespace roce::test;

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
	c.mad(true, sidr_req(0x77, 1, 7471));
	c.mad(false, sidr_rep(0x77, 0x30));
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
	ReadCounts rc;
	auto pkts = read_capture(cap.path(), rc);
	EXPECT_EQ(pkts.size(), 9u);
	EXPECT_EQ(judge_capture(pkts, Policy::Rfc, 0).inconsistent, 0u);
}

} // namespace
} // namespace roce
