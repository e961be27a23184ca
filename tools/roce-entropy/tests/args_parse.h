// SPDX-License-Identifier: GPL-2.0
// A program's argument parser run in-process by the tests: roce-ping's and
// roce-qps's parse_*_args(argc, argv, opts, out, err).
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

namespace roce::test
{

// What the parser returned (an exit status, or none: go on), the options it
// filled in and what it printed on stderr.
template <typename Options> struct Parsed {
	std::optional<int> status;
	Options opts;
	std::string err;
};

// PARSE run on PROG ARGS...
template <typename Options, typename Parse>
Parsed<Options> parse_args(Parse parse, const char *prog, const std::vector<std::string> &args)
{
	Parsed<Options> p;
	std::vector<const char *> argv{prog};
	std::ostringstream out, err;

	for (const auto &a : args)
		argv.push_back(a.c_str());
	p.status = parse(static_cast<int>(argv.size()), argv.data(), p.opts, out, err);
	p.err = err.str();
	return p;
}

// A command line the parser must refuse, exiting 2 with MESSAGE on stderr;
// NAME names the case.
struct BadArgs {
	const char *name;
	std::vector<std::string> args;
	const char *message;
};

// P, the parse of BAD's command line, refused it as BAD says.
template <typename Options>
testing::AssertionResult refused(const Parsed<Options> &p, const BadArgs &bad)
{
	if (!p.status)
		return testing::AssertionFailure() << "accepted";
	if (*p.status != 2)
		return testing::AssertionFailure() << "exit status " << *p.status << ", not 2";
	if (p.err.find(bad.message) == std::string::npos)
		return testing::AssertionFailure() << "no '" << bad.message << "' in: " << p.err;
	return testing::AssertionSuccess();
}

} // namespace roce::test
