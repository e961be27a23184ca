// SPDX-License-Identifier: GPL-2.0
// roce-qps's verbs side: on each device a PD, a CQ and one registered buffer
// with a send and a receive slot per pair (lib/verbs/device.h); QP i of A is
// taken to RTS against QP i of B by hand (RC), or both to RTS with an
// address handle to the other (UD).  Every A QP sends its messages to its B
// QP, BATCH pairs at once; with round trips B answers each message.
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

// A UD receive starts with the 40 bytes of the packet's GRH.
constexpr unsigned kGrh = 40;

double seconds_since(Clock::time_point t)
{
	return std::chrono::duration<double>(Clock::now() - t).count();
}

struct Pair {
	ibv_qp *a = nullptr, *b = nullptr;
	ibv_ah *ah_a = nullptr, *ah_b = nullptr; // UD: A's to B, B's to A
};

// The pairs; destroyed before the devices they live on.
class Pairs
{
public:
	~Pairs()
	{
		for (auto &p : list) {
			for (ibv_ah *ah : {p.ah_a, p.ah_b})
				if (ah)
					ibv_destroy_ah(ah);
			for (ibv_qp *qp : {p.a, p.b})
				if (qp)
					ibv_destroy_qp(qp);
		}
	}

	std::vector<Pair> list;
};

// Pair I's slots in each device's buffer.
unsigned send_slot(unsigned i)
{
	return 2 * i;
}

unsigned recv_slot(unsigned i)
{
	return 2 * i + 1;
}

// Message ROUND of pair I: the pair's index, then bytes that depend on both.
void fill_message(char *buf, unsigned size, unsigned i, unsigned round)
{
	std::memcpy(buf, &i, sizeof(i));
	for (unsigned k = sizeof(i); k < size; k++)
		buf[k] = static_cast<char>((i + k + 7 * round) & 0xff);
}

bool message_ok(const char *buf, unsigned size, unsigned i, unsigned round)
{
	std::vector<char> want(size);

	fill_message(want.data(), size, i, round);
	return std::memcmp(buf, want.data(), size) == 0;
}

// Where a pair is: A's round and what of it completed, B's answers.
struct PairState {
	unsigned a_round = 0;
	bool a_sent = false, a_answered = false;
	unsigned b_round = 0;   // messages B received (no answers) or answered
	bool b_busy = false;    // B's answer not completed yet
	bool b_waiting = false; // a message B must answer once it is
	bool done = false;
};

// The pairs [START, END) exchanging their messages.
class Exchange
{
public:
	Exchange(const QpsOptions &opts, Device &a, Device &b, Pairs &pairs, unsigned start,
	         unsigned end)
	    : opts_(opts), a_(a), b_(b), pairs_(pairs), start_(start), end_(end),
	      rounds_(std::max(1u, opts.round_trips)), state_(end - start), pending_(end - start)
	{
	}

	void run();

private:
	unsigned recv_len() const
	{
		return opts_.size + (opts_.ud ? kGrh : 0);
	}
	const char *payload(Device &d, unsigned i)
	{
		return d.slot(recv_slot(i)) + (opts_.ud ? kGrh : 0);
	}
	void a_send(unsigned i);
	void b_answer(unsigned i);
	void completion(Device &dev, const ibv_wc &wc);
	void check_done(unsigned i);

	const QpsOptions &opts_;
	Device &a_, &b_;
	Pairs &pairs_;
	unsigned start_, end_, rounds_;
	std::vector<PairState> state_;
	unsigned pending_;
};

// A's message of its current round, after the receive for its answer.
void Exchange::a_send(unsigned i)
{
	const Pair &p = pairs_.list[i];

	if (opts_.round_trips)
		a_.post_recv(p.a, recv_slot(i), i, recv_len());
	fill_message(a_.slot(send_slot(i)), opts_.size, i, state_[i - start_].a_round);
	a_.post_send(p.a, send_slot(i), i, opts_.size, p.ah_a, p.b->qp_num);
}

// B's answer: the message it received, sent back; the receive for the next
// one is posted first.
void Exchange::b_answer(unsigned i)
{
	const Pair &p = pairs_.list[i];
	PairState &st = state_[i - start_];

	std::memcpy(b_.slot(send_slot(i)), payload(b_, i), opts_.size);
	if (++st.b_round < rounds_)
		b_.post_recv(p.b, recv_slot(i), i, recv_len());
	b_.post_send(p.b, send_slot(i), i, opts_.size, p.ah_b, p.a->qp_num);
	st.b_busy = true;
}

