// SPDX-License-Identifier: GPL-2.0
// make fabric's report: the ideal completion time, percentiles, each job's
// figures and the report over seeds and policies, with values worked out
// by hand; its input read as hostile (hosts and links that do not fit the
// topology are refused).
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "args/args.h"
#include "lab/fabric.h"
#include "sim/fabric_ideal.h"

namespace roce
{
namespace
{

// 2 leaves x 2 spines, 2 hosts a leaf, 8 kbit/s: 1000 bytes a second.
FabricTopology small()
{
	return {2, 2, 2, 8};
}

std::vector<FabricFlow> flows(const std::vector<std::pair<unsigned, unsigned>> &pairs)
{
	std::vector<FabricFlow> out;

	for (auto [s, d] : pairs)
		out.push_back({s, d, 0});
	return out;
}

TEST(FabricIdeal, PermutationIsOneFlowPerLink)
{
	// every host link carries 1000 bytes; leaf 0 sends 2000 over 2 uplinks
	EXPECT_DOUBLE_EQ(
	    fabric_ideal_seconds(small(), flows({{0, 2}, {1, 3}, {2, 0}, {3, 1}}), 1000), 1.0);
}

TEST(FabricIdeal, AllToAllIsBoundByTheHostLinks)
{
	std::vector<std::pair<unsigned, unsigned>> pairs;
	for (unsigned s = 0; s < 4; s++)
		for (unsigned d = 0; d < 4; d++)
			if (s != d)
				pairs.emplace_back(s, d);
	// a host sends 3000 bytes (3 s); a leaf sends 4000 across, 2000 an
	// uplink (2 s)
	EXPECT_DOUBLE_EQ(fabric_ideal_seconds(small(), flows(pairs), 1000), 3.0);
}

TEST(FabricIdeal, OversubscribedUplinksBind)
{
	// 4 hosts a leaf, 2 spines: leaf 0 sends 4000 bytes over 2 uplinks
	const FabricTopology t{2, 2, 4, 8};
	EXPECT_DOUBLE_EQ(
	    fabric_ideal_seconds(t, flows({{0, 4}, {1, 5}, {2, 6}, {3, 7}, {4, 0}}), 1000), 2.0);
}

TEST(FabricIdeal, WithinALeafNoUplink)
{
	EXPECT_DOUBLE_EQ(fabric_ideal_seconds(small(), flows({{0, 1}}), 500), 0.5);
	// two flows into host 1: its link carries both
	EXPECT_DOUBLE_EQ(fabric_ideal_seconds(small(), flows({{0, 1}, {2, 1}}), 500), 1.0);
}

TEST(FabricPercentile, NearestRank)
{
	const std::vector<double> v = {5, 1, 3, 2, 4};
	EXPECT_EQ(nearest_rank(v, 50), 3);
	EXPECT_EQ(nearest_rank(v, 99), 5);
	EXPECT_EQ(nearest_rank(v, 100), 5);
	EXPECT_EQ(nearest_rank(v, 1), 1);
	EXPECT_EQ(nearest_rank(v, 20), 1);
	EXPECT_EQ(nearest_rank(v, 21), 2);
	EXPECT_EQ(nearest_rank({}, 50), 0);
}

// One job line as tools/fabric/fabric.sh writes it: SECONDS per flow of
// the permutation {0,2},{1,3},{2,0},{3,1}.
std::string job_line(const std::string &policy, unsigned seed, const std::vector<double> &secs,
                     const std::string &links = "[4,0,0,0,4,0,0,0]",
                     const std::string &pairs = "[[0,2],[1,3],[2,0],[3,1]]")
{
	std::string fl;
	double most = 0;
	for (double s : secs) {
		fl += (fl.empty() ? "" : ",") + std::string("{\"seconds\":") + std::to_string(s) +
		      "}";
		most = std::max(most, s);
	}
	return "{\"policy\":\"" + policy +
	       "\",\"hash\":\"ipv4\",\"job\":\"perm\",\"seed\":" + std::to_string(seed) +
	       ",\"topology\":{\"leaves\":2,\"spines\":2,\"hosts_per_leaf\":2,\"rate_kbit\":8},"
	       "\"pairs\":" +
	       pairs + ",\"uplink_bytes\":" + links +
	       ",\"flows\":{\"connect\":\"rdma_cm\",\"qps_per_flow\":1,\"bytes_per_flow\":1000,"
	       "\"job_seconds\":" +
	       std::to_string(most) + ",\"flows\":[" + fl + "]}}\n";
}

const std::string kCalibration =
    "{\"calibration\":{\"one_flow\":0.95,\"pinned\":0.93,\"flows\":4,\"rate_kbit\":8}}\n";

std::string plan(unsigned jobs)
{
	return "{\"plan\":{\"jobs\":" + std::to_string(jobs) + "}}\n";
}

FabricRuns parse(const std::string &text)
{
	std::istringstream in(text);
	return parse_fabric_runs(in, "runs.jsonl");
}

TEST(FabricJob, Figures)
{
	const FabricRuns runs = parse(job_line("rfc", 1, {1.0, 2.0, 3.0, 4.0}));
	ASSERT_EQ(runs.jobs.size(), 1u);
	const JobFigures f = job_figures(runs.jobs[0]);
	EXPECT_DOUBLE_EQ(f.jct, 4.0);
	EXPECT_DOUBLE_EQ(f.ideal, 1.0);
	EXPECT_DOUBLE_EQ(f.p50, 2.0);
	EXPECT_DOUBLE_EQ(f.p99, 4.0);
	// 8 bytes over 8 links: mean 1, the busiest 4
	EXPECT_DOUBLE_EQ(f.link_max_mean, 4.0);
	EXPECT_EQ(runs.jobs[0].flows[3].src, 3u);
	EXPECT_EQ(runs.jobs[0].flows[3].dst, 1u);
	EXPECT_EQ(runs.jobs[0].connect, "rdma_cm");
}

TEST(FabricReport, PoliciesOverSeedsAgainstStockAndTheIdeal)
{
	// stock: JCT 2 and 4 (mean 3); rfc: 1 and 2 (mean 1.5), ideal 1
	const FabricRuns runs =
	    parse(plan(2) + kCalibration + plan(2) + job_line("stock", 1, {2, 1, 1, 1}) +
	          job_line("stock", 2, {4, 1, 1, 1}) + job_line("rfc", 1, {1, 1, 1, 1}) +
	          job_line("rfc", 2, {2, 1, 1, 1}));
	const nlohmann::json j = fabric_report(runs).json();
	EXPECT_TRUE(j["ok"].get<bool>());
	EXPECT_EQ(j["baseline"], "stock");
	EXPECT_EQ(j["seeds"], 2);
	ASSERT_EQ(j["cells"].size(), 1u);
	const auto &c = j["cells"][0];
	EXPECT_DOUBLE_EQ(c["ideal_seconds"].get<double>(), 1.0);
	EXPECT_DOUBLE_EQ(c["policies"]["stock"]["over_ideal_mean"].get<double>(), 3.0);
	EXPECT_DOUBLE_EQ(c["policies"]["stock"]["over_ideal_min"].get<double>(), 2.0);
	EXPECT_DOUBLE_EQ(c["policies"]["stock"]["over_ideal_max"].get<double>(), 4.0);
	EXPECT_DOUBLE_EQ(c["policies"]["rfc"]["over_ideal_mean"].get<double>(), 1.5);
	EXPECT_DOUBLE_EQ(c["policies"]["rfc"]["over_baseline"].get<double>(), 0.5);
	EXPECT_DOUBLE_EQ(c["policies"]["stock"]["over_baseline"].get<double>(), 1.0);
	EXPECT_DOUBLE_EQ(j["headline"]["rfc"]["over_ideal"].get<double>(), 1.5);
	EXPECT_DOUBLE_EQ(j["headline"]["rfc"]["over_baseline"].get<double>(), 0.5);
	const std::string text = fabric_report(runs).text();
	EXPECT_NE(text.find("rfc      JCT 1.50 x the ideal, 0.50 x stock's"), std::string::npos)
	    << text;
	EXPECT_NE(text.find("the fabric is the bottleneck"), std::string::npos) << text;
	EXPECT_NE(text.find("jobs: 4 of 4 planned ran\n"), std::string::npos) << text;
	// the flows' p50 and p99 over the ideal and the busiest link, each
	// with its spread: stock's p99 is its JCT, 2 and 4; its p50 1 in both
	EXPECT_DOUBLE_EQ(c["policies"]["stock"]["flow_p99_min"].get<double>(), 2.0);
	EXPECT_DOUBLE_EQ(c["policies"]["stock"]["flow_p99_max"].get<double>(), 4.0);
	EXPECT_DOUBLE_EQ(c["policies"]["stock"]["flow_p50_max"].get<double>(), 1.0);
	EXPECT_DOUBLE_EQ(c["policies"]["stock"]["link_max_over_mean_min"].get<double>(), 4.0);
	const auto p99 = text.find("flows' p99 completion over the ideal, mean [min-max]");
	ASSERT_NE(p99, std::string::npos) << text;
	EXPECT_NE(text.find("ipv4       perm  1 rdma_cm   3.00 [2.00-4.00]", p99),
	          std::string::npos)
	    << text;
	EXPECT_NE(text.find("flows' p50 completion over the ideal, mean [min-max]"),
	          std::string::npos)
	    << text;
	EXPECT_NE(text.find("the busiest leaf-spine link over their mean, mean [min-max]"),
	          std::string::npos)
	    << text;
}

TEST(FabricReport, NotOkWhenAPlannedJobDidNotRun)
{
	const Record r =
	    fabric_report(parse(plan(3) + kCalibration + job_line("rfc", 1, {1, 1, 1, 1})));
	EXPECT_FALSE(r.json()["ok"].get<bool>());
	EXPECT_EQ(r.json()["jobs_planned"], 3);
	EXPECT_NE(r.text().find("jobs: 1 of 3 planned ran: NOT ALL"), std::string::npos)
	    << r.text();
}

TEST(FabricReport, BuiltinIsTheBaselineWithoutTheStockBoot)
{
	const FabricRuns runs =
	    parse(plan(2) + kCalibration + job_line("builtin", 1, {2, 1, 1, 1}) +
	          job_line("mix", 1, {1, 1, 1, 1}));
	const nlohmann::json j = fabric_report(runs).json();
	EXPECT_EQ(j["baseline"], "builtin");
	EXPECT_DOUBLE_EQ(j["headline"]["mix"]["over_baseline"].get<double>(), 0.5);
}

TEST(FabricReport, NotOkWithoutACalibrationOrBelowTheRate)
{
	EXPECT_FALSE(fabric_report(parse(plan(1) + job_line("rfc", 1, {1, 1, 1, 1})))
	                 .json()["ok"]
	                 .get<bool>());
	const std::string slow =
	    "{\"calibration\":{\"one_flow\":0.95,\"pinned\":0.5,\"flows\":4,\"rate_kbit\":8}}\n";
	const Record r = fabric_report(parse(plan(1) + slow + job_line("rfc", 1, {1, 1, 1, 1})));
	EXPECT_FALSE(r.json()["ok"].get<bool>());
	EXPECT_NE(r.text().find("NOT the fabric's rate"), std::string::npos);
}

// job_line's job with its hash and QPs per flow replaced.
std::string job_as(const std::string &policy, const std::string &hash, unsigned qps)
{
	std::string line = job_line(policy, 1, {1, 1, 1, 1});
	line.replace(line.find("\"ipv4\""), 6, "\"" + hash + "\"");
	line.replace(line.find("\"qps_per_flow\":1"), 16,
	             "\"qps_per_flow\":" + std::to_string(qps));
	return line;
}

TEST(FabricReport, CellsSimulatedBeside)
{
	// 2 leaves x 2 spines, 2 hosts a leaf, one QP a pair: a leaf's two
	// QPs share an uplink with probability 1/2, doubling the busiest
	// link's bytes; neither leaf collides in 1 case of 4, so a random
	// port and label per QP bounds the job at 0.25 * 1 + 0.75 * 2 = 1.75
	// x the ideal
	const nlohmann::json j =
	    fabric_report(parse(plan(1) + kCalibration + job_line("rfc", 1, {1, 1, 1, 1}))).json();
	const auto &c = j["cells"][0];
	EXPECT_NEAR(c["simulated_random"]["over_ideal_mean"].get<double>(), 1.75, 0.1);
	const double rfc = c["policies"]["rfc"]["simulated"]["over_ideal_mean"].get<double>();
	EXPECT_GE(rfc, 1.0);
	EXPECT_LE(rfc, 2.0);
	EXPECT_DOUBLE_EQ(j["headline"]["rfc"]["simulated_over_ideal"].get<double>(), rfc);
	EXPECT_TRUE(j["ok"].get<bool>());
}

TEST(FabricReport, StockSimulatedSendsNoLabel)
{
	// under the IPv6 label hash, stock's QPs of a pair share one path: 4
	// QPs a pair are bound exactly as one is
	const nlohmann::json j =
	    fabric_report(parse(plan(3) + kCalibration + job_as("stock", "ipv6-label", 1) +
	                        job_as("stock", "ipv6-label", 4) + job_as("odd", "ipv6-label", 4)))
	        .json();
	ASSERT_EQ(j["cells"].size(), 2u);
	const auto &one = j["cells"][0]["policies"]["stock"]["simulated"];
	const auto &four = j["cells"][1]["policies"]["stock"]["simulated"];
	EXPECT_DOUBLE_EQ(one["over_ideal_mean"].get<double>(),
	                 four["over_ideal_mean"].get<double>());
	EXPECT_GT(four["over_ideal_mean"].get<double>(), 1.0);
	// a policy the simulation has no model of is not simulated
	EXPECT_FALSE(j["cells"][1]["policies"]["odd"].contains("simulated"));
}

TEST(FabricCompare, RangesOverSeedsOverlapOrNot)
{
	// JCT over the ideal (1 s) is each job's longest flow: rfc 1 and 2
	// now, 1.5 and 3 before (overlapping); stock 2 and 4 now, 5 and 6
	// before (not); off ran only now, and is not compared
	const FabricRuns now =
	    parse(job_line("rfc", 1, {1, 1, 1, 1}) + job_line("rfc", 2, {2, 1, 1, 1}) +
	          job_line("stock", 1, {2, 1, 1, 1}) + job_line("stock", 2, {4, 1, 1, 1}) +
	          job_line("off", 1, {9, 1, 1, 1}));
	const FabricRuns before =
	    parse(job_line("rfc", 1, {1.5, 1, 1, 1}) + job_line("rfc", 2, {3, 1, 1, 1}) +
	          job_line("stock", 1, {5, 1, 1, 1}) + job_line("stock", 2, {6, 1, 1, 1}));
	const Record r = fabric_compare(now, before);
	const nlohmann::json j = r.json();
	EXPECT_TRUE(j["comparable"].get<bool>());
	EXPECT_EQ(j["pairs"], 2);
	EXPECT_EQ(j["agree"], 1);
	ASSERT_EQ(j["differ"].size(), 1u);
	EXPECT_EQ(j["differ"][0]["policy"], "stock");
	EXPECT_DOUBLE_EQ(j["differ"][0]["now"]["mean"].get<double>(), 3.0);
	EXPECT_DOUBLE_EQ(j["differ"][0]["before"]["min"].get<double>(), 5.0);
	EXPECT_DOUBLE_EQ(j["headline"]["rfc"]["now"].get<double>(), 1.5);
	EXPECT_DOUBLE_EQ(j["headline"]["rfc"]["before"].get<double>(), 2.25);
	EXPECT_FALSE(j["headline"].contains("off"));
	EXPECT_NE(r.text().find("1 of 2 (a policy in a cell both ran) agree"), std::string::npos)
	    << r.text();
	EXPECT_NE(r.text().find("stock    3.00 [2.00-4.00] against 5.50 [5.00-6.00]"),
	          std::string::npos)
	    << r.text();
}

TEST(FabricCompare, OneSeedAgreesOnlyWithTheSameFigure)
{
	// no spread: a single seed's range is its one value, which agrees
	// with another only when both print the same (2.00 and 2.00, not
	// 2.00 and 2.01)
	const Record r = fabric_compare(parse(job_line("rfc", 1, {2, 1, 1, 1})),
	                                parse(job_line("rfc", 1, {2.01, 1, 1, 1})));
	EXPECT_EQ(r.json()["agree"], 0);
	EXPECT_EQ(fabric_compare(parse(job_line("rfc", 1, {2, 1, 1, 1})),
	                         parse(job_line("rfc", 1, {2.004, 1, 1, 1})))
	              .json()["agree"],
	          1);
}

TEST(FabricCompare, AnotherTopologyIsNotCompared)
{
	std::string other = job_line("rfc", 1, {1, 1, 1, 1});
	other.replace(other.find("\"rate_kbit\":8"), 13, "\"rate_kbit\":16");
	const Record r = fabric_compare(parse(job_line("rfc", 1, {1, 1, 1, 1})), parse(other));
	EXPECT_FALSE(r.json()["comparable"].get<bool>());
	EXPECT_FALSE(r.json().contains("pairs"));
	EXPECT_NE(r.text().find("another topology (2x2x2 at 16 kbit/s), not compared"),
	          std::string::npos)
	    << r.text();
}

// A failure act's line: the whole fabric's run (every flow done in 2 s,
// gaps of 10 ms at most), and the run with the hole, where flow 1 failed
// after a 2 s gap and the last flow ended after 3 s.
const std::string kFailover =
    "{\"failover\":{\"policy\":\"rfc+repath\",\"link\":\"leaf0-spine0\",\"after_seconds\":1,"
    "\"pairs\":[[0,2],[1,3]],"
    "\"base\":{\"job_seconds\":2,\"flows\":[{\"status\":\"ok\",\"longest_gap_seconds\":0.01},"
    "{\"status\":\"ok\",\"longest_gap_seconds\":0.005}]},"
    "\"hole\":{\"job_seconds\":3,\"flows\":[{\"status\":\"ok\",\"longest_gap_seconds\":0.3},"
    "{\"status\":\"transport retry counter exceeded\",\"longest_gap_seconds\":2}]}}}\n";

TEST(FabricFailover, FlowsDoneLongestGapAndTimeAgainstTheWholeFabric)
{
	const FabricRuns runs = parse("{\"plan\":{\"jobs\":1,\"failover\":1}}\n" + kCalibration +
	                              job_line("rfc", 1, {1, 1, 1, 1}) + kFailover);
	ASSERT_EQ(runs.failovers.size(), 1u);
	const FabricFailover &a = runs.failovers[0];
	EXPECT_EQ(a.policy, "rfc+repath");
	EXPECT_EQ(a.flows, 2u);
	EXPECT_EQ(a.base_done, 2u);
	EXPECT_EQ(a.hole_done, 1u);
	EXPECT_DOUBLE_EQ(a.hole_longest, 2.0);
	const Record r = fabric_report(runs);
	EXPECT_TRUE(r.json()["ok"].get<bool>());
	EXPECT_DOUBLE_EQ(r.json()["failover"][0]["jct_over_base"].get<double>(), 1.5);
	EXPECT_NE(r.text().find("rfc+repath   leaf0-spine0 black-holed after 1 s: 1 of 2 flows "
	                        "done (whole: 2); the last ended after 3.00 s, 1.50 x the whole "
	                        "fabric's; longest gap 2000 ms (whole: 10)"),
	          std::string::npos)
	    << r.text();
	// planned twice, ran once
	const Record missing =
	    fabric_report(parse("{\"plan\":{\"jobs\":1,\"failover\":2}}\n" + kCalibration +
	                        job_line("rfc", 1, {1, 1, 1, 1}) + kFailover));
	EXPECT_FALSE(missing.json()["ok"].get<bool>());
	EXPECT_NE(missing.text().find("failure act: 1 of 2 ran"), std::string::npos);
}

struct BadRuns {
	const char *name;
	std::string text;
	const char *message;
};

class FabricRunsBad : public testing::TestWithParam<BadRuns>
{
};

TEST_P(FabricRunsBad, Refused)
{
	try {
		parse(GetParam().text);
		FAIL() << "accepted";
	} catch (const UsageError &e) {
		EXPECT_NE(std::string(e.what()).find(GetParam().message), std::string::npos)
		    << e.what();
	}
}

INSTANTIATE_TEST_SUITE_P(
    Cases, FabricRunsBad,
    testing::Values(
        BadRuns{"Empty", "", "runs.jsonl: no job"},
        BadRuns{"OnlyCalibration", kCalibration, "no job"},
        BadRuns{"NotJson", "{\"policy\":", "runs.jsonl:1:"},
        BadRuns{"HostOutOfRange",
                job_line("rfc", 1, {1, 1, 1, 1}, "[4,0,0,0,4,0,0,0]", "[[0,2],[1,3],[2,4],[3,1]]"),
                "hosts 2 to 4 in a fabric of 4"},
        BadRuns{"FlowToItself",
                job_line("rfc", 1, {1, 1, 1, 1}, "[4,0,0,0,4,0,0,0]", "[[0,2],[1,1],[2,0],[3,1]]"),
                "hosts 1 to 1"},
        BadRuns{"PairsAndFlowsDiffer", job_line("rfc", 1, {1, 1, 1}), "4 pairs for 3 flows"},
        BadRuns{"WrongLinkCount", job_line("rfc", 1, {1, 1, 1, 1}, "[1,2,3]"),
                "3 link counts for 8 links"},
        BadRuns{"SecondLineBad", kCalibration + "[]\n", "runs.jsonl:2:"},
        BadRuns{"PlanWithoutJobs", "{\"plan\":{}}\n", "runs.jsonl:1:"},
        BadRuns{"FailoverRunsDiffer",
                "{\"failover\":{\"policy\":\"rfc\",\"link\":\"l\",\"after_seconds\":1,"
                "\"base\":{\"job_seconds\":1,\"flows\":[{\"status\":\"ok\","
                "\"longest_gap_seconds\":0}]},\"hole\":{\"job_seconds\":1,\"flows\":[]}}}\n",
                "two runs differ in flows"}),
    [](const auto &param_info) { return std::string(param_info.param.name); });

} // namespace
} // namespace roce
