// SPDX-License-Identifier: GPL-2.0
// make fabric's jobs judged (fabric.h).
#include "lab/fabric.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "args/args.h"
#include "sim/fabric_sim.h"
#include "sim/svg.h"

namespace roce
{
namespace
{

// The policies in the order the report shows them; others after, by name.
const std::vector<std::string> kPolicyOrder = {"stock", "builtin", "off", "rfc", "mix"};

std::vector<std::string> ordered_policies(const std::set<std::string> &seen)
{
	std::vector<std::string> out;

	for (const auto &p : kPolicyOrder)
		if (seen.count(p))
			out.push_back(p);
	for (const auto &p : seen)
		if (std::find(kPolicyOrder.begin(), kPolicyOrder.end(), p) == kPolicyOrder.end())
			out.push_back(p);
	return out;
}

unsigned small_number(const nlohmann::json &j, const char *key, unsigned max)
{
	const auto v = j.at(key).get<std::uint64_t>();
	if (v > max)
		throw UsageError(std::string(key) + " " + std::to_string(v) + " is out of range");
	return static_cast<unsigned>(v);
}

FabricJob parse_job(const nlohmann::json &j)
{
	FabricJob job;
	const auto &t = j.at("topology");
	const auto &f = j.at("flows");

	job.policy = j.at("policy").get<std::string>();
	job.hash = j.at("hash").get<std::string>();
	job.job = j.at("job").get<std::string>();
	job.seed = small_number(j, "seed", 1u << 30);
	job.topo.leaves = small_number(t, "leaves", 256);
	job.topo.spines = small_number(t, "spines", 256);
	job.topo.hosts_per_leaf = small_number(t, "hosts_per_leaf", 256);
	job.topo.rate_kbit = t.at("rate_kbit").get<double>();
	if (!job.topo.leaves || !job.topo.spines || !job.topo.hosts_per_leaf ||
	    !(job.topo.rate_kbit > 0))
		throw UsageError("a topology without leaves, spines, hosts or rate");
	job.connect = f.at("connect").get<std::string>();
	job.qps = small_number(f, "qps_per_flow", 64);
	job.bytes_per_flow = f.at("bytes_per_flow").get<std::uint64_t>();
	job.job_seconds = f.at("job_seconds").get<double>();
	const auto &pairs = j.at("pairs");
	const auto &flows = f.at("flows");
	if (pairs.size() != flows.size() || flows.empty())
		throw UsageError(std::to_string(pairs.size()) + " pairs for " +
		                 std::to_string(flows.size()) + " flows");
	for (std::size_t i = 0; i < flows.size(); i++) {
		FabricFlow flow;
		flow.src = pairs[i].at(0).get<unsigned>();
		flow.dst = pairs[i].at(1).get<unsigned>();
		flow.seconds = flows[i].at("seconds").get<double>();
		if (flow.src >= job.topo.hosts() || flow.dst >= job.topo.hosts() ||
		    flow.src == flow.dst)
			throw UsageError("flow " + std::to_string(i) + ": hosts " +
			                 std::to_string(flow.src) + " to " +
			                 std::to_string(flow.dst) + " in a fabric of " +
			                 std::to_string(job.topo.hosts()));
		job.flows.push_back(flow);
	}
	job.uplink_bytes = j.at("uplink_bytes").get<std::vector<std::uint64_t>>();
	if (job.uplink_bytes.size() != 2u * job.topo.leaves * job.topo.spines)
		throw UsageError(std::to_string(job.uplink_bytes.size()) + " link counts for " +
		                 std::to_string(2u * job.topo.leaves * job.topo.spines) + " links");
	return job;
}

double mean(const std::vector<double> &v)
{
	double s = 0;

	for (double x : v)
		s += x;
	return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double geomean(const std::vector<double> &v)
{
	double s = 0;

	for (double x : v)
		s += std::log(x);
	return v.empty() ? 0 : std::exp(s / static_cast<double>(v.size()));
}

// One run of the failure act: roce-flows's JSON.
void parse_act_run(const nlohmann::json &j, unsigned &done, double &jct, double &longest)
{
	const auto &flows = j.at("flows");

	jct = j.at("job_seconds").get<double>();
	done = 0;
	longest = 0;
	for (const auto &f : flows) {
		done += f.at("status").get<std::string>() == "ok";
		longest = std::max(longest, f.at("longest_gap_seconds").get<double>());
	}
}

FabricFailover parse_failover(const nlohmann::json &j)
{
	FabricFailover a;

	a.policy = j.at("policy").get<std::string>();
	a.link = j.at("link").get<std::string>();
	a.after = j.at("after_seconds").get<double>();
	a.flows = static_cast<unsigned>(j.at("base").at("flows").size());
	if (!a.flows || j.at("hole").at("flows").size() != a.flows)
		throw UsageError("a failure act whose two runs differ in flows");
	parse_act_run(j.at("base"), a.base_done, a.base_jct, a.base_longest);
	parse_act_run(j.at("hole"), a.hole_done, a.hole_jct, a.hole_longest);
	return a;
}

using CellKey = std::tuple<std::string, std::string, unsigned, std::string>;

// One policy in one cell, over its seeds.
struct PolicyCell {
	std::vector<double> jct, over_ideal, p50, p99, link;
};

struct Cells {
	std::vector<CellKey> keys; // in the order first seen
	std::map<CellKey, std::map<std::string, PolicyCell>> by_key;
	std::map<CellKey, double> ideal;
	std::set<std::string> policies;
	std::set<unsigned> seeds;
};

Cells gather(const FabricRuns &runs)
{
	Cells c;

	for (const auto &job : runs.jobs) {
		const CellKey key{job.hash, job.job, job.qps, job.connect};
		if (!c.by_key.count(key))
			c.keys.push_back(key);
		const JobFigures f = job_figures(job);
		PolicyCell &pc = c.by_key[key][job.policy];
		pc.jct.push_back(f.jct);
		pc.over_ideal.push_back(f.jct / f.ideal);
		pc.p50.push_back(f.p50);
		pc.p99.push_back(f.p99);
		pc.link.push_back(f.link_max_mean);
		c.ideal[key] = f.ideal;
		c.policies.insert(job.policy);
		c.seeds.insert(job.seed);
	}
	return c;
}

std::string baseline_of(const Cells &c)
{
	if (c.policies.count("stock"))
		return "stock";
	return c.policies.count("builtin") ? "builtin" : "";
}

// Trials of the simulation beside each cell: enough that its mean moves
// by less than the report's two decimals from one seed to another.
constexpr unsigned kSimTrials = 256;

// The cell simulated (sim/fabric_sim.h) under POLICY ("stock" sends what
// builtin does; "ideal", a random port and label per QP): the same
// topology, job, QPs and connection, each leaf's pick a keyed hash of the
// headers as Linux's fib_multipath_hash is.  Nothing for a job, hash or
// policy the simulation has no model of.
std::optional<FabricSimResult> simulate_cell(const FabricTopology &topo, const CellKey &key,
                                             const std::string &policy)
{
	const auto &[hash, job, qps, connect] = key;
	const auto h = parse_fabric_hash(hash);
	const auto p =
	    policy == "stock" ? std::optional(SimPolicy::Builtin) : parse_sim_policy(policy);
	FabricSimParams params;

	if (!h || !p || (job != "perm" && job != "a2a") ||
	    (connect != "rdma_cm" && connect != "qpn"))
		return std::nullopt;
	params.topo = topo;
	params.all_to_all = job == "a2a";
	params.qps = qps;
	params.cm = connect == "rdma_cm";
	params.hash = *h;
	params.fn = SwitchHash::Jhash;
	params.policy = *p;
	params.trials = kSimTrials;
	return simulate_fabric(params);
}

std::string cell_name(const CellKey &k)
{
	return format("%-10s %-4s %2u %-7s", std::get<0>(k).c_str(), std::get<1>(k).c_str(),
	              std::get<2>(k), std::get<3>(k).c_str());
}

// The least and the greatest of V (a policy's figure over its seeds; never
// empty: a cell has a policy only once one of its jobs ran).
std::pair<double, double> range(const std::vector<double> &v)
{
	const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
	return {*lo, *hi};
}

// A figure as the report prints it, to two decimals: two ranges agree
// when they overlap as printed.
double printed(double v)
{
	return std::round(v * 100) / 100;
}

} // namespace

FabricRuns parse_fabric_runs(std::istream &in, const std::string &name)
{
	FabricRuns runs;
	unsigned n = 0;

	for (std::string line; std::getline(in, line);) {
		n++;
		if (line.find_first_not_of(" \t\r") == std::string::npos)
			continue;
		try {
			const auto j = nlohmann::json::parse(line);
			if (j.contains("plan")) {
				const auto &p = j.at("plan");
				runs.planned += small_number(p, "jobs", 1u << 20);
				if (p.contains("failover"))
					runs.failovers_planned += small_number(p, "failover", 64);
			} else if (j.contains("failover")) {
				runs.failovers.push_back(parse_failover(j.at("failover")));
			} else if (j.contains("calibration")) {
				const auto &c = j.at("calibration");
				runs.calibration = FabricCalibration{
				    c.at("one_flow").get<double>(), c.at("pinned").get<double>(),
				    small_number(c, "flows", 65536)};
			} else {
				runs.jobs.push_back(parse_job(j));
			}
		} catch (const nlohmann::json::exception &e) {
			throw UsageError(name + ":" + std::to_string(n) + ": " + e.what());
		} catch (const UsageError &e) {
			throw UsageError(name + ":" + std::to_string(n) + ": " + e.what());
		}
	}
	if (runs.jobs.empty())
		throw UsageError(name + ": no job");
	return runs;
}

JobFigures job_figures(const FabricJob &job)
{
	JobFigures f;
	std::vector<double> seconds;
	double sum = 0, most = 0;

	for (const auto &flow : job.flows) {
		seconds.push_back(flow.seconds);
		f.jct = std::max(f.jct, flow.seconds);
	}
	f.ideal = fabric_ideal_seconds(job.topo, job.flows, job.bytes_per_flow);
	f.p50 = nearest_rank(seconds, 50);
	f.p99 = nearest_rank(seconds, 99);
	for (auto b : job.uplink_bytes) {
		sum += static_cast<double>(b);
		most = std::max(most, static_cast<double>(b));
	}
	f.link_max_mean = sum > 0 ? most / (sum / static_cast<double>(job.uplink_bytes.size())) : 0;
	return f;
}

Record fabric_report(const FabricRuns &runs)
{
	const Cells c = gather(runs);
	const std::vector<std::string> policies = ordered_policies(c.policies);
	const std::string base = baseline_of(c);
	const FabricTopology &topo = runs.jobs.front().topo;
	std::map<std::string, std::vector<double>> over_ideal_all, over_base_all;
	std::vector<nlohmann::json> cell_policies;
	std::vector<Record> cells;
	bool ok = true;
	Record r;

	r.add_json("topology", {{"leaves", topo.leaves},
	                        {"spines", topo.spines},
	                        {"hosts_per_leaf", topo.hosts_per_leaf},
	                        {"rate_kbit", topo.rate_kbit}})
	    .add_json("seeds", c.seeds.size())
	    .add_json("baseline", base)
	    .add_text(format("make fabric: %u leaves x %u spines, %u hosts, every link %g kbit/s; "
	                     "%zu jobs, %zu seed(s) each\n",
	                     topo.leaves, topo.spines, topo.hosts(), topo.rate_kbit,
	                     runs.jobs.size(), c.seeds.size()));
	if (runs.calibration) {
		const auto &cal = *runs.calibration;
		const bool bottleneck = cal.one_flow >= 0.8 && cal.pinned >= 0.8;
		ok = bottleneck;
		r.add_json("calibration", {{"one_flow", cal.one_flow},
		                           {"pinned", cal.pinned},
		                           {"flows", cal.flows},
		                           {"fabric_is_the_bottleneck", bottleneck}})
		    .add_text(format("calibration: one flow alone %.2f of the link rate; %u flows "
		                     "pinned to every uplink once %.2f of it each: %s\n",
		                     cal.one_flow, cal.flows, cal.pinned,
		                     bottleneck ? "the fabric is the bottleneck"
		                                : "NOT the fabric's rate: rxe's CPU limits, "
		                                  "lower ENTROPY_FABRIC_RATE"));
	} else {
		ok = false;
		r.add_text("calibration: missing (the fabric's capacity was not shown)\n");
	}
	const bool all_ran = runs.planned == runs.jobs.size();
	ok = ok && all_ran;
	r.add_json("jobs", runs.jobs.size())
	    .add_json("jobs_planned", runs.planned)
	    .add_text(format("jobs: %zu of %u planned ran%s\n", runs.jobs.size(), runs.planned,
	                     all_ran ? "" : ": NOT ALL (the VM log says which failed)"));
	r.add_text("\njob completion time over the ideal (bytes over the fabric's capacity), "
	           "mean [min-max] over seeds" +
	           (base.empty() ? std::string("; no stock or builtin runs to compare with\n")
	                         : "; x: mean JCT over " + base + "'s\n"));
	std::string head = format("%-10s %-4s %2s %-7s", "hash", "job", "QP", "connect");
	for (const auto &p : policies)
		head += format("  %-23s", p.c_str());
	r.add_text(head + "\n");
	for (const auto &key : c.keys) {
		const auto &row = c.by_key.at(key);
		const PolicyCell *b = row.count(base) ? &row.at(base) : nullptr;
		std::string line = cell_name(key);
		nlohmann::json pj = nlohmann::json::object();
		for (const auto &p : policies) {
			if (!row.count(p)) {
				line += format("  %-23s", "-");
				continue;
			}
			const PolicyCell &pc = row.at(p);
			const double oi = mean(pc.over_ideal);
			const auto [lo, hi] =
			    std::minmax_element(pc.over_ideal.begin(), pc.over_ideal.end());
			const double ob = b ? mean(pc.jct) / mean(b->jct) : 0;
			over_ideal_all[p].push_back(oi);
			if (b)
				over_base_all[p].push_back(ob);
			line += format("  %5.2f [%4.2f-%4.2f] ", oi, *lo, *hi) +
			        (b ? format("x%4.2f", ob) : std::string(5, ' '));
			pj[p] = {
			    {"jobs", pc.jct.size()},
			    {"jct_mean", mean(pc.jct)},
			    {"over_ideal_mean", oi},
			    {"over_ideal_min", *lo},
			    {"over_ideal_max", *hi},
			    {"over_baseline", b ? nlohmann::json(ob) : nlohmann::json(nullptr)},
			    {"flow_p50_mean", mean(pc.p50)},
			    {"flow_p50_min", range(pc.p50).first},
			    {"flow_p50_max", range(pc.p50).second},
			    {"flow_p99_mean", mean(pc.p99)},
			    {"flow_p99_min", range(pc.p99).first},
			    {"flow_p99_max", range(pc.p99).second},
			    {"link_max_over_mean", mean(pc.link)},
			    {"link_max_over_mean_min", range(pc.link).first},
			    {"link_max_over_mean_max", range(pc.link).second}};
		}
		r.add_text(line + "\n");
		cell_policies.push_back(std::move(pj));
	}
	const struct {
		const char *what;
		std::vector<double> PolicyCell::*figure;
		bool over_ideal;
	} figures[] = {{"flows' p50 completion over the ideal", &PolicyCell::p50, true},
	               {"flows' p99 completion over the ideal", &PolicyCell::p99, true},
	               {"the busiest leaf-spine link over their mean", &PolicyCell::link, false}};
	for (const auto &f : figures) {
		r.add_text(format("\n%s, mean [min-max] over seeds\n", f.what) + head + "\n");
		for (const auto &key : c.keys) {
			const auto &row = c.by_key.at(key);
			const double unit = f.over_ideal ? c.ideal.at(key) : 1;
			std::string line = cell_name(key);
			for (const auto &p : policies) {
				if (!row.count(p)) {
					line += format("  %-23s", "-");
					continue;
				}
				const auto &v = row.at(p).*f.figure;
				const auto [lo, hi] = range(v);
				line +=
				    format("  %-23s", format("%5.2f [%4.2f-%4.2f]", mean(v) / unit,
				                             lo / unit, hi / unit)
				                          .c_str());
			}
			r.add_text(line + "\n");
		}
	}
	std::map<std::string, std::vector<double>> sim_all;
	r.add_text(
	    format("\nthe same cells simulated (roce-entropy simulate --fabric, a keyed hash "
	           "as Linux's, %u trials): the busiest link's bound over the ideal; the "
	           "busiest leaf-spine link over their mean, simulated/emulated\n",
	           kSimTrials) +
	    head + "  random\n");
	for (std::size_t i = 0; i < c.keys.size(); i++) {
		const auto &key = c.keys[i];
		const auto &row = c.by_key.at(key);
		std::string line = cell_name(key);
		nlohmann::json &pj = cell_policies[i];
		nlohmann::json random_json = nullptr;
		for (const auto &p : policies) {
			const auto sim = row.count(p) ? simulate_cell(topo, key, p) : std::nullopt;
			if (!sim) {
				line += format("  %-23s", "-");
				continue;
			}
			sim_all[p].push_back(sim->over_ideal_mean);
			pj[p]["simulated"] = {{"over_ideal_mean", sim->over_ideal_mean},
			                      {"over_ideal_p95", sim->over_ideal_p95},
			                      {"link_max_over_mean", sim->link_max_mean}};
			line += format("  %-23s",
			               format("%4.2f; links %4.2f/%4.2f", sim->over_ideal_mean,
			                      sim->link_max_mean, mean(row.at(p).link))
			                   .c_str());
		}
		if (const auto random = simulate_cell(topo, key, "ideal")) {
			sim_all["random"].push_back(random->over_ideal_mean);
			random_json = {{"over_ideal_mean", random->over_ideal_mean},
			               {"link_max_over_mean", random->link_max_mean}};
			line += format("  %4.2f; links %4.2f", random->over_ideal_mean,
			               random->link_max_mean);
		}
		r.add_text(line + "\n");
		Record cell;
		cells.push_back(cell.add_json("hash", std::get<0>(key))
		                    .add_json("job", std::get<1>(key))
		                    .add_json("qps", std::get<2>(key))
		                    .add_json("connect", std::get<3>(key))
		                    .add_json("ideal_seconds", c.ideal.at(key))
		                    .add_json("policies", pj)
		                    .add_json("simulated_random", random_json));
	}
	r.add("cells", cells);
	nlohmann::json headline = nlohmann::json::object();
	r.add_text("\nheadline, geometric means over the cells:\n");
	for (const auto &p : policies) {
		const double oi = geomean(over_ideal_all[p]);
		const bool has_base = !over_base_all[p].empty();
		const double ob = has_base ? geomean(over_base_all[p]) : 0;
		headline[p] = {{"over_ideal", oi},
		               {"over_baseline", has_base ? nlohmann::json(ob) : nullptr}};
		if (!sim_all[p].empty())
			headline[p]["simulated_over_ideal"] = geomean(sim_all[p]);
		r.add_text(format("  %-8s JCT %.2f x the ideal", p.c_str(), oi) +
		           (has_base ? format(", %.2f x %s's", ob, base.c_str()) : "") +
		           (sim_all[p].empty() ? std::string()
		                               : format("; simulated bound %.2f x the ideal",
		                                        geomean(sim_all[p]))) +
		           "\n");
	}
	if (!sim_all["random"].empty())
		r.add_text(
		    format("  %-8s simulated bound %.2f x the ideal (a random port and label "
		           "per QP)\n",
		           "random", geomean(sim_all["random"])));
	r.add_json("headline", headline);
	std::vector<Record> acts;
	if (runs.failovers_planned || !runs.failovers.empty())
		r.add_text(format("\nfailure act: %zu of %u ran; a permutation, then again with a "
		                  "leaf-spine link black-holed\n",
		                  runs.failovers.size(), runs.failovers_planned));
	for (const auto &a : runs.failovers) {
		Record act;
		act.add_json("policy", a.policy)
		    .add_json("link", a.link)
		    .add_json("after_seconds", a.after)
		    .add_json("flows", a.flows)
		    .add_json("base", {{"done", a.base_done},
		                       {"jct", a.base_jct},
		                       {"longest_gap", a.base_longest}})
		    .add_json("hole", {{"done", a.hole_done},
		                       {"jct", a.hole_jct},
		                       {"longest_gap", a.hole_longest}})
		    .add_json("jct_over_base", a.hole_jct / a.base_jct)
		    .add_text(format("  %-12s %s black-holed after %g s: %u of %u flows done "
		                     "(whole: %u); the last ended after %.2f s, %.2f x the whole "
		                     "fabric's; longest gap %.0f ms (whole: %.0f)\n",
		                     a.policy.c_str(), a.link.c_str(), a.after, a.hole_done,
		                     a.flows, a.base_done, a.hole_jct, a.hole_jct / a.base_jct,
		                     a.hole_longest * 1000, a.base_longest * 1000));
		acts.push_back(std::move(act));
	}
	r.add("failover", acts);
	ok = ok && runs.failovers.size() == runs.failovers_planned;
	r.add_json("ok", ok);
	return r;
}

Record fabric_compare(const FabricRuns &now, const FabricRuns &before)
{
	Record r;

	if (now.jobs.empty() || before.jobs.empty()) {
		r.add_json("comparable", false)
		    .add_text("against the earlier run: no jobs in one of them, not compared\n");
		return r;
	}
	const FabricTopology &tn = now.jobs.front().topo, &tb = before.jobs.front().topo;
	if (tn.leaves != tb.leaves || tn.spines != tb.spines ||
	    tn.hosts_per_leaf != tb.hosts_per_leaf || tn.rate_kbit != tb.rate_kbit) {
		r.add_json("comparable", false)
		    .add_text(format("against the earlier run: another topology (%ux%ux%u at %g "
		                     "kbit/s), not compared\n",
		                     tb.leaves, tb.spines, tb.hosts_per_leaf, tb.rate_kbit));
		return r;
	}
	const Cells cn = gather(now), cb = gather(before);
	std::map<std::string, std::vector<double>> gn, gb;
	std::vector<Record> differ;
	unsigned pairs = 0, agree = 0;

	for (const auto &key : cn.keys) {
		if (!cb.by_key.count(key))
			continue;
		const auto &row_b = cb.by_key.at(key);
		for (const auto &[policy, pn] : cn.by_key.at(key)) {
			if (!row_b.count(policy))
				continue;
			const PolicyCell &pb = row_b.at(policy);
			const auto [ln, hn] = range(pn.over_ideal);
			const auto [lb, hb] = range(pb.over_ideal);
			const double mn = mean(pn.over_ideal), mb = mean(pb.over_ideal);
			pairs++;
			gn[policy].push_back(mn);
			gb[policy].push_back(mb);
			if (printed(ln) <= printed(hb) && printed(lb) <= printed(hn)) {
				agree++;
				continue;
			}
			Record d;
			d.add_json("hash", std::get<0>(key))
			    .add_json("job", std::get<1>(key))
			    .add_json("qps", std::get<2>(key))
			    .add_json("connect", std::get<3>(key))
			    .add_json("policy", policy)
			    .add_json("now", {{"mean", mn}, {"min", ln}, {"max", hn}})
			    .add_json("before", {{"mean", mb}, {"min", lb}, {"max", hb}})
			    .add_text(format(
			        "  %s %-8s %.2f [%.2f-%.2f] against %.2f [%.2f-%.2f]\n",
			        cell_name(key).c_str(), policy.c_str(), mn, ln, hn, mb, lb, hb));
			differ.push_back(std::move(d));
		}
	}
	nlohmann::json headline = nlohmann::json::object();
	std::set<std::string> both;
	std::string heads;
	for (const auto &g : gn)
		both.insert(g.first);
	for (const auto &policy : ordered_policies(both)) {
		const double n = geomean(gn[policy]), b = geomean(gb[policy]);
		headline[policy] = {{"now", n}, {"before", b}};
		heads +=
		    format("  %-8s JCT %.2f x the ideal, earlier %.2f\n", policy.c_str(), n, b);
	}
	r.add_json("comparable", true)
	    .add_json("pairs", pairs)
	    .add_json("agree", agree)
	    .add_text(format("against the earlier run: %u of %u (a policy in a cell both ran) "
	                     "agree, their ranges over seeds overlapping as printed%s\n",
	                     agree, pairs, agree == pairs ? "" : "; these do not:"))
	    .add("differ", differ)
	    .add_json("headline", headline)
	    .add_text("geometric means over those cells:\n" + heads);
	return r;
}

void write_fabric_svg(const FabricRuns &runs, std::ostream &out)
{
	const Cells c = gather(runs);
	const std::vector<std::string> policies = ordered_policies(c.policies);
	const double bar = 12, gap = 18, left = 60, top = 50, plot_h = 220, bottom = 70;
	const double group_w = bar * static_cast<double>(policies.size()) + gap;
	const double width = left + group_w * static_cast<double>(c.keys.size()) + 20;
	const double height = top + plot_h + bottom;
	double ymax = 1;

	for (const auto &[key, row] : c.by_key)
		for (const auto &[p, pc] : row)
			for (double v : pc.over_ideal)
				ymax = std::max(ymax, v);
	ymax = std::ceil(ymax);
	const auto y = [&](double v) { return top + plot_h * (1 - v / ymax); };

	out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << svg_number(width)
	    << "\" height=\"" << svg_number(height) << "\" font-family=\"sans-serif\" "
	    << "font-size=\"11\">\n"
	    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
	    << "<text x=\"" << svg_number(left) << "\" y=\"20\" font-size=\"14\">"
	    << "Job completion time over the ideal, per policy (whiskers: min-max over seeds)"
	    << "</text>\n";
	for (double v = 0; v <= ymax; v += 1) {
		out << "<line x1=\"" << svg_number(left) << "\" x2=\"" << svg_number(width - 20)
		    << "\" y1=\"" << svg_number(y(v)) << "\" y2=\"" << svg_number(y(v))
		    << "\" stroke=\"#ddd\"" << (v == 1 ? " stroke-dasharray=\"4 3\"" : "") << "/>\n"
		    << "<text x=\"" << svg_number(left - 6) << "\" y=\"" << svg_number(y(v) + 4)
		    << "\" text-anchor=\"end\">" << svg_number(v) << "</text>\n";
	}
	double x = left + gap / 2;
	for (const auto &key : c.keys) {
		const auto &row = c.by_key.at(key);
		for (std::size_t i = 0; i < policies.size(); i++) {
			const double bx = x + bar * static_cast<double>(i);
			if (!row.count(policies[i]))
				continue;
			const PolicyCell &pc = row.at(policies[i]);
			const auto [lo, hi] =
			    std::minmax_element(pc.over_ideal.begin(), pc.over_ideal.end());
			const double m = mean(pc.over_ideal);
			out << "<rect x=\"" << svg_number(bx) << "\" y=\"" << svg_number(y(m))
			    << "\" width=\"" << svg_number(bar - 2) << "\" height=\""
			    << svg_number(top + plot_h - y(m)) << "\" fill=\""
			    << policy_colour(policies[i]) << "\"><title>" << policies[i] << ": "
			    << format("%.2f", m) << "</title></rect>\n"
			    << "<line x1=\"" << svg_number(bx + (bar - 2) / 2) << "\" x2=\""
			    << svg_number(bx + (bar - 2) / 2) << "\" y1=\"" << svg_number(y(*lo))
			    << "\" y2=\"" << svg_number(y(*hi)) << "\" stroke=\"black\"/>\n";
		}
		const double cx = x + bar * static_cast<double>(policies.size()) / 2;
		out << "<text x=\"" << svg_number(cx) << "\" y=\"" << svg_number(top + plot_h + 14)
		    << "\" text-anchor=\"middle\">" << std::get<1>(key) << " x" << std::get<2>(key)
		    << " " << std::get<3>(key) << "</text>\n"
		    << "<text x=\"" << svg_number(cx) << "\" y=\"" << svg_number(top + plot_h + 28)
		    << "\" text-anchor=\"middle\" fill=\"#555\">" << std::get<0>(key)
		    << "</text>\n";
		x += group_w;
	}
	double lx = left;
	for (const auto &p : policies) {
		out << "<rect x=\"" << svg_number(lx) << "\" y=\"" << svg_number(height - 22)
		    << "\" width=\"10\" height=\"10\" fill=\"" << policy_colour(p) << "\"/>\n"
		    << "<text x=\"" << svg_number(lx + 14) << "\" y=\"" << svg_number(height - 13)
		    << "\">" << p << "</text>\n";
		lx += 80;
	}
	out << "</svg>\n";
}

} // namespace roce
