// SPDX-License-Identifier: GPL-2.0
#include <iostream>

#include "flows.h"

int main(int argc, char **argv)
{
	roce::FlowsOptions opts;

	if (auto status = roce::parse_flows_args(argc, argv, opts, std::cout, std::cerr))
		return *status;
	return roce::run_flows(opts, std::cout, std::cerr);
}
