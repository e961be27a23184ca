// SPDX-License-Identifier: GPL-2.0
// roce-ping's client: connect, ping on every connection, report each
// connection's CM ports and QPNs, disconnect; or time such cycles.
#include <algorithm>
#include <arpa/inet.h>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <poll.h>
#include <sys/stat.h>
#include <vector>

#include "output/record.h"
#include "sides.h"
#include "verbs/cm.h"
#include "verbs/fabric.h"

namespace roce
{
namespace
{

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point from, Clock::time_point to)
{
	return std::chrono::duration<double, std::milli>(to - from).count();
}

// A round trip completed (or, with FAILED, the connection ended) at NOW:
// the time since the last one is a gap between round trips.
void note_gap(const PingOptions &opts, Conn &conn, Clock::time_point start, Clock::time_point now)
{
	const double gap = ms_between(conn.last_done, now);

	conn.longest_stall_ms = std::max(conn.longest_stall_ms, gap);
	if (gap >= opts.stall_min_ms)
		conn.stalls.emplace_back(ms_between(start, conn.last_done), ms_between(start, now));
	conn.last_done = now;
}

void connect_one(const PingOptions &opts, unsigned index, EventChannel &ec, Fabric &fabric)
{
	rdma_cm_id *id;
	rdma_cm_event *ev;

	if (rdma_create_id(ec.ch, &id, nullptr, RDMA_PS_TCP))
		fail("rdma_create_id");
	set_qp_timeout(id, opts);
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
	param.retry_count = static_cast<std::uint8_t>(opts.retry_count);
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
// connection as soon as it is done, and may close it.  With --keep-going a
// connection that fails is marked and the others go on.
void ping_all(const PingOptions &opts, Fabric &fabric, Clock::time_point start,
              const std::function<void(Conn &)> &finished = nullptr)
{
	const auto hold = std::chrono::milliseconds(opts.interval_ms);
	const auto quiet_limit = std::chrono::seconds(opts.timeout);
	unsigned running = static_cast<unsigned>(fabric.conns().size());
	auto last_progress = Clock::now();

	const auto fail_conn = [&](Conn &conn, const std::string &status) {
		note_gap(opts, conn, start, Clock::now());
		conn.status = status;
		conn.state = Conn::failed;
		running--;
	};
	for (auto &[key, conn] : fabric.conns()) {
		conn->last_done = Clock::now();
		send_ping(fabric, *conn);
	}
	while (running) {
		std::vector<Clock::duration> due;
		const auto before = Clock::now();
		for (auto &[key, conn] : fabric.conns())
			if (conn->state == Conn::holding)
				due.push_back(conn->next_send - before);
		pollfd pfd{fabric.cq_fd(), POLLIN, 0};
		if (poll(&pfd, 1, ping_wait_ms(due, 50)) < 0 && errno != EINTR)
			fail("poll");
		if (pfd.revents & POLLIN)
			fabric.rearm();
		// a round trip: the echo is in (--one-way: the send's ACK)
		const auto completed = [&](Conn &conn) {
			conn.done++;
			last_progress = Clock::now();
			note_gap(opts, conn, start, last_progress);
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
		};
		fabric.poll_cq(
		    [&](Conn &conn, unsigned len) {
			    if (opts.one_way)
				    throw VerbsError("--one-way: the server sent something");
			    if (len != fabric.size() ||
			        std::atoi(conn.recv_buf()) != static_cast<int>(conn.done))
				    throw VerbsError("echo does not match message " +
				                     std::to_string(conn.done));
			    fabric.post_recv(conn);
			    completed(conn);
		    },
		    [&](Conn &conn) {
			    if (opts.one_way)
				    completed(conn);
		    },
		    [&](Conn &conn, ibv_wc_status status) {
			    if (!opts.keep_going)
				    throw VerbsError(std::string("completion error: ") +
				                     ibv_wc_status_str(status));
			    fail_conn(conn, ibv_wc_status_str(status));
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
		for (auto &[key, conn] : fabric.conns()) {
			if (conn->state != Conn::busy)
				continue;
			if (opts.keep_going && now - conn->last_done > quiet_limit)
				fail_conn(*conn,
				          "no echo for " + std::to_string(opts.timeout) + " s");
			else
				waiting = true;
		}
		if (!opts.keep_going && waiting && now - last_progress > quiet_limit)
			throw VerbsError("no echo for " + std::to_string(opts.timeout) + " s");
	}
}

// What the client reports of a connection; taken before a close at once.
struct ConnInfo {
	std::string src, dst;
	unsigned sport = 0, dport = 0;
	std::uint32_t qpn = 0, remote_qpn = 0;
	unsigned messages = 0;
	bool rejected = false;
	int reject_status = 0;
	std::string status;
	double longest_stall_ms = 0;
	std::vector<std::pair<double, double>> stalls;
};

ConnInfo describe(const Conn &conn, bool rejected)
{
	rdma_cm_id *id = conn.id;

	return {addr_text(rdma_get_local_addr(id)),
	        addr_text(rdma_get_peer_addr(id)),
	        ntohs(rdma_get_src_port(id)),
	        ntohs(rdma_get_dst_port(id)),
	        id->qp->qp_num,
	        conn.remote_qpn,
	        conn.done,
	        rejected,
	        conn.reject_status,
	        conn.status,
	        conn.longest_stall_ms,
	        conn.stalls};
}

std::vector<ConnInfo> describe_all(const PingOptions &opts, Fabric &fabric)
{
	std::vector<ConnInfo> list;

	for (auto &[key, conn] : fabric.conns())
		list.push_back(describe(*conn, opts.expect_reject));
	return list;
}

Record conn_record(const ConnInfo &c)
{
	Record r;

	r.add_json("src", c.src)
	    .add_json("sport", c.sport)
	    .add_json("dst", c.dst)
	    .add_json("dport", c.dport)
	    .add_json("qpn", c.qpn)
	    .add_json("remote_qpn", c.remote_qpn)
	    .add_json("messages", c.messages);
	const std::string head = format("connection %s port %u -> %s port %u: QPN 0x%06x, ",
	                                c.src.c_str(), c.sport, c.dst.c_str(), c.dport, c.qpn);
	if (c.rejected)
		r.add_json("rejected", true)
		    .add_json("reject_status", c.reject_status)
		    .add_text(head + format("rejected (status %d)\n", c.reject_status));
	else
		r.add_json("status", c.status.empty() ? "ok" : c.status)
		    .add_json("longest_stall_ms", c.longest_stall_ms)
		    .add_json("stalls", c.stalls)
		    .add_text(head +
		              format("remote QPN 0x%06x, %u messages, longest stall %.1f ms%s\n",
		                     c.remote_qpn, c.messages, c.longest_stall_ms,
		                     c.status.empty() ? "" : (", FAILED: " + c.status).c_str()));
	return r;
}

// START_UNIX_MS: when the pings began, in milliseconds since the epoch (the
// stalls are counted from there), 0 if they did not.
void print_conns(const PingOptions &opts, const std::vector<ConnInfo> &list, double start_unix_ms,
                 std::ostream &out)
{
	std::vector<Record> records;
	unsigned failed = 0;

	for (const auto &c : list) {
		records.push_back(conn_record(c));
		failed += !c.status.empty();
	}
	Record r;
	r.add("connections", records);
	if (start_unix_ms > 0)
		r.add_json("start_unix_ms", start_unix_ms);
	if (opts.keep_going)
		r.add("failed", failed,
		      format("%u of %zu connection(s) failed\n", failed, list.size()));
	print(r, opts.json, out);
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

// --cycles: how many cycles in how long, and the spread of one cycle's time.
void print_cycles(const PingOptions &opts, std::vector<double> &ms, double seconds,
                  std::ostream &out)
{
	std::sort(ms.begin(), ms.end());
	const double rate = static_cast<double>(ms.size()) / seconds;
	const double median = ms[ms.size() / 2];
	Record spread;
	Record r;

	spread.add_json("min", ms.front()).add_json("median", median).add_json("max", ms.back());
	r.add_json("cycles", ms.size())
	    .add_json("connections", opts.connections)
	    .add_json("messages", opts.messages)
	    .add_json("seconds", seconds)
	    .add_json("cycles_per_second", rate)
	    .add_json("cycle_ms", spread.json())
	    .add_text(format("%zu cycles of %u connection(s), %u round trip(s) each, in %.3f s: "
	                     "%.2f cycles/s (one cycle: min %.1f ms, median %.1f ms, max %.1f "
	                     "ms)\n",
	                     ms.size(), opts.connections, opts.messages, seconds, rate, ms.front(),
	                     median, ms.back()));
	print(r, opts.json, out);
}

} // namespace

int ping_wait_ms(const std::vector<Clock::duration> &due, int max_ms)
{
	auto wait = std::chrono::milliseconds(max_ms);

	for (const auto d : due)
		wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(
		                          std::max(d, Clock::duration::zero())));
	return static_cast<int>(wait.count());
}

int run_client(const PingOptions &opts, std::ostream &out)
{
	EventChannel ec;
	Fabric fabric(opts.size, 4 * opts.connections + 16);
	const unsigned cycles = opts.cycles ? opts.cycles : 1;
	std::vector<double> cycle_ms;
	const auto start = Clock::now();
	bool failed = false;

	try {
		for (unsigned cycle = 0; cycle < cycles; cycle++) {
			const auto t0 = Clock::now();

			for (unsigned i = 0; i < opts.connections; i++)
				connect_one(opts, i, ec, fabric);
			if (opts.close_at_once) {
				// each closes the moment its last echo is in:
				// described before (nothing may delay the close),
				// printed once all are closed
				std::map<std::uint64_t, ConnInfo> closed;
				for (auto &[key, conn] : fabric.conns())
					closed[key] = describe(*conn, false);
				ping_all(opts, fabric, Clock::now(), [&](Conn &conn) {
					const unsigned done = conn.done;
					const std::uint64_t key = conn.key;
					fabric.close_at_once(conn);
					closed[key].messages = done;
				});
				std::vector<ConnInfo> list;
				for (auto &[key, c] : closed)
					list.push_back(c);
				print_conns(opts, list, 0, out);
			} else if (opts.expect_reject) {
				print_conns(opts, describe_all(opts, fabric), 0, out);
				while (!fabric.conns().empty())
					fabric.detach(*fabric.conns().begin()->second);
			} else {
				const auto begin = Clock::now();
				const double begin_unix_ms =
				    std::chrono::duration<double, std::milli>(
				        std::chrono::system_clock::now().time_since_epoch())
				        .count();
				ping_all(opts, fabric, begin);
				for (auto &[key, conn] : fabric.conns())
					failed |= conn->state == Conn::failed;
				if (!opts.cycles)
					print_conns(opts, describe_all(opts, fabric), begin_unix_ms,
					            out);
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
	return failed ? 1 : 0;
}

} // namespace roce
