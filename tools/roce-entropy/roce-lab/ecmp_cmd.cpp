// SPDX-License-Identifier: GPL-2.0
// ecmp-report: the ECMP demo's counts and captures judged, and its failover
// act; a table (or JSON), the report as a file and charts.  Exit status 1
// when a run fails.
#include <fstream>
#include <map>

#include "args/args.h"
#include "lab/ecmp_report.h"
#include "lab/failover.h"
#include "lab_commands.h"
#include "sim/simulate.h"

namespace roce
{
namespace
{

nlohmann::json read_raw(const std::string &file)
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
	return raw;
}

template <typename Write> void write_file(const std::string &file, Write write)
{
	std::ofstream f(file);
	write(f);
	if (!f)
		throw UsageError("cannot write " + file);
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
	const nlohmann::json raw = read_raw(args.input);
	std::vector<EcmpRun> runs = parse_ecmp_runs(raw);
	const bool judge_stalls = args.stalls != "figure";

	add_ideals(runs);
	const Record report = ecmp_report(runs);
	nlohmann::json j = report.json();
	std::string text = report.text();
	if (raw.contains("failover")) {
		const FailoverAct act = parse_failover(raw["failover"]);
		const Record failover = failover_report(act, judge_stalls);
		const nlohmann::json fj = failover.json();
		j["failover"] = fj;
		j["ok"] = j["ok"].get<bool>() && fj["ok"].get<bool>();
		text += failover.text();
		if (!fj["ok"].get<bool>())
			text += "\nthe failover act's self-check FAILED (above)\n";
		if (!args.failover_svg.empty())
			write_file(args.failover_svg,
			           [&](std::ostream &f) { write_failover_svg(act, f); });
	} else if (!args.failover_svg.empty()) {
		throw UsageError(args.input + " has no failover act for --failover-svg");
	}
	if (!args.output.empty())
		write_file(args.output, [&](std::ostream &f) { f << j.dump(2) << '\n'; });
	if (!args.svg.empty())
		write_file(args.svg, [&](std::ostream &f) { write_ecmp_svg(runs, f); });
	if (args.json)
		out << j.dump() << '\n';
	else
		out << text;
	return j["ok"].get<bool>() ? 0 : 1;
}

} // namespace roce
