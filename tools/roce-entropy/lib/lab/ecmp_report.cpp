// SPDX-License-Identifier: GPL-2.0
// The demo's runs judged (judge) and written as the report and the SVG.
#include "lab/ecmp_report.h"

#include <algorithm>
#include <numeric>

#include "lab/ecmp_names.h"
#include "sim/svg.h"

namespace roce
{

EcmpVerdict judge(const EcmpRun &run)
{
	EcmpVerdict v;
	const double links = static_cast<double>(run.forward.size());
	const bool two_ways = !run.reverse.empty();
	std::vector<std::string> failed;
	std::string found;

	v.forward_max_mean = max_mean(run.forward);
	v.reverse_max_mean = max_mean(run.reverse);
	for (const auto &c : run.connections) {
		auto &kind = v.by_kind[c.kind];
		kind.second++;
		v.missing += !c.found;
		v.inconsistent += c.found && !c.consistent;
		if (c.udp_sports.size() > 1) {
			v.split++;
			kind.first++;
		}
		v.linux_splits += c.linux_splits;
		std::set<unsigned> fwd, rev;
		for (const auto &[link, n] : c.forward_links)
			fwd.insert(link);
		for (const auto &[link, n] : c.reverse_links)
			rev.insert(link);
		v.apart += fwd != rev;
		if (run.family == "ipv6") {
			const bool zero =
			    c.flow_labels.empty() || c.flow_labels == std::set<std::uint32_t>{0};
			v.fl_zero += zero;
			v.fl_set += !zero;
		}
	}
	auto fits = [&](double limit, bool at_least) {
		auto ok = [&](double x) { return at_least ? x >= limit : x <= limit; };
		return ok(v.forward_max_mean) && (!two_ways || ok(v.reverse_max_mean));
	};
	v.within_p95 = fits(run.ideal_p95, false);
	if (!run.clients_ok)
		failed.push_back("a client failed");
	if (v.forward_max_mean == 0 || (two_ways && v.reverse_max_mean == 0))
		failed.push_back("no packets counted");
	if (v.missing)
		failed.push_back(std::to_string(v.missing) + " connections not in the capture");
	if (v.inconsistent)
		failed.push_back(std::to_string(v.inconsistent) +
		                 " connections off the policy's prediction");
	if (run.act == "ecmp" && run.capture_coverage < 0.99)
		failed.push_back(format("the capture holds %.1f%% of the packets counted",
		                        100 * run.capture_coverage));
	const unsigned n = static_cast<unsigned>(run.connections.size());
	if (run.policy == "off") {
		// One link carries it all: max/mean equals the number of links.
		if (!fits(0.99 * links, true))
			failed.push_back("spread: off should use one link");
		else
			found = "all on one link";
	} else if (run.policy == "builtin") {
		if (run.act == "ecmp" && (v.split != v.linux_splits || !v.linux_splits))
			failed.push_back(format("%u connections on more than one port, stock 6.12 "
			                        "splits %u",
			                        v.split, v.linux_splits));
		else if (run.act == "ecmp")
			found =
			    format("stock splits %u of %u connections, as predicted", v.split, n);
	} else {
		if (run.balance_asserted && !v.within_p95)
			failed.push_back("worse than random ports' p95");
		else
			found = v.within_p95 ? "within random ports' p95"
			                     : "beyond random ports' p95 (reported, not asserted)";
	}
	if (run.policy != "builtin" && v.split)
		failed.push_back(std::to_string(v.split) + " connections on more than one port");
	if ((run.policy == "rfc" || run.policy == "mix") && v.fl_zero)
		failed.push_back(std::to_string(v.fl_zero) +
		                 " IPv6 connections without a flow label");
	v.ok = failed.empty();
	if (v.ok) {
		v.why = found;
		if (run.act == "ecmp" && run.policy != "builtin")
			v.why += (v.why.empty() ? "" : "; ") +
			         std::string("every connection on one port");
		if (run.policy == "builtin" && run.act != "ecmp")
			v.why = "reported";
	} else {
		for (const auto &f : failed)
			v.why += (v.why.empty() ? "" : "; ") + f;
	}
	return v;
}

namespace
{

using nlohmann::json;

// ---- the report ----

std::string group_title(const EcmpRun &run)
{
	const std::string n = std::to_string(run.connection_count);
	if (run.act == "host")
		return family_title(run.family) + ", the sending host's " +
		       std::to_string(run.forward.size()) +
		       " next hops by UDP source port (routes; its receive counters)";
	std::string what = n + " rdma_cm RC connections";
	if (run.mix == "users") {
		std::map<std::string, unsigned> kinds;
		for (const auto &c : run.connections)
			kinds[c.kind]++;
		what = n + " connections as users run them (" + std::to_string(kinds[kCmRc]) +
		       " rdma_cm RC, " + std::to_string(kinds[kRc]) + " RC without CM, " +
		       std::to_string(kinds[kUd]) + " UD with an AH per peer)";
	}
	return family_title(run.family) + ", " + what + " over " +
	       std::to_string(run.forward.size()) + " links (captured at the router)";
}

std::string group_header(const EcmpRun &run)
{
	std::string s = "\n" + group_title(run) + "\npolicy dir ";
	for (std::size_t i = 0; i < run.forward.size(); i++)
		s += format("  %6s",
		            ((run.act == "host" ? "hop" : "link") + std::to_string(i)).c_str());
	return s + "  max/mean\n";
}

// The kinds of connection split, "(rdma_cm RC 32, RC 0, UD 16)", for a mix
// of several.
std::string by_kind_text(const EcmpVerdict &v)
{
	if (v.by_kind.size() < 2)
		return "";
	std::string s;
	for (const auto &kind : {kCmRc, kRc, kUd}) {
		auto it = v.by_kind.find(kind);
		if (it != v.by_kind.end())
			s += (s.empty() ? " (" : ", ") + kind + ' ' +
			     std::to_string(it->second.first) + '/' +
			     std::to_string(it->second.second);
	}
	return s + ")";
}

std::string run_rows(const EcmpRun &run, const EcmpVerdict &v)
{
	const int dirs = run.reverse.empty() ? 1 : 2;
	std::string s;

	for (int dir = 0; dir < dirs; dir++) {
		s += format("%-6s %s", dir ? "" : run.policy.c_str(), dir ? "B>A" : "A>B");
		for (auto n : dir ? run.reverse : run.forward)
			s += format("  %6.0f", static_cast<double>(n));
		s += format("  %8.2f\n", dir ? v.reverse_max_mean : v.forward_max_mean);
	}
	if (run.act == "ecmp") {
		s +=
		    format("       %zu connections: %u on more than one UDP source port%s, %u with "
		           "directions on different links",
		           run.connections.size(), v.split, by_kind_text(v).c_str(), v.apart);
		if (run.family == "ipv6")
			s += format(", IPv6 flow label 0 on %u, set on %u", v.fl_zero, v.fl_set);
		s += '\n';
	}
	return s + "       " + (v.ok ? "ok" : "FAIL") + ": " + v.why + '\n';
}

Record run_record(const EcmpRun &run, const EcmpVerdict &v, std::string header, std::string trailer)
{
	Record r;
	json kinds = json::object();
	for (const auto &[kind, n] : v.by_kind)
		kinds[kind] = {{"connections", n.second}, {"more_than_one_udp_sport", n.first}};

	r.add_text(std::move(header))
	    .add_json("act", run.act)
	    .add_json("mix", run.mix)
	    .add_json("family", run.family)
	    .add_json("policy", run.policy)
	    .add_json("connections", run.connection_count)
	    .add_json("forward", run.forward)
	    .add_json("reverse", run.reverse)
	    .add_json("forward_max_mean", v.forward_max_mean)
	    .add_json("reverse_max_mean",
	              run.reverse.empty() ? json(nullptr) : json(v.reverse_max_mean))
	    .add_json("more_than_one_udp_sport", v.split)
	    .add_json("linux_splits", v.linux_splits)
	    .add_json("directions_on_different_links", v.apart)
	    .add_json("by_kind", kinds)
	    .add_json("ipv6_flow_label_zero",
	              run.family == "ipv6" ? json(v.fl_zero) : json(nullptr))
	    .add_json("ipv6_flow_label_set", run.family == "ipv6" ? json(v.fl_set) : json(nullptr))
	    .add_json("not_in_capture", v.missing)
	    .add_json("off_prediction", v.inconsistent)
	    .add_json("capture_coverage", run.capture_coverage)
	    .add_json("clients_ok", run.clients_ok)
	    .add_json("ideal_max_mean", run.ideal_mean)
	    .add_json("ideal_max_mean_p95", run.ideal_p95)
	    .add_json("within_ideal_p95", v.within_p95)
	    .add_json("balance_asserted", run.balance_asserted)
	    .add_json("ok", v.ok)
	    .add_json("verdict", v.why)
	    .add_text(run_rows(run, v))
	    .add_text(std::move(trailer));
	return r;
}

// The closing table: a row per act and figure, a column per policy.
std::string summary_table(const std::vector<EcmpRun> &runs, const std::vector<EcmpVerdict> &vs)
{
	std::vector<std::string> policies;
	std::map<std::pair<int, std::string>, std::size_t> at; // (group, policy): run
	std::set<int> groups;

	for (std::size_t i = 0; i < runs.size(); i++) {
		if (std::find(policies.begin(), policies.end(), runs[i].policy) == policies.end())
			policies.push_back(runs[i].policy);
		at[{group_rank(runs[i]), runs[i].policy}] = i;
		groups.insert(group_rank(runs[i]));
	}
	std::string s = format("\n%-44s", "summary (builtin is stock 6.12, the baseline)");
	for (const auto &p : policies)
		s += format("  %-13s", p.c_str());
	s = s.substr(0, s.find_last_not_of(' ') + 1) + '\n';
	for (int g : groups) {
		const EcmpRun *first = nullptr;
		for (const auto &p : policies)
			if (at.count({g, p}) && !first)
				first = &runs[at[{g, p}]];
		const std::string name =
		    family_title(first->family) + ' ' +
		    (first->act == "host" ? "host hops" : mix_title(first->mix));
		const bool host = first->act == "host";
		std::vector<std::string> rows = {host ? "busiest/mean A>B"
		                                      : "busiest/mean A>B B>A"};
		if (!host) {
			rows.push_back(">1 port, dirs apart");
			if (first->family == "ipv6")
				rows.push_back("flow label 0 / set");
		}
		for (std::size_t k = 0; k < rows.size(); k++) {
			std::string line =
			    format("%-21s %-22s", k ? "" : name.c_str(), rows[k].c_str());
			for (const auto &p : policies) {
				std::string cell = "-";
				if (at.count({g, p})) {
					const std::size_t i = at[{g, p}];
					const EcmpVerdict &v = vs[i];
					if (k == 0)
						cell = host
						           ? format("%.2f", v.forward_max_mean)
						           : format("%.2f %.2f", v.forward_max_mean,
						                    v.reverse_max_mean);
					else if (k == 1)
						cell = format("%u %u", v.split, v.apart);
					else
						cell = format("%u %u", v.fl_zero, v.fl_set);
					if (!v.ok && k == 0)
						cell += " FAIL";
				}
				line += format("  %-13s", cell.c_str());
			}
			s += line.substr(0, line.find_last_not_of(' ') + 1) + '\n';
		}
	}
	return s;
}

} // namespace

Record ecmp_report(const std::vector<EcmpRun> &runs)
{
	std::vector<Record> list;
	std::vector<EcmpVerdict> verdicts;
	bool ok = true;

	for (std::size_t i = 0; i < runs.size(); i++) {
		const EcmpRun &run = runs[i];
		verdicts.push_back(judge(run));
		const EcmpVerdict &v = verdicts.back();
		std::string header, trailer;
		ok &= v.ok;
		if (!i || group_rank(runs[i - 1]) != group_rank(run))
			header = group_header(run);
		if (i + 1 == runs.size() || group_rank(runs[i + 1]) != group_rank(run))
			trailer = format("ideal (uniformly random ports, %zu over %zu): max/mean "
			                 "%.2f on average, %.2f at p95\n",
			                 std::size_t{run.connection_count}, run.forward.size(),
			                 run.ideal_mean, run.ideal_p95);
		list.push_back(run_record(run, v, header, trailer));
	}
	Record report;
	report.add("runs", list)
	    .add_text(summary_table(runs, verdicts))
	    .add("ok", ok, ok ? "" : "\nthe self-check FAILED (above)\n");
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
		p.title = family_title(run.family) + ' ' +
		          (run.act == "host" ? "host next hops" : mix_title(run.mix)) + ", " +
		          (run.policy == "builtin" ? std::string("builtin (stock)") : run.policy) +
		          ": " + format("%.2f", max_mean(run.forward));
		for (auto n : run.forward)
			p.bars.push_back(mean > 0 ? static_cast<double>(n) / mean : 0);
		p.band_hi = run.ideal_p95;
		p.colour = policy_colour(run.policy);
		panels.push_back(std::move(p));
	}
	write_bar_panels(out,
	                 "RoCE v2 over ECMP: packets per link / mean, A to B; stock 6.12 (builtin) "
	                 "first",
	                 "rows: rdma_cm RC, the host's next hops, the users' mix (half rdma_cm "
	                 "RC, a quarter RC without CM, a quarter UD); shaded: up to random "
	                 "ports' p95; dashed: even",
	                 panels, static_cast<int>(policies.size()));
}

} // namespace roce
