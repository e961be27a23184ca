// SPDX-License-Identifier: GPL-2.0
/*
 * RoCE v2 entropy policy: the per-port sysfs knob and its module default.
 *
 * The hashes themselves are inline in <rdma/roce_entropy.h> so that providers
 * can use them on their send paths; this file owns the policy state, and the
 * AH of a reply to a received packet, which needs ib_core.
 */

#include <linux/moduleparam.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <kunit/visibility.h>
#include <rdma/ib_sysfs.h>
#include <rdma/roce_entropy.h>

#include "core_priv.h"

static const char * const rdma_entropy_names[RDMA_ENTROPY_NR] = {
	[RDMA_ENTROPY_OFF] = "off",
	[RDMA_ENTROPY_RFC] = "rfc",
	[RDMA_ENTROPY_MIX] = "mix",
};

/**
 * rdma_entropy_parse - parse a policy name
 * @buf: "off", "rfc" or "mix", optionally followed by one newline
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
 */
const char *rdma_entropy_name(enum rdma_entropy_policy policy)
{
	if (policy >= RDMA_ENTROPY_NR)
		return "unknown";

	return rdma_entropy_names[policy];
}
EXPORT_SYMBOL_IF_KUNIT(rdma_entropy_name);

/**
 * rdma_entropy_create_reply_ah - the AH of a reply to a received packet
 * @pd: the PD of the replying QP
 * @wc: the work completion of the received packet
 * @grh: its GRH
 * @port_num: the port it arrived on
 * @fl: the flow label of the connection it belongs to, 0 if none is known
 *
 * ib_create_ah_from_wc() with rdma_entropy_reply_flow_label(): over IPv4,
 * where no flow label arrives, the reply leaves with @fl, on the UDP source
 * port of the connection it answers for.
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

	rdma_entropy_reply_flow_label(&ah_attr, fl);
	ah = rdma_create_ah(pd, &ah_attr, RDMA_CREATE_AH_SLEEPABLE);
	rdma_destroy_ah_attr(&ah_attr);

	return ah;
}
EXPORT_SYMBOL(rdma_entropy_create_reply_ah);

static unsigned int roce_entropy = RDMA_ENTROPY_RFC;

static int roce_entropy_param_set(const char *val,
				  const struct kernel_param *kp)
{
	int policy = rdma_entropy_parse(val);

	if (policy < 0)
		return policy;

	WRITE_ONCE(roce_entropy, policy);
	return 0;
}

static int roce_entropy_param_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  rdma_entropy_name(READ_ONCE(roce_entropy)));
}

static const struct kernel_param_ops roce_entropy_param_ops = {
	.set = roce_entropy_param_set,
	.get = roce_entropy_param_get,
};

module_param_cb(roce_entropy, &roce_entropy_param_ops, NULL, 0644);
MODULE_PARM_DESC(roce_entropy,
		 "RoCE v2 entropy policy of new ports: off, rfc (default) or mix");

/* Called for every port of a device being registered. */
void ib_port_roce_entropy_init(struct ib_port_data *pdata)
{
	pdata->roce_entropy = READ_ONCE(roce_entropy);
}

static ssize_t roce_entropy_show(struct ib_device *ibdev, u32 port_num,
				 struct ib_port_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  rdma_entropy_name(rdma_port_entropy(ibdev, port_num)));
}

static ssize_t roce_entropy_store(struct ib_device *ibdev, u32 port_num,
				  struct ib_port_attribute *attr,
				  const char *buf, size_t count)
{
	int policy;

	/* "rfc\0junk" is not "rfc" */
	if (memchr(buf, '\0', count))
		return -EINVAL;

	policy = rdma_entropy_parse(buf);
	if (policy < 0)
		return policy;

	WRITE_ONCE(ibdev->port_data[port_num].roce_entropy, policy);
	return count;
}

static IB_PORT_ATTR_RW(roce_entropy);

static struct attribute *roce_entropy_attrs[] = {
	&ib_port_attr_roce_entropy.attr,
	NULL
};

/* Only RoCE v2 ports carry a UDP header to put the entropy in. */
static umode_t roce_entropy_is_visible(struct kobject *kobj,
				       struct attribute *attr, int n)
{
	struct ib_device *ibdev;
	u32 port_num;

	ibdev = ib_port_sysfs_get_ibdev_kobj(kobj, &port_num);
	if (!rdma_protocol_roce_udp_encap(ibdev, port_num))
		return 0;

	return attr->mode;
}

const struct attribute_group ib_port_roce_entropy_group = {
	.attrs = roce_entropy_attrs,
	.is_visible = roce_entropy_is_visible,
};
