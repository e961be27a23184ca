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

// roce-entropy ARGS...
inline CliRun run_roce_entropy(const std::vector<std::string> &args)
{
	std::vector<const char *> argv{"roce-entropy"};
	for (const auto &a : args)
		argv.push_back(a.c_str());
	std::ostringstream out, err;
	const int status = run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
	return {status, out.str(), err.str()};
}

// roce-lab ARGS...
inline CliRun run_roce_lab(const std::vector<std::string> &args)
{
	std::vector<const char *> argv{"roce-lab"};
	for (const auto &a : args)
		argv.push_back(a.c_str());
	std::ostringstream out, err;
	const int status = run_lab_cli(static_cast<int>(argv.size()), argv.data(), out, err);
	return {status, out.str(), err.str()};
}

// roce-entropy pcap ARGS...
inline CliRun pcap_cli(std::vector<std::string> args)
{
	args.insert(args.begin(), "pcap");
	return run_roce_entropy(args);
}

} // namespace roce::test
