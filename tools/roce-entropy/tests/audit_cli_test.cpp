// SPDX-License-Identifier: GPL-2.0
// roce-entropy audit's command line, on the resource dumps of the VM test
// (tests/data/observe-*: `rdma -j -dd res show qp` and `rdma -j res show
// cm_id` with live connections of every type, saved by observe.sh), and on
// broken ones.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"
#include "test_paths.h"

namespace roce
{
namespace
{

struct Result {
	int status;
	std::string out;
	std::string err;
};

Result run(std::vector<std::string> args)
{
	args.insert(args.begin(), "roce-entropy");
	std::vector<const char *> argv;
	for (const auto &a : args)
		argv.push_back(a.c_str());
	std::ostringstream out, err;
	int status = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
	return {status, out.str(), err.str()};
}

std::string data(const std::string &name)
{
	return test::data_dir() + "/" + name;
}

// A file NAME in the test's temporary folder holding TEXT.
std::string temp_file(const std::string &name, const std::string &text)
{
	const std::string path = testing::TempDir() + name;
	std::ofstream(path, std::ios::binary) << text;
	return path;
}

TEST(AuditCli, QpWithoutCmIdIsAUsageError)
{
	auto r = run({"audit", "--qp", data("observe-rfc-qp.json")});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("--qp and --cm-id go together"), std::string::npos) << r.err;
}

// The dumps of observe.sh under rfc: roce-ping over IPv4 (CM ports 39681
// and 7481) and over IPv6 with the application's flow label 0x5a5a5 on
// service 7482, ibv_rc_pingpong (QPNs 18 and 17), ibv_ud_pingpong and
// udaddy (UD), and QP1 of both devices.  By hand:
//   39681 * 7481 = 0x11b1a039; ^ >> 16: 0x11b1b188; ^ >> 8: 0x11a00039;
//     20 bits 0x00039, port 0xc039 (49209)
//   18 * 17 = 0x132 (nothing above bit 20): port 0xc132 (49458)
//   0x5a5a5: 0x25a5 ^ 0x16 = 0x25b3, port 0xe5b3 (58803)
TEST(AuditCli, SavedDumpsOfALiveHostAgree)
{
	auto r =
	    run({"audit", "--qp", data("observe-rfc-qp.json"), "--cm-id",
	         data("observe-rfc-cm_id.json"), "--port-flow-label", "7482:0x5a5a5", "--json"});
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	const auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["agree"], 6);
	EXPECT_EQ(j["disagree"], 0);
	EXPECT_EQ(j["unjudged"], 6); // the UD QPs and QP1: per send, per AH
	unsigned cm4 = 0, cm6 = 0, rc = 0;
	for (const auto &q : j["qps"]) {
		if (q["verdict"] != "agrees")
			continue;
		const auto fl = q["expected"]["flow_label"], sport = q["expected"]["udp_sport"];
		if (fl == 0x39 && sport == 49209 && q["source"] == "address")
			cm4++;
		else if (fl == 0x5a5a5 && sport == 58803 && q["source"] == "address")
			cm6++;
		else if (fl == 0x132 && sport == 49458 && q["source"] == "qpn")
			rc++;
	}
	EXPECT_EQ(cm4, 2u);
	EXPECT_EQ(cm6, 2u);
	EXPECT_EQ(rc, 2u);
}

// The same dump as rdma -j -dd prints it: the source under the driver
// table's key, drv_roce_fl_source.  The same verdicts.
TEST(AuditCli, RdmaDriverTableKey)
{
	std::ifstream in(data("observe-rfc-qp.json"));
	std::stringstream text;
	text << in.rdbuf();
	auto qps = nlohmann::json::parse(text.str());
	unsigned moved = 0;
	for (auto &q : qps) {
		if (!q.contains("roce-fl-source"))
			continue;
		q["drv_roce_fl_source"] = q["roce-fl-source"];
		q.erase("roce-fl-source");
		moved++;
	}
	ASSERT_GE(moved, 12u);
	const std::string path = testing::TempDir() + "audit-rdma-dd-qp.json";
	std::ofstream(path) << qps.dump();

	auto r = run({"audit", "--qp", path, "--cm-id", data("observe-rfc-cm_id.json"),
	              "--port-flow-label", "7482:0x5a5a5", "--json"});
	ASSERT_EQ(r.status, 0) << r.out << r.err;
	const auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["agree"], 6);
	EXPECT_EQ(j["disagree"], 0);
	EXPECT_EQ(j["unjudged"], 6);
	std::remove(path.c_str());
}

// Without the application's flow label the IPv6 pair is predicted from its
// CM ports, which it does not carry: those two QPs disagree, exit 1.
TEST(AuditCli, SavedDumpsWithoutTheApplicationsFlowLabelDisagree)
{
	auto r = run({"audit", "--qp", data("observe-rfc-qp.json"), "--cm-id",
	              data("observe-rfc-cm_id.json"), "--json"});
	EXPECT_EQ(r.status, 1) << r.out << r.err;
	const auto j = nlohmann::json::parse(r.out);
	EXPECT_EQ(j["agree"], 4);
	EXPECT_EQ(j["disagree"], 2);
	for (const auto &q : j["qps"]) {
		if (q["verdict"] == "disagrees") {
			EXPECT_EQ(q["flow_label"], 0x5a5a5) << q.dump();
		}
	}
}

TEST(AuditCli, RdmaThatFails)
{
	auto r = run({"audit", "--rdma", "false"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("'false -j res show cm_id' failed (exit status 1)"), std::string::npos)
	    << r.err;
	EXPECT_EQ(r.err.find("apt install iproute2"), std::string::npos) << r.err;
	r = run({"audit", "--rdma", "/nonexistent/rdma"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("cannot run /nonexistent/rdma"), std::string::npos) << r.err;
	EXPECT_NE(r.err.find("apt install iproute2"), std::string::npos) << r.err;
}

TEST(AuditCli, NothingToJudge)
{
	auto r =
	    run({"audit", "--qp", data("audit-empty.json"), "--cm-id", data("audit-empty.json")});
	EXPECT_EQ(r.status, 3);
	EXPECT_NE(r.out.find("summary: 0 QPs: 0 agree, 0 disagree, 0 not judged; nothing could be "
	                     "judged"),
	          std::string::npos)
	    << r.out;
}

TEST(AuditCli, MissingOrMalformedFile)
{
	auto r = run({"audit", "--qp", data("no-such.json"), "--cm-id", data("audit-empty.json")});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("cannot read"), std::string::npos) << r.err;
	// rdma -j -dd res show qp's output cut in the middle of its first QP.
	const auto cut = temp_file("observe-rfc-qp-truncated.json",
	                           "[{\"ifindex\":2,\"ifname\":\"rxe0\",\"port\":1,\"lqpn\":17,"
	                           "\"rqpn\":18,\"type\":\"RC\",\"state\":\"RTS\",\"roce");
	r = run({"audit", "--qp", cut, "--cm-id", data("audit-empty.json")});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("observe-rfc-qp-truncated.json: not JSON"), std::string::npos)
	    << r.err;
	EXPECT_TRUE(r.out.empty());
}

TEST(AuditCli, BadOptions)
{
	auto r = run({"audit", "--port-flow-label", "7482", "--rdma", "false"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("PORT:FL expected"), std::string::npos) << r.err;
	r = run({"audit", "--base-sport", "0x10000", "--rdma", "false"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("out of range"), std::string::npos) << r.err;
}

} // namespace
} // namespace roce
