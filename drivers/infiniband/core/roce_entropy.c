// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 entropy policy: the per-port sysfs knobs and their module defaults.
 *
 * The hashes themselves are inline in <rdma/roce_entropy.h> so that providers
 * can use them on their send paths; this file owns the policy and the re-path
 * setting of each port and the address of a reply to a received packet,
 * which need ib_core.
 *
 * The settings of a port live in its struct ib_port_data, reached through
 * ib_port_roce(), and so share the device's lifetime: set from the defaults
 * when the device registers, freed with the device.  They count only on
 * devices whose driver declares, with IBK_ROCE_ENTROPY, that it follows the
 * policy; every other port keeps the builtin choice.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <kunit/visibility.h>
#include <rdma/ib_sysfs.h>
#include <rdma/rdma_netlink.h>
#include <rdma/roce_entropy.h>

#include "core_priv.h"

#define CREATE_TRACE_POINTS
#include <rdma/roce_entropy_trace.h>

EXPORT_TRACEPOINT_SYMBOL_GPL(roce_entropy_qp);
EXPORT_TRACEPOINT_SYMBOL_GPL(roce_entropy_ah);
EXPORT_TRACEPOINT_SYMBOL_GPL(roce_entropy_repath);

static const char * const rdma_entropy_names[RDMA_ENTROPY_NR] = {
	[RDMA_ENTROPY_BUILTIN] = "builtin",
	[RDMA_ENTROPY_OFF] = "off",
	[RDMA_ENTROPY_RFC] = "rfc",
	[RDMA_ENTROPY_MIX] = "mix",
};

/**
 * rdma_entropy_parse - parse a policy name
 * @buf: "builtin", "off", "rfc" or "mix", optionally followed by one newline
 *
 * Return: the policy, or -EINVAL for anything else.
 */
int rdma_entropy_parse(const char *buf)
{
	return sysfs_match_string(rdma_entropy_names, buf);
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_parse);

/**
 * rdma_entropy_name - the name of a policy, as sysfs shows it
 * @policy: the policy
 *
 * Return: the policy's name, "unknown" for a value that names none.
 */
const char *rdma_entropy_name(enum rdma_entropy_policy policy)
{
	if (policy >= RDMA_ENTROPY_NR)
		return "unknown";

	return rdma_entropy_names[policy];
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_name);

/* The uAPI's values are the policies' own. */
static_assert((int)RDMA_NL_ROCE_ENTROPY_BUILTIN == (int)RDMA_ENTROPY_BUILTIN &&
	      (int)RDMA_NL_ROCE_ENTROPY_OFF == (int)RDMA_ENTROPY_OFF &&
	      (int)RDMA_NL_ROCE_ENTROPY_RFC == (int)RDMA_ENTROPY_RFC &&
	      (int)RDMA_NL_ROCE_ENTROPY_MIX == (int)RDMA_ENTROPY_MIX &&
	      (int)RDMA_NL_ROCE_ENTROPY_MIX + 1 == (int)RDMA_ENTROPY_NR);

/* The resource dump's value of each source a QP can have. */
static const u8 rdma_entropy_nl_sources[RDMA_ENTROPY_SRC_NR] = {
	[RDMA_ENTROPY_SRC_ADDRESS] = RDMA_NL_ROCE_FL_SOURCE_ADDRESS,
	[RDMA_ENTROPY_SRC_QPN] = RDMA_NL_ROCE_FL_SOURCE_QPN,
	[RDMA_ENTROPY_SRC_NONE] = RDMA_NL_ROCE_FL_SOURCE_NONE,
	[RDMA_ENTROPY_SRC_PER_SEND] = RDMA_NL_ROCE_FL_SOURCE_PER_SEND,
	[RDMA_ENTROPY_SRC_PER_AH] = RDMA_NL_ROCE_FL_SOURCE_PER_AH,
	[RDMA_ENTROPY_SRC_PER_QP] = RDMA_NL_ROCE_FL_SOURCE_PER_QP,
};

/* Whether @source gives the QP one flow label and port for every packet. */
static bool rdma_entropy_source_fixed(enum rdma_entropy_source source)
{
	return source == RDMA_ENTROPY_SRC_ADDRESS ||
	       source == RDMA_ENTROPY_SRC_QPN ||
	       source == RDMA_ENTROPY_SRC_NONE ||
	       source == RDMA_ENTROPY_SRC_PER_QP;
}

