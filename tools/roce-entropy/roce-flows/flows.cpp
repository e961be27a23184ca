// SPDX-License-Identifier: GPL-2.0
// roce-flows's verbs side.  Each address names a host: the device whose
// port 1 has it as a RoCE v2 GID, with a PD, one CQ for the WRITEs it
// sends, and one buffer that its WRITEs read and its peers' WRITEs land in
// (the bytes are not checked: what is measured is when they arrive).  The
// QP pairs are connected by QPN (connect_qpns) or by rdma_cm (CmConnector),
// then every QP starts its WRITEs at once and the CQs are polled, with a
// nap when empty so that rxe's own work keeps the CPUs.
#include <algorithm>
#include <arpa/inet.h>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <poll.h>
#include <thread>

#include "flows.h"
#include "output/record.h"
#include "verbs/cm.h"
#include "verbs/device.h"

namespace roce
{
namespace
{

using Clock = std::chrono::steady_clock;

double seconds_between(Clock::time_point from, Clock::time_point to)
{
	return std::chrono::duration<double>(to - from).count();
}

// One device, the end of flows at one of its addresses.
struct Host {
	ibv_context *ctx = nullptr;
	std::string name;
	ibv_mtu mtu = IBV_MTU_1024;
	ibv_pd *pd = nullptr;
	ibv_cq *cq = nullptr;
	ibv_mr *mr = nullptr;
	std::vector<char> buf;
	unsigned sends = 0; // WRITEs this host may have in flight, its CQ's depth

