// SPDX-License-Identifier: GPL-2.0
// The demo's failover act: parsing, the self-check, the report and the
// timeline (ecmp-report).
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_run.h"
#include "lab/failover.h"

namespace roce
{
namespace
{

using nlohmann::json;

// 4 connections; the client began at 1000000 ms since the epoch.
constexpr double kStart = 1000000;

json phase(const char *name, double from, double to, unsigned a_req, unsigned a_resp,
           unsigned b_req, unsigned b_resp)
{
	return {{"name", name},
	        {"start_unix_ms", kStart + from},
	        {"end_unix_ms", kStart + to},
	        {"moves",
	         {{"a_requester", a_req},
	          {"a_responder", a_resp},
	          {"b_requester", b_req},
	          {"b_responder", b_resp}}}};
}

json conn(unsigned sport, const char *status, double longest, json stalls = json::array())
{
	return {{"sport", sport},
	        {"status", status},
	        {"longest_stall_ms", longest},
	        {"stalls", stalls}};
}

// Re-path on, as it should go: 2 requesters on A moved when A to B was
// lost, 2 responders on B when B to A was, 1 of each when both were.
json good_run()
{
	json client = {{"start_unix_ms", kStart},
	               {"failed", 0},
	               {"connections",
	                {conn(50000, "ok", 210, {{2100, 2310}}), conn(50001, "ok", 60),
	                 conn(50002, "ok", 190, {{4050, 4240}}), conn(50003, "ok", 55)}}};
	return {{"policy", "rfc"},
	        {"repath", true},
	        {"family", "ipv4"},
	        {"ok", true},
	        {"link", 3},
	        {"phases",
	         {phase("quiet", 0, 2000, 0, 0, 0, 0), phase("ab", 2000, 4000, 2, 0, 0, 0),
	          phase("ba", 4000, 6000, 2, 0, 0, 2), phase("both", 6000, 8000, 1, 0, 0, 1)}},
	        {"trace", {{"requester", 5}, {"responder", 3}, {"same_label", 0}}},
	        {"client", client}};
}

json act_of(json runs)
{
	return {{"connections", 4}, {"qp_timeout", 14},    {"retry_count", 6}, {"interval_ms", 50},
	        {"hole_s", 2},      {"stall_min_ms", 150}, {"runs", runs}};
}

TEST(FailoverAct, TimeoutAndGoalFromTheQpTimeout)
{
	const FailoverAct act = parse_failover(act_of({good_run()}));
	// 4.096 us * 2^14 = 67.108864 ms; the goal 50 ms + 3 timeouts.
	EXPECT_NEAR(act.rto_ms(), 67.108864, 1e-9);
	EXPECT_NEAR(act.stall_goal_ms(), 251.326592, 1e-9);
}

TEST(FailoverAct, PhasesFromTheClientsStart)
{
	const FailoverAct act = parse_failover(act_of({good_run()}));
	ASSERT_EQ(act.runs.size(), 1u);
	const FailoverRun &run = act.runs[0];
	ASSERT_EQ(run.phases.size(), 4u);
	EXPECT_EQ(run.phases[1].name, "ab");
	EXPECT_DOUBLE_EQ(run.phases[1].start_ms, 2000);
	EXPECT_DOUBLE_EQ(run.phases[3].end_ms, 8000);
	EXPECT_EQ(run.phases[2].moves[3], 2u);
	ASSERT_EQ(run.conns.size(), 4u);
	EXPECT_EQ(run.conns[2].stalls.size(), 1u);
	EXPECT_DOUBLE_EQ(run.conns[2].stalls[0].second, 4240);
	EXPECT_EQ(run.link, 3);
}

TEST(FailoverAct, RejectsMalformedActs)
{
	json bad = act_of({good_run()});
	bad["runs"][0]["phases"][1]["name"] = "sideways";
	EXPECT_THROW(parse_failover(bad), std::runtime_error);
	bad = act_of({good_run()});
	bad["runs"][0]["phases"][1]["moves"]["a_requester"] = -1;
	EXPECT_THROW(parse_failover(bad), std::runtime_error);
	bad = act_of({good_run()});
	bad["retry_count"] = 8;
	EXPECT_THROW(parse_failover(bad), std::runtime_error);
	EXPECT_THROW(parse_failover(act_of(json::array())), std::runtime_error);
	EXPECT_THROW(parse_failover(json::array()), std::runtime_error);
}

// A change to the good run, and whether the self-check passes.
struct JudgeCase {
	const char *name;
	void (*change)(json &run);
	bool judge_stalls;
	bool ok;
	const char *why; // in the verdict
};

class FailoverJudge : public testing::TestWithParam<JudgeCase>
{
};

TEST_P(FailoverJudge, Verdict)
{
	json run = good_run();
	GetParam().change(run);
	const FailoverAct act = parse_failover(act_of({run}));
	const FailoverVerdict v = judge_failover(act, act.runs[0], GetParam().judge_stalls);
	EXPECT_EQ(v.ok, GetParam().ok) << v.why;
	EXPECT_NE(v.why.find(GetParam().why), std::string::npos) << v.why;
}

// Re-path off: nothing moves, the failures are the baseline.
void off_with_failures(json &r)
{
	r["repath"] = false;
	for (auto &p : r["phases"])
		p["moves"] = {
		    {"a_requester", 0}, {"a_responder", 0}, {"b_requester", 0}, {"b_responder", 0}};
	r["trace"] = {{"requester", 0}, {"responder", 0}, {"same_label", 0}};
	r["client"]["connections"][0] =
	    conn(50000, "transport retry counter exceeded", 560, {{2100, 2660}});
}

const JudgeCase judge_cases[] = {
    {"AllSurvive", [](json &) {}, true, true,
     "every connection survived, longest gap 210 ms within"},
    {"OneFailed",
     [](json &r) { r["client"]["connections"][1]["status"] = "transport retry counter exceeded"; },
     true, false, "3 of 4 connections completed"},
    {"MovedWhileQuiet", [](json &r) { r["phases"][0]["moves"]["b_requester"] = 1; }, true, false,
     "1 moves while nothing was lost"},
    {"NoRequesterMovedAToB", [](json &r) { r["phases"][1]["moves"]["a_requester"] = 0; }, true,
     false, "no requester on A moved"},
    {"NoResponderMovedBToA", [](json &r) { r["phases"][2]["moves"]["b_responder"] = 0; }, true,
     false, "no responder on B moved"},
    {"TraceMissesAMove", [](json &r) { r["trace"]["responder"] = 2; }, true, false,
     "moves counted 5/3, traced 5/2"},
    {"AMoveKeptItsLabel", [](json &r) { r["trace"]["same_label"] = 1; }, true, false,
     "1 moves kept their flow label"},
    {"LongGapJudged", [](json &r) { r["client"]["connections"][3]["longest_stall_ms"] = 300; },
     true, false, "longest gap 300 ms over the goal of 251 ms"},
    {"LongGapAFigure", [](json &r) { r["client"]["connections"][3]["longest_stall_ms"] = 300; },
     false, true, "300 ms over the goal of 251 ms (a figure, not judged)"},
    {"ConnectionsMissing", [](json &r) { r["client"]["connections"].erase(3); }, true, false,
     "3 of 4 connections reported"},
    {"GuestRunFailed", [](json &r) { r["client"] = nullptr; }, true, false,
     "the run did not go through"},
    {"OffFailuresAreTheBaseline", off_with_failures, true, true,
     "baseline: 1 of 4 connections failed, nothing moved"},
    {"OffMoved",
     [](json &r) {
	     off_with_failures(r);
	     r["phases"][1]["moves"]["a_requester"] = 1;
	     r["trace"]["requester"] = 1;
     },
     true, false, "1 moves with re-path off"},
};

INSTANTIATE_TEST_SUITE_P(Cases, FailoverJudge, testing::ValuesIn(judge_cases),
                         [](const auto &param_info) { return std::string(param_info.param.name); });

TEST(FailoverJudge, GapsWithoutLossAreTheGuestsPace)
{
	json run = good_run();
	// 180 ms inside the quiet phase (0-2000); 50000's 210 ms is in ab.
	run["client"]["connections"][1]["stalls"] = {{500, 680}, {1900, 2080}};
	const FailoverAct act = parse_failover(act_of({run}));
	const FailoverVerdict v = judge_failover(act, act.runs[0], true);
	EXPECT_DOUBLE_EQ(v.quiet_stall_ms, 180);
	EXPECT_DOUBLE_EQ(v.longest_stall_ms, 210);
	EXPECT_NE(v.why.find("without loss 180 ms"), std::string::npos) << v.why;
	const FailoverVerdict none =
	    judge_failover(act, parse_failover(act_of({good_run()})).runs[0], true);
	EXPECT_DOUBLE_EQ(none.quiet_stall_ms, 0);
	EXPECT_NE(none.why.find("without loss no gap listed"), std::string::npos) << none.why;
}

TEST(FailoverJudge, CountsFailuresByStatus)
{
	json run = good_run();
	off_with_failures(run);
	run["client"]["connections"][2]["status"] = "transport retry counter exceeded";
	const FailoverAct act = parse_failover(act_of({run}));
	const FailoverVerdict v = judge_failover(act, act.runs[0], true);
	EXPECT_EQ(v.completed, 2u);
	ASSERT_EQ(v.failed.size(), 1u);
	EXPECT_EQ(v.failed.at("transport retry counter exceeded"), 2u);
	EXPECT_DOUBLE_EQ(v.longest_stall_ms, 560);
	EXPECT_FALSE(v.within_goal);
	EXPECT_FALSE(v.judged);
}

// The demo's raw result with the act, beside the one phase ecmp-report
// needs: off, one connection on one link.
json raw_with(json failover)
{
	json conn_json = {{"src", "10.1.0.2"},         {"dst", "10.2.0.2"},
	                  {"transport", "RC"},         {"qpns", {0x11, 0x12}},
	                  {"cm_ports", {50000, 7471}}, {"consistent", true}};
	json dir = {{"packets", 20},
	            {"udp_sports", {0xC000}},
	            {"flow_labels", json::array()},
	            {"interfaces", {{"11", 20}}}};
	conn_json["forward"] = dir;
	conn_json["reverse"] = dir;
	json ph = {
	    {"policy", "off"},
	    {"mix", "cm"},
	    {"counters", {{"forward", {20, 0}}, {"reverse", {20, 0}}}},
	    {"workloads",
	     {{{"family", "ipv4"},
	       {"kind", "rdma_cm RC"},
	       {"ok", true},
	       {"connections", {{{"src", "10.1.0.2"}, {"sport", 50000}, {"dport", 7471}}}}}}},
	    {"pcap", {{"connections", {conn_json}}}}};
	return {{"addresses", {{"ipv4", {{"a", "10.1.0.2"}, {"b", "10.2.0.2"}}}}},
	        {"link_ifindex", {11, 12}},
	        {"phases", {ph}},
	        {"failover", failover}};
}

std::string temp_dir()
{
	char tmpl[] = "/tmp/failover-report-XXXXXX";
	return mkdtemp(tmpl);
}

std::string slurp(const std::string &file)
{
	std::stringstream s;
	s << std::ifstream(file).rdbuf();
	return s.str();
}

TEST(FailoverReportCli, ReportAndTimeline)
{
	const std::string dir = temp_dir(), in = dir + "/raw.json", rep = dir + "/report.json",
	                  svg = dir + "/failover.svg";
	json off = good_run();
	off_with_failures(off);
	off["policy"] = "builtin";
	std::ofstream(in) << raw_with(act_of({off, good_run()})).dump();
	auto r = test::run_roce_lab({"ecmp-report", in, "--output", rep, "--failover-svg", svg});
	ASSERT_EQ(r.status, 0) << r.err << r.out;
	EXPECT_NE(r.out.find("QP timeout 14 (67.1 ms), retry count 6"), std::string::npos) << r.out;
	EXPECT_NE(r.out.find("1 transport retry counter exceeded"), std::string::npos) << r.out;
	const json j = json::parse(slurp(rep));
	EXPECT_TRUE(j["ok"].get<bool>());
	ASSERT_EQ(j["failover"]["runs"].size(), 2u);
	EXPECT_EQ(j["failover"]["runs"][0]["policy"], "builtin");
	EXPECT_EQ(j["failover"]["runs"][0]["completed"], 3);
	EXPECT_FALSE(j["failover"]["runs"][0]["judged"].get<bool>());
	EXPECT_EQ(j["failover"]["runs"][1]["requester_moves"], 5);
	EXPECT_EQ(j["failover"]["runs"][1]["responder_moves"], 3);
	EXPECT_NEAR(j["failover"]["settings"]["stall_goal_ms"].get<double>(), 251.33, 0.01);
	const std::string chart = slurp(svg);
	EXPECT_EQ(chart.rfind("<svg", 0), 0u);
	EXPECT_NE(chart.find("builtin (stock), re-path off: 3 of 4 completed"), std::string::npos);
	EXPECT_NE(chart.find("x 50000"), std::string::npos) << "the failed connection is marked";
	EXPECT_NE(chart.find("B to A lost"), std::string::npos);
	EXPECT_NE(chart.find("</svg>"), std::string::npos);
	for (const auto &f : {in, rep, svg})
		std::remove(f.c_str());
	std::remove(dir.c_str());
}

TEST(FailoverReportCli, StallsJudgedOrAFigure)
{
	const std::string dir = temp_dir(), in = dir + "/raw.json";
	json slow = good_run();
	slow["client"]["connections"][0]["longest_stall_ms"] = 320;
	std::ofstream(in) << raw_with(act_of({slow})).dump();
	auto judged = test::run_roce_lab({"ecmp-report", in});
	EXPECT_EQ(judged.status, 1) << judged.out;
	EXPECT_NE(judged.out.find("the failover act's self-check FAILED"), std::string::npos);
	auto figure = test::run_roce_lab({"ecmp-report", in, "--stalls", "figure"});
	EXPECT_EQ(figure.status, 0) << figure.out << figure.err;
	EXPECT_NE(figure.out.find("(a figure, not judged)"), std::string::npos) << figure.out;
	auto bad = test::run_roce_lab({"ecmp-report", in, "--stalls", "sometimes"});
	EXPECT_EQ(bad.status, 2);
	std::remove(in.c_str());
	std::remove(dir.c_str());
}

TEST(FailoverReportCli, TimelineWithoutTheActIsAUsageError)
{
	const std::string dir = temp_dir(), in = dir + "/raw.json";
	json raw = raw_with(nullptr);
	raw.erase("failover");
	std::ofstream(in) << raw.dump();
	auto r = test::run_roce_lab({"ecmp-report", in, "--failover-svg", dir + "/f.svg"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("no failover act"), std::string::npos) << r.err;
	std::remove(in.c_str());
	std::remove(dir.c_str());
}

} // namespace
} // namespace roce
