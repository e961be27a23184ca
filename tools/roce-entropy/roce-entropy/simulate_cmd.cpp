// SPDX-License-Identifier: GPL-2.0
// simulate: connections over ECMP paths per policy, one setting or the grid.
#include <algorithm>
#include <array>
#include <fstream>
#include <sstream>

#include "args/args.h"
#include "commands.h"
#include "output/record.h"
#include "sim/simulate.h"
#include "sim/svg.h"

namespace roce
{
namespace
{

SimParams base_params(const SimulateArgs &args)
{
	SimParams params;
	auto scenario = parse_scenario(args.scenario);
	auto hash = parse_switch_hash(args.hash);

	if (!scenario)
		throw UsageError("unknown scenario '" + args.scenario + "'");
	if (!hash)
		throw UsageError("unknown switch hash '" + args.hash + "'");
	params.scenario = *scenario;
	params.hash = *hash;
	params.connections =
	    static_cast<unsigned>(parse_number(args.connections, 1 << 20, "connections"));
	params.paths = static_cast<unsigned>(parse_number(args.paths, 4096, "paths"));
	params.trials = static_cast<unsigned>(parse_number(args.trials, 100000, "trials"));
	params.offset = static_cast<unsigned>(parse_number(args.offset, 0xFFFFFF, "offset"));
	if (!params.connections || !params.paths || !params.trials)
		throw UsageError("connections, paths and trials must be at least 1");
	return params;
}

// One policy's result, in the JSON only.
Record result_record(const SimResult &r)
{
	Record rec;
	rec.add_json("max_mean", r.max_mean)
	    .add_json("max_mean_p95", r.max_mean_p95)
	    .add_json("distinct_udp_sports", r.distinct_ports)
	    .add_json("collisions", r.collisions)
	    .add_json("load", r.load);
	return rec;
}

// Load per path of the first trial, per policy, random ports' p95 shaded.
void write_simulate_svg(const std::string &file, SimParams params,
                        const std::vector<SimPolicy> &policies)
{
	std::vector<BarPanel> panels;
	const double mean = static_cast<double>(params.connections) / params.paths;

	params.policy = SimPolicy::Ideal;
	const SimResult ideal = simulate(params);
	for (auto p : policies) {
		params.policy = p;
		const SimResult r = simulate(params);
		BarPanel panel;
		panel.title = format("%s: max/mean %.2f (p95 %.2f)",
		                     std::string(name_of(p)).c_str(), r.max_mean, r.max_mean_p95);
		for (auto n : r.load)
			panel.bars.push_back(n / mean);
		panel.band_hi = ideal.max_mean_p95;
		panel.colour = policy_colour(std::string(name_of(p)));
		panels.push_back(std::move(panel));
	}
	std::ofstream f(file);
	write_bar_panels(f,
	                 std::to_string(params.connections) + " connections over " +
	                     std::to_string(params.paths) + " paths, " +
	                     std::string(name_of(params.scenario)) + ", switch hash " +
	                     std::string(name_of(params.hash)),
	                 "bars: connections per path / mean (first trial); shaded: up to random "
	                 "ports' p95 of the busiest path; dashed: an even spread",
	                 panels, 3);
	if (!f)
		throw UsageError("cannot write " + file);
}

int simulate_one(const SimulateArgs &args, std::ostream &out)
{
	SimParams params = base_params(args);
	const std::vector<SimPolicy> policies =
	    sim_policies(args.policies, {SimPolicy::Rfc, SimPolicy::Mix, SimPolicy::Builtin,
	                                 SimPolicy::RxeLegacy, SimPolicy::Ideal});
	const double birthday = birthday_collisions(params.connections);
	std::vector<Record> rows;

	for (auto p : policies) {
		params.policy = p;
		const SimResult res = simulate(params);
		Record row = result_record(res);
		row.add_json("policy", name_of(p))
		    .add_text(format("%-12s %8.3f %5.2f %9.1f %10.4f\n",
		                     std::string(name_of(p)).c_str(), res.max_mean,
		                     res.max_mean_p95, res.distinct_ports, res.collisions));
		rows.push_back(std::move(row));
	}
	if (!args.svg.empty())
		write_simulate_svg(args.svg, params, policies);
	Record r;
	r.add("connections", params.connections, std::to_string(params.connections))
	    .add("paths", params.paths, " connections over " + std::to_string(params.paths))
	    .add("scenario", name_of(params.scenario),
	         " paths, " + std::string(name_of(params.scenario)))
	    .add("switch_hash", name_of(params.hash),
	         ", switch hash " + std::string(name_of(params.hash)) + "\n")
	    .add("birthday_collisions", birthday,
	         format("policy       max/mean  p95   distinct  collisions (birthday %g)\n",
	                birthday))
	    .add("results", rows);
	print(r, args.json, out);
	return 0;
}

// The grid's policies; the first, stock 6.12, is the baseline of the
// others, the last (random ports) gives the noise.
const std::vector<SimPolicy> kGridPolicies = {SimPolicy::Builtin, SimPolicy::Rfc, SimPolicy::Mix,
                                              SimPolicy::RxeLegacy, SimPolicy::Ideal};
constexpr std::size_t kIdeal = 4, kMix = 2;
const std::vector<unsigned> kGridConnections = {64, 256, 1024, 4096};
const std::vector<unsigned> kGridPaths = {2, 4, 8, 16, 64};

// The region the goal is stated for: mix better than or equal to stock
// within noise in every cell with n = 64..1024 and m = 4..16.
bool in_goal(const SimParams &p)
{
	return p.connections >= 64 && p.connections <= 1024 && p.paths >= 4 && p.paths <= 16;
}

// Counts of cells better than, equal to and worse than stock.
using Tally = std::array<unsigned, 3>;

// The grid's tally: every policy against stock, everywhere and in the
// goal's region; every policy's mean at n=256, m=8; mix's worst cell.
struct GridTally {
	std::vector<Tally> all = std::vector<Tally>(kGridPolicies.size(), Tally{});
	std::vector<Tally> goal = std::vector<Tally>(kGridPolicies.size(), Tally{});
	std::vector<double> sum = std::vector<double>(kGridPolicies.size(), 0);
	std::vector<std::string> mix_worse; // the goal's cells where mix is worse
	unsigned at_256_8 = 0, cells = 0, goal_cells = 0;
	double mix_worst = 0;
};

char mark(Versus v)
{
	return v == Versus::Better ? '+' : v == Versus::Worse ? '-' : '=';
}

std::string cell_name(const SimParams &p)
{
	return format("n=%u m=%u %s %s", p.connections, p.paths,
	              std::string(name_of(p.scenario)).c_str(),
	              std::string(name_of(p.hash)).c_str());
}

// One cell of the grid: every policy under PARAMS, each against stock.
Record grid_cell(SimParams params, GridTally &t)
{
	std::vector<SimResult> r;
	for (auto p : kGridPolicies) {
		params.policy = p;
		r.push_back(simulate(params));
	}
	// Stock and the policy compared are both deterministic in the
	// sequential scenarios (one draw), means of as many trials in the
	// random ones.
	const double noise = comparison_noise(r[kIdeal], r[0].trials);
	const bool goal = in_goal(params);
	std::vector<Versus> vs;
	++t.cells;
	t.goal_cells += goal;
	for (std::size_t i = 0; i < kGridPolicies.size(); ++i) {
		vs.push_back(versus(r[i].max_mean, r[0].max_mean, noise));
		const auto k = static_cast<std::size_t>(vs.back());
		++t.all[i][k];
		if (goal)
			++t.goal[i][k];
	}
	if (goal && vs[kMix] == Versus::Worse)
		t.mix_worse.push_back(cell_name(params) +
		                      format(" (mix %.2f, builtin %.2f, noise %.2f, ideal %.2f)",
		                             r[kMix].max_mean, r[0].max_mean, noise,
		                             r[kIdeal].max_mean));
	t.mix_worst = std::max(t.mix_worst, r[kMix].max_mean / r[kIdeal].max_mean);
	if (params.connections == 256 && params.paths == 8) {
		++t.at_256_8;
		for (std::size_t i = 0; i < kGridPolicies.size(); ++i)
			t.sum[i] += r[i].max_mean;
	}
	Record cell;
	cell.add_json("connections", params.connections)
	    .add_json("paths", params.paths)
	    .add_json("scenario", name_of(params.scenario))
	    .add_json("switch_hash", name_of(params.hash))
	    .add_json("noise", noise);
	for (std::size_t i = 0; i < kGridPolicies.size(); ++i) {
		nlohmann::json j = result_record(r[i]).json();
		if (i)
			j["versus_linux"] = name_of(vs[i]);
		cell.add_json(std::string(name_of(kGridPolicies[i])), j);
	}
	cell.add_text(format("%5u %3u %-12s %-6s %5.2f   %5.2f %c  %5.2f %c  %5.2f %c      %5.2f "
	                     "%c (%4.2f)  %4.2f\n",
	                     params.connections, params.paths,
	                     std::string(name_of(params.scenario)).c_str(),
	                     std::string(name_of(params.hash)).c_str(), r[0].max_mean,
	                     r[1].max_mean, mark(vs[1]), r[2].max_mean, mark(vs[2]), r[3].max_mean,
	                     mark(vs[3]), r[4].max_mean, mark(vs[4]), r[4].max_mean_p95, noise));
	return cell;
}

Record tally_record(const Tally &t)
{
	Record r;
	r.add_json("better", t[0]).add_json("equal", t[1]).add_json("worse", t[2]);
	return r;
}

// A line per policy against stock, the goal's verdict, the means at n=256,
// m=8.
Record grid_summary(const GridTally &t)
{
	Record against;
	for (std::size_t i = 1; i < kGridPolicies.size(); ++i) {
		const std::string name(name_of(kGridPolicies[i]));
		Record p;
		p.add("all", tally_record(t.all[i]).json(),
		      format(
		          "summary: %-10s against builtin: %3u better, %3u equal within noise, %3u "
		          "worse of %u cells;",
		          name.c_str(), t.all[i][0], t.all[i][1], t.all[i][2], t.cells))
		    .add("goal_region", tally_record(t.goal[i]).json(),
		         format(" at n=64..1024, m=4..16: %3u, %3u, %3u of %u\n", t.goal[i][0],
		                t.goal[i][1], t.goal[i][2], t.goal_cells));
		against.add(name, p);
	}
	std::string goal = t.mix_worse.empty()
	                       ? "met: mix is better than or equal to builtin in every cell\n"
	                       : "not met: mix is worse than builtin beyond noise in " +
	                             std::to_string(t.mix_worse.size()) + " cells:\n";
	for (const auto &c : t.mix_worse)
		goal += "  " + c + '\n';
	Record means;
	std::string text = "summary: mean max/mean at n=256, m=8:";
	for (std::size_t i = 0; i < kGridPolicies.size(); ++i) {
		const std::string name(name_of(kGridPolicies[i]));
		const double mean = t.sum[i] / t.at_256_8;
		means.add(name, mean, format(" %s %.3f", name.c_str(), mean));
	}
	Record summary;
	summary.add_json("cells", t.cells)
	    .add_json("goal_cells", t.goal_cells)
	    .add_text("\n")
	    .add("against_linux", against)
	    .add("mix_goal_met", t.mix_worse.empty(),
	         "goal at n=64..1024, m=4..16, mix better than or equal to builtin within noise: " +
	             goal)
	    .add_json("mix_worse_cells", t.mix_worse)
	    .add("mean_max_mean_n256_m8", means.json(), text + means.text() + '\n')
	    .add("mix_worst_relative_to_ideal", t.mix_worst,
	         format("summary: mix's worst cell / ideal: %.3f\n", t.mix_worst));
	return summary;
}

// The whole grid: every scenario and switch hash, n in 64..4096, m in 2..64.
int simulate_grid(const SimulateArgs &args, std::ostream &out)
{
	const SimParams base = base_params(args);
	std::vector<Record> cells;
	GridTally tally;

	for (unsigned n : kGridConnections)
		for (unsigned m : kGridPaths)
			for (int s = 0; s < 6; ++s)
				for (int h = 0; h < 4; ++h) {
					SimParams params = base;
					params.connections = n;
					params.paths = m;
					params.scenario = static_cast<Scenario>(s);
					params.hash = static_cast<SwitchHash>(h);
					cells.push_back(grid_cell(params, tally));
				}
	Record r;
	r.add_text(
	     "busiest path / mean; after each policy, against builtin (stock 6.12): + better, "
	     "= equal within noise, - worse\n"
	     "    n   m scenario     hash   builtin   rfc      mix      rxe-legacy  ideal    "
	     "(p95)  noise\n")
	    .add("cells", cells)
	    .add("summary", grid_summary(tally));
	print(r, args.json, out);
	return 0;
}

} // namespace

std::vector<SimPolicy> sim_policies(const std::vector<std::string> &names,
                                    const std::vector<SimPolicy> &defaults)
{
	std::vector<SimPolicy> policies;

	for (const auto &name : names) {
		auto p = parse_sim_policy(name);
		if (!p)
			throw UsageError("unknown policy '" + name +
			                 "' (off, rfc, mix, builtin, rxe-legacy, ideal)");
		policies.push_back(*p);
	}
	return policies.empty() ? defaults : policies;
}

int simulate_cmd(const SimulateArgs &args, std::ostream &out)
{
	if (args.grid && !args.svg.empty())
		throw UsageError("--svg charts one simulation, not the --grid");
	if (!args.fabric.empty())
		return simulate_fabric_cmd(args, out);
	return args.grid ? simulate_grid(args, out) : simulate_one(args, out);
}

} // namespace roce
