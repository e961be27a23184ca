// SPDX-License-Identifier: GPL-2.0
// rxe-wqe-av's device: the shared one with a UD QP and an AH (verbs.cpp
// drives it).
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

#include "verbs/device.h"
#include "verbs/error.h"
#include "wqe_av.h"

namespace roce::wqe_av
{

constexpr std::uint8_t kPort = 1;            // rxe has one port
constexpr std::uint32_t kQkey = 0x52574156u; // "RWAV"
constexpr unsigned kPayload = 64;            // bytes per message
constexpr unsigned kGrh = 40;                // a UD receive starts with the GRH

// One device (the shared roce::Device: context, PD, CQ, a registered
// buffer of message slots, slot 0 the send buffer) with one UD QP and its
// AH.  The destructor releases the QP and AH before the device's own.
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
	}
	Device(const Device &) = delete;
	Device &operator=(const Device &) = delete;

	// Open NAME with an IPv4-mapped RoCE v2 GID at GID_INDEX and SLOTS
	// receive slots of a GRH and a message each.
	void open(const std::string &name, unsigned gid_index, unsigned slots)
	{
		DeviceConfig cfg;
		cfg.port = kPort;
		cfg.gid_index = gid_index;
		cfg.cq_depth = 64;
		cfg.slots = slots;
		cfg.size = kGrh + kPayload;
		dev_.open(name, cfg);
		std::memcpy(gid_.data(), dev_.gid().raw, gid_.size());
		if (!gid_ipv4(gid_))
			throw VerbsError(name + " GID index " + std::to_string(gid_index) + " (" +
			                 gid_text(gid_.data()) + ") is not IPv4-mapped");
		ibv_qp_init_attr attr = qp_init_attr(dev_.cq(), IBV_QPT_UD, 8, 32);
		qp_ = ibv_create_qp(dev_.pd(), &attr);
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
		attr.grh.sgid_index = dev_.gid_index();
		attr.grh.hop_limit = 64;
		attr.grh.flow_label = flow_label;
		attr.port_num = kPort;
		ah_ = ibv_create_ah(dev_.pd(), &attr);
		if (!ah_)
			fail("ibv_create_ah on " + dev_.name());
	}

	void post_recv(unsigned slot)
	{
		dev_.post_recv(qp_, slot);
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
		const ssize_t n = ::write(dev_.context()->cmd_fd, msg, sizeof(msg));
		if (n != static_cast<ssize_t>(sizeof(msg)))
			fail("the doorbell (POST_SEND, wr_count 0, on the uverbs command file)",
			     n < 0 ? errno : EIO);
	}

	ibv_sge send_sge()
	{
		ibv_sge sge = dev_.slot_sge(0);
		sge.length = kPayload;
		return sge;
	}
	std::byte *send_buf()
	{
		return recv_slot(0);
	}
	std::byte *recv_slot(unsigned slot)
	{
		return reinterpret_cast<std::byte *>(dev_.slot(slot));
	}
	ibv_cq *cq() const
	{
		return dev_.cq();
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
		return dev_.gid_index();
	}
	// "uverbs0": the character device whose mappings hold the queues.
	std::string uverbs_name() const
	{
		return dev_.context()->device->dev_name;
	}
	const std::string &name() const
	{
		return dev_.name();
	}

private:
	roce::Device dev_;
	std::array<std::uint8_t, 16> gid_{};
	ibv_qp *qp_ = nullptr;
	ibv_ah *ah_ = nullptr;
};

} // namespace roce::wqe_av
