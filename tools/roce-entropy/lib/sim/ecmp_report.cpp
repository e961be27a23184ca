// SPDX-License-Identifier: GPL-2.0
#include "sim/ecmp_report.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <set>
#include <stdexcept>

#include "entropy/entropy.h"
#include "sim/svg.h"

namespace roce
{
namespace
{

using nlohmann::json;

std::vector<std::uint64_t> counts(const json &j, const char *what)
{
	if (!j.contains(what) || !j[what].is_array() || j[what].empty())
		throw std::runtime_error(std::string("run without '") + what + "' counts");
	return j[what].get<std::vector<std::uint64_t>>();
}

std::string family_title(const std::string &family)
{
	if (family == "host-ipv4")
		return "IPv4, the sending host's routes by UDP source port";
	return family == "ipv6" ? "IPv6" : "IPv4";
}

bool directions_ok(const EcmpRun &run, const EcmpVerdict &v, double limit, bool at_least)
{
	auto ok = [&](double value) { return at_least ? value >= limit : value <= limit; };
	return ok(v.forward_max_mean) && (run.reverse.empty() || ok(v.reverse_max_mean));
}

} // namespace

double max_mean(const std::vector<std::uint64_t> &load)
{
	const std::uint64_t total = std::accumulate(load.begin(), load.end(), std::uint64_t{0});

	if (!total)
		return 0;
	const auto top = *std::max_element(load.begin(), load.end());
	return static_cast<double>(top) * static_cast<double>(load.size()) /
	       static_cast<double>(total);
}

EcmpVerdict judge(const EcmpRun &run)
{
	EcmpVerdict v;
	const double links = static_cast<double>(run.forward.size());

	v.forward_max_mean = max_mean(run.forward);
	v.reverse_max_mean = max_mean(run.reverse);
	v.distinct_sports = static_cast<unsigned>(
	    std::set<std::uint16_t>(run.udp_sports.begin(), run.udp_sports.end()).size());
	if (!run.clients_ok) {
		v.why = "a client failed";
	} else if (v.forward_max_mean == 0 || (!run.reverse.empty() && v.reverse_max_mean == 0)) {
		v.why = "no packets counted";
	} else if (run.policy == "off") {
		// One link carries it all: max/mean equals the number of links
		// (99% of it, for the odd neighbour packet).
		v.ok = directions_ok(run, v, 0.99 * links, true);
		v.why = v.ok ? "all on one link, as expected" : "spread: off should use one link";
	} else {
		v.ok = directions_ok(run, v, run.ideal_p95, false);
		v.why = v.ok ? "within random ports' p95" : "worse than random ports' p95";
	}
	return v;
}

std::vector<EcmpRun> parse_ecmp_runs(const json &raw)
{
	std::vector<EcmpRun> runs;

	if (!raw.contains("runs") || !raw["runs"].is_array())
		throw std::runtime_error("no 'runs' in the demo's result");
	for (const auto &j : raw["runs"]) {
		EcmpRun run;
		run.family = j.at("family").get<std::string>();
		run.policy = j.at("policy").get<std::string>();
		auto policy = parse_policy(run.policy);
		if (!policy)
			throw std::runtime_error("unknown policy '" + run.policy + "'");
		run.forward = counts(j, "forward");
		if (j.contains("reverse"))
			run.reverse = counts(j, "reverse");
		if (!run.reverse.empty() && run.forward.size() != run.reverse.size())
			throw std::runtime_error("forward and reverse count different links");
		run.clients_ok = j.at("clients_ok").get<bool>();
		for (const auto &c : j.at("clients")) {
			auto sport = c.at("sport").get<std::uint16_t>();
			auto dport = c.at("dport").get<std::uint16_t>();
			run.udp_sports.push_back(udp_sport(cm_flow_label(*policy, sport, dport)));
		}
		runs.push_back(std::move(run));
	}
	if (runs.empty())
		throw std::runtime_error("the demo's result has no runs");
	return runs;
}

namespace
{

// The table's header, before the first run of a family.
std::string family_header(const EcmpRun &run)
{
	std::string s = "\n" + family_title(run.family) + ": " +
	                std::to_string(run.udp_sports.size()) + " rdma_cm connections over " +
	                std::to_string(run.forward.size()) +
	                " links, packets per link (router counters)\npolicy dir ports";
	for (std::size_t i = 0; i < run.forward.size(); i++)
		s += format("  %6s", ("link" + std::to_string(i)).c_str());
	return s + "  max/mean\n";
}

// A run's rows: A to B, then B to A when counted.
std::string run_rows(const EcmpRun &run, const EcmpVerdict &v)
{
	const int dirs = run.reverse.empty() ? 1 : 2;
	std::string s;

	for (int dir = 0; dir < dirs; dir++) {
		s += format("%-6s %s %5s", dir ? "" : run.policy.c_str(), dir ? "B>A" : "A>B",
		            dir ? "" : std::to_string(v.distinct_sports).c_str());
		for (auto n : dir ? run.reverse : run.forward)
			s += format("  %6.0f", static_cast<double>(n));
		s += format("  %8.2f", dir ? v.reverse_max_mean : v.forward_max_mean);
		if (dir == dirs - 1)
			s += "   " + std::string(v.ok ? "ok" : "FAIL") + ": " + v.why;
		s += '\n';
	}
	return s;
}

// A run: HEADER and TRAILER are text around its rows.
Record run_record(const EcmpRun &run, const EcmpVerdict &v, std::string header, std::string trailer)
{
	Record r;

	r.add_text(std::move(header))
	    .add_json("family", run.family)
	    .add_json("policy", run.policy)
	    .add_json("connections", run.udp_sports.size())
	    .add_json("distinct_udp_sports", v.distinct_sports)
	    .add_json("forward", run.forward)
	    .add_json("reverse", run.reverse)
	    .add_json("forward_max_mean", v.forward_max_mean)
	    .add_json("reverse_max_mean",
	              run.reverse.empty() ? json(nullptr) : json(v.reverse_max_mean))
	    .add_json("clients_ok", run.clients_ok)
	    .add_json("ideal_max_mean", run.ideal_mean)
	    .add_json("ideal_max_mean_p95", run.ideal_p95)
	    .add_json("ok", v.ok)
	    .add_json("verdict", v.why)
	    .add_text(run_rows(run, v))
	    .add_text(std::move(trailer));
	return r;
}

} // namespace

Record ecmp_report(const std::vector<EcmpRun> &runs)
{
	std::vector<Record> list;
	bool ok = true;

	for (std::size_t i = 0; i < runs.size(); i++) {
		const EcmpRun &run = runs[i];
		const EcmpVerdict v = judge(run);
		std::string header, trailer;
		ok &= v.ok;
		if (!i || runs[i - 1].family != run.family)
			header = family_header(run);
		if (i + 1 == runs.size() || runs[i + 1].family != run.family)
			trailer = format("ideal (uniformly random ports, %zu over %zu): max/mean "
			                 "%.2f on average, %.2f at p95\n",
			                 run.udp_sports.size(), run.forward.size(), run.ideal_mean,
			                 run.ideal_p95);
		list.push_back(run_record(run, v, header, trailer));
	}
	Record report;
	report.add("runs", list).add_json("ok", ok);
	return report;
}

void write_ecmp_svg(const std::vector<EcmpRun> &runs, std::ostream &out)
{
	std::vector<BarPanel> panels;
	std::vector<std::string> policies;

	for (const auto &run : runs) {
		if (std::find(policies.begin(), policies.end(), run.policy) == policies.end())
			policies.push_back(run.policy);
		const double total = static_cast<double>(
		    std::accumulate(run.forward.begin(), run.forward.end(), std::uint64_t{0}));
		const double mean = total / static_cast<double>(run.forward.size());
		BarPanel p;
		p.title = (run.family == "host-ipv4" ? std::string("IPv4, host routes by port")
		                                     : family_title(run.family)) +
		          ", " + run.policy + ": max/mean " + format("%.2f", max_mean(run.forward));
		for (auto n : run.forward)
			p.bars.push_back(mean > 0 ? static_cast<double>(n) / mean : 0);
		p.band_hi = run.ideal_p95;
		p.colour = policy_colour(run.policy);
		panels.push_back(std::move(p));
	}
	write_bar_panels(out, "RoCE v2 over ECMP: packets per link / mean, A to B, per policy",
	                 "shaded: up to random ports' p95 of the busiest link; dashed: an even "
	                 "spread (1.0)",
	                 panels, static_cast<int>(policies.size()));
}

} // namespace roce
