// SPDX-License-Identifier: GPL-2.0
// roce-qps's verbs side: on each device a PD, a CQ and one registered buffer
// with a message slot per pair; QP i of A is taken to RTS against QP i of B
// by hand (QPN, GID, PSN 0), as ibv_rc_pingpong does, and every A QP sends
// one message to its B QP, BATCH of them in flight at once.
#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <infiniband/verbs.h>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "qps.h"

namespace roce
{
namespace
{

using Clock = std::chrono::steady_clock;

struct VerbsError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string &what, int err = errno)
{
	throw VerbsError(what + ": " + std::strerror(err));
}

double seconds_since(Clock::time_point t)
{
	return std::chrono::duration<double>(Clock::now() - t).count();
}

std::string gid_text(const ibv_gid &gid)
{
	char buf[INET6_ADDRSTRLEN] = "?";

	inet_ntop(AF_INET6, gid.raw, buf, sizeof(buf));
	return buf;
}

// One device: context, PD, CQ and a buffer of one SIZE-byte slot per pair.
// open() acquires them; the destructor releases whatever was acquired.
class Device
{
public:
	Device() = default;
	~Device()
	{
		if (mr_)
			ibv_dereg_mr(mr_);
		if (cq_)
			ibv_destroy_cq(cq_);
		if (pd_)
			ibv_dealloc_pd(pd_);
		if (ctx_)
			ibv_close_device(ctx_);
	}
	Device(const Device &) = delete;
	Device &operator=(const Device &) = delete;

	void open(const std::string &name, const QpsOptions &opts, unsigned gid_index)
	{
		int n;
		ibv_device **list = ibv_get_device_list(&n);

		if (!list)
			fail("ibv_get_device_list");
		for (int i = 0; i < n && !ctx_; i++)
			if (name == ibv_get_device_name(list[i])) {
				ctx_ = ibv_open_device(list[i]);
				if (!ctx_) {
					int err = errno;
					ibv_free_device_list(list);
					fail("ibv_open_device " + name, err);
				}
			}
		ibv_free_device_list(list);
		if (!ctx_)
			throw VerbsError("no RDMA device named '" + name + "'");

		name_ = name;
		port_ = static_cast<std::uint8_t>(opts.port);
		gid_index_ = static_cast<std::uint8_t>(gid_index);
		ibv_port_attr pattr{};
		if (int err = ibv_query_port(ctx_, port_, &pattr))
			fail("ibv_query_port " + name + " port " + std::to_string(opts.port), err);
		if (pattr.state != IBV_PORT_ACTIVE)
			throw VerbsError(name + " port " + std::to_string(opts.port) +
			                 " is not active");
		mtu_ = pattr.active_mtu;
		ibv_gid_entry entry{};
		if (int err = ibv_query_gid_ex(ctx_, port_, gid_index, &entry, 0))
			fail(name + " GID index " + std::to_string(gid_index), err);
		if (entry.gid_type != IBV_GID_TYPE_ROCE_V2)
			throw VerbsError(name + " GID index " + std::to_string(gid_index) +
			                 " is not a RoCE v2 GID");
		gid_ = entry.gid;

		pd_ = ibv_alloc_pd(ctx_);
		if (!pd_)
			fail("ibv_alloc_pd " + name);
		cq_ = ibv_create_cq(ctx_, static_cast<int>(opts.batch + 16), nullptr, nullptr, 0);
		if (!cq_)
			fail("ibv_create_cq " + name);
		size_ = opts.size;
		buf_.assign(std::size_t{opts.pairs} * size_, 0);
		mr_ = ibv_reg_mr(pd_, buf_.data(), buf_.size(), IBV_ACCESS_LOCAL_WRITE);
		if (!mr_)
			fail("ibv_reg_mr " + name);
	}

	ibv_qp *create_qp()
	{
		ibv_qp_init_attr attr{};

		attr.send_cq = cq_;
		attr.recv_cq = cq_;
		attr.qp_type = IBV_QPT_RC;
		attr.cap.max_send_wr = 1;
		attr.cap.max_recv_wr = 1;
		attr.cap.max_send_sge = 1;
		attr.cap.max_recv_sge = 1;
		ibv_qp *qp = ibv_create_qp(pd_, &attr);
		if (!qp)
			fail("ibv_create_qp on " + name_);
		return qp;
	}

