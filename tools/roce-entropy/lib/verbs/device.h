// SPDX-License-Identifier: GPL-2.0
// One RDMA device opened with ibverbs alone (no rdma_cm): context, PD, CQ
// and a registered buffer of SLOTS slots of SIZE bytes (roce-qps's, and
// under rxe-wqe-av's UD QP); RC QPs connected by hand, UD QPs and their
// address handles.
#pragma once

#include <cstdint>
#include <infiniband/verbs.h>
#include <string>
#include <vector>

#include "verbs/error.h"

namespace roce
{

// The attributes of a QP of TYPE whose work completes on CQ: SEND_DEPTH
// and RECV_DEPTH work requests of one SGE each.
ibv_qp_init_attr qp_init_attr(ibv_cq *cq, ibv_qp_type type, unsigned send_depth,
                              unsigned recv_depth);

// What an RC QP is connected with by hand: INIT (the port, the access
// REMOTE may use), RTR towards REMOTE_QPN at DGID from SGID_INDEX, RTS with
// 4.096 us * 2^ACK_TIMEOUT and RETRY_COUNT retries; PSN 0 both ways, as
// ibv_rc_pingpong does.
struct RcPath {
	std::uint8_t port = 1;
	ibv_mtu mtu = IBV_MTU_1024;
	std::uint8_t sgid_index = 0;
	std::uint32_t remote_qpn = 0;
	ibv_gid dgid{};
	unsigned access = 0;
	std::uint8_t ack_timeout = 14;
	std::uint8_t retry_count = 7;
};
void connect_rc(ibv_qp *qp, const RcPath &path);

// The Q_Key of the UD QPs that ready_ud() readies and post_send() sends to.
inline constexpr std::uint32_t kQkey = 0x11111111;

struct DeviceConfig {
	unsigned port = 1;      // the IB port
	unsigned gid_index = 0; // a RoCE v2 GID
	unsigned cq_depth = 16;
	unsigned slots = 1; // message slots in the buffer
	unsigned size = 16; // bytes per slot
};

// open() acquires the resources; the destructor releases whatever was
// acquired.
class Device
{
public:
	Device() = default;
	~Device();
	Device(const Device &) = delete;
	Device &operator=(const Device &) = delete;

	// Open NAME; throws VerbsError when the port is not active or the GID
	// is not a RoCE v2 one.
	void open(const std::string &name, const DeviceConfig &cfg);

	// An RC or UD QP, two sends and two receives deep.
	ibv_qp *create_qp(ibv_qp_type type = IBV_QPT_RC);

	// RC: INIT, RTR towards REMOTE_QPN at DGID, RTS.
	void connect(ibv_qp *qp, std::uint32_t remote_qpn, const ibv_gid &dgid);
	// UD: INIT with kQkey, RTR, RTS.
	void ready_ud(ibv_qp *qp);
	// An address handle to DGID from this device's GID, without a flow
	// label; the caller destroys it.
	ibv_ah *create_ah(const ibv_gid &dgid);

	char *slot(unsigned i)
	{
		return buf_.data() + std::size_t{i} * size_;
	}
	// Slot I as a scatter/gather entry.
	ibv_sge slot_sge(unsigned i);
	// A receive into slot I and a send of LEN bytes from it, with work
	// request ID WR_ID; a UD send goes through AH to REMOTE_QPN.
	void post_recv(ibv_qp *qp, unsigned i, std::uint64_t wr_id, unsigned len);
	void post_send(ibv_qp *qp, unsigned i, std::uint64_t wr_id, unsigned len,
	               ibv_ah *ah = nullptr, std::uint32_t remote_qpn = 0);
	// A receive into the whole of slot I, with work request ID I.
	void post_recv(ibv_qp *qp, unsigned i)
	{
		post_recv(qp, i, i, size_);
	}

	// The port's active MTU in bytes: the largest UD message.
	unsigned mtu_bytes() const
	{
		return 128u << mtu_;
	}

	ibv_cq *cq() const
	{
		return cq_;
	}
	ibv_pd *pd() const
	{
		return pd_;
	}
	ibv_context *context() const
	{
		return ctx_;
	}
	std::uint32_t lkey() const
	{
		return mr_->lkey;
	}
	std::uint8_t gid_index() const
	{
		return gid_index_;
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

} // namespace roce
