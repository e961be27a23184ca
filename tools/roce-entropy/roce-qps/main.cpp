// SPDX-License-Identifier: GPL-2.0
#include <iostream>

#include "qps.h"

int main(int argc, char **argv)
{
	roce::QpsOptions opts;

	if (auto status = roce::parse_qps_args(argc, argv, opts, std::cout, std::cerr))
		return *status;
	return roce::run_qps(opts, std::cout, std::cerr);
}
