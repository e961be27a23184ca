// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 entropy for rxe: the UDP source port and IPv6 flow label of each
 * packet, following the port's policy (Documentation/infiniband/
 * roce_entropy.rst).  What can be decided once is decided when a QP gets
 * its address or an AH is created; a UD send without a flow label costs a
 * multiply and a fold.
 *
 * Re-path: with the port's roce_repath on, an RC QP whose requester's
 * retransmission timer expires twice in a row without an acknowledgment,
 * or whose responder sees the same request retransmitted twice in a row,
 * moves to the next flow label of its
 * sequence, rdma_repath_flow_label(): the UDP source port follows, the IPv6
 * header carries it, and the route is looked up again with the new ports.
 * A QP sends its requests and its responses on one path, so a move made by
 * either side of it moves both.  A move rewrites the QP's port and flow
 * label where modify_qp put them: the data path reads them as it always
 * does, and the resource dump shows what the QP uses now.
 *
 * Under "linux" rxe does what 6.12's rxe did: connected QPs use the port of
 * rdma_get_udp_sport(), UD QPs one port per QP for every destination (set
 * when the QP is created, 0xC000 + hash_32(qpn, 14)), the IPv6 header has
 * flow label 0, and routes are looked up without the UDP ports.
 *
 * A user QP's send queue is mapped into its process: the WQE of a UD send,
 * and the address vector in it when the send names no AH, can change while
 * rxe reads them.  The only value read here from that memory is the AV's
 * flow label, once, and it is masked to 20 bits.  The QP and port numbers
 * are the QP's own, the destination QPN is the one in the BTH already built.
 */

#include <rdma/roce_entropy.h>
#include <rdma/roce_entropy_trace.h>

#include "rxe.h"
#include "rxe_loc.h"

/*
 * RC: where the QP's moves start.  The base is the label whose fold is the
 * port the QP uses (the QPN hash's under "linux", whose IPv6 header has no
 * label; 0 under "off", folding to 0xC000); a label the application set is
 * pinned.  Moves made under an earlier address are forgotten.
 */
static void rxe_repath_init(struct rxe_qp *qp, enum rdma_entropy_policy policy,
			    u32 app_fl)
{
	struct rxe_repath *rp = &qp->repath;

	WRITE_ONCE(rp->base, rdma_entropy_flow_label(policy, app_fl, qp_num(qp),
						     qp->attr.dest_qp_num));
	WRITE_ONCE(rp->pinned, rdma_repath_pinned(qp->ibqp.device,
						  qp->attr.port_num,
						  qp->attr.dest_qp_num,
						  app_fl));
	atomic_set(&rp->moves, 0);
	rp->rto_rounds = 0;
	rp->dup_rounds = 0;
}

/* RC and UC: the address set by modify_qp fixes port and flow label. */
void rxe_qp_set_entropy(struct rxe_qp *qp, struct rdma_ah_attr *attr)
{
	struct rdma_entropy_state st;

	rdma_entropy_path_state(&st, rdma_port_entropy(qp->ibqp.device,
						       qp->attr.port_num),
				attr->grh.flow_label, qp_num(qp),
				qp->attr.dest_qp_num, RXE_ROCE_V2_SPORT);
	/* 6.12's rxe put no flow label in the IPv6 header */
	if (st.policy == RDMA_ENTROPY_LINUX)
		st.flow_label = 0;
	qp->src_port = st.udp_sport;
	rdma_entropy_state_store(&qp->entropy, &st);
	trace_roce_entropy_qp(qp->ibqp.device, qp->attr.port_num, qp_num(qp),
			      qp->attr.dest_qp_num, &st);
	if (qp_type(qp) == IB_QPT_RC)
		rxe_repath_init(qp, st.policy, attr->grh.flow_label);
}

/**
 * rxe_repath - move an RC QP to its next flow label if @event calls for it
 * @qp: the QP
 * @event: what it saw (rdma_repath_should_move())
 * @rounds: the events of its kind in a row, this one included
 *
 * Called by the completer (requester) and the responder, each from its own
 * task: the move number is taken atomically, port and label written once
 * each (a packet built meanwhile may take one from each of two moves).
 * The QP's cached route was looked up with the old ports: it is dropped,
 * the next packet looks it up again.
 */
