// SPDX-License-Identifier: GPL-2.0
// roce-ping's RDMA side: librdmacm for the connections, one CQ with a
// completion channel for all of them, poll(2) on both channels.
#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <poll.h>
#include <rdma/rdma_cma.h>
#include <stdexcept>
#include <sys/mman.h>
#include <sys/stat.h>
#include <vector>

#include "ping.h"

namespace roce
{
namespace
{

using Clock = std::chrono::steady_clock;

struct RdmaError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

[[noreturn]] void fail(const std::string &what, int err = errno)
{
	throw RdmaError(what + ": " + std::strerror(err));
}

volatile std::sig_atomic_t stop_requested;

void on_signal(int)
{
	stop_requested = 1;
}

std::string addr_text(const sockaddr *sa)
{
	char buf[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in *>(sa)->sin_addr, buf,
		          sizeof(buf));
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6 *>(sa)->sin6_addr, buf,
		          sizeof(buf));
	return buf;
}

// One connection: its id and QP, a send and a receive buffer.
struct Conn {
	rdma_cm_id *id = nullptr;
	ibv_mr *mr = nullptr;
	std::vector<char> buf;
	std::uint64_t key = 0;
	std::uint32_t remote_qpn = 0;
	unsigned done = 0;     // round trips (the server: messages received)
	unsigned echoed = 0;   // the server: echoes sent and completed
	int reject_status = 0; // --expect-reject: the REJ's reason
	enum { connecting, busy, holding, finished } state = connecting;
	Clock::time_point next_send;

	char *send_buf()
	{
		return buf.data();
	}
	char *recv_buf()
	{
		return buf.data() + buf.size() / 2;
	}
};

// The verbs resources every connection shares: they live on the device the
// first connection resolved to.
class Fabric
{
public:
	Fabric(unsigned size, unsigned cq_depth) : size_(size), cq_depth_(cq_depth)
	{
	}
	~Fabric()
	{
		conns_.clear();
		if (cq_)
			ibv_destroy_cq(cq_);
		if (channel_)
			ibv_destroy_comp_channel(channel_);
		if (pd_)
			ibv_dealloc_pd(pd_);
	}
	Fabric(const Fabric &) = delete;
	Fabric &operator=(const Fabric &) = delete;

	int cq_fd() const
	{
		return channel_ ? channel_->fd : -1;
	}

	// A QP and buffers for ID; returns its connection.
	Conn &attach(rdma_cm_id *id)
	{
		if (!pd_)
			open(id->verbs);
		else if (id->verbs != pd_->context)
			throw RdmaError("connections on two devices: bind to one address");

		auto conn = std::make_unique<Conn>();
		ibv_qp_init_attr attr{};
		attr.send_cq = cq_;
		attr.recv_cq = cq_;
		attr.qp_type = IBV_QPT_RC;
		attr.cap.max_send_wr = 4;
		attr.cap.max_recv_wr = 4;
		attr.cap.max_send_sge = 1;
		attr.cap.max_recv_sge = 1;
		if (rdma_create_qp(id, pd_, &attr))
			fail("rdma_create_qp");
		conn->id = id;
		conn->buf.resize(2 * size_);
		conn->mr =
		    ibv_reg_mr(pd_, conn->buf.data(), conn->buf.size(), IBV_ACCESS_LOCAL_WRITE);
		if (!conn->mr) {
			int err = errno;
			rdma_destroy_qp(id);
			fail("ibv_reg_mr", err);
		}
		conn->key = ++last_key_;
		id->context = reinterpret_cast<void *>(conn->key);
		return *conns_.emplace(conn->key, std::move(conn)).first->second;
	}

	// The connection of ID, or null once it is gone.
	Conn *find(const rdma_cm_id *id)
	{
		return find(reinterpret_cast<std::uint64_t>(id->context));
	}
	Conn *find(std::uint64_t key)
	{
		auto it = conns_.find(key);
		return it == conns_.end() ? nullptr : it->second.get();
	}

	void detach(Conn &conn)
	{
		rdma_cm_id *id = conn.id;

		rdma_destroy_qp(id);
		ibv_dereg_mr(conn.mr);
		conns_.erase(conn.key);
		rdma_destroy_id(id);
	}

