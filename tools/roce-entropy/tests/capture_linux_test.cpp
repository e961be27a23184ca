// SPDX-License-Identifier: GPL-2.0
// Captures judged under builtin (stock 6.12 rxe, per packet), REJs answering
// REQs, and DREQs that cross.
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

// ---- builtin: stock 6.12 rxe, predicted per packet ----

TEST(CaptureLinux, CmMadsOnQp1sPortRcDataOnTheCmaHash)
{
	for (bool ipv6 : {false, true}) {
		auto c = linux_cm_rc(ipv6, kLinuxSportPorts1And7471);
		auto j = judge_frames(c.frames, Policy::Builtin);
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
	auto j = judge_frames(c.frames, Policy::Builtin);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].mismatched, 1u);
	EXPECT_FALSE(j.sum.connections[0].consistent);

	// the data on this series' rfc port, or the CM MADs on its base port
	EXPECT_EQ(judge_frames(linux_cm_rc(false, kSportPorts1And7471).frames, Policy::Builtin)
	              .sum.connections[0]
	              .mismatched,
	          4u);
	auto base = cm_rc(false, 0xC000, 0);
	EXPECT_EQ(judge_frames(base.frames, Policy::Builtin).sum.connections[0].mismatched, 9u);

	// a flow label in the IPv6 header: stock rxe writes none
	auto labelled = linux_cm_rc(true, kLinuxSportPorts1And7471, 0x1D4E);
	j = judge_frames(labelled.frames, Policy::Builtin);
	EXPECT_EQ(j.sum.connections[0].mismatched, 9u);
	EXPECT_EQ(j.sum.inconsistent, 1u);
}

// roce-ping --flow-label 0x5a5a5 on stock: the RC data on its fold 0xe5b3
// (as ApplicationFlowLabelWins), the CM MADs on QP1's port, flow label 0
// everywhere.
TEST(CaptureLinux, ApplicationFlowLabelMovesTheDataOnly)
{
	auto c = linux_cm_rc(true, 0xE5B3);
	auto j = judge_frames(c.frames, Policy::Builtin, 0x5A5A5);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_TRUE(j.sum.connections[0].consistent);
	EXPECT_EQ(j.sum.connections[0].forward.expected_data, (WireEntropy{0xE5B3, 0}));
	EXPECT_EQ(judge_frames(c.frames, Policy::Builtin).sum.inconsistent, 1u);
}

// ibv_rc_pingpong with both QPNs 0x12 on stock 6.12 rxe: 0xc144 both ways.
TEST(CaptureLinux, NonCmRcOnTheQpnHash)
{
	Conversation c{true, "fd01::2", "fd02::2", 0xC144, 0, {}};
	c.add(true, 0x12);
	c.add(false, 0x12, {}, {}, 0x11);
	c.add(false, 0x12);
	c.add(true, 0x12, {}, {}, 0x11);
	auto j = judge_frames(c.frames, Policy::Builtin);
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
	auto j = judge_frames(c.frames, Policy::Builtin);
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
	j = judge_frames(one_port.frames, Policy::Builtin);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].mismatched, 2u);
	EXPECT_FALSE(j.sum.connections[0].consistent);
}

// rdma_cm UD (udaddy) on stock: SIDR REQ and REP on QP1's port, each
// direction of the data on its sender's.
TEST(CaptureLinux, SidrOnQp1sPortDataOnTheSendersPorts)
{
	Conversation c{true, "fd01::2", "fd02::2", kQp1Port, 0, {}};
	c.mad(true, sidr_req(0x77, 1, 7471));
	c.mad(false, sidr_rep(0x77, 0x30));
	c.sport = kLegacy40;
	c.add(true, 0x30, 0x40);
	c.sport = kLegacy30;
	c.add(false, 0x40, 0x30);
	auto j = judge_frames(c.frames, Policy::Builtin);
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
	auto j = judge_frames(c.frames, Policy::Builtin);
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

} // namespace
} // namespace roce
