// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 entropy policy: the per-port sysfs knob and the default.
 *
 * The hashes themselves are inline in <rdma/roce_entropy.h> so that providers
 * can use them on their send paths; this file owns the policy of each port,
 * which needs ib_core.
 *
 * The policy of a port lives in its struct ib_port_data, reached through
 * ib_port_roce(), and so shares the device's lifetime: set from the default
 * when the device registers, freed with the device.  It counts only on
 * devices whose driver declares that it follows the policy (IBK_ROCE_ENTROPY,
 * or half of it); every other port keeps the builtin choice.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/device.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <kunit/visibility.h>
#include <rdma/ib_sysfs.h>
#include <rdma/roce_entropy.h>

#include "core_priv.h"

static const char * const rdma_entropy_names[RDMA_ENTROPY_NR] = {
	[RDMA_ENTROPY_BUILTIN] = "builtin",
	[RDMA_ENTROPY_OFF] = "off",
	[RDMA_ENTROPY_RFC] = "rfc",
};

/**
 * rdma_entropy_parse - parse a policy name
 * @buf: "builtin", "off" or "rfc", optionally followed by one newline
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

/* What devices start with: set over rdma netlink, nothing else. */
static unsigned int roce_entropy = RDMA_ENTROPY_BUILTIN;

/*
 * A port's setting that no one set on its own: the port follows the
 * default, whenever its device registered.  Not a policy.
 */
#define RDMA_ENTROPY_FOLLOW U8_MAX

/**
 * rdma_entropy_init_port - make a port of a registering device follow the
 *                          defaults
 * @dev: the device
 * @port: the port number
 *
 * Called as the device registers: its ports follow the default until
 * their knob or rdma netlink sets them.
 */
void rdma_entropy_init_port(struct ib_device *dev, u32 port)
{
	struct ib_port_roce *roce = ib_port_roce(dev, port);

	WRITE_ONCE(roce->entropy, RDMA_ENTROPY_FOLLOW);
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_init_port);

/*
 * The settings of @port of @dev, NULL for an invalid port, a port that is
 * not RoCE v2 (no UDP header to put entropy in: an InfiniBand port of the
 * same device keeps 6.12's behaviour whatever the default), or a device
 * that does not follow the policy.
 */
static struct ib_port_roce *rdma_entropy_port(struct ib_device *dev, u32 port)
{
	if (!(dev->attrs.kernel_cap_flags & IBK_ROCE_ENTROPY) ||
	    !rdma_is_port_valid(dev, port) ||
	    !rdma_protocol_roce_udp_encap(dev, port))
		return NULL;

	return ib_port_roce(dev, port);
}

/**
 * rdma_port_entropy - the entropy policy of a port
 * @dev: the device
 * @port: the port number; any value is safe: an invalid port, a port that is
 *        not RoCE v2, or a port of a device that does not follow the policy,
 *        gets RDMA_ENTROPY_BUILTIN
 *
 * Lockless: the policy can change at any time through sysfs; a QP or AH
 * samples it once when its address is set.
 *
 * Return: the port's policy.
 */
enum rdma_entropy_policy rdma_port_entropy(struct ib_device *dev, u32 port)
{
	struct ib_port_roce *roce = rdma_entropy_port(dev, port);
	u8 policy;

	if (!roce)
		return RDMA_ENTROPY_BUILTIN;
	policy = READ_ONCE(roce->entropy);

