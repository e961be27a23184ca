// SPDX-License-Identifier: GPL-2.0
// The roce-entropy command line, callable from tests.
#pragma once

#include <ostream>

namespace roce
{

// Run the command line ARGV; print to OUT and ERR.  Returns the exit
// status: 0 success (a capture: every connection agrees); 1 a capture with
// a connection that disagrees, an audited QP that disagrees, an ECMP run
// a policy fails, or a host whose status has a problem; 2 a usage error,
// or input that cannot be read; 3 a capture where none disagrees but some
// connection, or all, could not be judged, or that holds no RoCE v2
// connection at all, or an audit in which no QP could be judged.
int run_cli(int argc, const char *const *argv, std::ostream &out, std::ostream &err);

} // namespace roce
