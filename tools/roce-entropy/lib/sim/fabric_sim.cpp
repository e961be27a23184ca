// SPDX-License-Identifier: GPL-2.0
// make fabric's fabric simulated (fabric_sim.h).
#include "sim/fabric_sim.h"

#include <algorithm>
#include <array>
#include <random>

#include "entropy/entropy.h"

namespace roce
{
namespace
{

constexpr std::array<std::string_view, 4> kFabricHashNames = {"ipv4", "ipv6-label", "ipv6", "dqp"};
// The service the CM connections go to, and Linux's ephemeral ports.
constexpr std::uint16_t kService = 18700, kEphemeralLo = 32768, kEphemeralHi = 60999;

// The job's host pairs: a derangement whose every pair crosses leaves
// (drawn again until it does), or every ordered pair.
std::vector<std::pair<unsigned, unsigned>> job_pairs(const FabricSimParams &p, std::mt19937 &rng)
{
	const unsigned hosts = p.topo.hosts();
	std::vector<std::pair<unsigned, unsigned>> pairs;

	if (p.all_to_all) {
		for (unsigned s = 0; s < hosts; s++)
			for (unsigned d = 0; d < hosts; d++)
				if (s != d)
					pairs.emplace_back(s, d);
		return pairs;
	}
	std::vector<unsigned> dst(hosts);
	for (unsigned tries = 0;; tries++) {
		for (unsigned i = 0; i < hosts; i++)
			dst[i] = i;
		if (tries == 1000) {
			// a shift by one leaf: every pair crosses
			for (unsigned i = 0; i < hosts; i++)
				dst[i] = (i + p.topo.hosts_per_leaf) % hosts;
			break;
		}
		std::shuffle(dst.begin(), dst.end(), rng);
		bool ok = true;
		for (unsigned i = 0; i < hosts && ok; i++)
			ok = p.topo.leaf_of(i) != p.topo.leaf_of(dst[i]);
		if (ok)
			break;
	}
	for (unsigned i = 0; i < hosts; i++)
		pairs.emplace_back(i, dst[i]);
	return pairs;
}

WireEntropy wire_of(const FabricSimParams &p, const FabricSimQp &qp, std::mt19937 &rng)
{
	switch (p.policy) {
	case SimPolicy::Off:
		return {kSportBase, 0};
	case SimPolicy::Ideal:
		return {static_cast<std::uint16_t>(kSportBase | (rng() & 0x3FFF)),
		        static_cast<std::uint32_t>(rng() & kFlowLabelMask)};
	case SimPolicy::RxeLegacy:
		return {rxe_legacy_sport(qp.lqpn), 0};
	case SimPolicy::Builtin:
		return linux_rxe_rc(flow_label(
		    Policy::Builtin, p.cm ? linux_cma_flow_label(qp.cm_sport, qp.cm_dport) : 0,
		    qp.lqpn, qp.rqpn));
	case SimPolicy::Rfc:
	case SimPolicy::Mix: {
		const Policy policy = p.policy == SimPolicy::Rfc ? Policy::Rfc : Policy::Mix;
		return path_entropy(policy,
		                    p.cm ? cm_flow_label(policy, qp.cm_sport, qp.cm_dport) : 0,
		                    qp.lqpn, qp.rqpn);
	}
	}
	return {};
}

// Host H's address, as tools/fabric/fabric.sh gives it: 10.100.H.2 or
// fd64:H::2.
void put_addr(std::vector<std::uint8_t> &key, unsigned host, bool v6)
{
	if (!v6) {
		key.insert(key.end(), {10, 100, static_cast<std::uint8_t>(host), 2});
		return;
	}
	key.insert(key.end(), {0xfd, 0x64, static_cast<std::uint8_t>(host >> 8),
	                       static_cast<std::uint8_t>(host)});
	key.insert(key.end(), 11, 0);
	key.push_back(2);
}

void put16(std::vector<std::uint8_t> &key, unsigned v)
{
	key.push_back(static_cast<std::uint8_t>(v >> 8));
	key.push_back(static_cast<std::uint8_t>(v));
}

} // namespace

std::optional<FabricHash> parse_fabric_hash(std::string_view name)
{
	for (std::size_t i = 0; i < kFabricHashNames.size(); i++)
		if (kFabricHashNames[i] == name)
			return static_cast<FabricHash>(i);
	return std::nullopt;
}

std::string_view name_of(FabricHash h)
{
	return kFabricHashNames[static_cast<std::size_t>(h)];
}

std::vector<FabricSimQp> fabric_sim_qps(const FabricSimParams &params, unsigned trial)
{
	std::mt19937 rng(params.seed * 7919u + trial);
	const auto pairs = job_pairs(params, rng);
	std::vector<std::uint32_t> next(params.topo.hosts());
	std::uniform_int_distribution<unsigned> base(17, 17 + 1023);
	std::uniform_int_distribution<unsigned> eph(kEphemeralLo, kEphemeralHi);
	std::vector<FabricSimQp> qps;

	for (auto &n : next)
		n = base(rng);
	for (auto [s, d] : pairs)
		for (unsigned q = 0; q < params.qps; q++) {
			FabricSimQp qp;
			qp.src = s;
			qp.dst = d;
			qp.lqpn = next[s]++;
			qp.rqpn = next[d]++;
			qp.cm_sport = static_cast<std::uint16_t>(eph(rng));
			qp.cm_dport = kService;
			qp.wire = wire_of(params, qp, rng);
			qps.push_back(qp);
		}
	return qps;
}

unsigned fabric_sim_spine(const FabricSimParams &params, const FabricSimQp &qp, unsigned trial)
{
	const bool v6 = params.hash == FabricHash::Ipv6 || params.hash == FabricHash::Ipv6Label;
	const std::uint32_t seed =
	    (params.seed * 0x9E3779B9u ^ trial * 0x85EBCA6Bu) + params.topo.leaf_of(qp.src);
	std::vector<std::uint8_t> key;

	// the switch's own seed first, then the fields in packet order
	put16(key, seed >> 16);
	put16(key, seed & 0xFFFF);
	put_addr(key, qp.src, v6);
	put_addr(key, qp.dst, v6);
	if (params.hash == FabricHash::Ipv6Label) {
		key.push_back(static_cast<std::uint8_t>(qp.wire.flow_label >> 16));
		put16(key, qp.wire.flow_label & 0xFFFF);
		key.push_back(17);
	} else {
		key.push_back(17);
		put16(key, qp.wire.udp_sport);
		put16(key, kRoceV2Port);
	}
	if (params.hash == FabricHash::Dqp) {
		key.push_back(static_cast<std::uint8_t>(qp.rqpn >> 16));
		put16(key, qp.rqpn & 0xFFFF);
	}
	return switch_pick(params.fn, key, params.topo.spines);
}

FabricSimResult simulate_fabric(const FabricSimParams &params)
{
	const FabricTopology &t = params.topo;
	std::vector<double> ratios, links;
	FabricSimResult res;

	for (unsigned trial = 0; trial < params.trials; trial++) {
		const auto qps = fabric_sim_qps(params, trial);
		std::vector<double> out(t.hosts()), in(t.hosts()), up(t.leaves * t.spines),
		    down(t.spines * t.leaves);
		std::vector<FabricFlow> flows;
		for (std::size_t i = 0; i < qps.size(); i += params.qps)
			flows.push_back({qps[i].src, qps[i].dst, 0});
		// each QP carries one unit; a flow, QPS units
		for (const auto &qp : qps) {
			out[qp.src] += 1;
			in[qp.dst] += 1;
			const unsigned ls = t.leaf_of(qp.src), ld = t.leaf_of(qp.dst);
			if (ls == ld)
				continue;
			const unsigned spine = fabric_sim_spine(params, qp, trial);
			up[ls * t.spines + spine] += 1;
			down[spine * t.leaves + ld] += 1;
		}
		double busiest = 0, sum = 0, most = 0;
		for (const auto *v : {&out, &in, &up, &down})
			for (double b : *v)
				busiest = std::max(busiest, b);
		for (const auto *v : {&up, &down})
			for (double b : *v) {
				sum += b;
				most = std::max(most, b);
			}
		const double jct = busiest * 8 / (t.rate_kbit * 1000);
		ratios.push_back(jct / fabric_ideal_seconds(t, flows, params.qps));
		links.push_back(
		    sum > 0 ? most / (sum / static_cast<double>(up.size() + down.size())) : 0);
	}
	for (double r : ratios)
		res.over_ideal_mean += r / static_cast<double>(ratios.size());
	for (double l : links)
		res.link_max_mean += l / static_cast<double>(links.size());
	res.over_ideal_p95 = nearest_rank(ratios, 95);
	res.over_ideal_max = nearest_rank(ratios, 100);
	return res;
}

} // namespace roce
