// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 entropy for rxe: the UDP source port and IPv6 flow label of each
 * packet, following the port's policy (Documentation/infiniband/
 * roce_entropy.rst).  What can be decided once is decided when a QP gets
 * its address or an AH is created; a UD send without a flow label costs a
 * multiply and a fold.
 */

#include <rdma/roce_entropy.h>

#include "rxe.h"
#include "rxe_loc.h"

/* RC and UC: the address set by modify_qp fixes port and flow label. */
void rxe_qp_set_entropy(struct rxe_qp *qp, struct rdma_ah_attr *attr)
{
	qp->flow_label = rdma_entropy_path(rdma_port_entropy(qp->ibqp.device,
							     attr->port_num),
					   attr->grh.flow_label, qp_num(qp),
					   qp->attr.dest_qp_num,
					   RXE_ROCE_V2_SPORT, &qp->src_port);
}

/* UD: an AH keeps the policy in force when it was created. */
void rxe_ah_set_entropy(struct rxe_ah *ah, struct rdma_ah_attr *attr)
{
	ah->entropy = rdma_port_entropy(ah->ibah.device, attr->port_num);
}

/**
 * rxe_pkt_entropy - UDP source port and flow label of an outgoing packet
 * @pkt: the packet; pkt->wqe is set for UD requests
 * @av: its address vector
 * @sport: set to the UDP source port
 *
 * Return: the flow label, for the IPv6 header.
 */
u32 rxe_pkt_entropy(struct rxe_pkt_info *pkt, struct rxe_av *av, u16 *sport)
{
	struct rxe_qp *qp = pkt->qp;
	enum rdma_entropy_policy policy;
	u32 fl;

	if (qp_type(qp) == IB_QPT_RC || qp_type(qp) == IB_QPT_UC) {
		*sport = qp->src_port;
		return qp->flow_label;
	}

	/*
	 * A send that names its AH by number got @av from that AH (see
	 * rxe_get_av()); an old provider's send carries the AV itself, with
	 * no AH to remember a policy, and follows the port's current one.
	 */
	if (pkt->wqe->wr.wr.ud.ah_num)
		policy = container_of(av, struct rxe_ah, av)->entropy;
	else
		policy = rdma_port_entropy(qp->ibqp.device, av->port_num);

	fl = rdma_entropy_ud_flow_label(policy, av->grh.flow_label, qp_num(qp),
					pkt->wqe->wr.wr.ud.remote_qpn);
	*sport = rdma_entropy_sport(fl, RXE_ROCE_V2_SPORT);

	return fl;
}