	// --close-at-once: rdma_disconnect() (a DREQ, or the DREP to a DREQ
	// already received; librdmacm moves the QP to the error state first),
	// rdma_destroy_id(), then the QP, without waiting for any event.  The
	// QP comes last: destroying it first takes milliseconds on rxe, which
	// would let the peer's DREQ arrive before this side's (measured in the
	// test VM: 0 DREQs crossed in 25 closes that way, about half this way).
	void close_at_once(Conn &conn)
	{
		rdma_cm_id *id = conn.id;
		ibv_qp *qp = id->qp;

		const int err = rdma_disconnect(id) ? errno : 0;
		ibv_dereg_mr(conn.mr);
		conns_.erase(conn.key);
		rdma_destroy_id(id);
		ibv_destroy_qp(qp);
		if (err)
			fail("rdma_disconnect", err);
	}

	std::map<std::uint64_t, std::unique_ptr<Conn>> &conns()
	{
		return conns_;
	}

	void post_recv(Conn &conn)
	{
		ibv_sge sge{reinterpret_cast<std::uintptr_t>(conn.recv_buf()), size_,
		            conn.mr->lkey};
		ibv_recv_wr wr{}, *bad;
		wr.wr_id = conn.key << 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (int err = ibv_post_recv(conn.id->qp, &wr, &bad))
			fail("ibv_post_recv", err);
	}

	void post_send(Conn &conn, unsigned len)
	{
		ibv_sge sge{reinterpret_cast<std::uintptr_t>(conn.send_buf()), len, conn.mr->lkey};
		ibv_send_wr wr{}, *bad;
		wr.wr_id = conn.key << 1 | 1;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		if (int err = ibv_post_send(conn.id->qp, &wr, &bad))
			fail("ibv_post_send", err);
	}

	// Hand each completion to ON_RECV (a receive: its connection and
	// length) or ON_SEND (a send: its connection).  Flushes and the
	// completions of connections already gone are ignored; any other
	// error throws.
	template <typename R, typename S> void poll_cq(R on_recv, S on_send)
	{
		ibv_wc wc[16];
		int n;

		do {
			n = ibv_poll_cq(cq_, 16, wc);
			if (n < 0)
				fail("ibv_poll_cq", -n);
			for (int i = 0; i < n; i++) {
				Conn *conn = find(wc[i].wr_id >> 1);
				if (wc[i].status == IBV_WC_WR_FLUSH_ERR || !conn)
					continue;
				if (wc[i].status != IBV_WC_SUCCESS)
					throw RdmaError(std::string("completion error: ") +
					                ibv_wc_status_str(wc[i].status));
				if (!(wc[i].wr_id & 1))
					on_recv(*conn, wc[i].byte_len);
				else
					on_send(*conn);
			}
		} while (n > 0);
	}

	template <typename R> void poll_cq(R on_recv)
	{
		poll_cq(on_recv, [](Conn &) {});
	}

	// Rearm the CQ after its channel said it has completions.
	void rearm()
	{
		ibv_cq *cq;
		void *ctx;

		if (ibv_get_cq_event(channel_, &cq, &ctx))
			fail("ibv_get_cq_event");
		ibv_ack_cq_events(cq, 1);
		if (int err = ibv_req_notify_cq(cq_, 0))
			fail("ibv_req_notify_cq", err);
	}

	unsigned size() const
	{
		return size_;
	}

private:
	void open(ibv_context *verbs)
	{
		pd_ = ibv_alloc_pd(verbs);
		if (!pd_)
			fail("ibv_alloc_pd");
		channel_ = ibv_create_comp_channel(verbs);
		if (!channel_)
			fail("ibv_create_comp_channel");
		cq_ = ibv_create_cq(verbs, static_cast<int>(cq_depth_), nullptr, channel_, 0);
		if (!cq_)
			fail("ibv_create_cq");
		if (int err = ibv_req_notify_cq(cq_, 0))
			fail("ibv_req_notify_cq", err);
	}

	unsigned size_, cq_depth_;
	ibv_pd *pd_ = nullptr;
	ibv_comp_channel *channel_ = nullptr;
	ibv_cq *cq_ = nullptr;
	std::map<std::uint64_t, std::unique_ptr<Conn>> conns_;
	std::uint64_t last_key_ = 0;
};

struct EventChannel {
	rdma_event_channel *ch = rdma_create_event_channel();

