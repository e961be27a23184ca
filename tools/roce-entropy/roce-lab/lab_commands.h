// SPDX-License-Identifier: GPL-2.0
// roce-lab's subcommands, as commands.h has roce-entropy's: each takes its
// arguments as given and returns the exit status (lab_cli.h) or throws
// UsageError.
#pragma once

#include <ostream>
#include <string>

namespace roce
{

struct EcmpReportArgs {
	std::string input, svg, output, failover_svg;
	std::string stalls = "judged"; // the failover act's longest gap: "judged" or "figure"
	bool json = false;
};
int ecmp_report_cmd(const EcmpReportArgs &args, std::ostream &out);

struct FabricReportArgs {
	std::string input, svg, output, against;
	bool json = false;
};
int fabric_report_cmd(const FabricReportArgs &args, std::ostream &out);

} // namespace roce
