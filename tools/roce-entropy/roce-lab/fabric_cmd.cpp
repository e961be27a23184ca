// SPDX-License-Identifier: GPL-2.0
// fabric-report: make fabric's jobs judged (lib/sim/fabric.h); a table (or
// JSON), the report as a file and a chart.  Exit status 1 when the
// calibration did not show the fabric as the bottleneck.
#include <fstream>

#include "args/args.h"
#include "lab_commands.h"
#include "sim/fabric.h"

namespace roce
{

int fabric_report_cmd(const FabricReportArgs &args, std::ostream &out)
{
	std::ifstream in(args.input);
	if (!in)
		throw UsageError("cannot read " + args.input);
	const FabricRuns runs = parse_fabric_runs(in, args.input);
	const Record report = fabric_report(runs);
	const nlohmann::json j = report.json();

	if (!args.output.empty()) {
		std::ofstream f(args.output);
		f << j.dump(2) << '\n';
		if (!f)
			throw UsageError("cannot write " + args.output);
	}
	if (!args.svg.empty()) {
		std::ofstream f(args.svg);
		write_fabric_svg(runs, f);
		if (!f)
			throw UsageError("cannot write " + args.svg);
	}
	print(report, args.json, out);
	return j["ok"].get<bool>() ? 0 : 1;
}

} // namespace roce
