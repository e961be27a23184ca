// SPDX-License-Identifier: GPL-2.0
#include "sim/simulate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <random>
#include <set>
#include <span>

#include "entropy/entropy.h"

namespace roce
{
namespace
{

constexpr std::array<std::string_view, 6> kPolicyNames = {"off",     "rfc",        "mix",
                                                          "builtin", "rxe-legacy", "ideal"};
constexpr std::array<std::string_view, 6> kScenarioNames = {
    "seq-ports", "random-ports", "seq-qpns", "offset-qpns", "stride8-qpns", "random-qpns"};
constexpr std::array<std::string_view, 4> kHashNames = {"crc16", "crc32", "xor", "jhash"};

template <typename E, std::size_t N>
std::optional<E> lookup(const std::array<std::string_view, N> &names, std::string_view name)
{
	for (std::size_t i = 0; i < N; ++i)
		if (names[i] == name)
			return static_cast<E>(i);
	return std::nullopt;
}

// The connections run between these two hosts; the server's rdma_cm port.
constexpr std::uint32_t kSrcIp = 0x0A010002, kDstIp = 0x0A020002;
constexpr std::uint16_t kServerPort = 7174, kFirstClientPort = 0xC000;
constexpr std::uint32_t kFirstQpn = 0x11;

std::array<std::uint8_t, 13> tuple_bytes(std::uint16_t sport)
{
	return {static_cast<std::uint8_t>(kSrcIp >> 24),
	        static_cast<std::uint8_t>(kSrcIp >> 16),
	        static_cast<std::uint8_t>(kSrcIp >> 8),
	        static_cast<std::uint8_t>(kSrcIp),
	        static_cast<std::uint8_t>(kDstIp >> 24),
	        static_cast<std::uint8_t>(kDstIp >> 16),
	        static_cast<std::uint8_t>(kDstIp >> 8),
	        static_cast<std::uint8_t>(kDstIp),
	        17,
	        static_cast<std::uint8_t>(sport >> 8),
	        static_cast<std::uint8_t>(sport),
	        static_cast<std::uint8_t>(kRoceV2Port >> 8),
	        static_cast<std::uint8_t>(kRoceV2Port)};
}

// CRC-16/CCITT-FALSE: polynomial 0x1021, initial value 0xFFFF.
std::uint32_t crc16(std::span<const std::uint8_t> bytes)
{
	std::uint16_t crc = 0xFFFF;
	for (auto b : bytes) {
		crc = static_cast<std::uint16_t>(crc ^ (b << 8));
		for (int i = 0; i < 8; ++i)
			crc = static_cast<std::uint16_t>(crc & 0x8000 ? (crc << 1) ^ 0x1021
			                                              : crc << 1);
	}
	return crc;
}

// CRC-32 (IEEE 802.3, reflected).
std::uint32_t crc32(std::span<const std::uint8_t> bytes)
{
	std::uint32_t crc = 0xFFFFFFFF;
	for (auto b : bytes) {
		crc ^= b;
		for (int i = 0; i < 8; ++i)
			crc = crc & 1 ? (crc >> 1) ^ 0xEDB88320 : crc >> 1;
	}
	return ~crc;
}

constexpr std::uint32_t rol32(std::uint32_t w, int s)
{
	return (w << s) | (w >> (32 - s));
}

// Linux's jhash_3words() (lookup3 final mix), as older kernels' L4
// multipath hash used it over addresses and ports.
std::uint32_t jhash_3words(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t init)
{
	const std::uint32_t iv = 0xdeadbeef + (3u << 2) + init;
	a += iv;
	b += iv;
	c += iv;
	c ^= b;
	c -= rol32(b, 14);
	a ^= c;
	a -= rol32(c, 11);
	b ^= a;
	b -= rol32(a, 25);
	c ^= b;
	c -= rol32(b, 16);
	a ^= c;
	a -= rol32(c, 4);
	b ^= a;
	b -= rol32(a, 14);
	c ^= b;
	c -= rol32(b, 24);
	return c;
}

std::uint16_t policy_port(SimPolicy policy, std::uint16_t cport, std::uint32_t lqpn,
                          std::uint32_t rqpn, bool cm, std::mt19937 &rng)
{
	switch (policy) {
	case SimPolicy::Off:
		return kSportBase;
	case SimPolicy::Rfc:
	case SimPolicy::Mix:
	case SimPolicy::Builtin: {
		// builtin: rdma_cm's sport * 31 + dport, folded as rxe and mlx5
		// fold it; without CM there is no flow label and the QPN hash
		// applies.
		const Policy p = policy == SimPolicy::Rfc   ? Policy::Rfc
		                 : policy == SimPolicy::Mix ? Policy::Mix
		                                            : Policy::Builtin;
		return udp_sport(cm ? cm_flow_label(p, cport, kServerPort)
		                    : qpn_flow_label(p, lqpn, rqpn));
	}
	case SimPolicy::RxeLegacy:
		return rxe_legacy_sport(lqpn);
	case SimPolicy::Ideal:
		return static_cast<std::uint16_t>(kSportBase | (rng() & 0x3FFF));
	}
	return kSportBase;
}

} // namespace

std::optional<SimPolicy> parse_sim_policy(std::string_view name)
{
	if (name == "linux-cma") // its name before it became the policy builtin
		return SimPolicy::Builtin;
	return lookup<SimPolicy>(kPolicyNames, name);
}

std::optional<Scenario> parse_scenario(std::string_view name)
{
	return lookup<Scenario>(kScenarioNames, name);
}

std::optional<SwitchHash> parse_switch_hash(std::string_view name)
{
	return lookup<SwitchHash>(kHashNames, name);
}

std::string_view name_of(SimPolicy p)
{
	return kPolicyNames[static_cast<std::size_t>(p)];
}

std::string_view name_of(Scenario s)
{
	return kScenarioNames[static_cast<std::size_t>(s)];
}

std::string_view name_of(SwitchHash h)
{
	return kHashNames[static_cast<std::size_t>(h)];
}

std::vector<std::uint16_t> sim_ports(const SimParams &params, unsigned trial)
{
	std::mt19937 rng(params.seed * 7919u + trial);
	std::vector<std::uint16_t> ports;

	ports.reserve(params.connections);
	for (unsigned i = 0; i < params.connections; ++i) {
		std::uint16_t cport = static_cast<std::uint16_t>(kFirstClientPort + i);
		std::uint32_t lqpn = kFirstQpn + i, rqpn = kFirstQpn + i;
		bool cm = true;

		switch (params.scenario) {
		case Scenario::SeqPorts:
			break;
		case Scenario::RandomPorts:
			cport = static_cast<std::uint16_t>(rng());
			break;
		case Scenario::SeqQpns:
			cm = false;
			break;
		case Scenario::OffsetQpns:
			cm = false;
			rqpn += params.offset;
			break;
		case Scenario::Stride8Qpns:
			cm = false;
			lqpn = rqpn = kFirstQpn + 8 * i;
			break;
		case Scenario::RandomQpns:
			cm = false;
			lqpn = rng() & 0xFFFFFF;
			rqpn = rng() & 0xFFFFFF;
			break;
		}
		ports.push_back(policy_port(params.policy, cport, lqpn, rqpn, cm, rng));
	}
	return ports;
}

unsigned sim_path(SwitchHash hash, std::uint16_t sport, unsigned paths)
{
	switch (hash) {
	case SwitchHash::Crc16:
		return crc16(tuple_bytes(sport)) % paths;
	case SwitchHash::Crc32:
		return crc32(tuple_bytes(sport)) % paths;
	case SwitchHash::Xor: {
		// A low-bit switch: XOR of the tuple's 16-bit halves, modulo.
		const std::uint32_t h = (kSrcIp >> 16) ^ (kSrcIp & 0xFFFF) ^ (kDstIp >> 16) ^
		                        (kDstIp & 0xFFFF) ^ 17u ^ sport ^ kRoceV2Port;
		return h % paths;
	}
	case SwitchHash::Jhash: {
		// Linux: hash-threshold over the upper 31 bits of the hash.
		const std::uint32_t h = jhash_3words(
		    kSrcIp, kDstIp, (std::uint32_t{sport} << 16) | kRoceV2Port, 0x5eed);
		return static_cast<unsigned>((std::uint64_t{h >> 1} * paths) >> 31);
	}
	}
	return 0;
}

unsigned switch_pick(SwitchHash hash, std::span<const std::uint8_t> key, unsigned paths)
{
	std::uint32_t w[3] = {0, 0, 0}, x = 0;

	switch (hash) {
	case SwitchHash::Crc16:
		return crc16(key) % paths;
	case SwitchHash::Crc32:
		return crc32(key) % paths;
	case SwitchHash::Xor:
		for (std::size_t i = 0; i < key.size(); i++)
			x ^= i % 2 ? key[i] : std::uint32_t{key[i]} << 8;
		return x % paths;
	case SwitchHash::Jhash:
		for (std::size_t i = 0; i < key.size(); i++)
			w[(i / 4) % 3] ^= std::uint32_t{key[i]} << (8 * (3 - i % 4));
		return static_cast<unsigned>(
		    (std::uint64_t{jhash_3words(w[0], w[1], w[2], 0x5eed) >> 1} * paths) >> 31);
	}
	return 0;
}

double birthday_collisions(unsigned connections)
{
	const double slots = 16384.0;
	const double distinct = slots * (1.0 - std::pow(1.0 - 1.0 / slots, connections));
	return connections ? 1.0 - distinct / connections : 0.0;
}

SimResult simulate(const SimParams &params)
{
	const bool random = params.policy == SimPolicy::Ideal ||
	                    params.scenario == Scenario::RandomPorts ||
	                    params.scenario == Scenario::RandomQpns;
	const unsigned trials = random ? std::max(1u, params.trials) : 1;
	const double mean = static_cast<double>(params.connections) / params.paths;
	std::vector<double> ratios;
	SimResult result;

	for (unsigned t = 0; t < trials; ++t) {
		const auto ports = sim_ports(params, t);
		std::vector<unsigned> load(params.paths, 0);
		for (auto p : ports)
			++load[sim_path(params.hash, p, params.paths)];
		ratios.push_back(*std::max_element(load.begin(), load.end()) / mean);
		const auto distinct = std::set<std::uint16_t>(ports.begin(), ports.end()).size();
		result.distinct_ports += static_cast<double>(distinct);
		result.collisions += 1.0 - static_cast<double>(distinct) / params.connections;
		if (t == 0)
			result.load = load;
	}
	result.trials = trials;
	result.distinct_ports /= trials;
	result.collisions /= trials;
	for (auto r : ratios)
		result.max_mean += r;
	result.max_mean /= trials;
	for (auto r : ratios)
		result.max_mean_sd += (r - result.max_mean) * (r - result.max_mean);
	result.max_mean_sd = std::sqrt(result.max_mean_sd / trials);
	std::sort(ratios.begin(), ratios.end());
	result.max_mean_p95 = ratios[std::min(ratios.size() - 1, ratios.size() * 95 / 100)];
	return result;
}

double comparison_noise(const SimResult &ideal, unsigned trials)
{
	return 1.96 * ideal.max_mean_sd * std::sqrt(2.0 / std::max(1u, trials));
}

Versus versus(double value, double baseline, double noise)
{
	if (value < baseline - noise)
		return Versus::Better;
	return value > baseline + noise ? Versus::Worse : Versus::Equal;
}

std::string_view name_of(Versus v)
{
	switch (v) {
	case Versus::Better:
		return "better";
	case Versus::Equal:
		return "equal";
	case Versus::Worse:
		return "worse";
	}
	return "?";
}

} // namespace roce
