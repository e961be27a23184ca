// SPDX-License-Identifier: GPL-2.0
#include <iostream>

#include "cli.h"

int main(int argc, char **argv)
{
	return roce::run_cli(argc, argv, std::cout, std::cerr);
}
