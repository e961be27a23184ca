// SPDX-License-Identifier: GPL-2.0
// rxe-wqe-av's device: context, PD, CQ, one UD QP and one registered
// buffer (verbs.cpp drives it).
#pragma once

#include <netinet/in.h> // before the uapi headers: glibc's sockaddr_in

#include <array>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <infiniband/verbs.h>
#include <string>
#include <vector>

#include "verbs/error.h"
#include "wqe_av.h"

namespace roce::wqe_av
{

constexpr std::uint8_t kPort = 1;            // rxe has one port
constexpr std::uint32_t kQkey = 0x52574156u; // "RWAV"
constexpr unsigned kPayload = 64;            // bytes per message
constexpr unsigned kGrh = 40;                // a UD receive starts with the GRH

// One device: context, PD, CQ, one UD QP and one registered buffer.  The
// destructor releases whatever was acquired, in reverse.
class Device
{
public:
	Device() = default;
	~Device()
	{
		if (ah_)
			ibv_destroy_ah(ah_);
		if (qp_)
			ibv_destroy_qp(qp_);
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

	void open(const std::string &name, unsigned gid_index, std::size_t buf_size)
	{
		int n;
		ibv_device **list = ibv_get_device_list(&n);

		if (!list)
			fail("ibv_get_device_list");
		for (int i = 0; i < n && !ctx_; i++)
			if (name == ibv_get_device_name(list[i])) {
				ctx_ = ibv_open_device(list[i]);
				if (!ctx_) {
					const int err = errno;
					ibv_free_device_list(list);
					fail("ibv_open_device " + name, err);
				}
			}
		ibv_free_device_list(list);
		if (!ctx_)
			throw VerbsError("no RDMA device named '" + name + "'");
		name_ = name;
		gid_index_ = static_cast<std::uint8_t>(gid_index);

		ibv_port_attr pattr{};
		if (int err = ibv_query_port(ctx_, kPort, &pattr))
			fail("ibv_query_port " + name, err);
		if (pattr.state != IBV_PORT_ACTIVE)
			throw VerbsError(name + " port 1 is not active");
		ibv_gid_entry entry{};
		if (int err = ibv_query_gid_ex(ctx_, kPort, gid_index, &entry, 0))
			fail(name + " GID index " + std::to_string(gid_index), err);
		if (entry.gid_type != IBV_GID_TYPE_ROCE_V2)
			throw VerbsError(name + " GID index " + std::to_string(gid_index) +
			                 " is not a RoCE v2 GID");
		std::memcpy(gid_.data(), entry.gid.raw, gid_.size());
		if (!gid_ipv4(gid_))
			throw VerbsError(name + " GID index " + std::to_string(gid_index) + " (" +
			                 gid_text(gid_.data()) + ") is not IPv4-mapped");

		pd_ = ibv_alloc_pd(ctx_);
		if (!pd_)
			fail("ibv_alloc_pd " + name);
		cq_ = ibv_create_cq(ctx_, 64, nullptr, nullptr, 0);
		if (!cq_)
			fail("ibv_create_cq " + name);
		buf_.assign(buf_size, std::byte{0});
		mr_ = ibv_reg_mr(pd_, buf_.data(), buf_.size(), IBV_ACCESS_LOCAL_WRITE);
		if (!mr_)
			fail("ibv_reg_mr " + name);

		ibv_qp_init_attr attr{};
		attr.send_cq = cq_;
		attr.recv_cq = cq_;
		attr.qp_type = IBV_QPT_UD;
		attr.cap.max_send_wr = 8;
		attr.cap.max_recv_wr = 32;
		attr.cap.max_send_sge = 1;
		attr.cap.max_recv_sge = 1;
		qp_ = ibv_create_qp(pd_, &attr);
		if (!qp_)
			fail("ibv_create_qp on " + name);
		to_rts();
	}

	// RESET (when asked: after an error completion), INIT, RTR, RTS.
	void to_rts(bool reset = false)
	{
		ibv_qp_attr attr{};

		if (reset) {
			attr.qp_state = IBV_QPS_RESET;
			if (int err = ibv_modify_qp(qp_, &attr, IBV_QP_STATE))
				fail("ibv_modify_qp to RESET", err);
		}
		attr = {};
		attr.qp_state = IBV_QPS_INIT;
		attr.pkey_index = 0;
		attr.port_num = kPort;
		attr.qkey = kQkey;
		if (int err = ibv_modify_qp(
		        qp_, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
			fail("ibv_modify_qp to INIT", err);
		attr = {};
		attr.qp_state = IBV_QPS_RTR;
		if (int err = ibv_modify_qp(qp_, &attr, IBV_QP_STATE))
			fail("ibv_modify_qp to RTR", err);
		attr = {};
		attr.qp_state = IBV_QPS_RTS;
		attr.sq_psn = 0;
		if (int err = ibv_modify_qp(qp_, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN))
			fail("ibv_modify_qp to RTS", err);
	}

	void create_ah(const std::array<std::uint8_t, 16> &dgid, std::uint32_t flow_label)
	{
		ibv_ah_attr attr{};

		attr.is_global = 1;
		std::memcpy(attr.grh.dgid.raw, dgid.data(), dgid.size());
		attr.grh.sgid_index = gid_index_;
		attr.grh.hop_limit = 64;
		attr.grh.flow_label = flow_label;
		attr.port_num = kPort;
		ah_ = ibv_create_ah(pd_, &attr);
		if (!ah_)
			fail("ibv_create_ah on " + name_);
	}

	void post_recv(unsigned slot)
	{
		ibv_sge sge{reinterpret_cast<std::uintptr_t>(recv_slot(slot)), kGrh + kPayload,
		            mr_->lkey};
		ibv_recv_wr wr{}, *bad;

		wr.wr_id = slot;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		if (int err = ibv_post_recv(qp_, &wr, &bad))
			fail("ibv_post_recv", err);
	}

	void post_send(std::uint64_t wr_id, std::uint32_t dqpn)
	{
		ibv_sge sge = send_sge();
		ibv_send_wr wr{}, *bad;

		wr.wr_id = wr_id;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.wr.ud.ah = ah_;
		wr.wr.ud.remote_qpn = dqpn;
		wr.wr.ud.remote_qkey = kQkey;
		if (int err = ibv_post_send(qp_, &wr, &bad))
			fail("ibv_post_send", err);
	}

	// What rdma-core's rxe provider does after writing WQEs: a
	// POST_SEND command with no work requests, written to the context's
	// command file, which makes the kernel run the QP's requester.
	void doorbell()
	{
		ib_uverbs_cmd_hdr hdr{};
		ib_uverbs_post_send cmd{};
		ib_uverbs_post_send_resp resp{};
		std::byte msg[sizeof(hdr) + sizeof(cmd)];

		hdr.command = IB_USER_VERBS_CMD_POST_SEND;
		hdr.in_words = sizeof(msg) / 4;
		hdr.out_words = sizeof(resp) / 4;
		cmd.response = reinterpret_cast<std::uintptr_t>(&resp);
		cmd.qp_handle = qp_->handle;
		cmd.wr_count = 0;
		cmd.sge_count = 0;
		cmd.wqe_size = sizeof(ib_uverbs_send_wr);
		std::memcpy(msg, &hdr, sizeof(hdr));
		std::memcpy(msg + sizeof(hdr), &cmd, sizeof(cmd));
		const ssize_t n = ::write(ctx_->cmd_fd, msg, sizeof(msg));
		if (n != static_cast<ssize_t>(sizeof(msg)))
			fail("the doorbell (POST_SEND, wr_count 0, on the uverbs command file)",
			     n < 0 ? errno : EIO);
	}

	ibv_sge send_sge() const
	{
		return {reinterpret_cast<std::uintptr_t>(buf_.data()), kPayload, mr_->lkey};
	}
	std::byte *send_buf()
	{
		return buf_.data();
	}
	std::byte *recv_slot(unsigned slot)
	{
		return buf_.data() + std::size_t{slot} * (kGrh + kPayload);
	}
	ibv_cq *cq() const
	{
		return cq_;
	}
	std::uint32_t qpn() const
	{
		return qp_->qp_num;
	}
	const std::array<std::uint8_t, 16> &gid() const
	{
		return gid_;
	}
	std::uint8_t gid_index() const
	{
		return gid_index_;
	}
	// "uverbs0": the character device whose mappings hold the queues.
	std::string uverbs_name() const
	{
		return ctx_->device->dev_name;
	}
	const std::string &name() const
	{
		return name_;
	}

private:
	std::string name_;
	std::uint8_t gid_index_ = 0;
	std::array<std::uint8_t, 16> gid_{};
	ibv_context *ctx_ = nullptr;
	ibv_pd *pd_ = nullptr;
	ibv_cq *cq_ = nullptr;
	ibv_mr *mr_ = nullptr;
	ibv_qp *qp_ = nullptr;
	ibv_ah *ah_ = nullptr;
	std::vector<std::byte> buf_;
};

} // namespace roce::wqe_av
