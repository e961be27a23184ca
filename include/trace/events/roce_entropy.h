/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace events of the RoCE v2 entropy policy: the UDP source port and IPv6
 * flow label a QP or an AH was given, and when it was given them.
 *
 * Defined in ib_core (roce_entropy.c), fired by the drivers that follow the
 * policy.  The events of one kind share the class roce_entropy_class;
 * a new event about a QP's entropy is one more DEFINE_EVENT.
 *
 * See Documentation/infiniband/roce_entropy.rst.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM roce_entropy

#if !defined(_TRACE_ROCE_ENTROPY_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_ROCE_ENTROPY_H

#include <linux/tracepoint.h>
#include <rdma/ib_verbs.h>
#include <rdma/roce_entropy.h>

TRACE_DEFINE_ENUM(RDMA_ENTROPY_BUILTIN);
TRACE_DEFINE_ENUM(RDMA_ENTROPY_OFF);
TRACE_DEFINE_ENUM(RDMA_ENTROPY_RFC);

TRACE_DEFINE_ENUM(RDMA_ENTROPY_SRC_UNSET);
TRACE_DEFINE_ENUM(RDMA_ENTROPY_SRC_ADDRESS);
TRACE_DEFINE_ENUM(RDMA_ENTROPY_SRC_QPN);
TRACE_DEFINE_ENUM(RDMA_ENTROPY_SRC_NONE);
TRACE_DEFINE_ENUM(RDMA_ENTROPY_SRC_PER_SEND);
TRACE_DEFINE_ENUM(RDMA_ENTROPY_SRC_PER_AH);
TRACE_DEFINE_ENUM(RDMA_ENTROPY_SRC_PER_QP);

/* The names the knob (roce_entropy.c), rdma and the documentation use. */
#define show_roce_entropy_policy(x)					\
	__print_symbolic(x, { RDMA_ENTROPY_BUILTIN, "builtin" },		\
			 { RDMA_ENTROPY_OFF, "off" },			\
			 { RDMA_ENTROPY_RFC, "rfc" })

#define show_roce_entropy_source(x)					\
	__print_symbolic(x, { RDMA_ENTROPY_SRC_UNSET, "unset" },	\
			 { RDMA_ENTROPY_SRC_ADDRESS, "address" },	\
			 { RDMA_ENTROPY_SRC_QPN, "qpn" },		\
			 { RDMA_ENTROPY_SRC_NONE, "none" },		\
			 { RDMA_ENTROPY_SRC_PER_SEND, "per-send" },	\
			 { RDMA_ENTROPY_SRC_PER_AH, "per-ah" },	\
			 { RDMA_ENTROPY_SRC_PER_QP, "per-qp" })

/*
 * A QP or AH got its entropy: the device and port, the local and remote QP
 * numbers (0 for an AH, which belongs to no QP), and the state the driver
 * keeps (struct rdma_entropy_state).
 */
DECLARE_EVENT_CLASS(roce_entropy_class,
		    TP_PROTO(struct ib_device *dev, u32 port, u32 qpn, u32 rqpn,
			     const struct rdma_entropy_state *st),
		    TP_ARGS(dev, port, qpn, rqpn, st),
		    TP_STRUCT__entry(__string(device, dev_name(&dev->dev))
				     __field(u32, port)
				     __field(u32, qpn)
				     __field(u32, rqpn)
				     __field(u32, flow_label)
				     __field(u16, udp_sport)
				     __field(u8, policy)
				     __field(u8, source)),
		    TP_fast_assign(__assign_str(device);
				   __entry->port = port;
				   __entry->qpn = qpn;
				   __entry->rqpn = rqpn;
				   __entry->flow_label = st->flow_label;
				   __entry->udp_sport = st->udp_sport;
				   __entry->policy = st->policy;
				   __entry->source = st->source;),
		    TP_printk("device=%s port=%u qpn=%u rqpn=%u policy=%s source=%s flow_label=0x%05x udp_sport=%u",
			      __get_str(device), __entry->port, __entry->qpn,
			      __entry->rqpn,
			      show_roce_entropy_policy(__entry->policy),
			      show_roce_entropy_source(__entry->source),
			      __entry->flow_label, __entry->udp_sport));

/* A connected QP (RC, UC, XRC) got its address. */
DEFINE_EVENT(roce_entropy_class, roce_entropy_qp,
	     TP_PROTO(struct ib_device *dev, u32 port, u32 qpn, u32 rqpn,
		      const struct rdma_entropy_state *st),
	     TP_ARGS(dev, port, qpn, rqpn, st));

/* An address handle was created: its QP numbers are 0 and not printed. */
DEFINE_EVENT_PRINT(roce_entropy_class, roce_entropy_ah,
		   TP_PROTO(struct ib_device *dev, u32 port, u32 qpn, u32 rqpn,
			    const struct rdma_entropy_state *st),
		   TP_ARGS(dev, port, qpn, rqpn, st),
		   TP_printk("device=%s port=%u policy=%s source=%s flow_label=0x%05x udp_sport=%u",
			     __get_str(device), __entry->port,
			     show_roce_entropy_policy(__entry->policy),
			     show_roce_entropy_source(__entry->source),
			     __entry->flow_label, __entry->udp_sport));

#endif /* _TRACE_ROCE_ENTROPY_H */

#include <trace/define_trace.h>