static void rxe_repath(struct rxe_qp *qp, enum rdma_repath_event event,
		       unsigned int rounds)
{
	struct rxe_repath *rp = &qp->repath;
	enum rdma_repath repath;
	u16 old_sport, sport;
	u32 move, old_fl, fl;

	if (qp_type(qp) != IB_QPT_RC)
		return;
	repath = rdma_port_repath(qp->ibqp.device, qp->attr.port_num);
	if (!rdma_repath_should_move(repath, READ_ONCE(rp->pinned), event,
				     rounds))
		return;

	move = atomic_inc_return(&rp->moves);
	fl = rdma_repath_flow_label(READ_ONCE(rp->base), move);
	sport = rdma_flow_label_to_udp_sport(fl);
	old_fl = READ_ONCE(qp->entropy.flow_label);
	old_sport = READ_ONCE(qp->src_port);
	WRITE_ONCE(qp->src_port, sport);
	WRITE_ONCE(qp->entropy.udp_sport, sport);
	WRITE_ONCE(qp->entropy.flow_label, fl);
	trace_roce_entropy_repath(qp->ibqp.device, qp->attr.port_num,
				  qp_num(qp), move, event, old_fl, old_sport, fl,
				  sport);
	sk_dst_reset(qp->sk->sk);
	rxe_counter_inc(to_rdev(qp->ibqp.device),
			event == RDMA_REPATH_DUPLICATE ? RXE_CNT_REPATH_RESP :
			RXE_CNT_REPATH_REQ);
}

/**
 * rxe_repath_timeout - the requester's retransmission timer expired
 * @qp: the RC QP, with requests unacknowledged
 *
 * rxe arms the timer when it sends and does not stop it when everything is
 * acknowledged, so a timer armed for an earlier request can expire while
 * a later one is still on its way.  A timeout counts as a round more in a
 * row when nothing was acknowledged since the previous one (the
 * completer's PSN has not moved).  Only the completer touches the count.
 */
void rxe_repath_timeout(struct rxe_qp *qp)
{
	struct rxe_repath *rp = &qp->repath;
	u32 psn = qp->comp.psn;

	if (rp->rto_rounds && psn == rp->rto_psn) {
		if (rp->rto_rounds < U8_MAX)
			rp->rto_rounds++;
	} else {
		rp->rto_psn = psn;
		rp->rto_rounds = 1;
	}
	rxe_repath(qp, RDMA_REPATH_TIMEOUT, rp->rto_rounds);
}

/**
 * rxe_repath_duplicate - the responder got a duplicate request
 * @qp: the RC QP
 * @psn: the request's PSN
 *
 * A requester retransmits from its oldest unacknowledged PSN.  The same
 * PSN arriving again as the first of a retransmission means no response
 * since the previous one got through: a round more in a row.  A PSN that
 * follows the previous duplicate is the rest of one retransmission; any
 * other starts a count of its own.  New requests in between change
 * nothing: a requester may keep sending while it waits.  Only the
 * responder's task touches the count.
 */
void rxe_repath_duplicate(struct rxe_qp *qp, u32 psn)
{
	struct rxe_repath *rp = &qp->repath;
	bool more = rp->dup_rounds &&
		    psn == ((rp->dup_last + 1) & BTH_PSN_MASK);

	rp->dup_last = psn;
	if (rp->dup_rounds && psn == rp->dup_start) {
		if (rp->dup_rounds < U8_MAX)
			rp->dup_rounds++;
	} else if (!more) {
		rp->dup_start = psn;
		rp->dup_rounds = 1;
	} else {
		return;
	}
	rxe_repath(qp, RDMA_REPATH_DUPLICATE, rp->dup_rounds);
}

