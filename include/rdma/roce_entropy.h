/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RoCE v2 entropy: the IPv6 flow label and UDP source port of a connection.
 *
 * ECMP routers and LAGs hash the outer UDP/IP headers, so the UDP source port
 * (and, on IPv6, the flow label) is the only per-connection entropy they see.
 * These helpers derive both from what the two ends of a connection share: the
 * rdma_cm ports, or the two QP numbers.  Under "rfc" every hash is
 * symmetric in its two inputs, so both ends, and both directions, compute the
 * same value.  "builtin", the default, leaves the choice to rdma_cm and each
 * driver, as they make it without a policy.
 *
 * The UDP source port is always the RFC fold of the flow label,
 * rdma_flow_label_to_udp_sport(), and a non-zero flow label that the
 * application set always wins over a generated one.
 *
 * See Documentation/infiniband/roce_entropy.rst.
 */
#ifndef _RDMA_ROCE_ENTROPY_H
#define _RDMA_ROCE_ENTROPY_H

#include <rdma/ib_verbs.h>

/**
 * enum rdma_entropy_policy - how flow labels are generated on a port
 * @RDMA_ENTROPY_BUILTIN: rdma_cm's and each driver's own choice (the
 *                      default): rdma_cm's sport * 31 + dport, the QPN hash
 *                      for connected QPs without a flow label, each driver's
 *                      own rule for UD
 * @RDMA_ENTROPY_OFF: none are: flow label 0, the device's base port
 * @RDMA_ENTROPY_RFC: the "RoCE v2.0 Entropy" RFC v2 product-and-fold hashes
 * @RDMA_ENTROPY_NR: number of policies
 *
 * RDMA_ENTROPY_BUILTIN is 0, so zeroed driver state means the builtin choice.
 */
enum rdma_entropy_policy {
	RDMA_ENTROPY_BUILTIN,
	RDMA_ENTROPY_OFF,
	RDMA_ENTROPY_RFC,
	RDMA_ENTROPY_NR,
};

#define RDMA_ENTROPY_QPN_MASK 0xffffff

/**
 * rdma_calc_cm_flow_label - the RFC flow label of an rdma_cm connection
 * @sport: rdma_cm source port
 * @dport: rdma_cm destination port
 *
 * The CM counterpart of rdma_calc_flow_label(): the 32-bit product of the two
 * ports, folded to 20 bits.
 *
 * Return: the 20-bit flow label.
 */
static inline u32 rdma_calc_cm_flow_label(u16 sport, u16 dport)
{
	u32 hash = (u32)dport * sport;

	hash ^= hash >> 16;
	hash ^= hash >> 8;

	return hash & IB_GRH_FLOWLABEL_MASK;
}

/* rdma_cm's own flow label (the builtin policy): spread, not symmetric. */
static inline u32 rdma_builtin_cm_flow_label(u16 sport, u16 dport)
{
	return ((u32)sport * 31 + dport) & IB_GRH_FLOWLABEL_MASK;
}

/**
 * rdma_entropy_cm_flow_label - flow label of an rdma_cm connection
 * @policy: the port's policy
 * @sport: rdma_cm source port (the active side's)
 * @dport: rdma_cm destination port (the service's)
 *
 * Return: the 20-bit flow label, 0 under RDMA_ENTROPY_OFF.
 */
static inline u32 rdma_entropy_cm_flow_label(enum rdma_entropy_policy policy,
					     u16 sport, u16 dport)
{
	switch (policy) {
	case RDMA_ENTROPY_BUILTIN:
		return rdma_builtin_cm_flow_label(sport, dport);
	case RDMA_ENTROPY_RFC:
		return rdma_calc_cm_flow_label(sport, dport);
	default:
		return 0;
	}
}

/**
 * rdma_entropy_qpn_flow_label - flow label of a connection without rdma_cm
 * @policy: the port's policy
 * @lqpn: local QP number
 * @rqpn: remote QP number
 *
 * Only the 24 bits of a QP number count.  6.12 used the RFC hash too.
 *
 * Return: the 20-bit flow label, 0 under RDMA_ENTROPY_OFF.
 */
static inline u32 rdma_entropy_qpn_flow_label(enum rdma_entropy_policy policy,
					      u32 lqpn, u32 rqpn)
{
	lqpn &= RDMA_ENTROPY_QPN_MASK;
	rqpn &= RDMA_ENTROPY_QPN_MASK;

	switch (policy) {
	case RDMA_ENTROPY_BUILTIN:
	case RDMA_ENTROPY_RFC:
		return rdma_calc_flow_label(lqpn, rqpn);
	default:
		return 0;
	}
}

/**
 * rdma_entropy_flow_label - the flow label a QP or AH uses
 * @policy: the port's policy
 * @fl: the flow label the consumer set in the address, 0 if none
 * @lqpn: local QP number
 * @rqpn: remote QP number
 *
 * A flow label set by the consumer always wins; otherwise @policy generates
 * one from the QP numbers.
 *
 * Return: the 20-bit flow label, 0 for none.
 */
