// SPDX-License-Identifier: GPL-2.0
// The output description (lib/output) and what every program shares on its
// command line (lib/args): --version, unknown commands.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"
#include "output/record.h"
#include "ping.h"
#include "qps.h"
#include "roce_version.h"

namespace roce
{
namespace
{

TEST(Record, KeyValueTextPadsNamesToTheLongest)
{
	Record r(Record::Layout::KeyValue);
	r.add("policy", "mix", "mix").add("flow_label", 0xc1c9f, hex_dec(0xc1c9f, 5));
	EXPECT_EQ(r.text(), "policy     mix\nflow_label 0xc1c9f (793759)\n");
	EXPECT_EQ(r.json(), (nlohmann::json{{"policy", "mix"}, {"flow_label", 0xc1c9f}}));
}

TEST(Record, JsonOnlyAndTextOnlyFields)
{
	Record r;
	r.add_json("hidden", 7).add_text("a line\n").add("n", 3, "n=3\n");
	EXPECT_EQ(r.text(), "a line\nn=3\n");
	EXPECT_EQ(r.json().dump(), R"({"hidden":7,"n":3})");
}

TEST(Record, KeyValueWidthIgnoresJsonOnlyNames)
{
	Record r(Record::Layout::KeyValue);
	r.add_json("a_very_long_name", 1).add("udp_sport", 0xffc0, hex_dec(0xffc0, 4));
	EXPECT_EQ(r.text(), "udp_sport 0xffc0 (65472)\n");
}

TEST(Record, NestedRecordsAndLists)
{
	Record child;
	child.add("x", 1, "x1 ");
	std::vector<Record> items(2);
	items[0].add("i", 0, "[0]");
	items[1].add("i", 1, "[1]");
	Record r;
	r.add("child", child).add("items", items).add_text("\n");
	EXPECT_EQ(r.text(), "x1 [0][1]\n");
	EXPECT_EQ(r.json().dump(), R"({"child":{"x":1},"items":[{"i":0},{"i":1}]})");
}

TEST(Record, EmptyListIsAnEmptyArray)
{
	Record r;
	r.add("items", std::vector<Record>{});
	EXPECT_EQ(r.json().dump(), R"({"items":[]})");
	EXPECT_EQ(r.text(), "");
}

TEST(Record, PrintChoosesTheRendering)
{
	Record r(Record::Layout::KeyValue);
	r.add("paths", 8, "8");
	std::ostringstream text, json;
	print(r, false, text);
	print(r, true, json);
	EXPECT_EQ(text.str(), "paths 8\n");
	EXPECT_EQ(json.str(), "{\"paths\":8}\n");
}

TEST(Record, FormatAndHex)
{
	EXPECT_EQ(format("%-6s|%5.2f", "ab", 1.5), "ab    | 1.50");
	EXPECT_EQ(format("%s", std::string(300, 'z').c_str()).size(), 300u);
	EXPECT_EQ(hex(0xc144, 4), "0xc144");
	EXPECT_EQ(hex(0x12, 6), "0x000012");
	EXPECT_EQ(hex_dec(0xd872, 4), "0xd872 (55410)");
}

struct Run {
	int status;
	std::string out, err;
};

template <typename F> Run run_argv(std::vector<std::string> args, F f)
{
	std::vector<const char *> argv;
	for (const auto &a : args)
		argv.push_back(a.c_str());
	std::ostringstream out, err;
	const int status = f(static_cast<int>(argv.size()), argv.data(), out, err);
	return {status, out.str(), err.str()};
}

Run entropy(std::vector<std::string> args)
{
	return run_argv(args, [](int argc, const char *const *argv, std::ostream &out,
	                         std::ostream &err) { return run_cli(argc, argv, out, err); });
}

Run ping(std::vector<std::string> args)
{
	return run_argv(
	    args, [](int argc, const char *const *argv, std::ostream &out, std::ostream &err) {
		    PingOptions opts;
		    return parse_ping_args(argc, argv, opts, out, err).value_or(-1);
	    });
}

Run qps(std::vector<std::string> args)
{
	return run_argv(
	    args, [](int argc, const char *const *argv, std::ostream &out, std::ostream &err) {
		    QpsOptions opts;
		    return parse_qps_args(argc, argv, opts, out, err).value_or(-1);
	    });
}

TEST(Version, EveryProgramPrintsItsNameAndVersion)
{
	const std::string v = kRoceVersion;
	// The package's version (debian/changelog, or +gitN.gHASH from a
	// checkout): the installed programs are compared with dpkg's in the
	// fleet lane; here, every program prints the one the build was given.
	ASSERT_TRUE(
	    std::regex_match(v, std::regex("[0-9]+\\.[0-9]+\\.[0-9]+([~+][0-9A-Za-z.+~]+)?")))
	    << v;
	auto r = entropy({"roce-entropy", "--version"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out, "roce-entropy " + v + "\n");
	EXPECT_EQ(r.err, "");
	r = ping({"roce-ping", "--version"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out, "roce-ping " + v + "\n");
	r = qps({"roce-qps", "--version"});
	EXPECT_EQ(r.status, 0);
	EXPECT_EQ(r.out, "roce-qps " + v + "\n");
}

TEST(UnknownCommand, RoceEntropyNamesTheKnownOnes)
{
	auto r = entropy({"roce-entropy", "frobnicate", "--json"});
	EXPECT_EQ(r.status, 2);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "roce-entropy: error: unknown command 'frobnicate' (flow-label, "
	                 "udp-sport, simulate, pcap, audit, status, policy, qp)\n");
}

TEST(UnknownCommand, RocePingNamesTheKnownOnes)
{
	auto r = ping({"roce-ping", "serve", "--bind", "10.0.0.1"});
	EXPECT_EQ(r.status, 2);
	EXPECT_EQ(r.out, "");
	EXPECT_EQ(r.err, "roce-ping: error: unknown command 'serve' (server, client)\n");
}

TEST(UnknownCommand, NoCommandAtAllIsAUsageError)
{
	auto r = entropy({"roce-entropy"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("subcommand"), std::string::npos) << r.err;
}

} // namespace
} // namespace roce