/*
 * UD: an AH keeps the policy in force when it was created.  Under "linux"
 * its sends leave from the sending QP's own port without a flow label, under
 * the other policies with the AH's flow label if it has one; without one,
 * "rfc" and "mix" compute a flow label per send, "off" uses the base port.
 */
void rxe_ah_set_entropy(struct rxe_ah *ah, struct rdma_ah_attr *attr)
{
	u32 fl = attr->grh.flow_label & IB_GRH_FLOWLABEL_MASK;
	struct rdma_entropy_state st = {};

	ah->entropy = rdma_port_entropy(ah->ibah.device, attr->port_num);
	st.policy = ah->entropy;
	if (st.policy == RDMA_ENTROPY_LINUX) {
		st.source = RDMA_ENTROPY_SRC_PER_QP;
	} else if (fl) {
		st.source = RDMA_ENTROPY_SRC_ADDRESS;
		st.flow_label = fl;
		st.udp_sport = rdma_flow_label_to_udp_sport(fl);
	} else if (rdma_entropy_ud_per_send(st.policy, fl)) {
		st.source = RDMA_ENTROPY_SRC_PER_SEND;
	} else {
		st.source = RDMA_ENTROPY_SRC_NONE;
		st.udp_sport = RXE_ROCE_V2_SPORT;
	}
	trace_roce_entropy_ah(ah->ibah.device, attr->port_num, 0, 0, &st);
}

/*
 * A UD QP's sends take their entropy from their AHs (above), each AH's
 * policy being the port's when it was created; the QP shows its port's
 * policy now.  QP1 only ever uses its AH's flow label.
 */
static void rxe_ud_entropy(struct rxe_qp *qp, struct rdma_entropy_state *st)
{
	st->policy = rdma_port_entropy(qp->ibqp.device, qp->attr.port_num);
	if (st->policy == RDMA_ENTROPY_LINUX) {
		st->source = RDMA_ENTROPY_SRC_PER_QP;
		st->udp_sport = qp->src_port;
	} else if (qp_type(qp) != IB_QPT_GSI &&
		   rdma_entropy_ud_per_send(st->policy, 0)) {
		st->source = RDMA_ENTROPY_SRC_PER_SEND;
	} else {
		st->source = RDMA_ENTROPY_SRC_PER_AH;
	}
}

/* The QP's entropy in the rdma netlink resource dump (rdma res show qp). */
int rxe_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rdma_entropy_state st = {};

	if (qp_type(qp) == IB_QPT_UD || qp_type(qp) == IB_QPT_GSI)
		rxe_ud_entropy(qp, &st);
	else
		rdma_entropy_state_load(&st, &qp->entropy);

	return rdma_entropy_fill_res_qp(msg, &st);
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
 *               0 under "linux"
 *
 * Return: the flow label, for the IPv6 header.
 */
u32 rxe_pkt_entropy(struct rxe_pkt_info *pkt, struct rxe_av *av, u16 *sport,
		    __be16 *route_sport)
{
	struct rxe_qp *qp = pkt->qp;
	enum rdma_entropy_policy policy;
	struct rxe_ah *ah;
	u32 fl;

	if (qp_type(qp) == IB_QPT_RC || qp_type(qp) == IB_QPT_UC) {
		/* a re-path move may rewrite them (rxe_repath()) */
		policy = qp->entropy.policy;
		*sport = READ_ONCE(qp->src_port);
		fl = READ_ONCE(qp->entropy.flow_label);
	} else {
		ah = rxe_pkt_ah(pkt, av);
		policy = ah ? ah->entropy :
			rdma_port_entropy(qp->ibqp.device, qp->attr.port_num);
		if (policy == RDMA_ENTROPY_LINUX) {
			*sport = qp->src_port;
			fl = 0;
		} else {
			fl = rdma_entropy_ud_flow_label(policy,
							READ_ONCE(av->grh.flow_label),
							qp_num(qp), bth_qpn(pkt));
			*sport = rdma_entropy_sport(fl, RXE_ROCE_V2_SPORT);
		}
	}
	*route_sport = policy == RDMA_ENTROPY_LINUX ? 0 : htons(*sport);

	return fl;
}
