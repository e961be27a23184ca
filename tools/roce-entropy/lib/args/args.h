// SPDX-License-Identifier: GPL-2.0
// What every program's command line shares: the one usage error, numbers
// (decimal or 0x-prefixed hexadecimal, range-checked), --version, and the
// run of a CLI11 app that turns errors into messages and exit statuses.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "entropy/entropy.h"

namespace CLI
{
class App;
class Option;
} // namespace CLI

namespace roce
{

// A bad command line: the program prints "NAME: error: WHAT" and exits 2.
struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Parse TEXT as an unsigned number no greater than MAX; WHAT names it in
// the error ("QPN", "port", ...).  Throws UsageError.
std::uint64_t parse_number(std::string_view text, std::uint64_t max, std::string_view what);

// As parse_number(), but also no less than MIN, as an unsigned.
unsigned number_arg(std::string_view text, std::uint64_t min, std::uint64_t max,
                    std::string_view what);

// OPT takes a number: --help shows "UINT" and, unless OPT is required, its
// default: SHOWN, else the value its variable holds now, if any (a
// variable left empty to tell "not given" apart names its default here).
CLI::Option *number_option(CLI::Option *opt, const std::string &shown = {});

// Two RDMA devices by name, and a GID index on each (0-255), as the
// programs that open two devices take them; UsageError for an empty name.
struct DevicePair {
	std::string a, b;
	unsigned gid_a = 0, gid_b = 0;
};
DevicePair device_pair_arg(const std::string &a, const std::string &b, std::string_view gid_a,
                           std::string_view gid_b);

// "off", "rfc", "mix" or "builtin"; UsageError otherwise.
Policy policy_arg(const std::string &name);

// --port-flow-label PORT:FL, repeatable: the flow label the application of
// the rdma_cm service on PORT set.  UsageError on a bad one.
std::map<std::uint16_t, std::uint32_t> port_flow_label_args(const std::vector<std::string> &args);

// The tools' version, from CMake's project(VERSION).
std::string_view version();

// Parse ARGV with APP (given --version here, and so is each of its
// subcommands) and run BODY.  Returns BODY's
// status; after --help or --version 0; after a parse error (CLI11's
// message, or for an unknown subcommand one naming the known ones) or a
// std::exception from parsing or BODY ("NAME: error: WHAT" on ERR) 2.
int run_app(CLI::App &app, int argc, const char *const *argv, std::ostream &out, std::ostream &err,
            const std::function<int()> &body);

// For a program that parses first and runs later: run_app() with FILL as
// the body, which turns the parsed options into the program's own.
// Returns nullopt when the program is to run, else the exit status.
std::optional<int> parse_app(CLI::App &app, int argc, const char *const *argv, std::ostream &out,
                             std::ostream &err, const std::function<void()> &fill);

} // namespace roce
