// SPDX-License-Identifier: GPL-2.0
// Nanoseconds per hash call, and packets per second through the capture
// reader.  Prints figures; asserts nothing.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <pcap/pcap.h>
#include <string>
#include <unistd.h>

#include "capture/capture.h"
#include "entropy/entropy.h"
#include "synth.h"

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

// A synthetic capture of 1M RoCE v2 packets: 64 rdma_cm connections over
// IPv4, each a REQ/REP/RTU and then sends and ACKs both ways, interleaved.
class Capture1M
{
public:
	static constexpr unsigned kPackets = 1 << 20, kConns = 64;

	Capture1M()
	{
		char tmpl[] = "/tmp/roce-bench-XXXXXX";
		int fd = mkstemp(tmpl);
		close(fd);
		path_ = tmpl;
		std::vector<roce::Buf> frames;
		frames.reserve(kPackets);
		for (unsigned c = 0; c < kConns; c++) {
			auto sport = static_cast<std::uint16_t>(50000 + c);
			auto port =
			    roce::udp_sport(roce::cm_flow_label(roce::Policy::Rfc, sport, 7471));
			frames.push_back(mad(true, port, roce::req(c + 1, 0x100 + c, sport, 7471)));
			frames.push_back(mad(false, port, roce::rep(c + 0x1001, c + 1, 0x200 + c)));
			frames.push_back(
			    mad(true, port, roce::ids(roce::kCmRtu, c + 1, c + 0x1001)));
		}
		for (unsigned i = 0; frames.size() < kPackets; i++) {
			const unsigned c = i % kConns;
			auto sport = static_cast<std::uint16_t>(50000 + c);
			roce::Frame f;
			f.src = i & 64 ? "10.2.0.2" : "10.1.0.2";
			f.dst = i & 64 ? "10.1.0.2" : "10.2.0.2";
			f.sport =
			    roce::udp_sport(roce::cm_flow_label(roce::Policy::Rfc, sport, 7471));
			f.dqpn = (i & 64 ? 0x100 : 0x200) + c;
			f.payload.assign(64, 0x5A);
			frames.push_back(roce::build(f));
		}
		roce::write_capture(path_, frames, DLT_EN10MB);
	}
	~Capture1M()
	{
		std::remove(path_.c_str());
	}
	Capture1M(const Capture1M &) = delete;
	Capture1M &operator=(const Capture1M &) = delete;
	const std::string &path() const
	{
		return path_;
	}

private:
	static roce::Buf mad(bool from_a, std::uint16_t port, const roce::Mad &m)
	{
		roce::Frame f;
		f.src = from_a ? "10.1.0.2" : "10.2.0.2";
		f.dst = from_a ? "10.2.0.2" : "10.1.0.2";
		f.sport = port;
		f.dqpn = 1;
		f.sqpn = 1;
		f.opcode = 0x64;
		f.payload = m.b;
		return roce::build(f);
	}
	std::string path_;
};

// Reading and judging: packets per second (items_per_second).
void BM_PcapThroughput(benchmark::State &state)
{
	static const Capture1M capture;
	unsigned inconsistent = 0;

	for (auto _ : state) {
		roce::ReadCounts counts;
		auto packets = roce::read_capture(capture.path(), counts);
		auto sum = roce::judge_capture(packets, roce::Policy::Rfc, 0);
		inconsistent = sum.inconsistent;
		benchmark::DoNotOptimize(sum);
	}
	state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) *
	                        Capture1M::kPackets);
	state.counters["connections"] = 64;
	state.counters["inconsistent"] = inconsistent;
}
BENCHMARK(BM_PcapThroughput)->Unit(benchmark::kMillisecond)->Iterations(3);

} // namespace

BENCHMARK_MAIN();
