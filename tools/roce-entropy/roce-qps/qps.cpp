// SPDX-License-Identifier: GPL-2.0
// roce-qps's verbs side: on each device a PD, a CQ and one registered buffer
// with a message slot per pair (lib/verbs/device.h); QP i of A is taken to
// RTS against QP i of B by hand, and every A QP sends one message to its B
// QP, BATCH of them in flight at once.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

#include "output/record.h"
#include "qps.h"
#include "verbs/device.h"

namespace roce
{
namespace
{

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t)
{
	return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Pair {
	ibv_qp *a = nullptr, *b = nullptr;
};

// The pairs; destroyed before the devices they live on.
class Pairs
{
public:
	~Pairs()
	{
		for (auto &p : list)
			for (ibv_qp *qp : {p.a, p.b})
				if (qp)
					ibv_destroy_qp(qp);
	}

	std::vector<Pair> list;
};

// The message of pair I: its index, then bytes that depend on it.
void fill_message(char *buf, unsigned size, unsigned i)
{
	std::memcpy(buf, &i, sizeof(i));
	for (unsigned k = sizeof(i); k < size; k++)
		buf[k] = static_cast<char>((i + k) & 0xff);
}

bool message_ok(const char *buf, unsigned size, unsigned i)
{
	std::vector<char> want(size);

	fill_message(want.data(), size, i);
	return std::memcmp(buf, want.data(), size) == 0;
}

// Send one message on each pair in [START, END) and wait for the send
// completions on A and the receive completions on B.
void exchange(const QpsOptions &opts, Device &a, Device &b, Pairs &pairs, unsigned start,
              unsigned end)
{
	std::vector<bool> sent(end - start), received(end - start);
	unsigned pending = 2 * (end - start);
	auto last_progress = Clock::now();
	ibv_wc wc[64];

	for (unsigned i = start; i < end; i++)
		b.post_recv(pairs.list[i].b, i);
	for (unsigned i = start; i < end; i++) {
		fill_message(a.slot(i), opts.size, i);
		a.post_send(pairs.list[i].a, i);
	}
	while (pending) {
		bool progress = false;

		for (Device *dev : {&a, &b}) {
			const int n = ibv_poll_cq(dev->cq(), 64, wc);
			if (n < 0)
				fail("ibv_poll_cq " + dev->name(), -n);
			for (int k = 0; k < n; k++) {
				const auto i = static_cast<unsigned>(wc[k].wr_id);
				const bool on_a = dev == &a;
				if (wc[k].status != IBV_WC_SUCCESS)
					throw VerbsError("pair " + std::to_string(i) + ": " +
					                 (on_a ? "send" : "receive") + " failed: " +
					                 ibv_wc_status_str(wc[k].status));
				if (i < start || i >= end || (on_a ? sent : received)[i - start])
					throw VerbsError("unexpected completion for pair " +
					                 std::to_string(i) + " on " + dev->name());
				(on_a ? sent : received)[i - start] = true;
				if (!on_a && (wc[k].byte_len != opts.size ||
				              !message_ok(b.slot(i), opts.size, i)))
					throw VerbsError("pair " + std::to_string(i) +
					                 ": the message arrived corrupted");
				pending--;
				progress = true;
			}
		}
		if (progress) {
			last_progress = Clock::now();
		} else if (seconds_since(last_progress) > opts.timeout) {
			throw VerbsError(std::to_string(pending) + " completions of pairs " +
			                 std::to_string(start) + "-" + std::to_string(end - 1) +
			                 " missing after " + std::to_string(opts.timeout) + " s");
		} else {
			std::this_thread::sleep_for(std::chrono::microseconds(200));
		}
	}
}

struct Report {
	unsigned pairs = 0, connected = 0, completed = 0;
	double setup_seconds = 0, traffic_seconds = 0;
};

// Each pair's QPNs and, under a policy, its prediction; PORTS gathers the
// predicted ports.
std::vector<Record> pair_records(const QpsOptions &opts, const Pairs &pairs,
                                 std::set<std::uint16_t> &ports)
{
	std::vector<Record> list;

	for (const auto &p : pairs.list) {
		Record r;
		r.add_json("qpn_a", p.a->qp_num).add_json("qpn_b", p.b->qp_num);
		if (opts.policy) {
			const auto fl = flow_label(*opts.policy, 0, p.a->qp_num, p.b->qp_num);
			ports.insert(udp_sport(fl));
			r.add_json("flow_label", fl).add_json("udp_sport", udp_sport(fl));
		}
		list.push_back(std::move(r));
	}
	return list;
}

void print_report(const QpsOptions &opts, const Device &a, const Device &b, const Pairs &pairs,
                  const Report &rep, std::ostream &out)
{
	const Birthday bd = birthday_distinct(rep.pairs, kSportSlots);
	std::set<std::uint16_t> ports;
	const std::vector<Record> list = pair_records(opts, pairs, ports);
	Record r;

	r.add_json("dev_a", a.name())
	    .add_json("dev_b", b.name())
	    .add_json("gid_a", gid_text(a.gid()))
	    .add_json("gid_b", gid_text(b.gid()))
	    .add_json("pairs", rep.pairs)
	    .add_json("completed", rep.completed)
	    .add_json("policy", opts.policy ? nlohmann::json(policy_name(*opts.policy)) : nullptr)
	    .add_json("predicted_distinct_udp_sports",
	              opts.policy ? nlohmann::json(ports.size()) : nullptr)
	    .add_json("birthday", {{"slots", kSportSlots}, {"mean", bd.mean}, {"sd", bd.sd}})
	    .add_json("setup_seconds", rep.setup_seconds)
	    .add_json("traffic_seconds", rep.traffic_seconds)
	    .add("connections", list)
	    .add_text(format("roce-qps: %u RC QP pairs %s (%s) -> %s (%s): %u sends completed\n"
	                     "  setup %.1f s, traffic %.1f s\n",
	                     rep.pairs, a.name().c_str(), gid_text(a.gid()).c_str(),
	                     b.name().c_str(), gid_text(b.gid()).c_str(), rep.completed,
	                     rep.setup_seconds, rep.traffic_seconds));
	if (!pairs.list.empty())
		r.add_text(format("  QPNs on A 0x%06x-0x%06x, on B 0x%06x-0x%06x\n",
		                  pairs.list.front().a->qp_num, pairs.list.back().a->qp_num,
		                  pairs.list.front().b->qp_num, pairs.list.back().b->qp_num));
	if (opts.policy)
		r.add_text(format("  %s predicts %zu distinct UDP source ports; random ports would "
		                  "give %.1f (sd %.1f)\n",
		                  std::string(policy_name(*opts.policy)).c_str(), ports.size(),
		                  bd.mean, bd.sd));
	print(r, opts.json, out);
}

} // namespace

int run_qps(const QpsOptions &opts, std::ostream &out, std::ostream &err)
{
	Device a, b;
	Pairs pairs;
	Report rep;

	rep.pairs = opts.pairs;
	try {
		auto t = Clock::now();
		DeviceConfig cfg{opts.port, opts.gid_a, opts.batch + 16, opts.pairs, opts.size};
		a.open(opts.dev_a, cfg);
		cfg.gid_index = opts.gid_b;
		b.open(opts.dev_b, cfg);
		pairs.list.reserve(opts.pairs);
		// A's and B's QPs in turn: rxe numbers each device's QPs in
		// sequence, so pair i's QPNs move together.
		for (unsigned i = 0; i < opts.pairs; i++) {
			Pair &p = pairs.list.emplace_back();
			p.a = a.create_qp();
			p.b = b.create_qp();
		}
		for (auto &p : pairs.list) {
			a.connect(p.a, p.b->qp_num, b.gid());
			b.connect(p.b, p.a->qp_num, a.gid());
			rep.connected++;
		}
		rep.setup_seconds = seconds_since(t);
		t = Clock::now();
		for (unsigned start = 0; start < opts.pairs; start += opts.batch) {
			const unsigned end = std::min(opts.pairs, start + opts.batch);
			exchange(opts, a, b, pairs, start, end);
			rep.completed = end;
		}
		rep.traffic_seconds = seconds_since(t);
	} catch (const std::exception &e) {
		err << "roce-qps: error: " << e.what() << " (" << pairs.list.size()
		    << " pairs created, " << rep.connected << " connected, " << rep.completed
		    << " sends completed)\n";
		return 1;
	}
	print_report(opts, a, b, pairs, rep, out);
	return 0;
}

} // namespace roce