/**
 * rdma_entropy_fill_res_qp - a QP's entropy in its rdma netlink resource dump
 * @msg: the dump's message, at the QP's entry
 * @st: the QP's entropy
 *
 * For a driver's fill_res_qp_entry(): RDMA_NLDEV_ATTR_RES_ROCE_ENTROPY (the
 * policy), RDMA_NLDEV_ATTR_RES_ROCE_FL_SOURCE (where the entropy comes
 * from) and, when the QP sends every packet with one flow label and port,
 * RDMA_NLDEV_ATTR_RES_ROCE_FLOW_LABEL and RDMA_NLDEV_ATTR_RES_ROCE_UDP_SPORT.
 * A QP that has no entropy yet (RDMA_ENTROPY_SRC_UNSET) gets none.
 *
 * Return: 0, or -EMSGSIZE when the message is full; the message is then
 * as it was.
 */
int rdma_entropy_fill_res_qp(struct sk_buff *msg,
			     const struct rdma_entropy_state *st)
{
	unsigned char *mark = skb_tail_pointer(msg);

	if (st->source == RDMA_ENTROPY_SRC_UNSET ||
	    st->source >= RDMA_ENTROPY_SRC_NR || st->policy >= RDMA_ENTROPY_NR)
		return 0;

	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_ROCE_ENTROPY, st->policy) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_RES_ROCE_FL_SOURCE,
		       rdma_entropy_nl_sources[st->source]))
		goto err;
	if (rdma_entropy_source_fixed(st->source) &&
	    (nla_put_u32(msg, RDMA_NLDEV_ATTR_RES_ROCE_FLOW_LABEL,
			 st->flow_label) ||
	     nla_put_u16(msg, RDMA_NLDEV_ATTR_RES_ROCE_UDP_SPORT,
			 st->udp_sport)))
		goto err;

	return 0;

err:
	nlmsg_trim(msg, mark);
	return -EMSGSIZE;
}
EXPORT_SYMBOL(rdma_entropy_fill_res_qp);

static const char * const rdma_repath_names[RDMA_REPATH_NR] = {
	[RDMA_REPATH_OFF] = "off",
	[RDMA_REPATH_ON] = "on",
};

/**
 * rdma_repath_parse - parse a re-path setting
 * @buf: "off" or "on", optionally followed by one newline
 *
 * Return: the setting, or -EINVAL for anything else.
 */
int rdma_repath_parse(const char *buf)
{
	return sysfs_match_string(rdma_repath_names, buf);
}
EXPORT_SYMBOL_IF_KUNIT(rdma_repath_parse);

/**
 * rdma_repath_name - the name of a re-path setting, as sysfs shows it
 * @repath: the setting
 *
 * Return: the setting's name, "unknown" for a value that names none.
 */
const char *rdma_repath_name(enum rdma_repath repath)
{
	if (repath >= RDMA_REPATH_NR)
		return "unknown";

	return rdma_repath_names[repath];
}
EXPORT_SYMBOL_IF_KUNIT(rdma_repath_name);

/* What devices start with: set over rdma netlink, nothing else. */
static unsigned int roce_entropy = RDMA_ENTROPY_BUILTIN;
static unsigned int roce_repath = RDMA_REPATH_OFF;

/**
 * rdma_entropy_init_port - give a port of a registering device the defaults
 * @dev: the device
 * @port: the port number
 *
 * Called as the device registers: its ports start with the policy and the
 * re-path setting rdma netlink last set as the defaults.
 */
void rdma_entropy_init_port(struct ib_device *dev, u32 port)
{
	struct ib_port_roce *roce = ib_port_roce(dev, port);

	WRITE_ONCE(roce->entropy, READ_ONCE(roce_entropy));
	WRITE_ONCE(roce->repath, READ_ONCE(roce_repath));
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_init_port);

/*
 * The settings of @port of @dev, NULL for an invalid port or a device that
 * does not follow the policy.
 */
static struct ib_port_roce *rdma_entropy_port(struct ib_device *dev, u32 port)
{
	if (!(dev->attrs.kernel_cap_flags & IBK_ROCE_ENTROPY) ||
	    !rdma_is_port_valid(dev, port))
		return NULL;

	return ib_port_roce(dev, port);
}

/**
 * rdma_port_entropy - the entropy policy of a port
 * @dev: the device
 * @port: the port number; any value is safe: an invalid port, or a port of
 *        a device that does not follow the policy, gets RDMA_ENTROPY_BUILTIN
 *
 * Lockless: the policy can change at any time through sysfs; a QP or AH
 * samples it once when its address is set.
 *
 * Return: the port's policy.
 */
