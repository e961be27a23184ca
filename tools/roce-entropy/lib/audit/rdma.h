// SPDX-License-Identifier: GPL-2.0
// Running iproute2's rdma for the audit.
#pragma once

#include <string>
#include <vector>

namespace roce
{

// Run ARGV (ARGV[0] looked up in PATH) and return what it wrote to its
// standard output; its standard error passes through.  Throws
// std::runtime_error when it cannot be run or does not exit 0.
std::string run_program(const std::vector<std::string> &argv);

} // namespace roce
