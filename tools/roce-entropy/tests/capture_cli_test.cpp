// SPDX-License-Identifier: GPL-2.0
// roce-entropy pcap's JSON and exit status, and real captures from the VM's
// wire tests.
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
#include "cli_run.h"
#include "synth.h"

namespace roce
{
namespace
{

using namespace roce::test;

// A capture on every interface of a router (Linux cooked v2, "any") names
// each packet's interface: pcap counts each direction's packets per
// interface, the links the demo's connections took.
TEST(PcapCli, LinuxCookedV2CountsPacketsPerInterface)
{
	auto c = cm_rc(false, kSportPorts1And7471, 0);
	std::vector<Buf> sll2;
	for (const auto &eth : c.frames) {
		Buf f(20, 0);
		put(f, 0, 0x0800, 2);
		// A to B (10.1.0.2) out of interface 5, B to A in on 7.
		put(f, 4, eth[14 + 12 + 1] == 1 ? 5 : 7, 4);
		put(f, 8, 1, 2); // ARPHRD_ETHER
		f.insert(f.end(), eth.begin() + 14, eth.end());
		sll2.push_back(f);
	}
	TempCapture cap(sll2, DLT_LINUX_SLL2);
	auto r = pcap_cli({cap.path(), "--policy", "rfc", "--json"});
	ASSERT_EQ(r.status, 0) << r.err << r.out;
	auto j = nlohmann::json::parse(r.out);
	ASSERT_EQ(j["connections"].size(), 1u);
	EXPECT_EQ(j["connections"][0]["forward"]["interfaces"], (nlohmann::json{{"5", 5}}));
	EXPECT_EQ(j["connections"][0]["reverse"]["interfaces"], (nlohmann::json{{"7", 4}}));
	// Without the interface (Ethernet), nothing is counted per interface.
	TempCapture eth(c.frames);
	r = pcap_cli({eth.path(), "--policy", "rfc", "--json"});
	j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["connections"][0]["forward"]["interfaces"], nlohmann::json::object());
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
	auto r = pcap_cli({cap.path(), "--policy", "builtin", "--json"});
	ASSERT_EQ(r.status, 0) << r.err << r.out;
	auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["policy"], "builtin");
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

	r = pcap_cli({cap.path(), "--policy", "builtin"});
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

// Captured in the VM by tools/testing/tests/wire.sh (2026-11-22): rping over
// IPv6 under rfc, three round trips.  By hand, RFC, CM ports 45313 and
// 7174: 45313 * 7174 = 0x13604206; ^ >> 16: 0x13605166; ^ >> 8:
// 0x13733137; flow label 0x33137; port (0x3137 ^ 0xc) | 0xc000 = 0xf13b.
TEST(RealCapture, RpingIpv6UnderRfc)
{
	ReadCounts rc;
	auto sum = judge_file("rping-v6-rfc.pcapng", Policy::Rfc, &rc);
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
	EXPECT_EQ(rc.malformed, 0u);
}

// Captured in the VM on stock 6.12 (STOCK=1, build/vm-h2-1, 2026-11-23):
// rping over IPv4, CM ports 60471 and 7174, QPNs 0x11 both.  By hand:
// 60471 * 31 + 7174 = 0x1cb6af, masked 0xcb6af; port (0x36af ^ 0x32) |
// 0xc000 = 0xf69d for the data, QP1's 0xd872 for the CM MADs.
TEST(RealCapture, RpingIpv4OnStock)
{
	auto sum = judge_file("rping-v4-stock.pcapng", Policy::Builtin);
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
	EXPECT_EQ(judge_file("rping-v4-stock.pcapng", Policy::Rfc).inconsistent, 1u);
}

// The same run: udaddy over IPv6, client QPN 0x17, server QPN 0x16.  By
// hand: hash_32(0x17, 14) = (0x17 * 0x61c88647 mod 2^32) >> 18 =
// 0xc9041061 >> 18 = 0x3241, port 0xf241; hash_32(0x16, 14) = 0x673b8a1a
// >> 18 = 0x19ce, port 0xd9ce; SIDR REQ and REP on 0xd872; flow label 0.
TEST(RealCapture, UdaddyIpv6OnStock)
{
	auto sum = judge_file("udaddy-v6-stock.pcapng", Policy::Builtin);
	ASSERT_EQ(sum.connections.size(), 1u);
	const Connection &c = sum.connections[0];
	EXPECT_TRUE(c.ud);
	EXPECT_EQ(c.qpns, (std::vector<std::uint32_t>{0x17, 0x16}));
	EXPECT_EQ(c.cm_mads, 2u);
	EXPECT_EQ(c.forward.data_udp_sports, std::set<std::uint16_t>{0xf241});
	EXPECT_EQ(c.reverse.data_udp_sports, std::set<std::uint16_t>{0xd9ce});
	EXPECT_EQ(c.flow_labels, std::set<std::uint32_t>{0});
	EXPECT_TRUE(c.consistent);
	EXPECT_EQ(judge_file("udaddy-v6-stock.pcapng", Policy::Rfc).inconsistent, 1u);
}

// udaddy over IPv4 under rfc: the known gap (Documentation): the passive
// side's SIDR REP and replies do not use the connection's port.
TEST(RealCapture, UdaddyIpv4GapIsReported)
{
	auto sum = judge_file("udaddy-v4-rfc.pcapng", Policy::Rfc);
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