	~Host()
	{
		if (mr)
			ibv_dereg_mr(mr);
		if (cq)
			ibv_destroy_cq(cq);
		if (pd)
			ibv_dealloc_pd(pd);
	}
};

// A flow's end: its address, as a socket address and as a GID.
struct End {
	Host *host = nullptr;
	std::uint8_t gid_index = 0;
	ibv_gid gid{};
	sockaddr_storage addr{};
};

struct Flow {
	End src, dst;
	unsigned left = 0; // QPs not finished
	double seconds = 0;
	double longest_gap = 0; // seconds between two completions of a QP
	std::string failed;     // the first error completion's status
};

// QP pair INDEX: the sending and the receiving QP (with their rdma_cm ids
// under --cm), and its share of the flow.
struct Pair {
	unsigned flow = 0;
	QpShare share;
	ibv_qp *src = nullptr, *dst = nullptr;
	rdma_cm_id *src_id = nullptr, *dst_id = nullptr;
	bool src_up = false, dst_up = false; // ESTABLISHED on each side
	std::uint64_t posted = 0, completed = 0;
	Clock::time_point last; // its last completion, or the start
	bool failed = false;
};

// ADDR as a socket address (port 0) and as the GID a RoCE v2 device has
// for it: an IPv6 address, or an IPv4 one mapped (::ffff:a.b.c.d).
void parse_addr(const std::string &addr, sockaddr_storage &sa, ibv_gid &gid)
{
	gid = {};
	sa = {};
	auto *sin = reinterpret_cast<sockaddr_in *>(&sa);
	auto *sin6 = reinterpret_cast<sockaddr_in6 *>(&sa);
	if (inet_pton(AF_INET, addr.c_str(), &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		gid.raw[10] = gid.raw[11] = 0xff;
		std::memcpy(gid.raw + 12, &sin->sin_addr, 4);
	} else if (inet_pton(AF_INET6, addr.c_str(), &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		std::memcpy(gid.raw, &sin6->sin6_addr, 16);
	} else {
		throw VerbsError(addr + " is not an address");
	}
}

void set_port(sockaddr_storage &sa, unsigned port)
{
	const auto p = htons(static_cast<std::uint16_t>(port));

	if (sa.ss_family == AF_INET)
		reinterpret_cast<sockaddr_in *>(&sa)->sin_port = p;
	else
		reinterpret_cast<sockaddr_in6 *>(&sa)->sin6_port = p;
}

class Bench
{
public:
	explicit Bench(const FlowsOptions &opts) : opts_(opts)
	{
	}
	~Bench();
	Bench(const Bench &) = delete;
	Bench &operator=(const Bench &) = delete;

	void setup();
	void connect_qpns();
	void connect_cm();
	void run();
	void report(std::ostream &out) const;
	void note_setup(double seconds)
	{
		setup_seconds_ = seconds;
	}

	unsigned connected() const;
	unsigned finished() const;

private:
	End find_end(const std::string &addr);
	void open_host(Host &h);
	ibv_qp_init_attr qp_attr(Host &h, bool sender) const;
	void post(Pair &p);
	// rdma_cm
	void cm_start(rdma_event_channel *ch, unsigned i);
	void cm_event(rdma_cm_event *ev);
	void cm_create_qp(rdma_cm_id *id, unsigned i, bool sender);

	const FlowsOptions &opts_;
	ibv_context **devices_ = nullptr;
	int ndevices_ = 0;
	std::map<ibv_context *, std::unique_ptr<Host>> hosts_;
	std::vector<Flow> flows_;
	std::vector<Pair> pairs_;
	std::vector<rdma_cm_id *> listeners_;
	std::unique_ptr<EventChannel> channel_;
	unsigned cm_up_ = 0;
	Clock::time_point last_progress_;
	double setup_seconds_ = 0, job_seconds_ = 0;
};

Bench::~Bench()
{
	for (auto &p : pairs_) {
		for (rdma_cm_id *id : {p.src_id, p.dst_id})
			if (id) {
				if (id->qp)
					rdma_destroy_qp(id);
				rdma_destroy_id(id);
			}
		for (ibv_qp *qp : {p.src, p.dst})
			if (qp && !p.src_id && !p.dst_id)
				ibv_destroy_qp(qp);
	}
	for (rdma_cm_id *id : listeners_)
		rdma_destroy_id(id);
	hosts_.clear();
	channel_.reset();
	if (devices_)
		rdma_free_devices(devices_);
}

// The device whose port 1 has ADDR as a RoCE v2 GID.
End Bench::find_end(const std::string &addr)
{
	End e;

	parse_addr(addr, e.addr, e.gid);
	for (int d = 0; d < ndevices_; d++) {
		ibv_context *ctx = devices_[d];
		ibv_port_attr pattr{};
		if (ibv_query_port(ctx, 1, &pattr) || pattr.state != IBV_PORT_ACTIVE)
			continue;
		for (int i = 0; i < pattr.gid_tbl_len && i < 256; i++) {
			ibv_gid_entry entry{};
			if (ibv_query_gid_ex(ctx, 1, static_cast<std::uint32_t>(i), &entry, 0) ||
			    entry.gid_type != IBV_GID_TYPE_ROCE_V2 ||
			    std::memcmp(entry.gid.raw, e.gid.raw, 16))
				continue;
			auto &h = hosts_[ctx];
			if (!h) {
				h = std::make_unique<Host>();
				h->ctx = ctx;
				h->name = ibv_get_device_name(ctx->device);
				h->mtu = pattr.active_mtu;
			}
			e.host = h.get();
			e.gid_index = static_cast<std::uint8_t>(i);
			return e;
		}
	}
	throw VerbsError("no active RDMA device has " + addr + " as a RoCE v2 GID");
}

void Bench::open_host(Host &h)
{
	h.pd = ibv_alloc_pd(h.ctx);
	if (!h.pd)
		fail("ibv_alloc_pd " + h.name);
	h.cq = ibv_create_cq(h.ctx, static_cast<int>(h.sends + 16), nullptr, nullptr, 0);
	if (!h.cq)
		fail("ibv_create_cq " + h.name);
	h.buf.assign(opts_.message, 0);
	h.mr = ibv_reg_mr(h.pd, h.buf.data(), h.buf.size(),
	                  IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!h.mr)
		fail("ibv_reg_mr " + h.name);
}

// The flows' ends, their hosts opened, the pairs laid out.
void Bench::setup()
{
	devices_ = rdma_get_devices(&ndevices_);
	if (!devices_)
		fail("rdma_get_devices");
	for (unsigned f = 0; f < opts_.flows.size(); f++) {
		Flow flow;
		flow.src = find_end(opts_.flows[f].src);
		flow.dst = find_end(opts_.flows[f].dst);
		if (flow.src.host == flow.dst.host)
			throw VerbsError("flow " + opts_.flows[f].src + "," + opts_.flows[f].dst +
			                 ": both ends on " + flow.src.host->name);
		flow.left = opts_.qps;
		flow.src.host->sends += opts_.qps * opts_.depth;
		flows_.push_back(flow);
		for (unsigned q = 0; q < opts_.qps; q++) {
			Pair p;
			p.flow = f;
			p.share = qp_share(opts_.bytes, opts_.qps, q, opts_.message);
			if (!p.share.writes)
				flows_[f].left--;
			pairs_.push_back(p);
		}
	}
	for (auto &[ctx, h] : hosts_)
		open_host(*h);
}

ibv_qp_init_attr Bench::qp_attr(Host &h, bool sender) const
{
	return qp_init_attr(h.cq, IBV_QPT_RC, sender ? opts_.depth : 1, 1);
}

// Both QPs of every pair created, then each connected to the other by
// hand: the flow label stays 0, as NCCL leaves it.
void Bench::connect_qpns()
{
	for (auto &p : pairs_) {
		Flow &f = flows_[p.flow];
		for (bool sender : {true, false}) {
			Host &h = *(sender ? f.src : f.dst).host;
			ibv_qp_init_attr attr = qp_attr(h, sender);
			ibv_qp *qp = ibv_create_qp(h.pd, &attr);
			if (!qp)
				fail("ibv_create_qp on " + h.name);
			(sender ? p.src : p.dst) = qp;
		}
	}
	for (auto &p : pairs_) {
		const Flow &f = flows_[p.flow];
		for (bool sender : {true, false}) {
			const End &self = sender ? f.src : f.dst, &peer = sender ? f.dst : f.src;
			RcPath path;
			path.mtu = std::min(self.host->mtu, peer.host->mtu);
			path.sgid_index = self.gid_index;
			path.remote_qpn = (sender ? p.dst : p.src)->qp_num;
			path.dgid = peer.gid;
			path.access = sender ? 0 : IBV_ACCESS_REMOTE_WRITE;
			path.ack_timeout = static_cast<std::uint8_t>(opts_.ack_timeout);
			path.retry_count = static_cast<std::uint8_t>(opts_.retry_count);
			connect_rc(sender ? p.src : p.dst, path);
		}
		p.src_up = p.dst_up = true;
	}
}

// A listener on every destination address at --cm-port; every pair's
// active side resolves, connects with its index as private data, and the
// passive side accepts.  At most kCmInFlight pairs connect at once.
constexpr unsigned kCmInFlight = 32;

void Bench::cm_start(rdma_event_channel *ch, unsigned i)
{
	const Flow &f = flows_[pairs_[i].flow];
	sockaddr_storage dst = f.dst.addr;
	rdma_cm_id *id;

	set_port(dst, opts_.cm_port);
	if (rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP))
		fail("rdma_create_id");
	pairs_[i].src_id = id;
	id->context = &pairs_[i];
	std::uint8_t timeout = static_cast<std::uint8_t>(opts_.ack_timeout);
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout,
	                    sizeof(timeout)))
		fail("rdma_set_option ACK timeout");
	sockaddr_storage src = f.src.addr;
	if (rdma_resolve_addr(id, reinterpret_cast<sockaddr *>(&src),
	                      reinterpret_cast<sockaddr *>(&dst), 5000))
		fail("rdma_resolve_addr");
}

void Bench::cm_create_qp(rdma_cm_id *id, unsigned i, bool sender)
{
	auto it = hosts_.find(id->verbs);
	if (it == hosts_.end())
		throw VerbsError("rdma_cm chose a device no flow names");
	ibv_qp_init_attr attr = qp_attr(*it->second, sender);
	if (rdma_create_qp(id, it->second->pd, &attr))
		fail("rdma_create_qp");
	(sender ? pairs_[i].src : pairs_[i].dst) = id->qp;
}

void Bench::cm_event(rdma_cm_event *ev)
{
	rdma_cm_id *id = ev->id;
	rdma_conn_param param{};
	const auto event = ev->event;
	const int status = ev->status;

	param.retry_count = static_cast<std::uint8_t>(opts_.retry_count);
	param.rnr_retry_count = 7;
	if (event == RDMA_CM_EVENT_CONNECT_REQUEST) {
		std::uint32_t index = 0;
		if (!ev->param.conn.private_data || ev->param.conn.private_data_len < sizeof(index))
			throw VerbsError("a connection request without a pair's index");
		std::memcpy(&index, ev->param.conn.private_data, sizeof(index));
		if (index >= pairs_.size() || pairs_[index].dst_id)
			throw VerbsError("a connection request for pair " + std::to_string(index) +
			                 ", not one waiting");
		Pair &p = pairs_[index];
		p.dst_id = id;
		id->context = &p;
		std::uint8_t timeout = static_cast<std::uint8_t>(opts_.ack_timeout);
		if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout,
		                    sizeof(timeout)))
			fail("rdma_set_option ACK timeout");
		cm_create_qp(id, index, false);
		if (rdma_accept(id, &param))
			fail("rdma_accept");
		return;
	}
	auto *p = static_cast<Pair *>(id->context);
	if (!p)
		throw VerbsError(std::string("a listener got ") + rdma_event_str(event));
	const auto index = static_cast<std::uint32_t>(p - pairs_.data());
	switch (event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		if (rdma_resolve_route(id, 5000))
			fail("rdma_resolve_route");
		break;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		cm_create_qp(id, index, true);
		param.private_data = &index;
		param.private_data_len = sizeof(index);
		if (rdma_connect(id, &param))
			fail("rdma_connect");
		break;
	case RDMA_CM_EVENT_ESTABLISHED:
		(id == p->src_id ? p->src_up : p->dst_up) = true;
		cm_up_ += p->src_up && p->dst_up;
		break;
	default:
		throw VerbsError("pair " + std::to_string(index) + ": " + rdma_event_str(event) +
		                 " (status " + std::to_string(status) + ")");
	}
}

