// SPDX-License-Identifier: GPL-2.0
// The ideal completion time and the percentiles (fabric_ideal.h).
#include "sim/fabric_ideal.h"

#include <algorithm>
#include <cmath>

namespace roce
{

double fabric_ideal_seconds(const FabricTopology &topo, const std::vector<FabricFlow> &flows,
                            std::uint64_t bytes)
{
	std::vector<double> out(topo.hosts()), in(topo.hosts()), up(topo.leaves), down(topo.leaves);
	double busiest = 0;

	for (const auto &f : flows) {
		out[f.src] += static_cast<double>(bytes);
		in[f.dst] += static_cast<double>(bytes);
		if (topo.leaf_of(f.src) != topo.leaf_of(f.dst)) {
			up[topo.leaf_of(f.src)] += static_cast<double>(bytes) / topo.spines;
			down[topo.leaf_of(f.dst)] += static_cast<double>(bytes) / topo.spines;
		}
	}
	for (const auto *v : {&out, &in, &up, &down})
		for (double b : *v)
			busiest = std::max(busiest, b);
	return busiest * 8 / (topo.rate_kbit * 1000);
}

double nearest_rank(std::vector<double> values, double p)
{
	if (values.empty())
		return 0;
	std::sort(values.begin(), values.end());
	const auto n = static_cast<double>(values.size());
	auto rank = static_cast<std::size_t>(std::ceil(p / 100 * n));
	rank = std::clamp<std::size_t>(rank, 1, values.size());
	return values[rank - 1];
}

} // namespace roce
