// SPDX-License-Identifier: GPL-2.0
// ecmp-report: the ECMP demo's counts and captures judged; a table (or
// JSON), the report as a file and a chart.  Exit status 1 when a run fails.
#include <fstream>
#include <map>

#include "args/args.h"
#include "commands.h"
#include "sim/ecmp_report.h"
#include "sim/simulate.h"

namespace roce
{
namespace
{

std::vector<EcmpRun> read_runs(const std::string &file)
{
	std::ifstream in(file);
	if (!in)
		throw UsageError("cannot read " + file);
	nlohmann::json raw;
	try {
		raw = nlohmann::json::parse(in);
	} catch (const nlohmann::json::exception &e) {
		throw UsageError(file + ": not JSON: " + e.what());
	}
	return parse_ecmp_runs(raw);
}

// Each run against random ports over as many links.
void add_ideals(std::vector<EcmpRun> &runs)
{
	std::map<std::pair<unsigned, unsigned>, SimResult> ideals;

	for (auto &run : runs) {
		if (!run.connection_count)
			continue; // nothing to compare: the run fails on its own
		SimParams params;
		params.policy = SimPolicy::Ideal;
		params.connections = run.connection_count;
		params.paths = static_cast<unsigned>(run.forward.size());
		params.trials = 4000;
		auto key = std::pair{params.connections, params.paths};
		if (!ideals.count(key))
			ideals[key] = simulate(params);
		run.ideal_mean = ideals[key].max_mean;
		run.ideal_p95 = ideals[key].max_mean_p95;
	}
}

} // namespace

int ecmp_report_cmd(const EcmpReportArgs &args, std::ostream &out)
{
	std::vector<EcmpRun> runs = read_runs(args.input);

	add_ideals(runs);
	const Record report = ecmp_report(runs);
	const nlohmann::json j = report.json();
	if (!args.output.empty()) {
		std::ofstream f(args.output);
		f << j.dump(2) << '\n';
		if (!f)
			throw UsageError("cannot write " + args.output);
	}
	if (!args.svg.empty()) {
		std::ofstream f(args.svg);
		write_ecmp_svg(runs, f);
		if (!f)
			throw UsageError("cannot write " + args.svg);
	}
	print(report, args.json, out);
	return j["ok"].get<bool>() ? 0 : 1;
}

} // namespace roce
