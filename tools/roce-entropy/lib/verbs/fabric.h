// SPDX-License-Identifier: GPL-2.0
// rdma_cm connections sharing one device's verbs resources: a PD, and one
// CQ with a completion channel for all of them (roce-ping's).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <rdma/rdma_cma.h>
#include <string>
#include <utility>
#include <vector>

#include "verbs/device.h"
#include "verbs/error.h"

namespace roce
{

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
	// failed: an error completion (or the client's wait for an echo
	// timed out) and --keep-going: its completions are ignored from then on
	enum { connecting, busy, holding, finished, failed } state = connecting;
	std::chrono::steady_clock::time_point next_send;
	// the client: when the last round trip completed, the longest time
	// between two, the gaps of at least --stall-min ([from, to] in ms since
	// the pings began), what ended it (empty: nothing did)
	std::chrono::steady_clock::time_point last_done;
	double longest_stall_ms = 0;
	std::vector<std::pair<double, double>> stalls;
	std::string status;

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
			throw VerbsError("connections on two devices: bind to one address");

		auto conn = std::make_unique<Conn>();
		ibv_qp_init_attr attr = qp_init_attr(cq_, IBV_QPT_RC, 4, 4);
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
	// length) or ON_SEND (a send: its connection), an error to ON_ERROR
	// (its connection and status).  Flushes and the completions of
	// connections already gone or failed are ignored.
	template <typename R, typename S, typename E> void poll_cq(R on_recv, S on_send, E on_error)
	{
		ibv_wc wc[16];
		int n;

		do {
			n = ibv_poll_cq(cq_, 16, wc);
			if (n < 0)
				fail("ibv_poll_cq", -n);
			for (int i = 0; i < n; i++) {
				Conn *conn = find(wc[i].wr_id >> 1);
				if (wc[i].status == IBV_WC_WR_FLUSH_ERR || !conn ||
				    conn->state == Conn::failed)
					continue;
				if (wc[i].status != IBV_WC_SUCCESS)
					on_error(*conn, wc[i].status);
				else if (!(wc[i].wr_id & 1))
					on_recv(*conn, wc[i].byte_len);
				else
					on_send(*conn);
			}
		} while (n > 0);
	}

	// As above; an error completion throws.
	template <typename R, typename S> void poll_cq(R on_recv, S on_send)
	{
		poll_cq(on_recv, on_send, [](Conn &, ibv_wc_status status) {
			throw VerbsError(std::string("completion error: ") +
			                 ibv_wc_status_str(status));
		});
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

} // namespace roce