void Bench::connect_cm()
{
	channel_ = std::make_unique<EventChannel>();
	rdma_event_channel *ch = channel_->ch;
	std::map<std::string, bool> listening;

	for (unsigned i = 0; i < opts_.flows.size(); i++) {
		if (listening[opts_.flows[i].dst])
			continue;
		listening[opts_.flows[i].dst] = true;
		sockaddr_storage addr = flows_[i].dst.addr;
		rdma_cm_id *id;
		set_port(addr, opts_.cm_port);
		if (rdma_create_id(ch, &id, nullptr, RDMA_PS_TCP))
			fail("rdma_create_id");
		listeners_.push_back(id);
		if (rdma_bind_addr(id, reinterpret_cast<sockaddr *>(&addr)))
			fail("rdma_bind_addr " + opts_.flows[i].dst);
		if (rdma_listen(id, 1024))
			fail("rdma_listen " + opts_.flows[i].dst);
	}
	unsigned started = 0;
	while (cm_up_ < pairs_.size()) {
		while (started < pairs_.size() && started < cm_up_ + kCmInFlight)
			cm_start(ch, started++);
		pollfd pfd{ch->fd, POLLIN, 0};
		const int n = poll(&pfd, 1, static_cast<int>(opts_.timeout * 1000));
		if (n < 0)
			fail("poll");
		if (n == 0)
			throw VerbsError(std::to_string(pairs_.size() - cm_up_) +
			                 " connections not established after " +
			                 std::to_string(opts_.timeout) + " s");
		rdma_cm_event *ev;
		if (rdma_get_cm_event(ch, &ev))
			fail("rdma_get_cm_event");
		try {
			cm_event(ev);
		} catch (...) {
			rdma_ack_cm_event(ev);
			throw;
		}
		rdma_ack_cm_event(ev);
	}
}