enum rdma_entropy_policy rdma_port_entropy(struct ib_device *dev, u32 port)
{
	struct ib_port_roce *roce = rdma_entropy_port(dev, port);

	return roce ? READ_ONCE(roce->entropy) : RDMA_ENTROPY_BUILTIN;
}
EXPORT_SYMBOL(rdma_port_entropy);

/**
 * rdma_entropy_set_port - set the entropy policy of a port
 * @dev: the device
 * @port: the port number; any value is safe
 * @policy: the policy, one of enum rdma_entropy_policy
 *
 * For the port's knob and rdma netlink.  QPs, AHs and rdma_cm connections
 * that have their address keep what they got.
 *
 * Return: 0, or -ENODEV when the port has no policy: an invalid port, or a
 * device that does not follow the policy.
 */
int rdma_entropy_set_port(struct ib_device *dev, u32 port,
			  enum rdma_entropy_policy policy)
{
	struct ib_port_roce *roce = rdma_entropy_port(dev, port);

	if (!roce)
		return -ENODEV;

	WRITE_ONCE(roce->entropy, policy);
	return 0;
}

/**
 * rdma_entropy_default - the policy devices start with when they register
 *
 * Return: the policy rdma_entropy_set_default() set, builtin until then.
 */
enum rdma_entropy_policy rdma_entropy_default(void)
{
	return READ_ONCE(roce_entropy);
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_default);

/**
 * rdma_entropy_set_default - set the policy of devices registered from now on
 * @policy: the policy, one of enum rdma_entropy_policy
 *
 * Devices registered already keep their ports' policies.
 */
void rdma_entropy_set_default(enum rdma_entropy_policy policy)
{
	WRITE_ONCE(roce_entropy, policy);
}

/**
 * rdma_repath_default - the re-path setting devices start with
 *
 * Return: the setting rdma_repath_set_default() set, off until then.
 */
enum rdma_repath rdma_repath_default(void)
{
	return READ_ONCE(roce_repath);
}
EXPORT_SYMBOL_IF_KUNIT(rdma_repath_default);

/**
 * rdma_repath_set_default - set the re-path of devices registered from now on
 * @repath: the setting, one of enum rdma_repath
 *
 * Devices registered already keep their ports' settings.
 */
void rdma_repath_set_default(enum rdma_repath repath)
{
	WRITE_ONCE(roce_repath, repath);
}

/**
 * rdma_port_repath - the re-path setting of a port
 * @dev: the device
 * @port: the port number; any value is safe: an invalid port, or a port of
 *        a device that does not follow the policy, gets RDMA_REPATH_OFF
 *
 * Lockless, as rdma_port_entropy(); a driver samples it when a QP sees an
 * event that may move it, never per packet.
 *
 * Return: the port's re-path setting.
 */
enum rdma_repath rdma_port_repath(struct ib_device *dev, u32 port)
{
	struct ib_port_roce *roce = rdma_entropy_port(dev, port);

	return roce ? READ_ONCE(roce->repath) : RDMA_REPATH_OFF;
}
EXPORT_SYMBOL(rdma_port_repath);

/**
 * rdma_entropy_set_reply_flow_label - give a reply the connection's flow label
 * @dev: the device the reply leaves from
 * @attr: the reply's address, built from a received packet
 * @fl: the flow label of the connection it belongs to, 0 if none is known
 *
 * See rdma_entropy_reply_flow_label().  Addresses without a GRH are left
 * alone.
 */
void rdma_entropy_set_reply_flow_label(struct ib_device *dev,
				       struct rdma_ah_attr *attr, u32 fl)
{
	enum rdma_entropy_policy policy;
	struct ib_global_route *grh;

	if (!(rdma_ah_get_ah_flags(attr) & IB_AH_GRH))
		return;

	policy = rdma_port_entropy(dev, rdma_ah_get_port_num(attr));
	grh = rdma_ah_retrieve_grh(attr);
	grh->flow_label = rdma_entropy_reply_flow_label(policy,
							grh->flow_label, fl);
}
EXPORT_SYMBOL(rdma_entropy_set_reply_flow_label);

