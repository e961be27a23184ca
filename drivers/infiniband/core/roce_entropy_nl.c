// SPDX-License-Identifier: GPL-2.0
/*
 * The RoCE v2 entropy policy over rdma netlink: a port's policy in
 * RDMA_NLDEV_CMD_PORT_GET and RDMA_NLDEV_CMD_SET, the default, which
 * every port not set on its own follows, in RDMA_NLDEV_CMD_SYS_GET and
 * RDMA_NLDEV_CMD_SYS_SET.
 * A port's policy is the same setting as its roce_entropy file
 * (roce_entropy.c); nldev.c calls in here.
 */

#include <kunit/visibility.h>
#include <net/netlink.h>
#include <rdma/rdma_netlink.h>

#include "core_priv.h"

/* The bits of enum rdma_nl_roce_entropy_scope for rdma_entropy_port_scope() */
static u8 rdma_entropy_nl_scope(u64 scope)
{
	u8 nl = 0;

	if (scope & IBK_ROCE_ENTROPY_SPORT)
		nl |= RDMA_NL_ROCE_ENTROPY_SCOPE_SPORT;
	if (scope & IBK_ROCE_ENTROPY_FLOW_LABEL)
		nl |= RDMA_NL_ROCE_ENTROPY_SCOPE_FLOW_LABEL;

	return nl;
}

/**
 * rdma_entropy_nl_fill_port - a port's policy in its PORT_GET message
 * @msg: the message
 * @dev: the device
 * @port: a valid port number
 *
 * Only ports that have the roce_entropy knob have a policy to show: the
 * policy the port uses, whether it follows the default (1) or was set on
 * its own (0), and what the port's driver programs of it.
 *
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int rdma_entropy_nl_fill_port(struct sk_buff *msg, struct ib_device *dev,
			      u32 port)
{
	u64 scope = rdma_entropy_port_scope(dev, port);

	if (!scope)
		return 0;

	if (nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY,
		       rdma_port_entropy(dev, port)) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY_SCOPE,
		       rdma_entropy_nl_scope(scope)) ||
	    nla_put_u8(msg, RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY_DEFAULT,
		       rdma_entropy_port_follows_default(dev, port)))
		return -EMSGSIZE;

	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_nl_fill_port);

/**
 * rdma_entropy_nl_set_port - RDMA_NLDEV_CMD_SET of a port's policy
 * @dev: the device of RDMA_NLDEV_ATTR_DEV_INDEX
 * @tb: the parsed attributes, RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY or
 *      RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY_DEFAULT among them (their ranges
 *      checked by nldev's policy)
 * @net: the network namespace of the request
 * @extack: the error message
 *
 * RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY sets the port's own policy;
 * RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY_DEFAULT, 1, makes the port follow the
 * default again, as the knob's "default" does.  One or the other: a
 * request with both, or with the flag 0, is refused and changes nothing.
 * As the knob, only in the device's own network namespace: in shared mode
 * another namespace sees the device but does not own its ports.
 *
 * Return: 0, or a negative errno with a message in @extack: -EINVAL for
 * both attributes, the flag 0, no port or a port that does not exist,
 * -EPERM from another namespace, -EOPNOTSUPP for a port without a policy,
 * -ENODEV for a device whose settings went away.
 */
int rdma_entropy_nl_set_port(struct ib_device *dev, struct nlattr *tb[],
			     const struct net *net,
			     struct netlink_ext_ack *extack)
{
	struct nlattr *follow = tb[RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY_DEFAULT];
	u32 port;
	int ret;

	if (follow && tb[RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY]) {
		NL_SET_ERR_MSG_ATTR(extack, follow,
				    "A port follows the default or has a RoCE v2 entropy policy of its own, not both");
		return -EINVAL;
	}
	if (follow && !nla_get_u8(follow)) {
		NL_SET_ERR_MSG_ATTR(extack, follow,
				    "Only 1 is accepted: set a policy of the port's own instead");
		return -EINVAL;
	}
	if (!tb[RDMA_NLDEV_ATTR_PORT_INDEX]) {
		NL_SET_ERR_MSG(extack, "A RoCE v2 entropy policy needs a port index");
		return -EINVAL;
	}
	port = nla_get_u32(tb[RDMA_NLDEV_ATTR_PORT_INDEX]);
	if (!rdma_is_port_valid(dev, port)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_PORT_INDEX],
				    "No such port");
		return -EINVAL;
	}
	if (!net_eq(net, read_pnet(&dev->coredev.rdma_net))) {
		NL_SET_ERR_MSG(extack,
			       "The device's ports are set from its own network namespace");
		return -EPERM;
	}
	if (!rdma_entropy_port_has_knob(dev, port)) {
		NL_SET_ERR_MSG_ATTR(extack, tb[RDMA_NLDEV_ATTR_PORT_INDEX],
				    "The port has no RoCE v2 entropy policy");
		return -EOPNOTSUPP;
	}

	if (follow)
		ret = rdma_entropy_follow_default(dev, port);
	else
		ret = rdma_entropy_set_port(dev, port,
					    nla_get_u8(tb[RDMA_NLDEV_ATTR_PORT_ROCE_ENTROPY]));
	if (ret)
		NL_SET_ERR_MSG(extack, "The device has no RoCE v2 entropy settings");

	return ret;
}

/**
 * rdma_entropy_nl_fill_sys - the default in a SYS_GET message
 * @msg: the message
 *
 * Return: 0, or -EMSGSIZE when @msg is full.
 */
int rdma_entropy_nl_fill_sys(struct sk_buff *msg)
{
	return nla_put_u8(msg, RDMA_NLDEV_SYS_ATTR_ROCE_ENTROPY,
			  rdma_entropy_default());
}

/**
 * rdma_entropy_nl_set_sys - RDMA_NLDEV_CMD_SYS_SET of the default
 * @tb: the parsed attributes, RDMA_NLDEV_SYS_ATTR_ROCE_ENTROPY among them
 *      (its range checked by nldev's policy)
 * @extack: for the reason of a refusal
 *
 * Every port that neither its knob nor rdma netlink set follows it, the
 * ports of devices registered before included; a port set on its own
 * keeps its policy.  One for the whole system: boot scripts set it before
 * the ULPs connect.  nldev applies
 * one kind of system setting per request: one that carries another too
 * (the network namespace mode, the privileged Q_Key mode) is refused,
 * and changes nothing, rather than half applied.
 *
 * Return: 0, or -EINVAL for a request that carries another setting.
 */
int rdma_entropy_nl_set_sys(struct nlattr *tb[],
			    struct netlink_ext_ack *extack)
{
	if (tb[RDMA_NLDEV_SYS_ATTR_NETNS_MODE] ||
	    tb[RDMA_NLDEV_SYS_ATTR_PRIVILEGED_QKEY_MODE]) {
		NL_SET_ERR_MSG(extack,
			       "the RoCE v2 entropy defaults take a request of their own");
		return -EINVAL;
	}
	if (tb[RDMA_NLDEV_SYS_ATTR_ROCE_ENTROPY])
		rdma_entropy_set_default(nla_get_u8(tb[RDMA_NLDEV_SYS_ATTR_ROCE_ENTROPY]));
	return 0;
}