	return policy == RDMA_ENTROPY_FOLLOW ? READ_ONCE(roce_entropy) : policy;
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
 * rdma_entropy_follow_default - make a port follow the default policy again
 * @dev: the device
 * @port: the port number; any value is safe
 *
 * Undoes rdma_entropy_set_port(): the port goes back to what it was when
 * its device registered, following the default policy, the later changes
 * of the default included, until its knob or rdma netlink sets it again.
 * QPs, AHs and rdma_cm connections that have their address keep what they
 * got.
 *
 * Return: 0, or -ENODEV when the port has no policy: an invalid port, or a
 * device that does not follow the policy.
 */
int rdma_entropy_follow_default(struct ib_device *dev, u32 port)
{
	struct ib_port_roce *roce = rdma_entropy_port(dev, port);

	if (!roce)
		return -ENODEV;

	WRITE_ONCE(roce->entropy, RDMA_ENTROPY_FOLLOW);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_follow_default);

/**
 * rdma_entropy_port_follows_default - whether a port follows the default
 * @dev: the device
 * @port: the port number; any value is safe
 *
 * What rdma netlink shows beside the port's policy: whether it is the
 * default's, which a change of the default reaches, or the port's own.
 *
 * Return: true for a port that no one set since its device registered or
 * since rdma_entropy_follow_default(), false for a port set on its own and
 * for a port that has no policy.
 */
bool rdma_entropy_port_follows_default(struct ib_device *dev, u32 port)
{
	struct ib_port_roce *roce = rdma_entropy_port(dev, port);

	return roce && READ_ONCE(roce->entropy) == RDMA_ENTROPY_FOLLOW;
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_port_follows_default);

/**
 * rdma_entropy_default - the policy of every port not set on its own
 *
 * Return: the policy rdma_entropy_set_default() set, builtin until then.
 */
enum rdma_entropy_policy rdma_entropy_default(void)
{
	return READ_ONCE(roce_entropy);
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_default);

/**
 * rdma_entropy_set_default - set the policy of every port not set on its own
 * @policy: the policy, one of enum rdma_entropy_policy
 *
 * Every port that neither its knob nor rdma netlink set follows it, the
 * ports of devices registered before included: at boot a device may
 * register before any tool can send the default.  A port set on its own
 * keeps its policy.  QPs, AHs and rdma_cm connections that have their
 * address keep what they got.
 */
void rdma_entropy_set_default(enum rdma_entropy_policy policy)
{
	WRITE_ONCE(roce_entropy, policy);
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_set_default);

/*
 * A value written to a port's knob: "rfc\0junk" is not "rfc".  A knob
 * changes what the port sends, as rdma netlink's set does, and asks the
 * same privilege, CAP_NET_ADMIN, as net-sysfs does of a netdev's
 * attributes: the file's mode alone would let a root process that dropped
 * it through.  "default" gives RDMA_ENTROPY_FOLLOW: the port follows the
 * default again.
 */
static int roce_entropy_store_parse(int (*parse)(const char *buf),
				    const char *buf, size_t count)
{
	if (!capable(CAP_NET_ADMIN))
		return -EPERM;
	if (memchr(buf, '\0', count))
		return -EINVAL;
	if (sysfs_streq(buf, "default"))
		return RDMA_ENTROPY_FOLLOW;

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

	if (policy == RDMA_ENTROPY_FOLLOW)
		ret = rdma_entropy_follow_default(ibdev, port_num);
	else
		ret = rdma_entropy_set_port(ibdev, port_num, policy);
	if (ret)
		return ret;

	return count;
}
EXPORT_SYMBOL_IF_KUNIT(roce_entropy_store);

static IB_PORT_ATTR_RW(roce_entropy);

static struct attribute *roce_entropy_attrs[] = {
	&ib_port_attr_roce_entropy.attr,
	NULL
};

/**
 * rdma_entropy_port_scope - what the driver of a port programs of its policy
 * @dev: the device
 * @port: the port number
 *
 * A driver declares it: IBK_ROCE_ENTROPY_SPORT, the UDP source port;
 * IBK_ROCE_ENTROPY_FLOW_LABEL, the flow label, the port being the device's
 * own choice; IBK_ROCE_ENTROPY, both.
 *
 * Return: what the driver declares of the two, 0 for a port that is not
 * RoCE v2 (no UDP header to put the entropy in) or a device whose driver
 * follows no policy.
 */
u64 rdma_entropy_port_scope(struct ib_device *dev, u32 port)
{
	u64 scope = dev->attrs.kernel_cap_flags & IBK_ROCE_ENTROPY;

	if (!scope || !rdma_protocol_roce_udp_encap(dev, port))
		return 0;

	return scope;
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_port_scope);

/**
 * rdma_entropy_port_has_knob - whether a port has the roce_entropy knob
 * @dev: the device
 * @port: the port number
 *
 * The RoCE v2 ports of devices whose driver programs some of the policy
 * (rdma_entropy_port_scope()).
 *
 * Return: true when the port has the knob.
 */
bool rdma_entropy_port_has_knob(struct ib_device *dev, u32 port)
{
	return rdma_entropy_port_scope(dev, port);
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
