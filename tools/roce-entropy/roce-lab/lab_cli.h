// SPDX-License-Identifier: GPL-2.0
// The roce-lab command line, callable from tests.
#pragma once

#include <ostream>

namespace roce
{

// Run the command line ARGV; print to OUT and ERR.  Returns the exit
// status: 0 success; 1 an ECMP run that a policy fails, or a failover act
// whose self-check fails; 2 a usage error, or input that cannot be read.
int run_lab_cli(int argc, const char *const *argv, std::ostream &out, std::ostream &err);

} // namespace roce
