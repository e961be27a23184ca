// SPDX-License-Identifier: GPL-2.0
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"
#include "sim/ecmp_report.h"

namespace roce
{
namespace
{

using nlohmann::json;

struct MaxMeanCase {
	const char *name;
	std::vector<std::uint64_t> load;
	double expected;
};

class MaxMean : public testing::TestWithParam<MaxMeanCase>
{
};

TEST_P(MaxMean, IsBusiestOverMean)
{
	EXPECT_DOUBLE_EQ(max_mean(GetParam().load), GetParam().expected);
}

const MaxMeanCase max_mean_cases[] = {
    {"Even", {10, 10, 10, 10}, 1.0}, {"OneLink", {0, 40, 0, 0}, 4.0},
    {"TwoLinks", {3, 1}, 1.5},       {"EightLinksOneHalf", {32, 0, 0, 0, 8, 8, 8, 8}, 4.0},
    {"Nothing", {0, 0, 0}, 0.0},
};

INSTANTIATE_TEST_SUITE_P(Cases, MaxMean, testing::ValuesIn(max_mean_cases),
                         [](const auto &param_info) { return std::string(param_info.param.name); });

EcmpRun run_of(const char *policy, std::vector<std::uint64_t> fwd, std::vector<std::uint64_t> rev)
{
	EcmpRun run;
	run.family = "ipv4";
	run.policy = policy;
	run.forward = std::move(fwd);
	run.reverse = std::move(rev);
	run.udp_sports = {0xC000, 0xC001};
	run.clients_ok = true;
	run.ideal_p95 = 1.88;
	return run;
}

TEST(EcmpJudge, OffOnOneLinkPasses)
{
	auto v = judge(run_of("off", {0, 0, 500, 0}, {0, 500, 0, 0}));
	EXPECT_TRUE(v.ok) << v.why;
	EXPECT_DOUBLE_EQ(v.forward_max_mean, 4.0);
}

TEST(EcmpJudge, OffToleratesAStrayNeighbourPacket)
{
	EXPECT_TRUE(judge(run_of("off", {1, 0, 999, 0}, {0, 1000, 0, 0})).ok);
	EXPECT_FALSE(judge(run_of("off", {20, 0, 980, 0}, {0, 1000, 0, 0})).ok);
}

TEST(EcmpJudge, OffSpreadFails)
{
	auto v = judge(run_of("off", {250, 250, 250, 250}, {0, 1000, 0, 0}));
	EXPECT_FALSE(v.ok);
	EXPECT_NE(v.why.find("one link"), std::string::npos);
}

TEST(EcmpJudge, PoliciesWithinTheIdealPass)
{
	// 1.8 = 450 / (1000 / 4)
	EXPECT_TRUE(judge(run_of("rfc", {450, 250, 200, 100}, {300, 300, 200, 200})).ok);
	EXPECT_TRUE(judge(run_of("mix", {250, 250, 250, 250}, {250, 250, 250, 250})).ok);
}

TEST(EcmpJudge, EitherDirectionBeyondTheIdealFails)
{
	// forward 2.0
	EXPECT_FALSE(judge(run_of("rfc", {500, 200, 200, 100}, {250, 250, 250, 250})).ok);
	// reverse 2.0
	EXPECT_FALSE(judge(run_of("mix", {250, 250, 250, 250}, {500, 200, 200, 100})).ok);
}

TEST(EcmpJudge, FailedClientOrNoPacketsFails)
{
	auto run = run_of("rfc", {250, 250, 250, 250}, {250, 250, 250, 250});
	run.clients_ok = false;
	EXPECT_EQ(judge(run).why, "a client failed");
	EXPECT_FALSE(judge(run).ok);
	EXPECT_FALSE(judge(run_of("off", {0, 0}, {0, 0})).ok);
}

TEST(EcmpJudge, HostRunsHaveOneDirection)
{
	auto run = run_of("rfc", {260, 240, 250, 250}, {});
	EXPECT_TRUE(judge(run).ok);
	run.forward = {1000, 0, 0, 0};
	EXPECT_FALSE(judge(run).ok);
	run.policy = "off";
	EXPECT_TRUE(judge(run).ok);
}

json raw_run(const char *policy, std::vector<std::uint64_t> fwd, std::vector<std::uint64_t> rev)
{
	return {{"family", "ipv4"},
	        {"policy", policy},
	        {"forward", fwd},
	        {"reverse", rev},
	        {"clients_ok", true},
	        {"clients", {{{"sport", 1}, {"dport", 7471}}, {{"sport", 2}, {"dport", 7471}}}}};
}

TEST(EcmpParse, PredictsEachConnectionsPort)
{
	json raw = {{"runs", {raw_run("rfc", {1, 2}, {2, 1}), raw_run("off", {3, 0}, {0, 3})}}};
	auto runs = parse_ecmp_runs(raw);
	ASSERT_EQ(runs.size(), 2u);
	// By hand, RFC: h = 1 * 7471 = 0x1d2f; h ^= h >> 16 (0); h ^= h >> 8:
	// 0x1d2f ^ 0x1d = 0x1d32; port 0x1d32 | 0xc000.  2 * 7471 = 0x3a5e;
	// 0x3a5e ^ 0x3a = 0x3a64; port 0x3a64 | 0xc000.
	EXPECT_EQ(runs[0].udp_sports, (std::vector<std::uint16_t>{0xDD32, 0xFA64}));
	EXPECT_EQ(runs[1].udp_sports, (std::vector<std::uint16_t>{0xC000, 0xC000}));
	EXPECT_EQ(judge(runs[1]).distinct_sports, 1u);
}

TEST(EcmpParse, RejectsMalformedResults)
{
	EXPECT_THROW(parse_ecmp_runs(json::object()), std::runtime_error);
	EXPECT_THROW(parse_ecmp_runs(json{{"runs", json::array()}}), std::runtime_error);
	EXPECT_THROW(parse_ecmp_runs(json{{"runs", {raw_run("fast", {1}, {1})}}}),
	             std::runtime_error);
	EXPECT_THROW(parse_ecmp_runs(json{{"runs", {raw_run("rfc", {1, 2}, {1})}}}),
	             std::runtime_error);
	EXPECT_THROW(parse_ecmp_runs(json{{"runs", {raw_run("rfc", {}, {})}}}), std::runtime_error);
	json no_clients = raw_run("rfc", {1}, {1});
	no_clients.erase("clients");
	EXPECT_THROW(parse_ecmp_runs(json{{"runs", {no_clients}}}), std::exception);
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
	std::vector<const char *> argv = {"roce-entropy", "ecmp-report", in.c_str(), "--svg",
	                                  svg.c_str(),    "--output",    rep.c_str()};
	std::ostringstream out, err;
	int status = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
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
	json raw = {
	    {"runs", {raw_run("off", {0, 700}, {700, 0}), raw_run("rfc", {350, 350}, {340, 360})}}};
	auto r = report(raw, dir);
	ASSERT_EQ(r.status, 0) << r.err << r.out;
	EXPECT_NE(r.out.find("IPv4: 2 rdma_cm connections over 2 links"), std::string::npos)
	    << r.out;
	EXPECT_NE(r.out.find("all on one link"), std::string::npos);
	json rep = json::parse(std::ifstream(dir + "/report.json"));
	EXPECT_TRUE(rep["ok"].get<bool>());
	EXPECT_DOUBLE_EQ(rep["runs"][0]["forward_max_mean"].get<double>(), 2.0);
	EXPECT_EQ(rep["runs"][1]["distinct_udp_sports"], 2);
	std::stringstream svg;
	svg << std::ifstream(dir + "/ecmp.svg").rdbuf();
	EXPECT_EQ(svg.str().rfind("<svg", 0), 0u);
	EXPECT_NE(svg.str().find("</svg>"), std::string::npos);
	std::remove((dir + "/raw.json").c_str());
	std::remove((dir + "/report.json").c_str());
	std::remove((dir + "/ecmp.svg").c_str());
	std::remove(dir.c_str());
}

TEST(EcmpReportCli, EachRunMeetsRandomPortsOverItsOwnLinks)
{
	const std::string dir = temp_dir();
	json host = raw_run("rfc", {1, 1, 1, 1}, {});
	host.erase("reverse");
	host["family"] = "host-ipv4";
	json raw = {{"runs", {raw_run("rfc", {350, 350}, {340, 360}), host}}};
	auto r = report(raw, dir);
	ASSERT_EQ(r.status, 0) << r.err << r.out;
	json rep = json::parse(std::ifstream(dir + "/report.json"));
	// Two connections over two links: both on one (max/mean 2) half the
	// time, one each (1) otherwise: 1.5.  Over four links (mean 0.5): both
	// on one (4) a quarter of the time, else 2: 2.5.
	EXPECT_NEAR(rep["runs"][0]["ideal_max_mean"].get<double>(), 1.5, 0.05);
	EXPECT_NEAR(rep["runs"][1]["ideal_max_mean"].get<double>(), 2.5, 0.05);
	EXPECT_TRUE(rep["runs"][1]["reverse_max_mean"].is_null());
	EXPECT_NE(r.out.find("the sending host's routes by UDP source port"), std::string::npos)
	    << r.out;
	for (const char *f : {"/raw.json", "/report.json", "/ecmp.svg"})
		std::remove((dir + f).c_str());
	std::remove(dir.c_str());
}

TEST(EcmpReportCli, ExitsOneWhenAPolicyFails)
{
	const std::string dir = temp_dir();
	json raw = {{"runs", {raw_run("off", {350, 350}, {700, 0})}}};
	auto r = report(raw, dir);
	EXPECT_EQ(r.status, 1) << r.err << r.out;
	EXPECT_NE(r.out.find("FAIL"), std::string::npos) << r.out;
	std::remove((dir + "/raw.json").c_str());
	std::remove((dir + "/report.json").c_str());
	std::remove((dir + "/ecmp.svg").c_str());
	std::remove(dir.c_str());
}

TEST(EcmpReportCli, MissingOrBrokenInputIsAUsageError)
{
	std::ostringstream out, err;
	const char *missing[] = {"roce-entropy", "ecmp-report", "/nonexistent/raw.json"};
	EXPECT_EQ(run_cli(3, missing, out, err), 2);
	EXPECT_NE(err.str().find("cannot read"), std::string::npos);

	const std::string dir = temp_dir();
	const std::string in = dir + "/raw.json";
	std::ofstream(in) << "{\"runs\": [";
	const char *broken[] = {"roce-entropy", "ecmp-report", in.c_str()};
	err.str("");
	EXPECT_EQ(run_cli(3, broken, out, err), 2);
	EXPECT_NE(err.str().find("not JSON"), std::string::npos);
	std::remove(in.c_str());
	std::remove(dir.c_str());
}

} // namespace
} // namespace roce