	// INIT, RTR towards REMOTE_QPN at DGID, RTS.
	void connect(ibv_qp *qp, std::uint32_t remote_qpn, const ibv_gid &dgid)
	{
		ibv_qp_attr attr{};

		attr.qp_state = IBV_QPS_INIT;
		attr.port_num = port_;
		if (int err = ibv_modify_qp(qp, &attr,
		                            IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		                                IBV_QP_ACCESS_FLAGS))
			fail("ibv_modify_qp to INIT", err);

		attr = {};
		attr.qp_state = IBV_QPS_RTR;
		attr.path_mtu = mtu_;
		attr.dest_qp_num = remote_qpn;
		attr.max_dest_rd_atomic = 1;
		attr.min_rnr_timer = 12;
		attr.ah_attr.is_global = 1;
		attr.ah_attr.grh.dgid = dgid;
		attr.ah_attr.grh.sgid_index = gid_index_;
		attr.ah_attr.grh.hop_limit = 64;
		attr.ah_attr.port_num = port_;
		if (int err = ibv_modify_qp(qp, &attr,
		                            IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
		                                IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
		                                IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
			fail("ibv_modify_qp to RTR", err);

		attr = {};
		attr.qp_state = IBV_QPS_RTS;
		attr.timeout = 14;
		attr.retry_cnt = 7;
		attr.rnr_retry = 7;
		attr.max_rd_atomic = 1;
		if (int err = ibv_modify_qp(qp, &attr,
		                            IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
		                                IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN |
		                                IBV_QP_MAX_QP_RD_ATOMIC))
			fail("ibv_modify_qp to RTS", err);
	}

	char *slot(unsigned i)
	{
		return buf_.data() + std::size_t{i} * size_;
	}

	void post_recv(ibv_qp *qp, unsigned i)
	{
		ibv_sge sge{reinterpret_cast<std::uintptr_t>(slot(i)), size_, mr_->lkey};
		ibv_recv_wr wr{}, *bad;

		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (int err = ibv_post_recv(qp, &wr, &bad))
			fail("ibv_post_recv", err);
	}

	void post_send(ibv_qp *qp, unsigned i)
	{
		ibv_sge sge{reinterpret_cast<std::uintptr_t>(slot(i)), size_, mr_->lkey};
		ibv_send_wr wr{}, *bad;

		wr.wr_id = i;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (int err = ibv_post_send(qp, &wr, &bad))
			fail("ibv_post_send", err);
	}

	ibv_cq *cq() const
	{
		return cq_;
	}
	const ibv_gid &gid() const
	{
		return gid_;
	}
	const std::string &name() const
	{
		return name_;
	}

private:
	std::string name_;
	std::uint8_t port_ = 1, gid_index_ = 0;
	ibv_mtu mtu_ = IBV_MTU_1024;
	ibv_gid gid_{};
	ibv_context *ctx_ = nullptr;
	ibv_pd *pd_ = nullptr;
	ibv_cq *cq_ = nullptr;
	ibv_mr *mr_ = nullptr;
	unsigned size_ = 0;
	std::vector<char> buf_;
};

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

void print(const QpsOptions &opts, const Device &a, const Device &b, const Pairs &pairs,
           const Report &rep, std::ostream &out)
{
	const Birthday bd = birthday_distinct(rep.pairs, kSportSlots);
	std::set<std::uint16_t> ports;
	nlohmann::json list = nlohmann::json::array();

	for (const auto &p : pairs.list) {
		nlohmann::json j = {{"qpn_a", p.a->qp_num}, {"qpn_b", p.b->qp_num}};
		if (opts.policy) {
			const auto fl = flow_label(*opts.policy, 0, p.a->qp_num, p.b->qp_num);
			ports.insert(udp_sport(fl));
			j["flow_label"] = fl;
			j["udp_sport"] = udp_sport(fl);
		}
		list.push_back(j);
	}
	if (opts.json) {
		nlohmann::json j = {
		    {"dev_a", a.name()},
		    {"dev_b", b.name()},
		    {"gid_a", gid_text(a.gid())},
		    {"gid_b", gid_text(b.gid())},
		    {"pairs", rep.pairs},
		    {"completed", rep.completed},
		    {"policy", nullptr},
		    {"predicted_distinct_udp_sports", nullptr},
		    {"birthday", {{"slots", kSportSlots}, {"mean", bd.mean}, {"sd", bd.sd}}},
		    {"setup_seconds", rep.setup_seconds},
		    {"traffic_seconds", rep.traffic_seconds},
		    {"connections", list}};
		if (opts.policy) {
			j["policy"] = policy_name(*opts.policy);
			j["predicted_distinct_udp_sports"] = ports.size();
		}
		out << j << '\n';
		return;
	}
	char line[200];
	std::snprintf(line, sizeof(line),
	              "roce-qps: %u RC QP pairs %s (%s) -> %s (%s): %u sends completed\n"
	              "  setup %.1f s, traffic %.1f s\n",
	              rep.pairs, a.name().c_str(), gid_text(a.gid()).c_str(), b.name().c_str(),
	              gid_text(b.gid()).c_str(), rep.completed, rep.setup_seconds,
	              rep.traffic_seconds);
	out << line;
	if (!pairs.list.empty()) {
		std::snprintf(line, sizeof(line), "  QPNs on A 0x%06x-0x%06x, on B 0x%06x-0x%06x\n",
		              pairs.list.front().a->qp_num, pairs.list.back().a->qp_num,
		              pairs.list.front().b->qp_num, pairs.list.back().b->qp_num);
		out << line;
	}
	if (opts.policy) {
		std::snprintf(
		    line, sizeof(line),
		    "  %s predicts %zu distinct UDP source ports; random ports would give "
		    "%.1f (sd %.1f)\n",
		    std::string(policy_name(*opts.policy)).c_str(), ports.size(), bd.mean, bd.sd);
		out << line;
	}
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
		a.open(opts.dev_a, opts, opts.gid_a);
		b.open(opts.dev_b, opts, opts.gid_b);
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
	print(opts, a, b, pairs, rep, out);
	return 0;
}

} // namespace roce