	EventChannel()
	{
		if (!ch)
			fail("rdma_create_event_channel");
	}
	~EventChannel()
	{
		rdma_destroy_event_channel(ch);
	}
	EventChannel(const EventChannel &) = delete;
	EventChannel &operator=(const EventChannel &) = delete;
};

// Wait up to TIMEOUT seconds for the next CM event on CH, which should be
// WANT.  Returns the event, to be acked by the caller.
rdma_cm_event *next_event(rdma_event_channel *ch, rdma_cm_event_type want, unsigned timeout)
{
	pollfd pfd{ch->fd, POLLIN, 0};
	rdma_cm_event *ev;

	int n = poll(&pfd, 1, static_cast<int>(timeout * 1000));
	if (n < 0)
		fail("poll");
	if (n == 0)
		throw RdmaError(std::string("timed out waiting for ") + rdma_event_str(want));
	if (rdma_get_cm_event(ch, &ev))
		fail("rdma_get_cm_event");
	return ev;
}

// As next_event(), but the event must be WANT.
rdma_cm_event *expect_event(rdma_event_channel *ch, rdma_cm_event_type want, unsigned timeout)
{
	rdma_cm_event *ev = next_event(ch, want, timeout);

	if (ev->event != want) {
		std::string got = rdma_event_str(ev->event);
		int status = ev->status;
		rdma_ack_cm_event(ev);
		throw RdmaError(std::string("expected ") + rdma_event_str(want) + ", got " + got +
		                " (status " + std::to_string(status) + ")");
	}
	return ev;
}

// ---- client ----

void connect_one(const PingOptions &opts, unsigned index, EventChannel &ec, Fabric &fabric)
{
	rdma_cm_id *id;
	rdma_cm_event *ev;

	if (rdma_create_id(ec.ch, &id, nullptr, RDMA_PS_TCP))
		fail("rdma_create_id");
	sockaddr_storage src = opts.bind, dst = opts.remote;
	if (opts.sport_base) {
		const auto port = htons(static_cast<std::uint16_t>(opts.sport_base + index));
		if (src.ss_family == AF_INET)
			reinterpret_cast<sockaddr_in *>(&src)->sin_port = port;
		else
			reinterpret_cast<sockaddr_in6 *>(&src)->sin6_port = port;
	}
	if (rdma_resolve_addr(id, reinterpret_cast<sockaddr *>(&src),
	                      reinterpret_cast<sockaddr *>(&dst), 2000)) {
		int err = errno;
		rdma_destroy_id(id);
		fail("rdma_resolve_addr", err);
	}
	try {
		rdma_ack_cm_event(expect_event(ec.ch, RDMA_CM_EVENT_ADDR_RESOLVED, opts.timeout));
		if (rdma_resolve_route(id, 2000))
			fail("rdma_resolve_route");
		rdma_ack_cm_event(expect_event(ec.ch, RDMA_CM_EVENT_ROUTE_RESOLVED, opts.timeout));
	} catch (...) {
		rdma_destroy_id(id);
		throw;
	}

	Conn &conn = fabric.attach(id);
	fabric.post_recv(conn);
	rdma_conn_param param{};
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_connect(id, &param))
		fail("rdma_connect");
	if (opts.expect_reject) {
		ev = expect_event(ec.ch, RDMA_CM_EVENT_REJECTED, opts.timeout);
		conn.reject_status = ev->status;
		rdma_ack_cm_event(ev);
		conn.state = Conn::finished;
		return;
	}
	ev = expect_event(ec.ch, RDMA_CM_EVENT_ESTABLISHED, opts.timeout);
	conn.remote_qpn = ev->param.conn.qp_num;
	rdma_ack_cm_event(ev);
	conn.state = Conn::busy;
}

void send_ping(Fabric &fabric, Conn &conn)
{
	const unsigned len = fabric.size();

	std::memset(conn.send_buf(), 0, len);
	std::snprintf(conn.send_buf(), len, "%u", conn.done);
	fabric.post_send(conn, len);
}

bool file_exists(const std::string &path)
{
	struct stat st;
	return stat(path.c_str(), &st) == 0;
}

