// SPDX-License-Identifier: GPL-2.0
#include "sim/ecmp_report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "entropy/entropy.h"
#include "sim/svg.h"

namespace roce
{
namespace
{

using nlohmann::json;

// The policies in the order the report shows them: stock 6.12 first, the
// baseline.
constexpr std::array<const char *, 4> kPolicyOrder = {"linux", "off", "rfc", "mix"};
const std::string kCmRc = "rdma_cm RC", kRc = "RC", kUd = "UD";

// A list of packet counts, each a number 0 or more (get<> would wrap a
// negative one into a huge count).
std::vector<std::uint64_t> count_list(const json &list, const std::string &what)
{
	if (!list.is_array() || list.empty())
		throw std::runtime_error("no '" + what + "' counts");
	for (const auto &n : list)
		if (!n.is_number_integer() || n.get<std::int64_t>() < 0)
			throw std::runtime_error("'" + what + "': " + n.dump() +
			                         " is not a packet count");
	return list.get<std::vector<std::uint64_t>>();
}

std::vector<std::uint64_t> counts(const json &j, const char *what)
{
	if (!j.contains(what))
		throw std::runtime_error(std::string("no '") + what + "' counts");
	return count_list(j[what], what);
}

std::string family_title(const std::string &family)
{
	return family == "ipv6" ? "IPv6" : "IPv4";
}

std::string mix_title(const std::string &mix)
{
	return mix == "users" ? "users' mix" : "rdma_cm";
}

// ---- parsing ----

// What the raw result says around the phases.
struct RawContext {
	std::map<std::string, std::pair<std::string, std::string>> addresses; // family: A, B
	std::map<std::string, unsigned> link_of;                              // ifindex: link
	std::size_t links = 0;
};

// One direction of a capture's connection, into CONN: its ports, flow
// labels and packets per link.
void add_direction(const json &dir, bool ipv6, const RawContext &ctx,
                   std::map<unsigned, std::uint64_t> &links, DemoConnection &conn)
{
	for (const auto &p : dir.at("udp_sports"))
		conn.udp_sports.insert(p.get<std::uint16_t>());
	if (ipv6)
		for (const auto &f : dir.at("flow_labels"))
			conn.flow_labels.insert(f.get<std::uint32_t>());
	for (const auto &[ifindex, n] : dir.at("interfaces").items()) {
		auto it = ctx.link_of.find(ifindex);
		if (it != ctx.link_of.end())
			links[it->second] += n.get<std::uint64_t>();
	}
}

std::set<std::uint32_t> qpn_set(const json &c)
{
	std::set<std::uint32_t> s;
	for (const auto &q : c.at("qpns"))
		s.insert(q.get<std::uint32_t>());
	return s;
}

bool has_packets(const json &dir)
{
	return dir.at("packets").get<unsigned>() > 0;
}

// The capture's connections that make up one of the demo's: one with both
// directions, or (RC without CM, which the capture cannot pair when many
// run between two hosts) one per direction.  Only those of A's address in
// the connection's family: QPNs alone can meet in the other family (A's
// 727 with B's 728 over IPv4, A's 728 with B's 727 over IPv6).
std::vector<const json *> find_parts(const json &pcap, const std::string &kind, const json &c,
                                     const std::string &a)
{
	std::vector<const json *> parts;

	if (kind == kCmRc) {
		const json ports = {c.at("sport"), c.at("dport")};
		const auto src = c.at("src").get<std::string>();
		for (const auto &p : pcap.at("connections"))
			if (p.at("cm_ports") == ports && p.at("src") == src)
				return {&p};
		return {};
	}
	const auto qa = c.at("qpn_a").get<std::uint32_t>(), qb = c.at("qpn_b").get<std::uint32_t>();
	const std::set<std::uint32_t> both = {qa, qb};
	const json *fwd = nullptr, *rev = nullptr;
	for (const auto &p : pcap.at("connections")) {
		if (!p.at("cm_ports").is_null() || p.at("transport") != (kind == kUd ? "UD" : "RC"))
			continue;
		if (p.at("src") != a && p.at("dst") != a)
			continue;
		const auto qpns = qpn_set(p);
		if (qpns == both && p.at("qpns").size() == 2)
			return {&p};
		// One direction: the packets to the other end's QPN.
		if (kind == kRc && qpns.size() == 1) {
			const bool from_a = p.at("src") == a;
			if (from_a && qpns.count(qb))
				fwd = &p;
			else if (!from_a && qpns.count(qa))
				rev = &p;
		}
	}
	if (fwd && rev)
		parts = {fwd, rev};
	return parts;
}

DemoConnection demo_connection(const std::string &kind, const json &c, const json &pcap,
                               const std::string &a, bool ipv6, const RawContext &ctx)
{
	DemoConnection conn;
	const auto parts = find_parts(pcap, kind, c, a);
	bool fwd_seen = false, rev_seen = false;

	conn.kind = kind;
	if (kind == kCmRc) {
		const auto fl = linux_cma_flow_label(c.at("sport").get<std::uint16_t>(),
		                                     c.at("dport").get<std::uint16_t>());
		conn.linux_splits = udp_sport(fl) != linux_rxe_cm_mad().udp_sport;
	} else if (kind == kUd) {
		conn.linux_splits = linux_rxe_ud(c.at("qpn_a").get<std::uint32_t>()).udp_sport !=
		                    linux_rxe_ud(c.at("qpn_b").get<std::uint32_t>()).udp_sport;
	}
	conn.consistent = !parts.empty();
	for (const json *p : parts) {
		const bool from_a = p->at("src") == a;
		const json &ab = p->at(from_a ? "forward" : "reverse");
		const json &ba = p->at(from_a ? "reverse" : "forward");
		add_direction(ab, ipv6, ctx, conn.forward_links, conn);
		add_direction(ba, ipv6, ctx, conn.reverse_links, conn);
		fwd_seen |= has_packets(ab);
		rev_seen |= has_packets(ba);
		conn.consistent &= p->at("consistent").get<bool>();
	}
	conn.found = fwd_seen && rev_seen;
	return conn;
}

// Packets per link of CONNS, one direction.
std::vector<std::uint64_t> link_load(const std::vector<DemoConnection> &conns, std::size_t links,
                                     bool forward)
{
	std::vector<std::uint64_t> load(links, 0);
	for (const auto &c : conns)
		for (const auto &[link, n] : forward ? c.forward_links : c.reverse_links)
			load[link] += n;
	return load;
}

// The phase's packets captured on the routers' links over those counted.
double coverage(const json &phase, const RawContext &ctx)
{
	std::uint64_t captured = 0, counted = 0;

	for (const auto &c : phase.at("pcap").at("connections"))
		for (const char *dir : {"forward", "reverse"})
			for (const auto &[ifindex, n] : c.at(dir).at("interfaces").items())
				if (ctx.link_of.count(ifindex))
					captured += n.get<std::uint64_t>();
	for (const char *dir : {"forward", "reverse"})
		for (auto n : counts(phase.at("counters"), dir))
			counted += n;
	return counted ? static_cast<double>(captured) / static_cast<double>(counted) : 0;
}

RawContext raw_context(const json &raw)
{
	RawContext ctx;

	for (const auto &[family, ab] : raw.at("addresses").items())
		ctx.addresses[family] = {ab.at("a").get<std::string>(),
		                         ab.at("b").get<std::string>()};
	const auto ifindexes = raw.at("link_ifindex").get<std::vector<unsigned>>();
	for (std::size_t i = 0; i < ifindexes.size(); i++)
		ctx.link_of[std::to_string(ifindexes[i])] = static_cast<unsigned>(i);
	ctx.links = ifindexes.size();
	if (!ctx.links)
		throw std::runtime_error("no links in 'link_ifindex'");
	return ctx;
}

// The routers' run of one family of a phase.
EcmpRun ecmp_run(const json &phase, const std::string &family, const RawContext &ctx)
{
	EcmpRun run;
	const auto ab = ctx.addresses.find(family);

	if (ab == ctx.addresses.end())
		throw std::runtime_error("no addresses for " + family);
	run.act = "ecmp";
	run.mix = phase.at("mix").get<std::string>();
	run.family = family;
	run.policy = phase.at("policy").get<std::string>();
	run.clients_ok = true;
	for (const auto &w : phase.at("workloads")) {
		if (w.at("family") != family)
			continue;
		const auto kind = w.at("kind").get<std::string>();
		if (kind != kCmRc && kind != kRc && kind != kUd)
			throw std::runtime_error("unknown kind of connection '" + kind + "'");
		run.clients_ok &= w.at("ok").get<bool>();
		for (const auto &c : w.at("connections"))
			run.connections.push_back(demo_connection(
			    kind, c, phase.at("pcap"), ab->second.first, family == "ipv6", ctx));
	}
	run.connection_count = static_cast<unsigned>(run.connections.size());
	run.forward = link_load(run.connections, ctx.links, true);
	run.reverse = link_load(run.connections, ctx.links, false);
	run.capture_coverage = coverage(phase, ctx);
	run.balance_asserted = run.mix == "cm" && (run.policy == "rfc" || run.policy == "mix");
	return run;
}

std::size_t policy_rank(const std::string &policy)
{
	return static_cast<std::size_t>(
	    std::find(kPolicyOrder.begin(), kPolicyOrder.end(), policy) - kPolicyOrder.begin());
}

// The order of the tables: the routers' links for rdma_cm, the host's next
// hops, the users' mix; IPv4 before IPv6.
int group_rank(const EcmpRun &r)
{
	const int act = r.act == "host" ? 1 : r.mix == "users" ? 2 : 0;
	return act * 2 + (r.family == "ipv6");
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

std::vector<EcmpRun> parse_ecmp_runs(const json &raw)
{
	std::vector<EcmpRun> runs;

	if (!raw.contains("phases") || !raw["phases"].is_array() || raw["phases"].empty())
		throw std::runtime_error("no 'phases' in the demo's result");
	const RawContext ctx = raw_context(raw);
	for (const auto &phase : raw["phases"]) {
		const auto policy = phase.at("policy").get<std::string>();
		if (!parse_policy(policy))
			throw std::runtime_error("unknown policy '" + policy + "'");
		if (!phase.contains("pcap"))
			throw std::runtime_error("a phase without its capture's 'pcap' result");
		std::set<std::string> families;
		for (const auto &w : phase.at("workloads"))
			families.insert(w.at("family").get<std::string>());
		for (const auto &family : families)
			runs.push_back(ecmp_run(phase, family, ctx));
		if (!phase.contains("host"))
			continue;
		for (const auto &[family, hops] : phase["host"].items()) {
			EcmpRun run;
			run.act = "host";
			run.mix = phase.at("mix").get<std::string>();
			run.family = family;
			run.policy = policy;
			run.clients_ok = true;
			for (const auto &w : phase.at("workloads"))
				if (w.at("family") == family) {
					run.clients_ok &= w.at("ok").get<bool>();
					run.connection_count +=
					    static_cast<unsigned>(w.at("connections").size());
				}
			run.forward = count_list(hops, "host." + family);
			run.balance_asserted = policy == "rfc" || policy == "mix";
			runs.push_back(std::move(run));
		}
	}
	std::stable_sort(runs.begin(), runs.end(), [](const EcmpRun &x, const EcmpRun &y) {
		return std::pair{group_rank(x), policy_rank(x.policy)} <
		       std::pair{group_rank(y), policy_rank(y.policy)};
	});
	return runs;
}

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
	} else if (run.policy == "linux") {
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
	if (run.policy != "linux" && v.split)
		failed.push_back(std::to_string(v.split) + " connections on more than one port");
	if ((run.policy == "rfc" || run.policy == "mix") && v.fl_zero)
		failed.push_back(std::to_string(v.fl_zero) +
		                 " IPv6 connections without a flow label");
	v.ok = failed.empty();
	if (v.ok) {
		v.why = found;
		if (run.act == "ecmp" && run.policy != "linux")
			v.why += (v.why.empty() ? "" : "; ") +
			         std::string("every connection on one port");
		if (run.policy == "linux" && run.act != "ecmp")
			v.why = "reported";
	} else {
		for (const auto &f : failed)
			v.why += (v.why.empty() ? "" : "; ") + f;
	}
	return v;
}

namespace
{

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
	std::string s = format("\n%-44s", "summary (linux is stock 6.12, the baseline)");
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
		          (run.policy == "linux" ? std::string("linux (stock)") : run.policy) +
		          ": " + format("%.2f", max_mean(run.forward));
		for (auto n : run.forward)
			p.bars.push_back(mean > 0 ? static_cast<double>(n) / mean : 0);
		p.band_hi = run.ideal_p95;
		p.colour = policy_colour(run.policy);
		panels.push_back(std::move(p));
	}
	write_bar_panels(out,
	                 "RoCE v2 over ECMP: packets per link / mean, A to B; stock 6.12 (linux) "
	                 "first",
	                 "rows: rdma_cm RC, the host's next hops, the users' mix (half rdma_cm "
	                 "RC, a quarter RC without CM, a quarter UD); shaded: up to random "
	                 "ports' p95; dashed: even",
	                 panels, static_cast<int>(policies.size()));
}

} // namespace roce
