// SPDX-License-Identifier: GPL-2.0
// The demo's raw result (make demo's raw.json) read into EcmpRuns: which
// capture connection is which demo connection, packets per link.
#include "lab/ecmp_report.h"

#include <algorithm>
#include <array>
#include <cstdio>
#include <numeric>
#include <optional>
#include <stdexcept>

#include "entropy/entropy.h"
#include "lab/ecmp_names.h"

namespace roce
{
namespace
{

using nlohmann::json;

// The policies in the order the report shows them: stock 6.12 first, the
// baseline.
constexpr std::array<const char *, 4> kPolicyOrder = {"builtin", "off", "rfc", "mix"};

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

} // namespace roce