// The pair's next WRITE: the rest of its share, a message at most.
void Bench::post(Pair &p)
{
	const Flow &f = flows_[p.flow];
	const std::uint64_t offset = p.posted * opts_.message;
	const auto len = static_cast<std::uint32_t>(
	    std::min<std::uint64_t>(opts_.message, p.share.bytes - offset));
	ibv_sge sge{reinterpret_cast<std::uintptr_t>(f.src.host->buf.data()), len,
	            f.src.host->mr->lkey};
	ibv_send_wr wr{}, *bad;

	wr.wr_id = static_cast<std::uint64_t>(&p - pairs_.data());
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = reinterpret_cast<std::uintptr_t>(f.dst.host->buf.data());
	wr.wr.rdma.rkey = f.dst.host->mr->rkey;
	if (int err = ibv_post_send(p.src, &wr, &bad))
		fail("ibv_post_send", err);
	p.posted++;
}

void Bench::run()
{
	const auto start = Clock::now();
	unsigned left = 0;
	ibv_wc wc[64];

	for (auto &f : flows_)
		if (f.left)
			left++;
	for (auto &p : pairs_) {
		p.last = start;
		while (p.posted < p.share.writes && p.posted < opts_.depth)
			post(p);
	}
	last_progress_ = start;
	while (left) {
		bool progress = false;

		for (auto &[ctx, h] : hosts_) {
			if (!h->sends)
				continue;
			const int n = ibv_poll_cq(h->cq, 64, wc);
			if (n < 0)
				fail("ibv_poll_cq " + h->name, -n);
			const auto now = Clock::now();
			for (int k = 0; k < n; k++) {
				if (wc[k].wr_id >= pairs_.size())
					throw VerbsError("a completion of no pair on " + h->name);
				Pair &p = pairs_[wc[k].wr_id];
				Flow &f = flows_[p.flow];
				if (p.failed)
					continue; // the flushes after its error
				f.longest_gap =
				    std::max(f.longest_gap, seconds_between(p.last, now));
				p.last = now;
				if (wc[k].status != IBV_WC_SUCCESS) {
					const std::string status = ibv_wc_status_str(wc[k].status);
					if (!opts_.keep_going)
						throw VerbsError("flow " + std::to_string(p.flow) +
						                 ": " + status);
					p.failed = true;
					if (f.failed.empty())
						f.failed = status;
					if (!--f.left) {
						f.seconds = seconds_between(start, now);
						left--;
					}
					continue;
				}
				if (++p.completed < p.share.writes) {
					if (p.posted < p.share.writes)
						post(p);
				} else if (!--f.left) {
					f.seconds = seconds_between(start, now);
					left--;
				}
			}
			progress |= n > 0;
		}
		const auto now = Clock::now();
		if (progress) {
			last_progress_ = now;
		} else if (seconds_between(last_progress_, now) > opts_.timeout) {
			throw VerbsError(std::to_string(left) + " flows unfinished after " +
			                 std::to_string(opts_.timeout) + " s without a completion");
		} else {
			std::this_thread::sleep_for(std::chrono::microseconds(200));
		}
	}
	job_seconds_ = seconds_between(start, Clock::now());
	for (const auto &f : flows_)
		job_seconds_ = std::max(job_seconds_, f.seconds);
}