/**
 * rdma_entropy_create_reply_ah - the AH of a reply to a received packet
 * @pd: the PD of the replying QP
 * @wc: the work completion of the received packet
 * @grh: its GRH
 * @port_num: the port it arrived on
 * @fl: the flow label of the connection it belongs to, 0 if none is known
 *
 * ib_create_ah_from_wc() with rdma_entropy_set_reply_flow_label(): over
 * IPv4, where no flow label arrives, the reply leaves with @fl, on the UDP
 * source port of the connection it answers for.
 *
 * Return: the AH, or an ERR_PTR().
 */
struct ib_ah *rdma_entropy_create_reply_ah(struct ib_pd *pd,
					   const struct ib_wc *wc,
					   const struct ib_grh *grh,
					   u32 port_num, u32 fl)
{
	struct rdma_ah_attr ah_attr;
	struct ib_ah *ah;
	int ret;

	ret = ib_init_ah_attr_from_wc(pd->device, port_num, wc, grh, &ah_attr);
	if (ret)
		return ERR_PTR(ret);

	rdma_entropy_set_reply_flow_label(pd->device, &ah_attr, fl);
	ah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	rdma_destroy_ah_attr(&ah_attr);

	return ah;
}
EXPORT_SYMBOL(rdma_entropy_create_reply_ah);

/* A value written to a port's knob: "rfc\0junk" is not "rfc". */
static int roce_entropy_store_parse(int (*parse)(const char *buf),
				    const char *buf, size_t count)
{
	if (memchr(buf, '\0', count))
		return -EINVAL;

	return parse(buf);
}

static ssize_t roce_entropy_show(struct ib_device *ibdev, u32 port_num,
				 struct ib_port_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  rdma_entropy_name(rdma_port_entropy(ibdev, port_num)));
}

VISIBLE_IF_KUNIT ssize_t roce_entropy_store(struct ib_device *ibdev,
					    u32 port_num,
					    struct ib_port_attribute *attr,
					    const char *buf, size_t count)
{
	int policy, ret;

	policy = roce_entropy_store_parse(rdma_entropy_parse, buf, count);
	if (policy < 0)
		return policy;

	ret = rdma_entropy_set_port(ibdev, port_num, policy);
	if (ret)
		return ret;

	return count;
}
EXPORT_SYMBOL_IF_KUNIT(roce_entropy_store);

static IB_PORT_ATTR_RW(roce_entropy);

static ssize_t roce_repath_show(struct ib_device *ibdev, u32 port_num,
				struct ib_port_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  rdma_repath_name(rdma_port_repath(ibdev, port_num)));
}

static ssize_t roce_repath_store(struct ib_device *ibdev, u32 port_num,
				 struct ib_port_attribute *attr,
				 const char *buf, size_t count)
{
	struct ib_port_roce *roce;
	int repath;

	repath = roce_entropy_store_parse(rdma_repath_parse, buf, count);
	if (repath < 0)
		return repath;

	roce = rdma_entropy_port(ibdev, port_num);
	if (!roce)
		return -ENODEV;

	WRITE_ONCE(roce->repath, repath);
	return count;
}

static IB_PORT_ATTR_RW(roce_repath);

static struct attribute *roce_entropy_attrs[] = {
	&ib_port_attr_roce_entropy.attr,
	&ib_port_attr_roce_repath.attr,
	NULL
};

/**
 * rdma_entropy_port_has_knob - whether a port has the roce_entropy knob
 * @dev: the device
 * @port: the port number
 *
 * RoCE v2 ports, which carry a UDP header to put the entropy in, of devices
 * whose driver follows the policy (IBK_ROCE_ENTROPY).
 *
 * Return: true when the port has the knob.
 */
bool rdma_entropy_port_has_knob(struct ib_device *dev, u32 port)
{
	return (dev->attrs.kernel_cap_flags & IBK_ROCE_ENTROPY) &&
	       rdma_protocol_roce_udp_encap(dev, port);
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_port_has_knob);

/*
 * In shared network namespace mode every namespace has a compat device with
 * its own ports directory; the knob is the device's own, in its own
 * namespace only.
 */
static umode_t roce_entropy_is_visible(struct kobject *kobj,
				       struct attribute *attr, int n)
{
	struct ib_device *ibdev;
	u32 port_num;

	ibdev = ib_port_sysfs_get_ibdev_kobj(kobj, &port_num);
	if (kobj->parent != ibdev->coredev.ports_kobj)
		return 0;

	return rdma_entropy_port_has_knob(ibdev, port_num) ? attr->mode : 0;
}

const struct attribute_group ib_port_roce_entropy_group = {
	.attrs = roce_entropy_attrs,
	.is_visible = roce_entropy_is_visible,
};