static inline u32 rdma_entropy_flow_label(enum rdma_entropy_policy policy,
					  u32 fl, u32 lqpn, u32 rqpn)
{
	fl &= IB_GRH_FLOWLABEL_MASK;
	if (fl)
		return fl;

	return rdma_entropy_qpn_flow_label(policy, lqpn, rqpn);
}

/* The QPN of the GSI QP, which carries the CM MADs. */
#define RDMA_ENTROPY_GSI_QPN 1

/**
 * rdma_entropy_ud_flow_label - the flow label of one UD send
 * @policy: the policy of the send's AH, or of its QP's port
 * @fl: the flow label of the send's address, 0 if none
 * @sqpn: source QP number, as it goes on the wire
 * @dqpn: destination QP number, as it goes on the wire
 *
 * As rdma_entropy_flow_label(), except that a send to the multicast QPN
 * depends on the source QPN alone: the multicast QPN is replaced by 1, the
 * identity of the product.  RDMA_ENTROPY_BUILTIN generates nothing per send
 * (6.12's drivers did not): only @fl counts.
 *
 * QP1 generates nothing either: a CM MAD belongs to a connection, whose flow
 * label its AH carries.  Without one (the connection was made under "off")
 * the MAD keeps the base port, as that connection's other MADs do on both
 * hosts, whatever the policy is when each MAD is sent.  A QPN hash would give
 * QP1 one constant port anyway, QP1 talking to QP1 only.
 *
 * Return: the 20-bit flow label, 0 for none.
 */
static inline u32 rdma_entropy_ud_flow_label(enum rdma_entropy_policy policy,
					     u32 fl, u32 sqpn, u32 dqpn)
{
	sqpn &= RDMA_ENTROPY_QPN_MASK;
	dqpn &= RDMA_ENTROPY_QPN_MASK;
	if (sqpn == RDMA_ENTROPY_GSI_QPN || policy == RDMA_ENTROPY_BUILTIN)
		return fl & IB_GRH_FLOWLABEL_MASK;
	if (dqpn == IB_MULTICAST_QPN)
		dqpn = 1;

	return rdma_entropy_flow_label(policy, fl, sqpn, dqpn);
}

/**
 * rdma_entropy_sport - the UDP source port of a flow label
 * @fl: the flow label in use, 0 if none
 * @base_sport: the port the device uses without entropy (0xC000 for rxe,
 *              the device's minimum RoCE source port for mlx5); 0, a
 *              device that reports none, takes 0xC000: never port 0
 *
 * Return: the fold of @fl, or the base port when @fl is 0.
 */
static inline u16 rdma_entropy_sport(u32 fl, u16 base_sport)
{
	if (fl)
		return rdma_flow_label_to_udp_sport(fl);

	return base_sport ?: IB_ROCE_UDP_ENCAP_VALID_PORT_MIN;
}

/**
 * rdma_entropy_path - flow label and UDP source port of a connected QP
 * @policy: the port's policy
 * @fl: the flow label of the QP's address, 0 if the consumer set none
 * @lqpn: local QP number
 * @rqpn: remote QP number
 * @base_sport: the port the device uses without entropy
 * @sport: set to the UDP source port to program
 *
 * For RC, UC and XRC QPs.  Under RDMA_ENTROPY_OFF, and whenever no flow label
 * results, the port is @base_sport.  Under RDMA_ENTROPY_BUILTIN it is 6.12's
 * rdma_get_udp_sport() of the very same inputs, bits above a flow label's 20
 * and a QPN's 24 included, and the flow label is the consumer's only: 6.12
 * hashed the QP numbers into the port but not into the IPv6 header.  The
 * other policies take 20 bits of @fl and 24 of each QPN, the bits that go
 * on the wire.
 *
 * Return: the flow label to program into the path (and the IPv6 header).
 */
static inline u32 rdma_entropy_path(enum rdma_entropy_policy policy, u32 fl,
				    u32 lqpn, u32 rqpn, u16 base_sport,
				    u16 *sport)
{
	u32 gen;

	if (policy == RDMA_ENTROPY_BUILTIN) {
		/* every bit of the inputs counts, as it did in 6.12 */
		*sport = rdma_get_udp_sport(fl, lqpn, rqpn);
		return fl & IB_GRH_FLOWLABEL_MASK;
	}
	gen = rdma_entropy_flow_label(policy, fl, lqpn, rqpn);
	*sport = rdma_entropy_sport(gen, base_sport);

	return gen;
}

/**
 * rdma_entropy_ud_per_send - whether sends through a UD AH need their own
 *                            entropy
 * @policy: the port's policy when the AH was created
 * @ah_fl: the AH's flow label
 *
 * An AH with a flow label uses it for every send; one without takes the
 * flow label of each send from its QP numbers under "rfc" (unless the QP is
 * QP1, see rdma_entropy_ud_flow_label()).
 *
 * Return: true when each send computes its own flow label.
 */
static inline bool rdma_entropy_ud_per_send(enum rdma_entropy_policy policy,
					    u32 ah_fl)
{
	return !(ah_fl & IB_GRH_FLOWLABEL_MASK) &&
	       policy == RDMA_ENTROPY_RFC;
}

