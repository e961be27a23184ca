// SPDX-License-Identifier: GPL-2.0
// Running iproute2's rdma for the audit.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace roce
{

// The program could not be started at all (not installed, say).
class ProgramNotRun : public std::runtime_error
{
public:
	using std::runtime_error::runtime_error;
};

// Run ARGV (ARGV[0] looked up in PATH) and return what it wrote to its
// standard output; its standard error passes through.  Throws
// ProgramNotRun when it cannot be started, std::runtime_error when it does
// not exit 0.
std::string run_program(const std::vector<std::string> &argv);

} // namespace roce
