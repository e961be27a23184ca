// SPDX-License-Identifier: GPL-2.0
// roce-entropy audit's command line, on the resource dumps of the VM test
// (tests/data/observe-*: `rdma -j -dd res show qp` and `rdma -j res show
// cm_id` with live connections of every type, saved by observe.sh), and on
// broken ones.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"

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
	return std::string(ROCE_TEST_DATA) + "/" + name;
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

TEST(AuditCli, RdmaThatFails)
{
	auto r = run({"audit", "--rdma", "false"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("'false -j -dd res show qp' failed (exit status 1)"),
	          std::string::npos)
	    << r.err;
	r = run({"audit", "--rdma", "/nonexistent/rdma"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("cannot run /nonexistent/rdma"), std::string::npos) << r.err;
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
	                           "\"rqpn\":18,\"type\":\"RC\",\"state\":\"RTS\",\"drv");
	r = run({"audit", "--qp", cut, "--cm-id", data("audit-empty.json")});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("observe-rfc-qp-truncated.json: not the JSON of rdma -j"),
	          std::string::npos)
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
