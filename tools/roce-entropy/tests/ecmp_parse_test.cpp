// SPDX-License-Identifier: GPL-2.0
// ecmp-report's reading of the demo's raw result (parse_ecmp_runs) and the
// command itself; ecmp_report_test.cpp judges runs already read.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "lab/ecmp_report.h"
#include "lab_cli.h"

namespace roce
{
namespace
{

using nlohmann::json;

json dir_json(std::vector<std::uint16_t> sports, std::map<std::string, unsigned> ifaces,
              std::vector<std::uint32_t> fls = {})
{
	unsigned packets = 0;
	for (const auto &[i, n] : ifaces)
		packets += n;
	return {{"packets", packets},
	        {"udp_sports", sports},
	        {"flow_labels", fls},
	        {"interfaces", ifaces}};
}

json pconn(const char *src, const char *dst, const char *transport, std::vector<std::uint32_t> qpns,
           json cm_ports, json fwd, json rev, bool consistent = true)
{
	return {{"src", src},
	        {"dst", dst},
	        {"transport", transport},
	        {"qpns", qpns},
	        {"cm_ports", cm_ports},
	        {"forward", fwd},
	        {"reverse", rev},
	        {"consistent", consistent}};
}

// Two links, interfaces 11 and 12; A is 10.1.0.2, B 10.2.0.2.
json raw_result(json phases)
{
	return {{"addresses", {{"ipv4", {{"a", "10.1.0.2"}, {"b", "10.2.0.2"}}}}},
	        {"link_ifindex", {11, 12}},
	        {"phases", phases}};
}

// Stock 6.12, rdma_cm: connection 50000 has its MADs (0xd872) on link 1 and
// its data on link 0; 50001 is all on link 1.
json linux_cm_phase()
{
	json pcap = {{"connections",
	              {pconn("10.1.0.2", "10.2.0.2", "RC", {0x11, 0x12}, {50000, 7471},
	                     dir_json({0xD872, 0xC100}, {{"11", 40}, {"12", 3}}),
	                     dir_json({0xD872, 0xC100}, {{"11", 40}, {"12", 2}})),
	               pconn("10.1.0.2", "10.2.0.2", "RC", {0x13, 0x14}, {50001, 7471},
	                     dir_json({0xD872, 0xC200}, {{"12", 43}}),
	                     dir_json({0xD872, 0xC200}, {{"12", 42}}))}}};
	return {{"policy", "builtin"},
	        {"mix", "cm"},
	        {"counters", {{"forward", {40, 46}}, {"reverse", {40, 44}}}},
	        {"host", {{"ipv4", {0, 0, 0, 86}}}},
	        {"workloads",
	         {{{"family", "ipv4"},
	           {"kind", "rdma_cm RC"},
	           {"ok", true},
	           {"connections",
	            {{{"src", "10.1.0.2"}, {"sport", 50000}, {"dport", 7471}},
	             {{"src", "10.1.0.2"}, {"sport", 50001}, {"dport", 7471}}}}}}},
	        {"pcap", pcap}};
}

// The users' mix under mix: an RC pair without CM, seen as two halves, and
// a UD pair.
json users_phase()
{
	json pcap = {{"connections",
	              {pconn("10.1.0.2", "10.2.0.2", "RC", {0x22}, nullptr,
	                     dir_json({0xE000}, {{"11", 20}}), dir_json({}, {})),
	               pconn("10.2.0.2", "10.1.0.2", "RC", {0x21}, nullptr,
	                     dir_json({0xE000}, {{"11", 20}}), dir_json({}, {})),
	               pconn("10.1.0.2", "10.2.0.2", "UD", {0x23, 0x24}, nullptr,
	                     dir_json({0xF000}, {{"12", 20}}), dir_json({0xF000}, {{"12", 20}}))}}};
	return {{"policy", "mix"},
	        {"mix", "users"},
	        {"counters", {{"forward", {20, 20}}, {"reverse", {20, 20}}}},
	        {"workloads",
	         {{{"family", "ipv4"},
	           {"kind", "RC"},
	           {"ok", true},
	           {"connections", {{{"qpn_a", 0x21}, {"qpn_b", 0x22}}}}},
	          {{"family", "ipv4"},
	           {"kind", "UD"},
	           {"ok", true},
	           {"connections", {{{"qpn_a", 0x23}, {"qpn_b", 0x24}}}}}}},
	        {"pcap", pcap}};
}

TEST(EcmpParse, CapturedConnectionsPerLink)
{
	auto runs = parse_ecmp_runs(raw_result({users_phase(), linux_cm_phase()}));
	// Sorted: the routers' rdma_cm run, the host's, the users' mix.
	ASSERT_EQ(runs.size(), 3u);
	const EcmpRun &cm = runs[0];
	EXPECT_EQ(cm.act, "ecmp");
	EXPECT_EQ(cm.mix, "cm");
	EXPECT_EQ(cm.policy, "builtin");
	EXPECT_EQ(cm.forward, (std::vector<std::uint64_t>{40, 46}));
	EXPECT_EQ(cm.reverse, (std::vector<std::uint64_t>{40, 44}));
	EXPECT_DOUBLE_EQ(cm.capture_coverage, 1.0);
	ASSERT_EQ(cm.connections.size(), 2u);
	EXPECT_TRUE(cm.connections[0].found);
	EXPECT_EQ(cm.connections[0].udp_sports, (std::set<std::uint16_t>{0xC100, 0xD872}));
	// By hand: 50000 * 31 + 7471 = 1557471 = 0x17C3DF, 20 bits 0x7C3DF:
	// port 0x03DF ^ 0x1F = 0x03C0 | 0xC000 = 0xC3C0, not QP1's 0xD872.
	EXPECT_TRUE(cm.connections[0].linux_splits);
	auto v = judge(cm);
	EXPECT_EQ(v.split, 2u);
	EXPECT_EQ(v.apart, 0u);
	EXPECT_TRUE(v.ok) << v.why;

	const EcmpRun &host = runs[1];
	EXPECT_EQ(host.act, "host");
	EXPECT_EQ(host.forward, (std::vector<std::uint64_t>{0, 0, 0, 86}));
	EXPECT_EQ(host.connection_count, 2u);
	EXPECT_TRUE(host.reverse.empty());

	const EcmpRun &users = runs[2];
	EXPECT_EQ(users.mix, "users");
	ASSERT_EQ(users.connections.size(), 2u);
	const DemoConnection &rc = users.connections[0];
	EXPECT_EQ(rc.kind, "RC");
	EXPECT_TRUE(rc.found);
	EXPECT_EQ(rc.forward_links, (std::map<unsigned, std::uint64_t>{{0, 20}}));
	EXPECT_EQ(rc.reverse_links, (std::map<unsigned, std::uint64_t>{{0, 20}}));
	const DemoConnection &ud = users.connections[1];
	EXPECT_EQ(ud.kind, "UD");
	EXPECT_TRUE(ud.found);
	EXPECT_EQ(ud.udp_sports, std::set<std::uint16_t>{0xF000});
	// hash_32(0x23, 14) and hash_32(0x24, 14): two ports under stock.
	EXPECT_TRUE(ud.linux_splits);
	EXPECT_FALSE(users.balance_asserted);
	EXPECT_EQ(users.forward, (std::vector<std::uint64_t>{20, 20}));
	EXPECT_TRUE(judge(users).ok) << judge(users).why;
}

// A UD pair over IPv6 with the QPNs of an IPv4 pair the other way round
// (A's 0x24 with B's 0x23): each family's connection is its own capture's,
// and the IPv6 one has its flow label.
TEST(EcmpParse, QpnsThatMeetInTheOtherFamily)
{
	json phase = users_phase();
	phase["pcap"]["connections"].push_back(pconn("fd01::2", "fd02::2", "UD", {0x23, 0x24},
	                                             nullptr,
	                                             dir_json({0xF001}, {{"11", 20}}, {0x12345}),
	                                             dir_json({0xF001}, {{"11", 20}}, {0x12345})));
	phase["workloads"].push_back({{"family", "ipv6"},
	                              {"kind", "UD"},
	                              {"ok", true},
	                              {"connections", {{{"qpn_a", 0x24}, {"qpn_b", 0x23}}}}});
	phase["counters"] = {{"forward", {40, 20}}, {"reverse", {20, 20}}};
	json raw = raw_result({phase});
	raw["addresses"]["ipv6"] = {{"a", "fd01::2"}, {"b", "fd02::2"}};
	auto runs = parse_ecmp_runs(raw);
	ASSERT_EQ(runs.size(), 2u);
	const EcmpRun &v6 = runs[1];
	ASSERT_EQ(v6.family, "ipv6");
	ASSERT_EQ(v6.connections.size(), 1u);
	EXPECT_TRUE(v6.connections[0].found);
	EXPECT_EQ(v6.connections[0].udp_sports, (std::set<std::uint16_t>{0xF001}));
	EXPECT_EQ(v6.connections[0].flow_labels, (std::set<std::uint32_t>{0x12345}));
	const auto v = judge(v6);
	EXPECT_EQ(v.fl_zero, 0u);
	EXPECT_EQ(v.fl_set, 1u);
}

TEST(EcmpParse, AConnectionMissingFromTheCapture)
{
	json phase = users_phase();
	phase["pcap"]["connections"].erase(1); // B to A of the RC pair
	auto runs = parse_ecmp_runs(raw_result({phase}));
	ASSERT_EQ(runs.size(), 1u);
	EXPECT_FALSE(runs[0].connections[0].found);
	EXPECT_TRUE(runs[0].connections[1].found);
	auto v = judge(runs[0]);
	EXPECT_EQ(v.missing, 1u);
	EXPECT_FALSE(v.ok);
	EXPECT_LT(runs[0].capture_coverage, 0.99);
}

TEST(EcmpParse, RejectsMalformedResults)
{
	EXPECT_THROW(parse_ecmp_runs(json::object()), std::runtime_error);
	EXPECT_THROW(parse_ecmp_runs(raw_result(json::array())), std::runtime_error);
	json bad = linux_cm_phase();
	bad["policy"] = "fast";
	EXPECT_THROW(parse_ecmp_runs(raw_result({bad})), std::runtime_error);
	bad = linux_cm_phase();
	bad.erase("pcap");
	EXPECT_THROW(parse_ecmp_runs(raw_result({bad})), std::runtime_error);
	bad = linux_cm_phase();
	bad["workloads"][0]["kind"] = "XRC";
	EXPECT_THROW(parse_ecmp_runs(raw_result({bad})), std::runtime_error);
	bad = linux_cm_phase();
	bad["counters"]["reverse"] = json::array();
	EXPECT_THROW(parse_ecmp_runs(raw_result({bad})), std::exception);
	bad = linux_cm_phase();
	bad["counters"]["forward"][0] = -6;
	EXPECT_THROW(parse_ecmp_runs(raw_result({bad})), std::runtime_error);
	bad = linux_cm_phase();
	bad["host"]["ipv4"][0] = -6;
	EXPECT_THROW(parse_ecmp_runs(raw_result({bad})), std::runtime_error);
	json no_links = raw_result({linux_cm_phase()});
	no_links["link_ifindex"] = json::array();
	EXPECT_THROW(parse_ecmp_runs(no_links), std::runtime_error);
}

struct CliResult {
	int status;
	std::string out, err;
};

CliResult report(const json &raw, const std::string &dir)
{
	const std::string in = dir + "/raw.json";
	std::ofstream(in) << raw.dump();
	const std::string svg = dir + "/ecmp.svg", rep = dir + "/report.json";
	std::vector<const char *> argv = {"roce-lab",  "ecmp-report", in.c_str(), "--svg",
	                                  svg.c_str(), "--output",    rep.c_str()};
	std::ostringstream out, err;
	int status = run_lab_cli(static_cast<int>(argv.size()), argv.data(), out, err);
	return {status, out.str(), err.str()};
}

std::string temp_dir()
{
	char tmpl[] = "/tmp/ecmp-report-XXXXXX";
	return mkdtemp(tmpl);
}

TEST(EcmpReportCli, WritesTableJsonAndChart)
{
	const std::string dir = temp_dir();
	auto r = report(raw_result({linux_cm_phase(), users_phase()}), dir);
	ASSERT_EQ(r.status, 0) << r.err << r.out;
	EXPECT_NE(r.out.find("IPv4, 2 rdma_cm RC connections over 2 links"), std::string::npos)
	    << r.out;
	EXPECT_NE(r.out.find("2 connections as users run them (0 rdma_cm RC, 1 RC without CM, 1 "
	                     "UD with an AH per peer)"),
	          std::string::npos)
	    << r.out;
	EXPECT_NE(r.out.find("summary (builtin is stock 6.12, the baseline)"), std::string::npos);
	json rep = json::parse(std::ifstream(dir + "/report.json"));
	EXPECT_TRUE(rep["ok"].get<bool>());
	ASSERT_EQ(rep["runs"].size(), 3u);
	EXPECT_EQ(rep["runs"][0]["policy"], "builtin");
	EXPECT_EQ(rep["runs"][0]["more_than_one_udp_sport"], 2);
	EXPECT_NEAR(rep["runs"][0]["forward_max_mean"].get<double>(), 46.0 * 2 / 86, 1e-9);
	EXPECT_EQ(rep["runs"][2]["by_kind"]["UD"]["connections"], 1);
	// Two connections over two links: both on one (max/mean 2) half the
	// time, one each (1) otherwise: 1.5.  Over four hops (mean 0.5): both
	// on one (4) a quarter of the time, else 2: 2.5.
	EXPECT_NEAR(rep["runs"][0]["ideal_max_mean"].get<double>(), 1.5, 0.05);
	EXPECT_NEAR(rep["runs"][1]["ideal_max_mean"].get<double>(), 2.5, 0.05);
	EXPECT_TRUE(rep["runs"][1]["reverse_max_mean"].is_null());
	std::stringstream svg;
	svg << std::ifstream(dir + "/ecmp.svg").rdbuf();
	EXPECT_EQ(svg.str().rfind("<svg", 0), 0u);
	EXPECT_NE(svg.str().find("IPv4 rdma_cm, builtin (stock)"), std::string::npos);
	EXPECT_NE(svg.str().find("</svg>"), std::string::npos);
	for (const char *f : {"/raw.json", "/report.json", "/ecmp.svg"})
		std::remove((dir + f).c_str());
	std::remove(dir.c_str());
}

TEST(EcmpReportCli, ExitsOneWhenARunFails)
{
	const std::string dir = temp_dir();
	json phase = linux_cm_phase();
	phase["policy"] = "rfc"; // two ports per connection: not rfc's
	auto r = report(raw_result({phase}), dir);
	EXPECT_EQ(r.status, 1) << r.err << r.out;
	EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
	for (const char *f : {"/raw.json", "/report.json", "/ecmp.svg"})
		std::remove((dir + f).c_str());
	std::remove(dir.c_str());
}

TEST(EcmpReportCli, MissingOrBrokenInputIsAUsageError)
{
	std::ostringstream out, err;
	const char *missing[] = {"roce-lab", "ecmp-report", "/nonexistent/raw.json"};
	EXPECT_EQ(run_lab_cli(3, missing, out, err), 2);
	EXPECT_NE(err.str().find("cannot read"), std::string::npos);

	const std::string dir = temp_dir();
	const std::string in = dir + "/raw.json";
	std::ofstream(in) << "{\"phases\": [";
	const char *broken[] = {"roce-lab", "ecmp-report", in.c_str()};
	err.str("");
	EXPECT_EQ(run_lab_cli(3, broken, out, err), 2);
	EXPECT_NE(err.str().find("not JSON"), std::string::npos);
	std::remove(in.c_str());
	std::remove(dir.c_str());
}

} // namespace
} // namespace roce
