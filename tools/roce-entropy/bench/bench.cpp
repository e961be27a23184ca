// SPDX-License-Identifier: GPL-2.0
// Nanoseconds per hash call.  Prints figures; asserts nothing.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "entropy.h"

namespace
{

void BM_RfcQpnSport(benchmark::State &state)
{
	std::uint32_t qpn = 0x11;
	for (auto _ : state) {
		benchmark::DoNotOptimize(
		    roce::udp_sport(roce::qpn_flow_label(roce::Policy::Rfc, qpn, qpn + 7)));
		++qpn;
	}
}
BENCHMARK(BM_RfcQpnSport);

void BM_MixQpnSport(benchmark::State &state)
{
	std::uint32_t qpn = 0x11;
	for (auto _ : state) {
		benchmark::DoNotOptimize(
		    roce::udp_sport(roce::qpn_flow_label(roce::Policy::Mix, qpn, qpn + 7)));
		++qpn;
	}
}
BENCHMARK(BM_MixQpnSport);

void BM_RfcCmSport(benchmark::State &state)
{
	std::uint16_t port = 1;
	for (auto _ : state) {
		benchmark::DoNotOptimize(
		    roce::udp_sport(roce::cm_flow_label(roce::Policy::Rfc, port, 7174)));
		++port;
	}
}
BENCHMARK(BM_RfcCmSport);

void BM_MixCmSport(benchmark::State &state)
{
	std::uint16_t port = 1;
	for (auto _ : state) {
		benchmark::DoNotOptimize(
		    roce::udp_sport(roce::cm_flow_label(roce::Policy::Mix, port, 7174)));
		++port;
	}
}
BENCHMARK(BM_MixCmSport);

} // namespace

BENCHMARK_MAIN();
