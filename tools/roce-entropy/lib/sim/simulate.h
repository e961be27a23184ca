// SPDX-License-Identifier: GPL-2.0
// ECMP spreading of RoCE v2 connections: N connections, M equal-cost paths,
// a switch that hashes the outer 5-tuple.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace roce
{

// What chooses the source ports: our policies, stock 6.12 (builtin: rdma_cm's
// sport * 31 + dport, the RFC QPN hash without CM), 6.12 rxe's port per QP
// (rxe-legacy), or uniformly random ports (the ideal).
enum class SimPolicy { Off, Rfc, Mix, Builtin, RxeLegacy, Ideal };
enum class Scenario { SeqPorts, RandomPorts, SeqQpns, OffsetQpns, Stride8Qpns, RandomQpns };
enum class SwitchHash { Crc16, Crc32, Xor, Jhash };

std::optional<SimPolicy> parse_sim_policy(std::string_view name);
std::optional<Scenario> parse_scenario(std::string_view name);
std::optional<SwitchHash> parse_switch_hash(std::string_view name);
std::string_view name_of(SimPolicy p);
std::string_view name_of(Scenario s);
std::string_view name_of(SwitchHash h);

struct SimParams {
	SimPolicy policy = SimPolicy::Rfc;
	Scenario scenario = Scenario::SeqPorts;
	SwitchHash hash = SwitchHash::Crc16;
	unsigned connections = 256;
	unsigned paths = 8;
	unsigned trials = 64; // for the random scenarios and the ideal
	unsigned offset = 1;  // k of OffsetQpns
	std::uint32_t seed = 1;
};

struct SimResult {
	unsigned trials = 0;     // how many trials the figures are over
	double max_mean = 0;     // mean over trials of max path load / mean load
	double max_mean_p95 = 0; // 95th percentile over trials
	double max_mean_sd = 0;  // standard deviation over trials
	double distinct_ports = 0;
	double collisions = 0;      // fraction of connections sharing a port
	std::vector<unsigned> load; // per path, first trial
};

// The UDP source ports of the connections of one trial.
std::vector<std::uint16_t> sim_ports(const SimParams &params, unsigned trial);
// The path a switch sends a RoCE v2 packet with this source port down.
unsigned sim_path(SwitchHash hash, std::uint16_t sport, unsigned paths);
SimResult simulate(const SimParams &params);
// The path of PATHS a switch picks for a packet whose hashed header fields
// are KEY, in the order of the packet's bytes: CRC-16 and CRC-32 of them,
// the XOR of their 16-bit halves, or Linux's jhash of them folded into
// three words.
unsigned switch_pick(SwitchHash hash, std::span<const std::uint8_t> key, unsigned paths);
// Expected collision fraction of N uniformly random 14-bit ports.
double birthday_collisions(unsigned connections);

// How one policy's max/mean compares with a baseline's in one setting.
enum class Versus { Better, Equal, Worse };

// The noise of comparing two results of one setting, each the mean of
// TRIALS trials (1 for the sequential scenarios): what two independent
// draws of uniformly random ports differ by in 95% of cases, 1.96 standard
// deviations of their difference, from the spread of IDEAL's trials.
double comparison_noise(const SimResult &ideal, unsigned trials);
// VALUE against BASELINE: lower is better, within NOISE equal.
Versus versus(double value, double baseline, double noise);
std::string_view name_of(Versus v);

} // namespace roce
