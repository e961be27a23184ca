// SPDX-License-Identifier: GPL-2.0
#include "ecmp_report.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <set>
#include <stdexcept>

#include "entropy.h"
#include "svg.h"

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

std::string fmt(const char *format, double value)
{
	char buf[32];
	std::snprintf(buf, sizeof(buf), format, value);
	return buf;
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

json ecmp_report_json(const std::vector<EcmpRun> &runs)
{
	json list = json::array();
	bool ok = true;

	for (const auto &run : runs) {
		const EcmpVerdict v = judge(run);
		ok &= v.ok;
		list.push_back({{"family", run.family},
		                {"policy", run.policy},
		                {"connections", run.udp_sports.size()},
		                {"distinct_udp_sports", v.distinct_sports},
		                {"forward", run.forward},
		                {"reverse", run.reverse},
		                {"forward_max_mean", v.forward_max_mean},
		                {"reverse_max_mean", v.reverse_max_mean},
		                {"clients_ok", run.clients_ok},
		                {"ideal_max_mean", run.ideal_mean},
		                {"ideal_max_mean_p95", run.ideal_p95},
		                {"ok", v.ok},
		                {"verdict", v.why}});
		if (run.reverse.empty())
			list.back()["reverse_max_mean"] = nullptr;
	}
	return {{"runs", list}, {"ok", ok}};
}

void print_ecmp_table(const std::vector<EcmpRun> &runs, std::ostream &out)
{
	std::string family;

	for (std::size_t r = 0; r < runs.size(); r++) {
		const EcmpRun &run = runs[r];
		const EcmpVerdict v = judge(run);
		const std::size_t links = run.forward.size();

		if (run.family != family) {
			family = run.family;
			out << '\n'
			    << family_title(family) << ": " << run.udp_sports.size()
			    << " rdma_cm connections over " << links
			    << " links, packets per link (router counters)\n";
			out << "policy dir ports";
			for (std::size_t i = 0; i < links; i++) {
				char col[16];
				std::snprintf(col, sizeof(col), "  %6s",
				              ("link" + std::to_string(i)).c_str());
				out << col;
			}
			out << "  max/mean\n";
		}
		const int dirs = run.reverse.empty() ? 1 : 2;
		for (int dir = 0; dir < dirs; dir++) {
			const auto &load = dir ? run.reverse : run.forward;
			char head[32];
			std::snprintf(head, sizeof(head), "%-6s %s %5s",
			              dir ? "" : run.policy.c_str(), dir ? "B>A" : "A>B",
			              dir ? "" : std::to_string(v.distinct_sports).c_str());
			out << head;
			for (auto n : load)
				out << fmt("  %6.0f", static_cast<double>(n));
			out << fmt("  %8.2f", dir ? v.reverse_max_mean : v.forward_max_mean);
			if (dir == dirs - 1)
				out << "   " << (v.ok ? "ok" : "FAIL") << ": " << v.why;
			out << '\n';
		}
		if (r + 1 == runs.size() || runs[r + 1].family != family)
			out << "ideal (uniformly random ports, " << run.udp_sports.size()
			    << " over " << links << "): max/mean " << fmt("%.2f", run.ideal_mean)
			    << " on average, " << fmt("%.2f", run.ideal_p95) << " at p95\n";
	}
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
		          ", " + run.policy + ": max/mean " + fmt("%.2f", max_mean(run.forward));
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
