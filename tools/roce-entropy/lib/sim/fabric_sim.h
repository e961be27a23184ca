// SPDX-License-Identifier: GPL-2.0
// make fabric's leaf-spine fabric simulated, at sizes the test VM cannot
// hold: every QP of a job takes the uplink its source leaf's hash of its
// packets' headers picks (a spine reaches a leaf by one link), and the
// job needs at least its busiest link's bytes over that link's rate.  That
// bound over the ideal (every packet sprayed evenly: fabric_ideal.h) is
// what hashing costs the job; the flows' sharing of links can only add to
// it.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "entropy/entropy.h"
#include "sim/fabric_ideal.h"
#include "sim/simulate.h"

namespace roce
{

// What the leaves hash: the IPv4 5-tuple, IPv6's 3-tuple with the flow
// label (Linux's default), the IPv6 5-tuple, or the IPv4 5-tuple and the
// BTH's destination QP (a switch that reads it, as Meta's E-ECMP does).
enum class FabricHash { Ipv4, Ipv6Label, Ipv6, Dqp };
std::optional<FabricHash> parse_fabric_hash(std::string_view name);
std::string_view name_of(FabricHash h);

struct FabricSimParams {
	FabricTopology topo{4, 4, 4, 1000};
	bool all_to_all = false; // else a permutation across leaves
	unsigned qps = 1;        // QPs per host pair
	bool cm = true;          // rdma_cm (random CM ports), else QPN-connected
	FabricHash hash = FabricHash::Ipv4;
	SwitchHash fn = SwitchHash::Crc32;
	// Off, Rfc, Mix; Builtin as stock 6.12 rxe sends (the port from
	// rdma_cm's or the QPN label, no IPv6 flow label); Ideal: a uniformly
	// random port and flow label per QP
	SimPolicy policy = SimPolicy::Rfc;
	unsigned trials = 32;
	std::uint32_t seed = 1;
};

struct FabricSimResult {
	double over_ideal_mean = 0, over_ideal_p95 = 0, over_ideal_max = 0;
	double link_max_mean = 0; // the busiest leaf-spine link over their mean
};

// One QP of a trial: its hosts, QPNs, CM ports, and what its packets carry.
struct FabricSimQp {
	unsigned src = 0, dst = 0;
	std::uint32_t lqpn = 0, rqpn = 0;
	std::uint16_t cm_sport = 0, cm_dport = 0;
	WireEntropy wire;
};

// Trial T's QPs: the job's host pairs (a derangement across leaves drawn
// for the trial, or every pair), QPS each, numbered per host in the order
// they are made from a base drawn per host; CM ports drawn from Linux's
// ephemeral range to service port 18700.
std::vector<FabricSimQp> fabric_sim_qps(const FabricSimParams &params, unsigned trial);

// The spine QP's packets cross from its source leaf (its leaf's hash).  The
// leaves' hash seed is drawn per trial, as make fabric's seeds set the
// routers' (fib_multipath_hash_seed): a job whose headers are the same in
// every trial (all-to-all without labels) still gets a fresh draw.
unsigned fabric_sim_spine(const FabricSimParams &params, const FabricSimQp &qp, unsigned trial);

FabricSimResult simulate_fabric(const FabricSimParams &params);

} // namespace roce