// Ping on every connection until each has done its messages (and, with
// --until, until the file exists).  FINISHED, if given, is called on each
// connection as soon as it is done, and may close it.
void ping_all(const PingOptions &opts, Fabric &fabric,
              const std::function<void(Conn &)> &finished = nullptr)
{
	const auto hold = std::chrono::milliseconds(100);
	const auto quiet_limit = std::chrono::seconds(opts.timeout);
	unsigned running = static_cast<unsigned>(fabric.conns().size());
	auto last_progress = Clock::now();

	for (auto &[key, conn] : fabric.conns())
		send_ping(fabric, *conn);
	while (running) {
		pollfd pfd{fabric.cq_fd(), POLLIN, 0};
		if (poll(&pfd, 1, 50) < 0 && errno != EINTR)
			fail("poll");
		if (pfd.revents & POLLIN)
			fabric.rearm();
		fabric.poll_cq([&](Conn &conn, unsigned len) {
			if (len != fabric.size() ||
			    std::atoi(conn.recv_buf()) != static_cast<int>(conn.done))
				throw RdmaError("echo does not match message " +
				                std::to_string(conn.done));
			conn.done++;
			last_progress = Clock::now();
			fabric.post_recv(conn);
			if (conn.done < opts.messages) {
				send_ping(fabric, conn);
			} else if (!opts.until.empty()) {
				conn.state = Conn::holding;
				conn.next_send = Clock::now() + hold;
			} else {
				conn.state = Conn::finished;
				running--;
				if (finished)
					finished(conn); // the last use of conn
			}
		});
		const auto now = Clock::now();
		std::vector<Conn *> done;
		for (auto &[key, conn] : fabric.conns()) {
			if (conn->state != Conn::holding || now < conn->next_send)
				continue;
			if (file_exists(opts.until)) {
				conn->state = Conn::finished;
				running--;
				done.push_back(conn.get());
			} else {
				conn->state = Conn::busy;
				send_ping(fabric, *conn);
			}
		}
		for (Conn *conn : done)
			if (finished)
				finished(*conn);
		bool waiting = false;
		for (auto &[key, conn] : fabric.conns())
			waiting |= conn->state == Conn::busy;
		if (waiting && now - last_progress > quiet_limit)
			throw RdmaError("no echo for " + std::to_string(opts.timeout) + " s");
	}
}

nlohmann::json describe(const Conn &conn, bool rejected)
{
	rdma_cm_id *id = conn.id;
	nlohmann::json j = {{"src", addr_text(rdma_get_local_addr(id))},
	                    {"sport", ntohs(rdma_get_src_port(id))},
	                    {"dst", addr_text(rdma_get_peer_addr(id))},
	                    {"dport", ntohs(rdma_get_dst_port(id))},
	                    {"qpn", id->qp->qp_num},
	                    {"remote_qpn", conn.remote_qpn},
	                    {"messages", conn.done}};
	if (rejected) {
		j["rejected"] = true;
		j["reject_status"] = conn.reject_status;
	}
	return j;
}

nlohmann::json describe_all(const PingOptions &opts, Fabric &fabric)
{
	nlohmann::json list = nlohmann::json::array();

	for (auto &[key, conn] : fabric.conns())
		list.push_back(describe(*conn, opts.expect_reject));
	return list;
}

void print_conns(const PingOptions &opts, const nlohmann::json &list, std::ostream &out)
{
	char line[160];

	if (opts.json) {
		out << nlohmann::json{{"connections", list}} << '\n';
		return;
	}
	for (const auto &c : list) {
		if (opts.expect_reject) {
			std::snprintf(
			    line, sizeof(line),
			    "connection %s port %u -> %s port %u: QPN 0x%06x, rejected "
			    "(status %d)\n",
			    c["src"].get<std::string>().c_str(), c["sport"].get<unsigned>(),
			    c["dst"].get<std::string>().c_str(), c["dport"].get<unsigned>(),
			    c["qpn"].get<unsigned>(), c["reject_status"].get<int>());
			out << line;
			continue;
		}
		std::snprintf(line, sizeof(line),
		              "connection %s port %u -> %s port %u: QPN 0x%06x, remote QPN 0x%06x, "
		              "%u messages\n",
		              c["src"].get<std::string>().c_str(), c["sport"].get<unsigned>(),
		              c["dst"].get<std::string>().c_str(), c["dport"].get<unsigned>(),
		              c["qpn"].get<unsigned>(), c["remote_qpn"].get<unsigned>(),
		              c["messages"].get<unsigned>());
		out << line;
	}
}

