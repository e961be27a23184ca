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
 * either side of it moves both.
 *
 * A connected QP's path is one 64-bit word, qp->path: the label whose fold
 * is its UDP source port, whether the IPv6 header carries it, the policy,
 * the source, where its moves start and how many were made.  modify_qp sets
 * it, a move replaces it with a compare-and-exchange, and the data path, the
 * route cache and the resource dump each read it once: port and label
 * always come from one state, and a move that raced another move or a new
 * address gives way to it.
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
#include <rdma/roce_entropy_trace.h>

#include "rxe.h"
#include "rxe_loc.h"

/* qp->path, the path of an RC or UC QP */
#define RXE_PATH_FL		GENMASK_ULL(19, 0)  /* folds to the UDP port */
#define RXE_PATH_WIRE		BIT_ULL(20)	    /* in the IPv6 header too */
#define RXE_PATH_PINNED		BIT_ULL(21)	    /* the application's label */
#define RXE_PATH_POLICY		GENMASK_ULL(23, 22)
#define RXE_PATH_SOURCE		GENMASK_ULL(26, 24) /* 0: no address yet */
#define RXE_PATH_GEN		GENMASK_ULL(31, 27) /* addresses set, mod 32 */
#define RXE_PATH_BASE		GENMASK_ULL(51, 32) /* where moves start */
#define RXE_PATH_MOVE		GENMASK_ULL(63, 52) /* moves made */

static_assert(RDMA_ENTROPY_NR <= 4 && RDMA_ENTROPY_SRC_NR <= 8);

/*
 * Moves counted before the count starts again: whole rounds of the
 * sequence, within the 12 bits of RXE_PATH_MOVE
 */
#define RXE_REPATH_MOVES	(RDMA_REPATH_STEPS * 64)
static_assert(!(RXE_REPATH_MOVES & ~GENMASK(11, 0)));

static u16 rxe_path_sport(u64 path)
{
	return rdma_flow_label_to_udp_sport(FIELD_GET(RXE_PATH_FL, path));
}

static u32 rxe_path_flow_label(u64 path)
{
	return path & RXE_PATH_WIRE ? FIELD_GET(RXE_PATH_FL, path) : 0;
}

/* What a QP with @path uses, for the resource dump and the trace events. */
static void rxe_path_state(u64 path, struct rdma_entropy_state *st)
{
	st->flow_label = rxe_path_flow_label(path);
	st->udp_sport = rxe_path_sport(path);
	st->policy = FIELD_GET(RXE_PATH_POLICY, path);
	st->source = FIELD_GET(RXE_PATH_SOURCE, path);
}

/*
 * RC and UC: the address set by modify_qp fixes port and flow label.  rxe's
 * base port, 0xC000, is the fold of label 0, so the port is the fold of a
 * label under every policy: under "builtin" the label of
 * rdma_get_udp_sport(), which the IPv6 header does not carry.  That label
 * is also where an RC QP's moves start; one the application set is pinned.
 * Moves made under an earlier address are forgotten, and so are the rounds
 * the tasks counted (a new generation).
 */
void rxe_qp_set_entropy(struct rxe_qp *qp, struct rdma_ah_attr *attr)
{
	u32 fl = attr->grh.flow_label, rqpn = qp->attr.dest_qp_num;
	struct rdma_entropy_state st;
	u64 old, path;
	u32 label;

	rdma_entropy_path_state(&st, rdma_port_entropy(qp->ibqp.device,
						       qp->attr.port_num),
				fl, qp_num(qp), rqpn, RXE_ROCE_V2_SPORT);
	if (st.policy == RDMA_ENTROPY_BUILTIN)
		label = fl ? fl : rdma_calc_flow_label(qp_num(qp), rqpn);
	else
		label = st.flow_label;

	old = atomic64_read(&qp->path);
	path = FIELD_PREP(RXE_PATH_FL, label & IB_GRH_FLOWLABEL_MASK) |
	       FIELD_PREP(RXE_PATH_BASE, label & IB_GRH_FLOWLABEL_MASK) |
	       FIELD_PREP(RXE_PATH_POLICY, st.policy) |
	       FIELD_PREP(RXE_PATH_SOURCE, st.source) |
	       FIELD_PREP(RXE_PATH_GEN, FIELD_GET(RXE_PATH_GEN, old) + 1);
	/* rxe's own choice: no flow label in the IPv6 header */
	if (st.policy != RDMA_ENTROPY_BUILTIN)
		path |= RXE_PATH_WIRE;
	if (rdma_repath_pinned(fl))
		path |= RXE_PATH_PINNED;
	atomic64_set(&qp->path, path);

	rxe_path_state(path, &st);
	trace_roce_entropy_qp(qp->ibqp.device, qp->attr.port_num, qp_num(qp),
			      rqpn, &st);
}

/**
 * rxe_repath - move an RC QP to its next flow label if @event calls for it
 * @qp: the QP
 * @event: what it saw (rdma_repath_should_move())
 * @rounds: the events of its kind in a row, this one included
 * @path: the QP's path when the caller read it
 *
 * Called by the completer (requester) and the responder, each from its own
 * task.  The move replaces @path as a whole; if the QP's path is no longer
 * @path, the other task moved it or modify_qp gave it a new address since,
 * and that stands.  The QP's cached route was looked up with the old ports:
 * it is dropped after the move, and rxe_route_cached() drops one cached
 * meanwhile with the old port, so that none survives.
 */
