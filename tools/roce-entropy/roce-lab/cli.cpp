// SPDX-License-Identifier: GPL-2.0
// roce-lab's command line: the subcommands and their options; each
// subcommand lives in its own file (lab_commands.h).
#include "lab_cli.h"

#include <CLI/CLI.hpp>

#include "args/args.h"
#include "lab_commands.h"

namespace roce
{
namespace
{

CLI::App *add_ecmp_report(CLI::App &app, EcmpReportArgs &a)
{
	auto *cmd = app.add_subcommand(
	    "ecmp-report", "judge the ECMP demo's packets per link (exit 1 when a policy fails)");
	cmd->add_option("input", a.input, "the demo's raw result (JSON)")->required();
	cmd->add_option("--svg", a.svg, "write a chart of the load per link");
	cmd->add_option("--failover-svg", a.failover_svg,
	                "write the failover act's timeline (when the input has the act)");
	cmd->add_option("--stalls", a.stalls,
	                "the failover act's longest gap: judged against its goal, or a figure "
	                "only (a guest sharing the host's cores)")
	    ->check(CLI::IsMember({"judged", "figure"}))
	    ->default_str("judged");
	cmd->add_option("--output", a.output, "write the report as JSON");
	cmd->add_flag("--json", a.json, "print JSON");
	return cmd;
}

CLI::App *add_fabric_report(CLI::App &app, FabricReportArgs &a)
{
	auto *cmd = app.add_subcommand(
	    "fabric-report", "judge make fabric's jobs: completion time per policy against the "
	                     "ideal and stock (exit 1 when the fabric was not the bottleneck)");
	cmd->add_option("input", a.input, "the jobs, one JSON object a line (runs.jsonl)")
	    ->required();
	cmd->add_option("--svg", a.svg, "write a chart of completion time over the ideal");
	cmd->add_option("--output", a.output, "write the report as JSON");
	cmd->add_option("--against", a.against,
	                "an earlier run's jobs (runs.jsonl): which cells agree with this run's");
	cmd->add_flag("--json", a.json, "print JSON");
	return cmd;
}

} // namespace

int run_lab_cli(int argc, const char *const *argv, std::ostream &out, std::ostream &err)
{
	CLI::App app{"RoCE v2 entropy's lab: judge what the demo and the test fabrics measured",
	             "roce-lab"};
	EcmpReportArgs ecmp_args;
	FabricReportArgs fabric_args;

	app.require_subcommand(1);
	add_ecmp_report(app, ecmp_args);
	auto *fabric = add_fabric_report(app, fabric_args);
	return run_app(app, argc, argv, out, err, [&] {
		if (fabric->parsed())
			return fabric_report_cmd(fabric_args, out);
		return ecmp_report_cmd(ecmp_args, out);
	});
}

} // namespace roce
