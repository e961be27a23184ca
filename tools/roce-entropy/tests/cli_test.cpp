// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli_run.h"
#include "test_paths.h"

namespace roce
{
namespace
{

constexpr auto *run = &test::run_roce_entropy;

TEST(Cli, FlowLabelFromQpnsJson)
{
	auto r = run({"flow-label", "--policy", "rfc", "--qpn", "0x12", "18", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["policy"], "rfc");
	EXPECT_EQ(j["flow_label"], 0x144);
	EXPECT_EQ(j["udp_sport"], 0xC144);
}

TEST(Cli, FlowLabelFromCmPortsJson)
{
	auto r = run({"flow-label", "--policy", "rfc", "--cm-ports", "0x100", "256", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["flow_label"], 0x10101);
	EXPECT_EQ(j["udp_sport"], 0xC105);
}

TEST(Cli, ApplicationFlowLabelWinsUnderOff)
{
	auto r = run({"flow-label", "--policy", "off", "--qpn", "1", "2", "--flow-label", "0xabcde",
	              "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(nlohmann::json::parse(r.out)["udp_sport"], 0xFCF4);
}

// The real rping capture (IPv6, CM ports 45313 and 7174, QPNs 20 and 20),
// by hand: rfc CM 45313 * 7174 = 0x13604206, folded 0x33137, port 0xf13b;
// mix CM (0x13604206 * 0x61c88647 mod 2^32) >> 12 = 0x9cf17, port 0xcf30;
// rfc QPN 400 = 0x190, port 0xc190; mix QPN (400 * 0x61c8864680b583eb mod
// 2^64) >> 44 = 0xc951c, port 0xd52e.
TEST(Cli, PcapJsonPredictsEveryPolicy)
{
	auto r = run({"pcap", test::data_dir() + "/rping-v6-rfc.pcapng", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	const auto p = nlohmann::json::parse(r.out)["connections"][0]["predicted"];
	EXPECT_EQ(p["off"]["cm"]["flow_label"], 0);
	EXPECT_EQ(p["off"]["cm"]["udp_sport"], 0xC000);
	EXPECT_EQ(p["off"]["qpn"]["udp_sport"], 0xC000);
	EXPECT_EQ(p["rfc"]["cm"]["flow_label"], 0x33137);
	EXPECT_EQ(p["rfc"]["cm"]["udp_sport"], 0xF13B);
	EXPECT_EQ(p["mix"]["cm"]["flow_label"], 0x9CF17);
	EXPECT_EQ(p["mix"]["cm"]["udp_sport"], 0xCF30);
	EXPECT_EQ(p["rfc"]["qpn"]["flow_label"], 0x190);
	EXPECT_EQ(p["rfc"]["qpn"]["udp_sport"], 0xC190);
	EXPECT_EQ(p["mix"]["qpn"]["flow_label"], 0xC951C);
	EXPECT_EQ(p["mix"]["qpn"]["udp_sport"], 0xD52E);
	EXPECT_EQ(p["builtin"]["cm"]["flow_label"], 0x58B25);
	EXPECT_EQ(p["builtin"]["cm"]["udp_sport"], 0xCB33);
	EXPECT_EQ(p["builtin"]["qpn"]["udp_sport"], 0xC190);
	EXPECT_EQ(p["builtin"]["cm_mads"]["udp_sport"], 0xD872);
	EXPECT_EQ(p["builtin"]["cm_mads"]["flow_label"], 0);
	EXPECT_FALSE(p["builtin"].contains("ud"));
}

// udaddy on stock (IPv6, QPNs 0x17 and 0x16, RealCapture.UdaddyIpv6OnStock):
// under builtin each UD QP's own port, no QPN flow label.
TEST(Cli, PcapJsonLinuxUdPorts)
{
	auto r = run({"pcap", test::data_dir() + "/udaddy-v6-stock.pcapng", "--policy", "builtin",
	              "--json"});
	ASSERT_EQ(r.status, 0) << r.err << r.out;
	const auto p = nlohmann::json::parse(r.out)["connections"][0]["predicted"];
	EXPECT_FALSE(p["builtin"].contains("qpn"));
	EXPECT_EQ(p["builtin"]["ud"][0]["udp_sport"], 0xF241);
	EXPECT_EQ(p["builtin"]["ud"][1]["udp_sport"], 0xD9CE);
	EXPECT_EQ(p["rfc"]["qpn"]["flow_label"], 0x17 * 0x16);
}

// builtin: 6.12's rdma_cm hash, 45313 * 31 + 7174 = 0x158b25, masked 0x58b25,
// port (0x0b25 ^ 0x16) | 0xc000 = 0xcb33; without CM the RFC QPN hash.
TEST(Cli, FlowLabelUnderLinux)
{
	auto r =
	    run({"flow-label", "--policy", "builtin", "--cm-ports", "45313", "7174", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["policy"], "builtin");
	EXPECT_EQ(j["flow_label"], 0x58B25);
	EXPECT_EQ(j["udp_sport"], 0xCB33);
	r = run({"flow-label", "--policy", "builtin", "--qpn", "0x12", "0x12", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(nlohmann::json::parse(r.out)["udp_sport"], 0xC144);
}

TEST(Cli, TextOutput)
{
	auto r = run({"flow-label", "--policy", "mix", "--qpn", "0x12", "0x12"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_NE(r.out.find("flow_label 0xc1c9f"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("udp_sport  0xdcaf"), std::string::npos) << r.out;
}

TEST(Cli, SimulateSvgHasAPanelPerPolicy)
{
	const std::string svg = "/tmp/roce-entropy-cli-test.svg";
	std::remove(svg.c_str());
	auto r = run({"simulate", "--policy", "rfc", "--policy", "off", "-n", "64", "-m", "4",
	              "--svg", svg});
	ASSERT_EQ(r.status, 0) << r.err;
	std::stringstream text;
	text << std::ifstream(svg).rdbuf();
	const std::string s = text.str();
	EXPECT_EQ(s.rfind("<svg", 0), 0u);
	EXPECT_NE(s.find("rfc: max/mean"), std::string::npos);
	// off: every connection on one path, max/mean = the number of paths
	EXPECT_NE(s.find("off: max/mean 4.00"), std::string::npos) << s.substr(0, 600);
	EXPECT_NE(s.find("</svg>"), std::string::npos);
	std::remove(svg.c_str());

	r = run({"simulate", "--grid", "--svg", svg});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("not the --grid"), std::string::npos);
}

TEST(Cli, UdpSport)
{
	auto r = run({"udp-sport", "--flow-label", "0xfffff", "--json"});
	ASSERT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(nlohmann::json::parse(r.out)["udp_sport"], 0xFFC0);
}

struct BadArgs {
	std::vector<std::string> args;
	std::string message;
};

class CliRejects : public testing::TestWithParam<BadArgs>
{
};

TEST_P(CliRejects, WithMessageAndNonZeroStatus)
{
	auto r = run(GetParam().args);
	EXPECT_NE(r.status, 0);
	EXPECT_TRUE(r.out.empty()) << r.out;
	EXPECT_NE(r.err.find(GetParam().message), std::string::npos) << r.err;
}

INSTANTIATE_TEST_SUITE_P(
    Cases, CliRejects,
    testing::Values(
        BadArgs{{"flow-label", "--policy", "bogus", "--qpn", "1", "2"}, "unknown policy"},
        BadArgs{{"flow-label", "--policy", "rfc", "--qpn", "0x1000000", "2"}, "out of range"},
        BadArgs{{"flow-label", "--policy", "rfc", "--cm-ports", "65536", "1"}, "out of range"},
        BadArgs{{"flow-label", "--policy", "rfc", "--qpn", "12x", "2"}, "not a number"},
        BadArgs{{"flow-label", "--policy", "rfc", "--qpn", "", "2"}, "not a number"},
        BadArgs{{"flow-label", "--policy", "rfc", "--qpn", "-1", "2"}, "not a number"},
        BadArgs{{"flow-label", "--policy", "rfc"}, "--cm-ports or --qpn"},
        BadArgs{{"flow-label", "--policy", "rfc", "--qpn", "1"}, "qpn"},
        BadArgs{{"flow-label", "--policy", "rfc", "--qpn", "1", "2", "--cm-ports", "1", "2"},
                "excludes"},
        BadArgs{{"flow-label", "--qpn", "1", "2"}, "policy"},
        BadArgs{{"udp-sport", "--flow-label", "0x100000"}, "out of range"},
        BadArgs{{"frobnicate"}, ""}, BadArgs{{}, ""},
        BadArgs{{"simulate", "--switch-hash", "md5"}, "unknown switch hash"},
        BadArgs{{"simulate", "--paths", "0"}, "at least 1"},
        BadArgs{{"simulate", "--policy", "best"}, "unknown policy"}),
    [](const auto &param_info) { return "case" + std::to_string(param_info.index); });

} // namespace
} // namespace roce
