// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 entropy for rxe: the UDP source port and IPv6 flow label of each
 * packet, following the port's policy (Documentation/infiniband/
 * roce_entropy.rst).  What can be decided once is decided when a QP gets
 * its address or an AH is created; a UD send without a flow label costs a
 * multiply and a fold.
 *
 * A connected QP's path is one 32-bit word, qp->path: the label whose fold
 * is its UDP source port, whether the IPv6 header carries it, the policy
 * and the source.  modify_qp sets it, and the data path reads it once:
 * port and label always come from one state.
 *
 * Under "builtin" rxe makes its own choice: connected QPs use the port of
 * rdma_get_udp_sport() of the very same inputs, UD QPs one port per QP for
 * every destination (set when the QP is created, 0xC000 + hash_32(qpn,
 * 14)), the IPv6 header has flow label 0, and routes are looked up without
 * the UDP ports.
 *
 * A user QP's send queue is mapped into its process: the WQE of a UD send,
 * and the address vector in it when the send names no AH, can change while
 * rxe reads them.  The only value read here from that memory is the AV's
 * flow label, once, and it is masked to 20 bits.  The QP and port numbers
 * are the QP's own, the destination QPN is the one in the BTH already built.
 */

#include <linux/bitfield.h>
#include <rdma/roce_entropy.h>

#include "rxe.h"
#include "rxe_loc.h"

/* qp->path, the path of an RC or UC QP */
#define RXE_PATH_FL		GENMASK(19, 0)	/* folds to the UDP port */
#define RXE_PATH_WIRE		BIT(20)		/* in the IPv6 header too */
#define RXE_PATH_POLICY		GENMASK(23, 22)
#define RXE_PATH_SOURCE		GENMASK(26, 24)	/* 0: no address yet */

static_assert(RDMA_ENTROPY_NR <= 4 && RDMA_ENTROPY_SRC_NR <= 8);

static u16 rxe_path_sport(u32 path)
{
	return rdma_flow_label_to_udp_sport(FIELD_GET(RXE_PATH_FL, path));
}

static u32 rxe_path_flow_label(u32 path)
{
	return path & RXE_PATH_WIRE ? FIELD_GET(RXE_PATH_FL, path) : 0;
}

/*
 * RC and UC: the address set by modify_qp fixes port and flow label.  rxe's
 * base port, 0xC000, is the fold of label 0, so the port is the fold of a
 * label under every policy: under "builtin" the label of
 * rdma_get_udp_sport(), which the IPv6 header does not carry.
 */
void rxe_qp_set_entropy(struct rxe_qp *qp, struct rdma_ah_attr *attr)
{
	u32 fl = attr->grh.flow_label, rqpn = qp->attr.dest_qp_num;
	struct rdma_entropy_state st;
	u32 label, path;

	rdma_entropy_path_state(&st, rdma_port_entropy(qp->ibqp.device,
						       qp->attr.port_num),
				fl, qp_num(qp), rqpn, RXE_ROCE_V2_SPORT);
	if (st.policy == RDMA_ENTROPY_BUILTIN)
		label = fl ? fl : rdma_calc_flow_label(qp_num(qp), rqpn);
	else
		label = st.flow_label;

	path = FIELD_PREP(RXE_PATH_FL, label & IB_GRH_FLOWLABEL_MASK) |
	       FIELD_PREP(RXE_PATH_POLICY, st.policy) |
	       FIELD_PREP(RXE_PATH_SOURCE, st.source);
	/* rxe's own choice: no flow label in the IPv6 header */
	if (st.policy != RDMA_ENTROPY_BUILTIN)
		path |= RXE_PATH_WIRE;
	atomic_set(&qp->path, path);
}

/*
 * UD: an AH keeps the policy in force when it was created.  Under "builtin"
 * its sends leave from the sending QP's own port without a flow label, under
 * the other policies with the AH's flow label if it has one; without one,
 * "rfc" computes a flow label per send, "off" uses the base port.
 */
void rxe_ah_set_entropy(struct rxe_ah *ah, struct rdma_ah_attr *attr)
{
	ah->entropy = rdma_port_entropy(ah->ibah.device, attr->port_num);
}

/*
 * rxe_get_av() took @av from the AH that the send names by number or, for an
 * old provider's send, from the WQE itself.  Tell which by its address: the
 * WQE's ah_num is not read again, user space may have changed it since.
 */
static struct rxe_ah *rxe_pkt_ah(struct rxe_pkt_info *pkt, struct rxe_av *av)
{
	if (av == &pkt->wqe->wr.wr.ud.av)
		return NULL;

	return container_of(av, struct rxe_ah, av);
}

/**
 * rxe_pkt_entropy - UDP source port and flow label of an outgoing packet
 * @pkt: the packet, its BTH built; pkt->wqe is set for UD requests
 * @av: its address vector, from rxe_get_av()
 * @sport: set to the UDP source port
 * @route_sport: set to the UDP source port the route lookup sees: @sport, or
 *               0 under "builtin"
 *
 * Return: the flow label, for the IPv6 header.
 */
u32 rxe_pkt_entropy(struct rxe_pkt_info *pkt, struct rxe_av *av, u16 *sport,
		    __be16 *route_sport)
{
	struct rxe_qp *qp = pkt->qp;
	enum rdma_entropy_policy policy;
	struct rxe_ah *ah;
	u32 path, fl;

	if (qp_type(qp) == IB_QPT_RC || qp_type(qp) == IB_QPT_UC) {
		/* one read: modify_qp may replace it */
		path = atomic_read(&qp->path);
		if (FIELD_GET(RXE_PATH_SOURCE, path)) {
			policy = FIELD_GET(RXE_PATH_POLICY, path);
			*sport = rxe_path_sport(path);
			fl = rxe_path_flow_label(path);
		} else {
			/* an address without a GRH: the QP's own port */
			policy = RDMA_ENTROPY_BUILTIN;
			*sport = qp->src_port;
			fl = 0;
		}
	} else {
		ah = rxe_pkt_ah(pkt, av);
		policy = ah ? ah->entropy :
			rdma_port_entropy(qp->ibqp.device, qp->attr.port_num);
		if (policy == RDMA_ENTROPY_BUILTIN) {
			*sport = qp->src_port;
			fl = 0;
		} else {
			fl = rdma_entropy_ud_flow_label(policy,
							READ_ONCE(av->grh.flow_label),
							qp_num(qp), bth_qpn(pkt));
			*sport = rdma_entropy_sport(fl, RXE_ROCE_V2_SPORT);
		}
	}
	*route_sport = policy == RDMA_ENTROPY_BUILTIN ? 0 : htons(*sport);

	return fl;
}