void disconnect_all(const PingOptions &opts, EventChannel &ec, Fabric &fabric)
{
	for (auto &[key, conn] : fabric.conns())
		if (rdma_disconnect(conn->id))
			fail("rdma_disconnect");
	while (!fabric.conns().empty()) {
		rdma_cm_event *ev = expect_event(ec.ch, RDMA_CM_EVENT_DISCONNECTED, opts.timeout);
		Conn *conn = fabric.find(ev->id);
		rdma_ack_cm_event(ev);
		if (conn)
			fabric.detach(*conn);
	}
}

// --cycles: how many cycles in how long, and the spread of one cycle's time.
void print_cycles(const PingOptions &opts, std::vector<double> &ms, double seconds,
                  std::ostream &out)
{
	std::sort(ms.begin(), ms.end());
	const double rate = static_cast<double>(ms.size()) / seconds;
	const double median = ms[ms.size() / 2];
	char line[200];

	if (opts.json) {
		out << nlohmann::json{{"cycles", ms.size()},
		                      {"connections", opts.connections},
		                      {"messages", opts.messages},
		                      {"seconds", seconds},
		                      {"cycles_per_second", rate},
		                      {"cycle_ms",
		                       {{"min", ms.front()},
		                        {"median", median},
		                        {"max", ms.back()}}}}
		    << '\n';
		return;
	}
	std::snprintf(line, sizeof(line),
	              "%zu cycles of %u connection(s), %u round trip(s) each, in %.3f s: %.2f "
	              "cycles/s (one cycle: min %.1f ms, median %.1f ms, max %.1f ms)\n",
	              ms.size(), opts.connections, opts.messages, seconds, rate, ms.front(), median,
	              ms.back());
	out << line;
}

