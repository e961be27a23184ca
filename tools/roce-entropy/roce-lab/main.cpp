// SPDX-License-Identifier: GPL-2.0
#include <iostream>

#include "lab_cli.h"

int main(int argc, char **argv)
{
	return roce::run_lab_cli(argc, argv, std::cout, std::cerr);
}
