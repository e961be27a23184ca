// SPDX-License-Identifier: GPL-2.0
// roce-ping's server: accept, echo every message back, and with
// --close-at-once close each connection the moment its last echo completed.
#include <arpa/inet.h>
#include <csignal>
#include <cstring>
#include <poll.h>
#include <sys/mman.h>
#include <vector>

#include "sides.h"
#include "verbs/cm.h"
#include "verbs/fabric.h"

namespace roce
{
namespace
{

volatile std::sig_atomic_t stop_requested;

void on_signal(int)
{
	stop_requested = 1;
}

void accept_one(const PingOptions &opts, rdma_cm_event *ev, Fabric &fabric)
{
	Conn &conn = fabric.attach(ev->id);
	rdma_conn_param param{};

	set_qp_timeout(ev->id, opts);
	fabric.post_recv(conn);
	param.retry_count = static_cast<std::uint8_t>(opts.retry_count);
	param.rnr_retry_count = 7;
	if (rdma_accept(ev->id, &param))
		fail("rdma_accept");
}

// The server's state: its connections and what became of them.
struct Server {
	const PingOptions &opts;
	std::ostream &err;
	EventChannel ec;
	Fabric fabric;
	unsigned served = 0, failed = 0;

	Server(const PingOptions &o, std::ostream &e)
	    : opts(o), err(e), fabric(o.size, 4096 * 4 + 16)
	{
	}

	void report(const std::exception &e)
	{
		err << "roce-ping: " << e.what() << '\n';
		failed++;
	}

	// Echo what arrived.  With --close-at-once, a connection closes as
	// soon as the echo of its last message has completed (its ACK came
	// back).  Returns whether one closed.
	bool echo()
	{
		std::vector<std::uint64_t> closing;

		if (fabric.cq_fd() < 0)
			return false;
		fabric.poll_cq(
		    [&](Conn &conn, unsigned len) {
			    conn.done++;
			    fabric.post_recv(conn);
			    if (opts.one_way)
				    return;
			    std::memcpy(conn.send_buf(), conn.recv_buf(), len);
			    fabric.post_send(conn, len);
		    },
		    [&](Conn &conn) {
			    if (opts.close_at_once && ++conn.echoed == opts.messages)
				    closing.push_back(conn.key);
		    },
		    [&](Conn &conn, ibv_wc_status status) {
			    const std::string what =
			        std::string("completion error: ") + ibv_wc_status_str(status);
			    if (!opts.keep_going)
				    throw VerbsError(what);
			    // echoed no more; its DISCONNECTED ends it
			    conn.state = Conn::failed;
			    report(
			        VerbsError("connection " + std::to_string(conn.key) + ": " + what));
		    });
		for (auto key : closing) {
			Conn *c = fabric.find(key);
			if (!c)
				continue;
			try {
				fabric.close_at_once(*c);
				served++;
			} catch (const VerbsError &e) {
				report(e);
			}
		}
		return !closing.empty();
	}

	// The next CM event.
	void handle_event()
	{
		rdma_cm_event *ev;

		if (rdma_get_cm_event(ec.ch, &ev))
			fail("rdma_get_cm_event");
		Conn *conn = fabric.find(ev->id);
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			try {
				accept_one(opts, ev, fabric);
			} catch (const VerbsError &e) {
				report(e);
				conn = fabric.find(ev->id);
				rdma_ack_cm_event(ev);
				if (conn)
					fabric.detach(*conn);
				else
					rdma_destroy_id(ev->id);
				return;
			}
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			rdma_ack_cm_event(ev);
			if (conn) {
				const bool ok = conn->state != Conn::failed;
				rdma_disconnect(conn->id);
				fabric.detach(*conn);
				served += ok; // a failed one is counted already
			}
			return;
		default:
			err << "roce-ping: " << rdma_event_str(ev->event) << " (status "
			    << ev->status << ")\n";
			if (conn) {
				rdma_ack_cm_event(ev);
				fabric.detach(*conn);
				failed++;
				return;
			}
			break;
		}
		rdma_ack_cm_event(ev);
	}
};

} // namespace

void set_qp_timeout(rdma_cm_id *id, const PingOptions &opts)
{
	if (!opts.qp_timeout)
		return;
	std::uint8_t timeout = *opts.qp_timeout;
	if (rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout,
	                    sizeof(timeout)))
		fail("rdma_set_option(RDMA_OPTION_ID_ACK_TIMEOUT)");
}

int run_server(const PingOptions &opts, std::ostream &out, std::ostream &err)
{
	Server srv(opts, err);
	Fabric &fabric = srv.fabric;
	rdma_cm_id *listen_id;
	sockaddr_storage addr = opts.bind;

	if (rdma_create_id(srv.ec.ch, &listen_id, nullptr, RDMA_PS_TCP))
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
	while (!stop_requested &&
	       (!opts.connections || srv.served + srv.failed < opts.connections)) {
		pollfd pfd[2] = {{srv.ec.ch->fd, POLLIN, 0}, {fabric.cq_fd(), POLLIN, 0}};
		if (poll(pfd, fabric.cq_fd() < 0 ? 1 : 2, 200) < 0) {
			if (errno == EINTR)
				continue;
			fail("poll");
		}
		if (pfd[1].revents & POLLIN)
			fabric.rearm();
		// An ID destroyed takes its pending events with it: what poll()
		// saw on the channel may be gone, and reading would block.
		if (srv.echo() || !(pfd[0].revents & POLLIN))
			continue;
		srv.handle_event();
	}
	while (!fabric.conns().empty())
		fabric.detach(*fabric.conns().begin()->second);
	rdma_destroy_id(listen_id);
	out << "served " << srv.served << " connections, " << srv.failed << " failed" << std::endl;
	return srv.failed ? 1 : 0;
}

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