int run_client(const PingOptions &opts, std::ostream &out)
{
	EventChannel ec;
	Fabric fabric(opts.size, 4 * opts.connections + 16);
	const unsigned cycles = opts.cycles ? opts.cycles : 1;
	std::vector<double> cycle_ms;
	const auto start = Clock::now();

	try {
		for (unsigned cycle = 0; cycle < cycles; cycle++) {
			const auto t0 = Clock::now();

			for (unsigned i = 0; i < opts.connections; i++)
				connect_one(opts, i, ec, fabric);
			if (opts.close_at_once) {
				// each closes the moment its last echo is in:
				// described before (nothing may delay the close),
				// printed once all are closed
				std::map<std::uint64_t, nlohmann::json> closed;
				for (auto &[key, conn] : fabric.conns())
					closed[key] = describe(*conn, false);
				ping_all(opts, fabric, [&](Conn &conn) {
					const unsigned done = conn.done;
					const std::uint64_t key = conn.key;
					fabric.close_at_once(conn);
					closed[key]["messages"] = done;
				});
				nlohmann::json list = nlohmann::json::array();
				for (auto &[key, c] : closed)
					list.push_back(c);
				print_conns(opts, list, out);
			} else if (opts.expect_reject) {
				print_conns(opts, describe_all(opts, fabric), out);
				while (!fabric.conns().empty())
					fabric.detach(*fabric.conns().begin()->second);
			} else {
				ping_all(opts, fabric);
				if (!opts.cycles)
					print_conns(opts, describe_all(opts, fabric), out);
				disconnect_all(opts, ec, fabric);
			}
			cycle_ms.push_back(
			    std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
		}
	} catch (...) {
		while (!fabric.conns().empty())
			fabric.detach(*fabric.conns().begin()->second);
		throw;
	}
	if (opts.cycles)
		print_cycles(opts, cycle_ms,
		             std::chrono::duration<double>(Clock::now() - start).count(), out);
	return 0;
}

// ---- server ----

void accept_one(rdma_cm_event *ev, Fabric &fabric)
{
	Conn &conn = fabric.attach(ev->id);
	rdma_conn_param param{};

	fabric.post_recv(conn);
	param.retry_count = 7;
	param.rnr_retry_count = 7;
	if (rdma_accept(ev->id, &param))
		fail("rdma_accept");
}

int run_server(const PingOptions &opts, std::ostream &out, std::ostream &err)
{
	EventChannel ec;
	Fabric fabric(opts.size, 4096 * 4 + 16);
	rdma_cm_id *listen_id;
	unsigned served = 0, failed = 0;
	sockaddr_storage addr = opts.bind;

	if (rdma_create_id(ec.ch, &listen_id, nullptr, RDMA_PS_TCP))
		fail("rdma_create_id");
	if (rdma_bind_addr(listen_id, reinterpret_cast<sockaddr *>(&addr)) ||
	    rdma_listen(listen_id, 128)) {
		int e = errno;
		rdma_destroy_id(listen_id);
		fail("listening on " + addr_text(reinterpret_cast<sockaddr *>(&addr)), e);
	}
	out << "listening on " << addr_text(reinterpret_cast<sockaddr *>(&addr)) << " port "
	    << ntohs(rdma_get_src_port(listen_id)) << std::endl;

	std::signal(SIGINT, on_signal);
	std::signal(SIGTERM, on_signal);
	while (!stop_requested && (!opts.connections || served + failed < opts.connections)) {
		pollfd pfd[2] = {{ec.ch->fd, POLLIN, 0}, {fabric.cq_fd(), POLLIN, 0}};
		if (poll(pfd, fabric.cq_fd() < 0 ? 1 : 2, 200) < 0) {
			if (errno == EINTR)
				continue;
			fail("poll");
		}
		if (pfd[1].revents & POLLIN)
			fabric.rearm();
		// With --close-at-once, a connection closes as soon as the
		// echo of its last message has completed (its ACK came back).
		std::vector<std::uint64_t> closing;
		if (fabric.cq_fd() >= 0)
			fabric.poll_cq(
			    [&](Conn &conn, unsigned len) {
				    std::memcpy(conn.send_buf(), conn.recv_buf(), len);
				    conn.done++;
				    fabric.post_recv(conn);
				    fabric.post_send(conn, len);
			    },
			    [&](Conn &conn) {
				    if (opts.close_at_once && ++conn.echoed == opts.messages)
					    closing.push_back(conn.key);
			    });
		for (auto key : closing) {
			Conn *c = fabric.find(key);
			if (!c)
				continue;
			try {
				fabric.close_at_once(*c);
				served++;
			} catch (const RdmaError &e) {
				err << "roce-ping: " << e.what() << '\n';
				failed++;
			}
		}
		// An ID destroyed takes its pending events with it: what poll()
		// saw on the channel may be gone, and reading would block.
		if (!closing.empty() || !(pfd[0].revents & POLLIN))
			continue;

		rdma_cm_event *ev;
		if (rdma_get_cm_event(ec.ch, &ev))
			fail("rdma_get_cm_event");
		Conn *conn = fabric.find(ev->id);
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			try {
				accept_one(ev, fabric);
			} catch (const RdmaError &e) {
				err << "roce-ping: " << e.what() << '\n';
				failed++;
				conn = fabric.find(ev->id);
				rdma_ack_cm_event(ev);
				if (conn)
					fabric.detach(*conn);
				else
					rdma_destroy_id(ev->id);
				continue;
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rdma_ack_cm_event(ev);
			if (conn) {
				rdma_disconnect(conn->id);
				fabric.detach(*conn);
				served++;
			}
			continue;
		default:
			err << "roce-ping: " << rdma_event_str(ev->event) << " (status "
			    << ev->status << ")\n";
			if (conn) {
				rdma_ack_cm_event(ev);
				fabric.detach(*conn);
				failed++;
				continue;
			}
			break;
		}
		rdma_ack_cm_event(ev);
	}
	while (!fabric.conns().empty())
		fabric.detach(*fabric.conns().begin()->second);
	rdma_destroy_id(listen_id);
	out << "served " << served << " connections, " << failed << " failed" << std::endl;
	return failed ? 1 : 0;
}

} // namespace

int run_ping(const PingOptions &opts, std::ostream &out, std::ostream &err)
{
	// --close-at-once: nothing should stand between the last round trip
	// and the close, not even the first touch of a page of code (the
	// tests' binaries and libraries are read over 9p): fault in what is
	// mapped now.  Best effort.
	if (opts.close_at_once)
		mlockall(MCL_CURRENT);
	try {
		return opts.server ? run_server(opts, out, err) : run_client(opts, out);
	} catch (const std::exception &e) {
		err << "roce-ping: error: " << e.what() << '\n';
		return 1;
	}
}

} // namespace roce
