// SPDX-License-Identifier: GPL-2.0
// Nanoseconds per hash call; packets per second and peak memory of
// roce-entropy pcap on captures of 1M and 10M packets.  Prints figures;
// asserts nothing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <pcap/pcap.h>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

#include "capture/capture.h"
#include "cli.h"
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

// A synthetic capture of N RoCE v2 packets: 64 rdma_cm connections over
// IPv4, each a REQ, REP and RTU, then sends and ACKs both ways,
// interleaved.  Written frame by frame: the writer keeps no packets.
class Capture
{
public:
	static constexpr unsigned kConns = 64;

	explicit Capture(std::int64_t packets) : packets_(packets)
	{
		char tmpl[] = "/tmp/roce-bench-XXXXXX";
		int fd = mkstemp(tmpl);
		close(fd);
		path_ = tmpl;
		pcap_t *dead = pcap_open_dead(DLT_EN10MB, 65535);
		pcap_dumper_t *d = pcap_dump_open(dead, path_.c_str());
		std::vector<roce::Buf> data;
		std::int64_t n = 0;
		auto dump = [&](const roce::Buf &f) {
			pcap_pkthdr h{};
			h.caplen = h.len = static_cast<bpf_u_int32>(f.size());
			pcap_dump(reinterpret_cast<u_char *>(d), &h, f.data());
			n++;
		};
		for (unsigned c = 0; c < kConns; c++) {
			const auto sport = static_cast<std::uint16_t>(50000 + c);
			const auto port =
			    roce::udp_sport(roce::cm_flow_label(roce::Policy::Rfc, sport, 7471));
			dump(mad(true, port, roce::req(c + 1, 0x100 + c, sport, 7471)));
			dump(mad(false, port, roce::rep(c + 0x1001, c + 1, 0x200 + c)));
			dump(mad(true, port, roce::ids(roce::kCmRtu, c + 1, c + 0x1001)));
			for (bool back : {false, true}) {
				roce::Frame f;
				f.src = back ? "10.2.0.2" : "10.1.0.2";
				f.dst = back ? "10.1.0.2" : "10.2.0.2";
				f.sport = port;
				f.dqpn = (back ? 0x100 : 0x200) + c;
				f.payload.assign(64, 0x5A);
				data.push_back(roce::build(f));
			}
		}
		for (std::uint64_t i = 0; n < packets_; i++)
			dump(data[i % data.size()]);
		pcap_dump_close(d);
		pcap_close(dead);
	}
	~Capture()
	{
		std::remove(path_.c_str());
	}
	Capture(const Capture &) = delete;
	Capture &operator=(const Capture &) = delete;
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
	std::int64_t packets_;
	std::string path_;
};

// "roce-entropy pcap FILE --json", run in a child process: packets per
// second (items_per_second), and the child's peak resident memory
// (peak_rss_MB, from wait4()), which must not grow with the packets.
void BM_PcapCommand(benchmark::State &state)
{
	const Capture capture(state.range(0));
	double peak_mb = 0;
	int status = -1;

	for (auto _ : state) {
		const auto t0 = std::chrono::steady_clock::now();
		const pid_t pid = fork();
		if (pid == 0) {
			std::ofstream null("/dev/null");
			const char *argv[] = {"roce-entropy", "pcap", capture.path().c_str(),
			                      "--json"};
			_exit(roce::run_cli(4, argv, null, std::cerr));
		}
		int wstatus = 0;
		rusage ru{};
		if (pid < 0 || wait4(pid, &wstatus, 0, &ru) != pid) {
			state.SkipWithError("fork or wait4 failed");
			break;
		}
		const std::chrono::duration<double> took = std::chrono::steady_clock::now() - t0;
		state.SetIterationTime(took.count());
		status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
		peak_mb = std::max(peak_mb, static_cast<double>(ru.ru_maxrss) / 1024);
	}
	state.SetItemsProcessed(state.iterations() * state.range(0));
	state.counters["peak_rss_MB"] = peak_mb;
	state.counters["exit_status"] = status; // 0: every connection agrees
}
BENCHMARK(BM_PcapCommand)
    ->Arg(1 << 20)
    ->Arg(10'000'000)
    ->Unit(benchmark::kSecond)
    ->UseManualTime()
    ->Iterations(1);

} // namespace

BENCHMARK_MAIN();