static void rxe_repath(struct rxe_qp *qp, enum rdma_repath_event event,
		       unsigned int rounds, u64 path)
{
	enum rdma_repath repath;
	u64 next;
	u32 move;

	repath = rdma_port_repath(qp->ibqp.device, qp->attr.port_num);
	if (!rdma_repath_should_move(repath, path & RXE_PATH_PINNED, event,
				     rounds))
		return;

	move = FIELD_GET(RXE_PATH_MOVE, path) % RXE_REPATH_MOVES + 1;
	next = (path & ~(RXE_PATH_FL | RXE_PATH_MOVE)) | RXE_PATH_WIRE |
	       FIELD_PREP(RXE_PATH_FL,
			  rdma_repath_flow_label(FIELD_GET(RXE_PATH_BASE, path),
						 move)) |
	       FIELD_PREP(RXE_PATH_MOVE, move);
	if (!atomic64_try_cmpxchg(&qp->path, &path, next))
		return;

	trace_roce_entropy_repath(qp->ibqp.device, qp->attr.port_num,
				  qp_num(qp), move, event,
				  rxe_path_flow_label(path),
				  rxe_path_sport(path),
				  rxe_path_flow_label(next),
				  rxe_path_sport(next));
	sk_dst_reset(qp->sk->sk);
	rxe_counter_inc(to_rdev(qp->ibqp.device),
			event == RDMA_REPATH_DUPLICATE ? RXE_CNT_REPATH_RESP :
			RXE_CNT_REPATH_REQ);
}

/**
 * rxe_route_cached - the route of an RC QP was looked up and cached
 * @qp: the QP
 * @route_sport: the UDP source port the lookup saw, 0 if none
 *
 * A move since the lookup changed the port: the route is dropped.  A move
 * drops the cached route after it changes the port, and this reads the port
 * after the route was cached, so either drops a stale one.
 */
void rxe_route_cached(struct rxe_qp *qp, __be16 route_sport)
{
	u64 path = atomic64_read(&qp->path);

	if (route_sport && route_sport != htons(rxe_path_sport(path)))
		sk_dst_reset(qp->sk->sk);
}

/**
 * rxe_repath_timeout - the requester's retransmission timer expired
 * @qp: the RC QP, with requests unacknowledged
 *
 * rxe arms the timer when it sends and does not stop it when everything is
 * acknowledged, so a timer armed for an earlier request can expire while
 * a later one is still on its way.  A timeout counts as a round more in a
 * row when nothing was acknowledged since the previous one (the
 * completer's PSN has not moved) and the QP's address is the same.  Only
 * the completer touches the count.
 */
void rxe_repath_timeout(struct rxe_qp *qp)
{
	struct rxe_repath *rp = &qp->repath;
	u64 path = atomic64_read(&qp->path);
	u8 gen = FIELD_GET(RXE_PATH_GEN, path);
	u32 psn = qp->comp.psn;

	if (rp->rto_rounds && rp->rto_gen == gen && psn == rp->rto_psn) {
		if (rp->rto_rounds < U8_MAX)
			rp->rto_rounds++;
	} else {
		rp->rto_gen = gen;
		rp->rto_psn = psn;
		rp->rto_rounds = 1;
	}
	rxe_repath(qp, RDMA_REPATH_TIMEOUT, rp->rto_rounds, path);
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
 * other, or a new address, starts a count of its own.  New requests in
 * between change nothing: a requester may keep sending while it waits.
 * Only the responder's task touches the count.
 */
void rxe_repath_duplicate(struct rxe_qp *qp, u32 psn)
{
	struct rxe_repath *rp = &qp->repath;
	u64 path = atomic64_read(&qp->path);
	u8 gen = FIELD_GET(RXE_PATH_GEN, path);
	bool same = rp->dup_rounds && rp->dup_gen == gen;
	bool more = same && psn == ((rp->dup_last + 1) & BTH_PSN_MASK);

	rp->dup_last = psn;
	if (same && psn == rp->dup_start) {
		if (rp->dup_rounds < U8_MAX)
			rp->dup_rounds++;
	} else if (!more) {
		rp->dup_gen = gen;
		rp->dup_start = psn;
		rp->dup_rounds = 1;
	} else {
		return;
	}
	rxe_repath(qp, RDMA_REPATH_DUPLICATE, rp->dup_rounds, path);
}

/*
 * UD: an AH keeps the policy in force when it was created.  Under "builtin"
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
	if (st.policy == RDMA_ENTROPY_BUILTIN) {
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
	if (st->policy == RDMA_ENTROPY_BUILTIN) {
		st->source = RDMA_ENTROPY_SRC_PER_QP;
		st->udp_sport = qp->src_port;
	} else if (qp_type(qp) != IB_QPT_GSI &&
		   rdma_entropy_ud_per_send(st->policy, 0)) {
		st->source = RDMA_ENTROPY_SRC_PER_SEND;
	} else {
		st->source = RDMA_ENTROPY_SRC_PER_AH;
	}
}

/* The QP's entropy in its rdma netlink resource dump entry. */
int rxe_fill_res_qp_entry(struct sk_buff *msg, struct ib_qp *ibqp)
{
	struct rxe_qp *qp = to_rqp(ibqp);
	struct rdma_entropy_state st = {};

	if (qp_type(qp) == IB_QPT_UD || qp_type(qp) == IB_QPT_GSI)
		rxe_ud_entropy(qp, &st);
	else
		rxe_path_state(atomic64_read(&qp->path), &st);

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
	u64 path;
	u32 fl;

	if (qp_type(qp) == IB_QPT_RC || qp_type(qp) == IB_QPT_UC) {
		/* one read: a move may replace it (rxe_repath()) */
		path = atomic64_read(&qp->path);
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