unsigned Bench::connected() const
{
	return static_cast<unsigned>(std::count_if(
	    pairs_.begin(), pairs_.end(), [](const Pair &p) { return p.src_up && p.dst_up; }));
}

unsigned Bench::finished() const
{
	return static_cast<unsigned>(std::count_if(flows_.begin(), flows_.end(), [](const Flow &f) {
		return !f.left && f.failed.empty();
	}));
}

void Bench::report(std::ostream &out) const
{
	std::vector<Record> flows;
	double longest = 0;

	for (unsigned f = 0; f < flows_.size(); f++) {
		const Flow &flow = flows_[f];
		std::vector<Record> qps;
		for (const auto &p : pairs_) {
			if (p.flow != f)
				continue;
			Record q;
			q.add_json("qpn", p.src->qp_num).add_json("remote_qpn", p.dst->qp_num);
			if (p.src_id)
				q.add_json("cm_sport", ntohs(rdma_get_src_port(p.src_id)))
				    .add_json("cm_dport", ntohs(rdma_get_dst_port(p.src_id)));
			qps.push_back(std::move(q));
		}
		longest = std::max(longest, flow.seconds);
		Record r;
		r.add_json("src", opts_.flows[f].src)
		    .add_json("dst", opts_.flows[f].dst)
		    .add_json("src_dev", flow.src.host->name)
		    .add_json("dst_dev", flow.dst.host->name)
		    .add_json("seconds", flow.seconds)
		    .add_json("longest_gap_seconds", flow.longest_gap)
		    .add_json("status", flow.failed.empty() ? "ok" : flow.failed)
		    .add("qps", qps)
		    .add_text(format("  %s (%s) -> %s (%s): %s after %.3f s, longest gap %.3f s\n",
		                     opts_.flows[f].src.c_str(), flow.src.host->name.c_str(),
		                     opts_.flows[f].dst.c_str(), flow.dst.host->name.c_str(),
		                     flow.failed.empty() ? "done" : flow.failed.c_str(),
		                     flow.seconds, flow.longest_gap));
		flows.push_back(std::move(r));
	}
	Record r;
	r.add_json("connect", opts_.cm ? "rdma_cm" : "qpn")
	    .add_json("qps_per_flow", opts_.qps)
	    .add_json("bytes_per_flow", opts_.bytes)
	    .add_json("message", opts_.message)
	    .add_json("depth", opts_.depth)
	    .add_json("setup_seconds", setup_seconds_)
	    .add_json("job_seconds", job_seconds_)
	    .add_json("failed", flows_.size() - finished())
	    .add_text(format("roce-flows: %zu flows of %u %s QPs, %llu bytes each: the last "
	                     "done after %.3f s; %zu failed\n",
	                     flows_.size(), opts_.qps, opts_.cm ? "rdma_cm" : "QPN-connected",
	                     static_cast<unsigned long long>(opts_.bytes), longest,
	                     flows_.size() - finished()))
	    .add("flows", flows);
	print(r, opts_.json, out);
}

} // namespace

int run_flows(const FlowsOptions &opts, std::ostream &out, std::ostream &err)
{
	Bench bench(opts);

	try {
		const auto start = Clock::now();
		bench.setup();
		if (opts.cm)
			bench.connect_cm();
		else
			bench.connect_qpns();
		bench.note_setup(seconds_between(start, Clock::now()));
		if (!opts.started.empty() && !std::ofstream(opts.started))
			throw VerbsError("cannot make " + opts.started);
		bench.run();
	} catch (const std::exception &e) {
		err << "roce-flows: error: " << e.what() << " (" << bench.connected()
		    << " QP pairs connected, " << bench.finished() << " flows finished)\n";
		return 1;
	}
	bench.report(out);
	return bench.finished() == opts.flows.size() ? 0 : 1;
}

} // namespace roce
