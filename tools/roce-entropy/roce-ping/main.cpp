// SPDX-License-Identifier: GPL-2.0
#include <iostream>

#include "ping.h"

int main(int argc, char **argv)
{
	roce::PingOptions opts;

	if (auto status = roce::parse_ping_args(argc, argv, opts, std::cout, std::cerr))
		return *status;
	return roce::run_ping(opts, std::cout, std::cerr);
}
