// SPDX-License-Identifier: GPL-2.0
// fabric-report: make fabric's jobs judged (lib/lab/fabric.h); a table (or
// JSON), the report as a file and a chart, and with --against how this
// run's cells agree with an earlier run's.  Exit status 1 when the
// calibration did not show the fabric as the bottleneck.
#include <fstream>

#include "args/args.h"
#include "lab/fabric.h"
#include "lab_commands.h"

namespace roce
{

namespace
{

FabricRuns read_runs(const std::string &name)
{
	std::ifstream in(name);
	if (!in)
		throw UsageError("cannot read " + name);
	return parse_fabric_runs(in, name);
}

} // namespace

int fabric_report_cmd(const FabricReportArgs &args, std::ostream &out)
{
	const FabricRuns runs = read_runs(args.input);
	Record report = fabric_report(runs);

	if (!args.against.empty())
		report.add_text("\n").add("against", fabric_compare(runs, read_runs(args.against)));
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