/**
 * rdma_entropy_udp_sport - the RoCE v2 UDP source port a QP or AH uses
 * @policy: the port's policy
 * @fl: the flow label the consumer set in the address, 0 if none
 * @lqpn: local QP number
 * @rqpn: remote QP number
 *
 * Return: the fold of rdma_entropy_flow_label() into 0xC000-0xFFFF.
 */
static inline u16 rdma_entropy_udp_sport(enum rdma_entropy_policy policy,
					 u32 fl, u32 lqpn, u32 rqpn)
{
	return rdma_flow_label_to_udp_sport(rdma_entropy_flow_label(policy, fl,
								     lqpn, rqpn));
}

/**
 * enum rdma_entropy_source - where the entropy of a QP or AH comes from
 * @RDMA_ENTROPY_SRC_UNSET: not decided yet: a connected QP before its address
 * @RDMA_ENTROPY_SRC_ADDRESS: the flow label of its address, which the
 *                            consumer or rdma_cm set
 * @RDMA_ENTROPY_SRC_QPN: the policy's hash of the local and remote QPNs
 * @RDMA_ENTROPY_SRC_NONE: nothing: flow label 0 and the device's base port
 * @RDMA_ENTROPY_SRC_PER_SEND: UD: each send its own, from its AH's flow label
 *                             or the two QPNs (rdma_entropy_ud_flow_label())
 * @RDMA_ENTROPY_SRC_PER_AH: UD: the flow label and port of each send's AH
 * @RDMA_ENTROPY_SRC_PER_QP: UD under "builtin" on rxe: one port per QP for
 *                           every destination, no flow label
 * @RDMA_ENTROPY_SRC_NR: number of sources
 */
enum rdma_entropy_source {
	RDMA_ENTROPY_SRC_UNSET,
	RDMA_ENTROPY_SRC_ADDRESS,
	RDMA_ENTROPY_SRC_QPN,
	RDMA_ENTROPY_SRC_NONE,
	RDMA_ENTROPY_SRC_PER_SEND,
	RDMA_ENTROPY_SRC_PER_AH,
	RDMA_ENTROPY_SRC_PER_QP,
	RDMA_ENTROPY_SRC_NR,
};

/**
 * struct rdma_entropy_state - the entropy a QP or AH was given
 * @flow_label: the flow label it puts in the IPv6 header
 * @udp_sport: its UDP source port, 0 where each send or AH has its own
 * @policy: the policy it was given (enum rdma_entropy_policy)
 * @source: where @flow_label and @udp_sport come from
 *          (enum rdma_entropy_source)
 *
 * A driver keeps the state of each connected QP in its own QP structure.
 * Zeroed, it is RDMA_ENTROPY_SRC_UNSET.
 */
struct rdma_entropy_state {
	u32 flow_label;
	u16 udp_sport;
	u8 policy;
	u8 source;
};

/**
 * rdma_entropy_path_state - rdma_entropy_path(), and where its result came from
 * @st: set to the QP's entropy
 * @policy: the port's policy
 * @fl: the flow label of the QP's address, 0 if the consumer set none
 * @lqpn: local QP number
 * @rqpn: remote QP number
 * @base_sport: the port the device uses without entropy
 */
static inline void rdma_entropy_path_state(struct rdma_entropy_state *st,
					   enum rdma_entropy_policy policy,
					   u32 fl, u32 lqpn, u32 rqpn,
					   u16 base_sport)
{
	u16 sport;

	st->flow_label = rdma_entropy_path(policy, fl, lqpn, rqpn, base_sport,
					   &sport);
	st->udp_sport = sport;
	st->policy = policy;
	if (policy == RDMA_ENTROPY_BUILTIN ? fl : fl & IB_GRH_FLOWLABEL_MASK)
		st->source = RDMA_ENTROPY_SRC_ADDRESS;
	else if (policy == RDMA_ENTROPY_OFF)
		st->source = RDMA_ENTROPY_SRC_NONE;
	else
		st->source = RDMA_ENTROPY_SRC_QPN;
}

/*
 * A QP's state is written when it gets its address and read by the resource
 * dump at any time, without the QP's locks: field by field, once each.
 */
static inline void rdma_entropy_state_store(struct rdma_entropy_state *dst,
					    const struct rdma_entropy_state *src)
{
	WRITE_ONCE(dst->flow_label, src->flow_label);
	WRITE_ONCE(dst->udp_sport, src->udp_sport);
	WRITE_ONCE(dst->policy, src->policy);
	WRITE_ONCE(dst->source, src->source);
}

static inline void rdma_entropy_state_load(struct rdma_entropy_state *dst,
					   const struct rdma_entropy_state *src)
{
	dst->flow_label = READ_ONCE(src->flow_label);
	dst->udp_sport = READ_ONCE(src->udp_sport);
	dst->policy = READ_ONCE(src->policy);
	dst->source = READ_ONCE(src->source);
}

enum rdma_entropy_policy rdma_port_entropy(struct ib_device *dev, u32 port);

#endif /* _RDMA_ROCE_ENTROPY_H */
