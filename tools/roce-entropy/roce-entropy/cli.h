// SPDX-License-Identifier: GPL-2.0
// The roce-entropy command line, callable from tests.
#pragma once

#include <ostream>

namespace roce
{

// Run the command line ARGV; print to OUT and ERR.  Returns the exit
// status: 0 success, 1 a capture or QP that disagrees, 2 a usage error,
// 3 an audit in which nothing could be judged.
int run_cli(int argc, const char *const *argv, std::ostream &out, std::ostream &err);

} // namespace roce
