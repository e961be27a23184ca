// SPDX-License-Identifier: GPL-2.0
// make fabric's leaf-spine topology, and what both its simulation
// (fabric_sim.h, roce-entropy simulate --fabric) and roce-lab's report of
// its jobs (lab/fabric.h) measure a job by: the ideal, every packet
// sprayed evenly over every path, and the percentiles of its flows.
#pragma once

#include <cstdint>
#include <vector>

namespace roce
{

struct FabricTopology {
	unsigned leaves = 0, spines = 0, hosts_per_leaf = 0;
	double rate_kbit = 0; // every link, each way

	unsigned hosts() const
	{
		return leaves * hosts_per_leaf;
	}
	unsigned leaf_of(unsigned host) const
	{
		return host / hosts_per_leaf;
	}
};

struct FabricFlow {
	unsigned src = 0, dst = 0; // host indexes
	double seconds = 0;        // when its last byte was acknowledged
};

// The ideal completion time of FLOWS, BYTES each, on TOPO: the busiest
// link's bytes over its rate when every flow's bytes are spread evenly
// over every path (a host's own link carries all it sends or receives; a
// leaf's uplinks share what leaves it for other leaves, a leaf's downlinks
// from the spines what enters it).
double fabric_ideal_seconds(const FabricTopology &topo, const std::vector<FabricFlow> &flows,
                            std::uint64_t bytes);

// The nearest-rank percentile P (0-100] of VALUES; 0 for none.
double nearest_rank(std::vector<double> values, double p);

} // namespace roce
