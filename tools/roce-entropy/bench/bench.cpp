// SPDX-License-Identifier: GPL-2.0
// Nanoseconds per hash call.  Prints figures; asserts nothing.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "entropy.h"

namespace
{

// The UDP source port of a connection without CM, QPNs changing per call.
void BM_QpnSport(benchmark::State &state, roce::Policy policy)
{
	std::uint32_t qpn = 0x11;
	for (auto _ : state) {
		benchmark::DoNotOptimize(
		    roce::udp_sport(roce::qpn_flow_label(policy, qpn, qpn + 7)));
		++qpn;
	}
}
BENCHMARK_CAPTURE(BM_QpnSport, rfc, roce::Policy::Rfc);
BENCHMARK_CAPTURE(BM_QpnSport, mix, roce::Policy::Mix);

// The UDP source port of an rdma_cm connection to port 7174.
void BM_CmSport(benchmark::State &state, roce::Policy policy)
{
	std::uint16_t port = 1;
	for (auto _ : state) {
		benchmark::DoNotOptimize(roce::udp_sport(roce::cm_flow_label(policy, port, 7174)));
		++port;
	}
}
BENCHMARK_CAPTURE(BM_CmSport, rfc, roce::Policy::Rfc);
BENCHMARK_CAPTURE(BM_CmSport, mix, roce::Policy::Mix);

} // namespace

BENCHMARK_MAIN();
