// SPDX-License-Identifier: GPL-2.0
// roce-entropy's and roce-lab's command lines run in-process by the tests.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "cli.h"
#include "lab_cli.h"

namespace roce::test
{

struct CliRun {
	int status;
	std::string out, err;
};

// PROG ARGS... through CLI, the command line's entry point (run_cli(),
// run_lab_cli()).
template <typename Cli>
CliRun run_entry(const char *prog, Cli cli, const std::vector<std::string> &args)
{
	std::vector<const char *> argv{prog};
	for (const auto &a : args)
		argv.push_back(a.c_str());
	std::ostringstream out, err;
	const int status = cli(static_cast<int>(argv.size()), argv.data(), out, err);
	return {status, out.str(), err.str()};
}

// roce-entropy ARGS...
inline CliRun run_roce_entropy(const std::vector<std::string> &args)
{
	return run_entry("roce-entropy", run_cli, args);
}

// roce-lab ARGS...
inline CliRun run_roce_lab(const std::vector<std::string> &args)
{
	return run_entry("roce-lab", run_lab_cli, args);
}

// roce-entropy pcap ARGS...
inline CliRun pcap_cli(std::vector<std::string> args)
{
	args.insert(args.begin(), "pcap");
	return run_roce_entropy(args);
}

} // namespace roce::test
