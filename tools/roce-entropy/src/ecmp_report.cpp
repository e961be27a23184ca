// SPDX-License-Identifier: GPL-2.0
#include "ecmp_report.h"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <set>
#include <stdexcept>

#include "entropy.h"

namespace roce
{
namespace
{

using nlohmann::json;

const char *const kPolicyColour[] = {"#9e9e9e", "#1f77b4", "#2ca02c"}; // off, rfc, mix

const char *colour_of(const std::string &policy)
{
	if (policy == "rfc")
		return kPolicyColour[1];
	if (policy == "mix")
		return kPolicyColour[2];
	return kPolicyColour[0];
}

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
		return "IPv4, the sending host's own multipath route";
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
	} else if (!v.forward_max_mean || (!run.reverse.empty() && !v.reverse_max_mean)) {
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
	const int cell_w = 300, cell_h = 200, pad = 40, top = 50;
	std::vector<std::string> families, policies;

	for (const auto &run : runs) {
		if (std::find(families.begin(), families.end(), run.family) == families.end())
			families.push_back(run.family);
		if (std::find(policies.begin(), policies.end(), run.policy) == policies.end())
			policies.push_back(run.policy);
	}
	const int width = pad + static_cast<int>(policies.size()) * (cell_w + pad);
	const int height = top + static_cast<int>(families.size()) * (cell_h + pad) + 30;

	out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << width << "\" height=\""
	    << height << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
	    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
	    << "<text x=\"" << pad << "\" y=\"24\" font-size=\"16\">RoCE v2 over ECMP: "
	    << "packets per link / mean, A to B (bars), per policy</text>\n"
	    << "<text x=\"" << pad << "\" y=\"42\" fill=\"#555\">shaded: up to random ports' "
	    << "p95 of the busiest link; dashed: an even spread (1.0)</text>\n";
	for (const auto &run : runs) {
		const int col = static_cast<int>(
		    std::find(policies.begin(), policies.end(), run.policy) - policies.begin());
		const int row = static_cast<int>(
		    std::find(families.begin(), families.end(), run.family) - families.begin());
		const int x0 = pad + col * (cell_w + pad);
		const int y0 = top + row * (cell_h + pad) + 20;
		const double total = static_cast<double>(
		    std::accumulate(run.forward.begin(), run.forward.end(), std::uint64_t{0}));
		const double mean = total / static_cast<double>(run.forward.size());
		const double ideal_p95 = run.ideal_p95;
		const double ymax = std::max(2.5, max_mean(run.forward) * 1.1);
		auto y_of = [&](double v) { return y0 + cell_h - v / ymax * cell_h; };
		const double bar_w =
		    static_cast<double>(cell_w) / static_cast<double>(run.forward.size());

		out << "<g>\n<text x=\"" << x0 << "\" y=\"" << y0 - 6 << "\">"
		    << family_title(run.family) << ", " << run.policy << ": max/mean "
		    << fmt("%.2f", max_mean(run.forward)) << "</text>\n";
		out << "<rect x=\"" << x0 << "\" y=\"" << fmt("%.1f", y_of(ideal_p95))
		    << "\" width=\"" << cell_w << "\" height=\""
		    << fmt("%.1f", y0 + cell_h - y_of(ideal_p95)) << "\" fill=\"#fff3cd\"/>\n";
		for (std::size_t i = 0; i < run.forward.size(); i++) {
			const double v = mean > 0 ? static_cast<double>(run.forward[i]) / mean : 0;
			out << "<rect x=\"" << fmt("%.1f", x0 + static_cast<double>(i) * bar_w + 2)
			    << "\" y=\"" << fmt("%.1f", y_of(v)) << "\" width=\""
			    << fmt("%.1f", bar_w - 4) << "\" height=\""
			    << fmt("%.1f", y0 + cell_h - y_of(v)) << "\" fill=\""
			    << colour_of(run.policy) << "\"/>\n";
		}
		out << "<line x1=\"" << x0 << "\" x2=\"" << x0 + cell_w << "\" y1=\""
		    << fmt("%.1f", y_of(1.0)) << "\" y2=\"" << fmt("%.1f", y_of(1.0))
		    << "\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n"
		    << "<rect x=\"" << x0 << "\" y=\"" << y0 << "\" width=\"" << cell_w
		    << "\" height=\"" << cell_h << "\" fill=\"none\" stroke=\"#888\"/>\n"
		    << "<text x=\"" << x0 << "\" y=\"" << y0 + cell_h + 14
		    << "\" fill=\"#555\">links 0-" << run.forward.size() - 1 << ", y up to "
		    << fmt("%.1f", ymax) << "</text>\n</g>\n";
	}
	out << "</svg>\n";
}

} // namespace roce
