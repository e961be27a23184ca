// SPDX-License-Identifier: GPL-2.0
// The six programs as a Debian user expects them: --version on every
// command, numbers shown as such with their defaults in --help, an
// unknown command named, and bash completion that offers every option
// --help lists (completion/roce-entropy.bash, run by bash), and a man
// page that describes each.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli.h"
#include "flows.h"
#include "lab_cli.h"
#include "ping.h"
#include "qps.h"
#include "roce_version.h"
#include "test_paths.h"
#include "wqe_av.h"

namespace roce
{
namespace
{

struct Run {
	int status;
	std::string out, err;
};

// PROG ARGS..., in-process.
Run run(const std::string &prog, const std::vector<std::string> &args)
{
	std::vector<const char *> argv{prog.c_str()};
	for (const auto &a : args)
		argv.push_back(a.c_str());
	const int argc = static_cast<int>(argv.size());
	std::ostringstream out, err;
	std::optional<int> status;
	if (prog == "roce-entropy") {
		status = run_cli(argc, argv.data(), out, err);
	} else if (prog == "roce-lab") {
		status = run_lab_cli(argc, argv.data(), out, err);
	} else if (prog == "roce-ping") {
		PingOptions o;
		status = parse_ping_args(argc, argv.data(), o, out, err);
	} else if (prog == "roce-qps") {
		QpsOptions o;
		status = parse_qps_args(argc, argv.data(), o, out, err);
	} else if (prog == "roce-flows") {
		FlowsOptions o;
		status = parse_flows_args(argc, argv.data(), o, out, err);
	} else {
		wqe_av::Options o;
		status = wqe_av::parse_args(argc, argv.data(), o, out, err);
	}
	return {status.value_or(-1), out.str(), err.str()};
}

struct Command {
	std::string prog, sub; // sub empty: the program itself
};

const std::vector<Command> kCommands = {{"roce-entropy", ""},
                                        {"roce-entropy", "flow-label"},
                                        {"roce-entropy", "udp-sport"},
                                        {"roce-entropy", "simulate"},
                                        {"roce-entropy", "pcap"},
                                        {"roce-entropy", "audit"},
                                        {"roce-entropy", "status"},
                                        {"roce-entropy", "policy"},
                                        {"roce-entropy", "policy show"},
                                        {"roce-entropy", "policy set"},
                                        {"roce-entropy", "policy default"},
                                        {"roce-entropy", "policy repath"},
                                        {"roce-entropy", "qp"},
                                        {"roce-lab", ""},
                                        {"roce-lab", "ecmp-report"},
                                        {"roce-lab", "fabric-report"},
                                        {"roce-ping", ""},
                                        {"roce-ping", "server"},
                                        {"roce-ping", "client"},
                                        {"roce-qps", ""},
                                        {"roce-flows", ""},
                                        {"rxe-wqe-av", ""}};

std::vector<std::string> with_sub(const Command &c, std::vector<std::string> args)
{
	std::vector<std::string> words;
	std::istringstream in(c.sub); // "policy set": two words
	for (std::string w; in >> w;)
		words.push_back(w);
	args.insert(args.begin(), words.begin(), words.end());
	return args;
}

std::string name(const testing::TestParamInfo<Command> &info)
{
	std::string s = info.param.prog + (info.param.sub.empty() ? "" : "_" + info.param.sub);
	for (char &ch : s)
		if (ch == '-' || ch == ' ')
			ch = '_';
	return s;
}

class EveryCommand : public testing::TestWithParam<Command>
{
};

TEST_P(EveryCommand, PrintsItsVersion)
{
	const auto r = run(GetParam().prog, with_sub(GetParam(), {"--version"}));
	EXPECT_EQ(r.status, 0) << r.err;
	EXPECT_EQ(r.out, GetParam().prog + " " + kRoceVersion + "\n");
}

// The options --help lists: its lines "  -n,--connections UINT=256 ...",
// "  --json ..." ("-n,--connections" gives both).
std::set<std::string> help_options(const Command &c)
{
	const auto r = run(c.prog, with_sub(c, {"--help"}));
	std::set<std::string> opts;
	std::istringstream in(r.out);
	for (std::string l; std::getline(in, l);) {
		if (l.rfind("  -", 0) != 0)
			continue;
		const std::string names = l.substr(2, l.find(' ', 2) - 2);
		for (std::size_t at = 0; at < names.size();) {
			const std::size_t comma = names.find(',', at);
			opts.insert(names.substr(at, comma - at));
			at = comma == std::string::npos ? names.size() : comma + 1;
		}
	}
	return opts;
}

// What the completion offers after PROG [SUB] for the word CUR.
std::set<std::string> completions(const Command &c, const std::string &cur)
{
	std::string words = c.prog + (c.sub.empty() ? "" : " " + c.sub);
	const std::string cmd = "bash -c 'source " + test::completion_file() + "; COMP_WORDS=(" +
	                        words + " \"" + cur +
	                        "\"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
	                        "_roce_entropy_tools; printf \"%s\\n\" \"${COMPREPLY[@]}\"'";
	std::unique_ptr<FILE, decltype(&pclose)> p(popen(cmd.c_str(), "r"), &pclose);
	std::set<std::string> got;
	char buf[256];
	while (p && fgets(buf, sizeof(buf), p.get())) {
		std::string s(buf);
		if (!s.empty() && s.back() == '\n')
			s.pop_back();
		if (!s.empty())
			got.insert(s);
	}
	return got;
}

TEST_P(EveryCommand, CompletionOffersEveryOption)
{
	const auto help = help_options(GetParam());
	ASSERT_GE(help.size(), 2u); // --help, --version at least
	auto offered = completions(GetParam(), "-");
	for (const auto &o : help)
		EXPECT_TRUE(offered.count(o)) << o << " of " << GetParam().prog << " "
		                              << GetParam().sub << " is not completed";
	for (const auto &o : offered)
		EXPECT_TRUE(help.count(o)) << o << " is completed but not in --help";
}

// man/PROG.1 describes every option --help lists (-h aside).
TEST_P(EveryCommand, ManPageNamesEveryOption)
{
	std::ifstream in(test::man_dir() + "/" + GetParam().prog + ".1");
	std::stringstream man;
	man << in.rdbuf();
	ASSERT_FALSE(man.str().empty());
	for (auto o : help_options(GetParam())) {
		if (o == "-h")
			continue;
		std::string roff;
		for (char ch : o.substr(0, o.find_first_not_of('-')))
			roff += ch == '-' ? "\\-" : std::string(1, ch);
		roff += o.substr(o.find_first_not_of('-'));
		EXPECT_NE(man.str().find(roff), std::string::npos)
		    << GetParam().prog << ".1 lacks " << roff;
	}
}

// The page's footer names the version the program prints.
TEST_P(EveryCommand, ManPageCarriesTheVersion)
{
	std::ifstream in(test::man_dir() + "/" + GetParam().prog + ".1");
	std::string line;
	while (std::getline(in, line) && line.rfind(".TH ", 0) != 0)
		;
	EXPECT_NE(line.find("\"roce-entropy " + std::string(kRoceVersion) + "\""),
	          std::string::npos)
	    << line;
}

INSTANTIATE_TEST_SUITE_P(Programs, EveryCommand, testing::ValuesIn(kCommands), name);

TEST(Programs, SubcommandsAndValuesComplete)
{
	EXPECT_EQ(completions({"roce-entropy", ""}, "p"),
	          (std::set<std::string>{"pcap", "policy"}));
	EXPECT_EQ(completions({"roce-entropy", "policy"}, ""),
	          (std::set<std::string>{"show", "set", "default", "repath", "--json", "-h",
	                                 "--help", "--version"}));
	EXPECT_EQ(completions({"roce-entropy", "policy repath"}, "o"),
	          (std::set<std::string>{"off", "on"}));
	EXPECT_EQ(completions({"roce-entropy", "policy set rxe0/1"}, "r"),
	          std::set<std::string>{"rfc"});
	EXPECT_EQ(completions({"roce-entropy", "policy default"}, "m"),
	          std::set<std::string>{"mix"});
	EXPECT_EQ(completions({"roce-entropy", ""}, "s"),
	          (std::set<std::string>{"simulate", "status"}));
	EXPECT_EQ(completions({"roce-entropy", "status --root"}, "/pro"),
	          std::set<std::string>{"/proc"});
	EXPECT_EQ(completions({"roce-ping", ""}, ""),
	          (std::set<std::string>{"server", "client", "-h", "--help", "--version"}));
	EXPECT_EQ(completions({"roce-entropy", "pcap --policy"}, ""),
	          (std::set<std::string>{"off", "rfc", "mix", "builtin"}));
	EXPECT_EQ(completions({"roce-entropy", "simulate --switch-hash"}, "crc"),
	          (std::set<std::string>{"crc16", "crc32"}));
	EXPECT_EQ(completions({"roce-qps", "--transport"}, ""),
	          (std::set<std::string>{"rc", "ud"}));
	EXPECT_TRUE(completions({"roce-qps", "--round-trips"}, "").empty());
}

// Each number shows "UINT" and its default.
TEST(Programs, HelpShowsNumbersWithTheirDefaults)
{
	struct Want {
		Command c;
		std::vector<std::string> lines;
	};
	for (const auto &w : std::vector<Want>{
	         {{"roce-entropy", "simulate"},
	          {"-n,--connections UINT=256", "-m,--paths UINT=8", "--trials UINT=64",
	           "--offset UINT=1"}},
	         {{"roce-entropy", "flow-label"}, {"--qpn UINT x 2", "--cm-ports UINT x 2"}},
	         {{"roce-entropy", "pcap"}, {"--flow-label UINT ", "--policy-for TEXT"}},
	         {{"roce-ping", "client"},
	          {"--port UINT=7471", "--connections UINT=1", "--messages UINT=10",
	           "--size UINT=64", "--timeout UINT=20", "--sport-base UINT "}},
	         {{"roce-ping", "server"}, {"--port UINT=7471", "--messages UINT=10"}},
	         {{"roce-qps", ""},
	          {"--gid-a UINT REQUIRED", "--pairs UINT=1", "--batch UINT=256", "--size UINT=16",
	           "--timeout UINT=20", "--round-trips UINT=0", "--transport TEXT=rc"}},
	         {{"roce-flows", ""},
	          {"--bytes UINT REQUIRED", "--qps UINT=1", "--message UINT=16384",
	           "--depth UINT=2", "--cm-port UINT=18700", "--ack-timeout UINT=20",
	           "--retry-count UINT=7", "--timeout UINT=60"}},
	         {{"rxe-wqe-av", ""}, {"--av-port UINT=2 and 255", "--timeout UINT=10"}}}) {
		const auto r = run(w.c.prog, with_sub(w.c, {"--help"}));
		for (const auto &l : w.lines)
			EXPECT_NE(r.out.find(l), std::string::npos)
			    << w.c.prog << " " << w.c.sub << ": " << l << "\n"
			    << r.out;
	}
}

TEST(Programs, UnknownCommandIsNamed)
{
	auto r = run("roce-entropy", {"frobnicate"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("unknown command 'frobnicate' (flow-label, udp-sport, simulate, "
	                     "pcap, audit, status, policy, qp)"),
	          std::string::npos)
	    << r.err;
	r = run("roce-lab", {"frobnicate"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("unknown command 'frobnicate' (ecmp-report, fabric-report)"),
	          std::string::npos)
	    << r.err;
	r = run("roce-ping", {"serve"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("unknown command 'serve' (server, client)"), std::string::npos)
	    << r.err;
}

} // namespace
} // namespace roce