void Exchange::check_done(unsigned i)
{
	PairState &st = state_[i - start_];

	if (!st.done && st.a_round == rounds_ && st.b_round == rounds_ && !st.b_busy) {
		st.done = true;
		pending_--;
	}
}

void Exchange::completion(Device &dev, const ibv_wc &wc)
{
	const auto i = static_cast<unsigned>(wc.wr_id);
	const bool on_a = &dev == &a_, recv = wc.opcode & IBV_WC_RECV;
	const std::string what = std::string(on_a ? "A's " : "B's ") + (recv ? "receive" : "send");

	if (wc.status != IBV_WC_SUCCESS)
		throw VerbsError("pair " + std::to_string(i) + ": " + what +
		                 " failed: " + ibv_wc_status_str(wc.status));
	if (i < start_ || i >= end_ || state_[i - start_].done)
		throw VerbsError("unexpected completion for pair " + std::to_string(i) + " on " +
		                 dev.name());
	PairState &st = state_[i - start_];
	if (recv) {
		const unsigned round = on_a ? st.a_round : st.b_round;
		if ((on_a && !opts_.round_trips) || round >= rounds_ ||
		    (on_a ? st.a_answered : st.b_waiting))
			throw VerbsError("pair " + std::to_string(i) + ": " + what +
			                 " not expected");
		if (wc.byte_len != recv_len() || !message_ok(payload(dev, i), opts_.size, i, round))
			throw VerbsError("pair " + std::to_string(i) + ": message " +
			                 std::to_string(round) + " arrived corrupted at " +
			                 (on_a ? "A" : "B"));
		if (on_a)
			st.a_answered = true;
		else if (!opts_.round_trips)
			st.b_round++;
		else if (st.b_busy)
			st.b_waiting = true;
		else
			b_answer(i);
	} else if (on_a) {
		st.a_sent = true;
	} else {
		st.b_busy = false;
		if (st.b_waiting) {
			st.b_waiting = false;
			b_answer(i);
		}
	}
	// A's round is over when its send completed and, with round trips,
	// the answer arrived.
	if (on_a && st.a_sent && (st.a_answered || !opts_.round_trips)) {
		st.a_sent = st.a_answered = false;
		if (++st.a_round < rounds_)
			a_send(i);
	}
	check_done(i);
}

void Exchange::run()
{
	auto last_progress = Clock::now();
	ibv_wc wc[64];

	for (unsigned i = start_; i < end_; i++)
		b_.post_recv(pairs_.list[i].b, recv_slot(i), i, recv_len());
	for (unsigned i = start_; i < end_; i++)
		a_send(i);
	while (pending_) {
		bool progress = false;

		for (Device *dev : {&a_, &b_}) {
			const int n = ibv_poll_cq(dev->cq(), 64, wc);
			if (n < 0)
				fail("ibv_poll_cq " + dev->name(), -n);
			for (int k = 0; k < n; k++)
				completion(*dev, wc[k]);
			progress |= n > 0;
		}
		if (progress) {
			last_progress = Clock::now();
		} else if (seconds_since(last_progress) > opts_.timeout) {
			throw VerbsError(std::to_string(pending_) + " of pairs " +
			                 std::to_string(start_) + "-" + std::to_string(end_ - 1) +
			                 " unfinished after " + std::to_string(opts_.timeout) +
			                 " s without a completion");
		} else {
			std::this_thread::sleep_for(std::chrono::microseconds(200));
		}
	}
}

struct Report {
	unsigned pairs = 0, connected = 0, completed = 0;
	double setup_seconds = 0, traffic_seconds = 0;
};

