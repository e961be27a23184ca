// SPDX-License-Identifier: GPL-2.0
// One RDMA device opened with ibverbs alone (no rdma_cm), RC QPs taken to
// RTS by hand (QPN, GID, PSN 0), as ibv_rc_pingpong does, and UD QPs with
// an address handle per peer, as ibv_ud_pingpong does.
#include "verbs/device.h"

namespace roce
{

ibv_qp_init_attr qp_init_attr(ibv_cq *cq, ibv_qp_type type, unsigned send_depth,
                              unsigned recv_depth)
{
	ibv_qp_init_attr attr{};

	attr.send_cq = cq;
	attr.recv_cq = cq;
	attr.qp_type = type;
	attr.cap.max_send_wr = send_depth;
	attr.cap.max_recv_wr = recv_depth;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	return attr;
}

Device::~Device()
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

void Device::open(const std::string &name, const DeviceConfig &cfg)
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
	port_ = static_cast<std::uint8_t>(cfg.port);
	gid_index_ = static_cast<std::uint8_t>(cfg.gid_index);
	ibv_port_attr pattr{};
	if (int err = ibv_query_port(ctx_, port_, &pattr))
		fail("ibv_query_port " + name + " port " + std::to_string(cfg.port), err);
	if (pattr.state != IBV_PORT_ACTIVE)
		throw VerbsError(name + " port " + std::to_string(cfg.port) + " is not active");
	mtu_ = pattr.active_mtu;
	ibv_gid_entry entry{};
	if (int err = ibv_query_gid_ex(ctx_, port_, cfg.gid_index, &entry, 0))
		fail(name + " GID index " + std::to_string(cfg.gid_index), err);
	if (entry.gid_type != IBV_GID_TYPE_ROCE_V2)
		throw VerbsError(name + " GID index " + std::to_string(cfg.gid_index) +
		                 " is not a RoCE v2 GID");
	gid_ = entry.gid;

	pd_ = ibv_alloc_pd(ctx_);
	if (!pd_)
		fail("ibv_alloc_pd " + name);
	cq_ = ibv_create_cq(ctx_, static_cast<int>(cfg.cq_depth), nullptr, nullptr, 0);
	if (!cq_)
		fail("ibv_create_cq " + name);
	size_ = cfg.size;
	buf_.assign(std::size_t{cfg.slots} * size_, 0);
	mr_ = ibv_reg_mr(pd_, buf_.data(), buf_.size(), IBV_ACCESS_LOCAL_WRITE);
	if (!mr_)
		fail("ibv_reg_mr " + name);
}

ibv_qp *Device::create_qp(ibv_qp_type type)
{
	ibv_qp_init_attr attr = qp_init_attr(cq_, type, 2, 2);
	ibv_qp *qp = ibv_create_qp(pd_, &attr);
	if (!qp)
		fail("ibv_create_qp on " + name_);
	return qp;
}

void connect_rc(ibv_qp *qp, const RcPath &path)
{
	ibv_qp_attr attr{};

	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = path.port;
	attr.qp_access_flags = path.access;
	if (int err = ibv_modify_qp(
	        qp, &attr, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		fail("ibv_modify_qp to INIT", err);

	attr = {};
	attr.qp_state = IBV_QPS_RTR;
	attr.path_mtu = path.mtu;
	attr.dest_qp_num = path.remote_qpn;
	attr.max_dest_rd_atomic = 1;
	attr.min_rnr_timer = 12;
	attr.ah_attr.is_global = 1;
	attr.ah_attr.grh.dgid = path.dgid;
	attr.ah_attr.grh.sgid_index = path.sgid_index;
	attr.ah_attr.grh.hop_limit = 64;
	attr.ah_attr.port_num = path.port;
	if (int err =
	        ibv_modify_qp(qp, &attr,
	                      IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
	                          IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		fail("ibv_modify_qp to RTR", err);

	attr = {};
	attr.qp_state = IBV_QPS_RTS;
	attr.timeout = path.ack_timeout;
	attr.retry_cnt = path.retry_count;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = 1;
	if (int err = ibv_modify_qp(qp, &attr,
	                            IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
	                                IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		fail("ibv_modify_qp to RTS", err);
}

void Device::connect(ibv_qp *qp, std::uint32_t remote_qpn, const ibv_gid &dgid)
{
	RcPath path;

	path.port = port_;
	path.mtu = mtu_;
	path.sgid_index = gid_index_;
	path.remote_qpn = remote_qpn;
	path.dgid = dgid;
	connect_rc(qp, path);
}

void Device::ready_ud(ibv_qp *qp)
{
	ibv_qp_attr attr{};

	attr.qp_state = IBV_QPS_INIT;
	attr.port_num = port_;
	attr.qkey = kQkey;
	if (int err = ibv_modify_qp(qp, &attr,
	                            IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY))
		fail("ibv_modify_qp UD to INIT", err);
	attr = {};
	attr.qp_state = IBV_QPS_RTR;
	if (int err = ibv_modify_qp(qp, &attr, IBV_QP_STATE))
		fail("ibv_modify_qp UD to RTR", err);
	attr = {};
	attr.qp_state = IBV_QPS_RTS;
	if (int err = ibv_modify_qp(qp, &attr, IBV_QP_STATE | IBV_QP_SQ_PSN))
		fail("ibv_modify_qp UD to RTS", err);
}

ibv_ah *Device::create_ah(const ibv_gid &dgid)
{
	ibv_ah_attr attr{};

	attr.is_global = 1;
	attr.grh.dgid = dgid;
	attr.grh.sgid_index = gid_index_;
	attr.grh.hop_limit = 64;
	attr.port_num = port_;
	ibv_ah *ah = ibv_create_ah(pd_, &attr);
	if (!ah)
		fail("ibv_create_ah on " + name_);
	return ah;
}

ibv_sge Device::slot_sge(unsigned i)
{
	return {reinterpret_cast<std::uintptr_t>(slot(i)), size_, mr_->lkey};
}

void Device::post_recv(ibv_qp *qp, unsigned i, std::uint64_t wr_id, unsigned len)
{
	ibv_sge sge = slot_sge(i);
	ibv_recv_wr wr{}, *bad;

	sge.length = len;
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	if (int err = ibv_post_recv(qp, &wr, &bad))
		fail("ibv_post_recv", err);
}

void Device::post_send(ibv_qp *qp, unsigned i, std::uint64_t wr_id, unsigned len, ibv_ah *ah,
                       std::uint32_t remote_qpn)
{
	ibv_sge sge = slot_sge(i);
	ibv_send_wr wr{}, *bad;

	sge.length = len;
	wr.wr_id = wr_id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ah) {
		wr.wr.ud.ah = ah;
		wr.wr.ud.remote_qpn = remote_qpn;
		wr.wr.ud.remote_qkey = kQkey;
	}
	if (int err = ibv_post_send(qp, &wr, &bad))
		fail("ibv_post_send", err);
}

} // namespace roce