// The UDP source ports of pair P's packets under POLICY: A to B, B to A.
// Stock 6.12 rxe (builtin) sends UD from each QP's own port.
std::pair<std::uint16_t, std::uint16_t> pair_sports(const QpsOptions &opts, Policy policy,
                                                    std::uint32_t qpn_a, std::uint32_t qpn_b)
{
	if (opts.ud && policy == Policy::Builtin)
		return {linux_rxe_ud(qpn_a).udp_sport, linux_rxe_ud(qpn_b).udp_sport};
	const auto fl =
	    opts.ud ? ud_flow_label(policy, 0, qpn_a, qpn_b) : flow_label(policy, 0, qpn_a, qpn_b);
	return {udp_sport(fl), udp_sport(fl)};
}

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
			const auto fl =
			    opts.ud ? ud_flow_label(*opts.policy, 0, p.a->qp_num, p.b->qp_num)
			            : flow_label(*opts.policy, 0, p.a->qp_num, p.b->qp_num);
			const auto [fwd, rev] =
			    pair_sports(opts, *opts.policy, p.a->qp_num, p.b->qp_num);
			ports.insert(fwd);
			ports.insert(rev);
			r.add_json("flow_label", fl)
			    .add_json("udp_sport", fwd)
			    .add_json("udp_sport_reverse", rev);
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
	const char *transport = opts.ud ? "UD" : "RC";
	Record r;

	r.add_json("dev_a", a.name())
	    .add_json("dev_b", b.name())
	    .add_json("gid_a", gid_text(a.gid()))
	    .add_json("gid_b", gid_text(b.gid()))
	    .add_json("transport", transport)
	    .add_json("round_trips", opts.round_trips)
	    .add_json("pairs", rep.pairs)
	    .add_json("completed", rep.completed)
	    .add_json("policy", opts.policy ? nlohmann::json(policy_name(*opts.policy)) : nullptr)
	    .add_json("predicted_distinct_udp_sports",
	              opts.policy ? nlohmann::json(ports.size()) : nullptr)
	    .add_json("birthday", {{"slots", kSportSlots}, {"mean", bd.mean}, {"sd", bd.sd}})
	    .add_json("setup_seconds", rep.setup_seconds)
	    .add_json("traffic_seconds", rep.traffic_seconds)
	    .add("connections", list)
	    .add_text(format("roce-qps: %u %s QP pairs %s (%s) -> %s (%s): %u pairs completed "
	                     "%s\n  setup %.1f s, traffic %.1f s\n",
	                     rep.pairs, transport, a.name().c_str(), gid_text(a.gid()).c_str(),
	                     b.name().c_str(), gid_text(b.gid()).c_str(), rep.completed,
	                     opts.round_trips
	                         ? format("%u round trips each", opts.round_trips).c_str()
	                         : "one send each",
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
	const ibv_qp_type type = opts.ud ? IBV_QPT_UD : IBV_QPT_RC;

	rep.pairs = opts.pairs;
	try {
		auto t = Clock::now();
		// Two slots per pair, room for a UD receive's GRH in each.
		DeviceConfig cfg{opts.port, opts.gid_a, 4 * opts.batch + 16, 2 * opts.pairs,
		                 opts.size + kGrh};
		a.open(opts.dev_a, cfg);
		cfg.gid_index = opts.gid_b;
		b.open(opts.dev_b, cfg);
		if (opts.ud && opts.size > std::min(a.mtu_bytes(), b.mtu_bytes()))
			throw VerbsError("a UD message of " + std::to_string(opts.size) +
			                 " bytes does not fit the path MTU of " +
			                 std::to_string(std::min(a.mtu_bytes(), b.mtu_bytes())));
		pairs.list.reserve(opts.pairs);
		// A's and B's QPs in turn: rxe numbers each device's QPs in
		// sequence, so pair i's QPNs move together.
		for (unsigned i = 0; i < opts.pairs; i++) {
			Pair &p = pairs.list.emplace_back();
			p.a = a.create_qp(type);
			p.b = b.create_qp(type);
		}
		for (auto &p : pairs.list) {
			if (opts.ud) {
				a.ready_ud(p.a);
				b.ready_ud(p.b);
				p.ah_a = a.create_ah(b.gid());
				p.ah_b = b.create_ah(a.gid());
			} else {
				a.connect(p.a, p.b->qp_num, b.gid());
				b.connect(p.b, p.a->qp_num, a.gid());
			}
			rep.connected++;
		}
		rep.setup_seconds = seconds_since(t);
		t = Clock::now();
		for (unsigned start = 0; start < opts.pairs; start += opts.batch) {
			const unsigned end = std::min(opts.pairs, start + opts.batch);
			Exchange(opts, a, b, pairs, start, end).run();
			rep.completed = end;
		}
		rep.traffic_seconds = seconds_since(t);
	} catch (const std::exception &e) {
		err << "roce-qps: error: " << e.what() << " (" << pairs.list.size()
		    << " pairs created, " << rep.connected << " connected, " << rep.completed
		    << " completed)\n";
		return 1;
	}
	print_report(opts, a, b, pairs, rep, out);
	return 0;
}

} // namespace roce
