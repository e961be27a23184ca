// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the RoCE v2 entropy helpers.
 *
 * The golden vectors live in roce_entropy_vectors.h, shared with the
 * userspace tool's tests; the properties below hold for every policy.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <rdma/roce_entropy.h>

#include "core_priv.h"
#include "roce_entropy_vectors.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static const enum rdma_entropy_policy all_policies[] = {
	RDMA_ENTROPY_BUILTIN,
	RDMA_ENTROPY_OFF,
	RDMA_ENTROPY_RFC,
};

/* The policies built on symmetric products (and "off", which has none). */
static const enum rdma_entropy_policy product_policies[] = {
	RDMA_ENTROPY_OFF,
	RDMA_ENTROPY_RFC,
};

static void policy_desc(const enum rdma_entropy_policy *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", rdma_entropy_name(*p));
}

KUNIT_ARRAY_PARAM(policy, all_policies, policy_desc);
KUNIT_ARRAY_PARAM(product, product_policies, policy_desc);

/* A fixed pseudo-random walk over the input space, the same on every run. */
static u32 next_input(u32 *state)
{
	*state = *state * 1664525 + 1013904223;
	return *state;
}

#define PROPERTY_ROUNDS 4096

/* ---- golden vectors ---- */

/* The vectors name policies as the knob does; this also exercises the parser. */
static enum rdma_entropy_policy vector_policy(struct kunit *test,
					      const char *name)
{
	int policy = rdma_entropy_parse(name);

	KUNIT_ASSERT_GE_MSG(test, policy, 0, "policy \"%s\"", name);
	return policy;
}

static void fold_desc(const struct roce_entropy_fold_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "fl %#07x", v->fl);
}

KUNIT_ARRAY_PARAM(fold, roce_entropy_fold_vectors, fold_desc);

static void roce_entropy_fold_golden(struct kunit *test)
{
	const struct roce_entropy_fold_vector *v = test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_flow_label_to_udp_sport(v->fl), v->udp_sport);
}

static void cm_desc(const struct roce_entropy_cm_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s ports %u %u", v->policy,
		 v->sport, v->dport);
}

KUNIT_ARRAY_PARAM(cm, roce_entropy_cm_vectors, cm_desc);

static void roce_entropy_cm_golden(struct kunit *test)
{
	const struct roce_entropy_cm_vector *v = test->param_value;
	enum rdma_entropy_policy p = vector_policy(test, v->policy);
	u32 fl = rdma_entropy_cm_flow_label(p, v->sport, v->dport);

	KUNIT_EXPECT_EQ(test, fl, v->fl);
	KUNIT_EXPECT_EQ(test, rdma_flow_label_to_udp_sport(fl), v->udp_sport);
}

static void qpn_desc(const struct roce_entropy_qpn_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s qpns %#x %#x fl %#x",
		 v->policy, v->lqpn, v->rqpn, v->app_fl);
}

KUNIT_ARRAY_PARAM(qpn, roce_entropy_qpn_vectors, qpn_desc);
KUNIT_ARRAY_PARAM(ud, roce_entropy_ud_vectors, qpn_desc);

static void roce_entropy_qpn_golden(struct kunit *test)
{
	const struct roce_entropy_qpn_vector *v = test->param_value;
	enum rdma_entropy_policy p = vector_policy(test, v->policy);

	KUNIT_EXPECT_EQ(test,
			rdma_entropy_flow_label(p, v->app_fl, v->lqpn, v->rqpn),
			v->fl);
	KUNIT_EXPECT_EQ(test,
			rdma_entropy_udp_sport(p, v->app_fl, v->lqpn, v->rqpn),
			v->udp_sport);
}

static void roce_entropy_ud_golden(struct kunit *test)
{
	const struct roce_entropy_qpn_vector *v = test->param_value;
	enum rdma_entropy_policy p = vector_policy(test, v->policy);
	u32 fl = rdma_entropy_ud_flow_label(p, v->app_fl, v->lqpn, v->rqpn);

	KUNIT_EXPECT_EQ(test, fl, v->fl);
	KUNIT_EXPECT_EQ(test, rdma_flow_label_to_udp_sport(fl), v->udp_sport);
}

/* ---- properties, for every policy ---- */

static void roce_entropy_cm_symmetric(struct kunit *test)
{
	enum rdma_entropy_policy p = *(const enum rdma_entropy_policy *)
		test->param_value;
	u32 state = 1;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		u16 a = next_input(&state) >> 16, b = next_input(&state) >> 16;

		KUNIT_ASSERT_EQ_MSG(test, rdma_entropy_cm_flow_label(p, a, b),
				    rdma_entropy_cm_flow_label(p, b, a),
				    "ports %u %u", a, b);
	}
}

static void roce_entropy_qpn_symmetric(struct kunit *test)
{
	enum rdma_entropy_policy p = *(const enum rdma_entropy_policy *)
		test->param_value;
	u32 state = 2;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		u32 a = next_input(&state) >> 8, b = next_input(&state) >> 8;

		KUNIT_ASSERT_EQ_MSG(test, rdma_entropy_qpn_flow_label(p, a, b),
				    rdma_entropy_qpn_flow_label(p, b, a),
				    "qpns %#x %#x", a, b);
		KUNIT_ASSERT_EQ(test, rdma_entropy_udp_sport(p, 0, a, b),
				rdma_entropy_udp_sport(p, 0, b, a));
	}
}

/* Only the 24 bits of a QP number count, whatever a caller passes above. */
static void roce_entropy_qpn_24_bits(struct kunit *test)
{
	enum rdma_entropy_policy p = *(const enum rdma_entropy_policy *)
		test->param_value;
	u32 state = 8;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		u32 a = next_input(&state), b = next_input(&state);
		u32 la = a & 0xffffff, lb = b & 0xffffff;

		KUNIT_ASSERT_EQ_MSG(test, rdma_entropy_qpn_flow_label(p, a, b),
				    rdma_entropy_qpn_flow_label(p, la, lb),
				    "qpns %#x %#x", a, b);
		KUNIT_ASSERT_EQ_MSG(test, rdma_entropy_ud_flow_label(p, 0, a, b),
				    rdma_entropy_ud_flow_label(p, 0, la, lb),
				    "qpns %#x %#x", a, b);
	}
	/* a multicast QPN with junk above bit 23 is still the multicast QPN */
	KUNIT_EXPECT_EQ(test,
			rdma_entropy_ud_flow_label(p, 0, 0x12, 0xffffffff),
			rdma_entropy_ud_flow_label(p, 0, 0x12, IB_MULTICAST_QPN));
}

/* Flow labels fit 20 bits, ports 0xC000-0xFFFF, extremes included. */
static void roce_entropy_ranges(struct kunit *test)
{
	enum rdma_entropy_policy p = *(const enum rdma_entropy_policy *)
		test->param_value;
	u32 state = 3;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		u32 a = next_input(&state), b = next_input(&state);
		u32 lqpn = i ? a & 0xffffff : 0xffffff;
		u32 rqpn = i ? b & 0xffffff : 0xffffff;
		u16 sport = i ? a >> 16 : 0xffff, dport = i ? b >> 16 : 0xffff;
		u16 udp;

		KUNIT_ASSERT_EQ(test,
				rdma_entropy_cm_flow_label(p, sport, dport) &
				~IB_GRH_FLOWLABEL_MASK, 0);
		KUNIT_ASSERT_EQ(test,
				rdma_entropy_qpn_flow_label(p, lqpn, rqpn) &
				~IB_GRH_FLOWLABEL_MASK, 0);
		/* an oversized application flow label is masked, not passed */
		KUNIT_ASSERT_EQ(test, rdma_entropy_flow_label(p, a, lqpn, rqpn) &
				~IB_GRH_FLOWLABEL_MASK, 0);
		udp = rdma_entropy_udp_sport(p, 0, lqpn, rqpn);
		KUNIT_ASSERT_GE(test, udp, IB_ROCE_UDP_ENCAP_VALID_PORT_MIN);
		KUNIT_ASSERT_LE(test, udp, IB_ROCE_UDP_ENCAP_VALID_PORT_MAX);
	}
}

/* A zero product has no entropy: no flow label, the base port. */
static void roce_entropy_zero_inputs(struct kunit *test)
{
	enum rdma_entropy_policy p = *(const enum rdma_entropy_policy *)
		test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_entropy_cm_flow_label(p, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, rdma_entropy_cm_flow_label(p, 0, 4791), 0);
	KUNIT_EXPECT_EQ(test, rdma_entropy_qpn_flow_label(p, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, rdma_entropy_qpn_flow_label(p, 0x11, 0), 0);
	KUNIT_EXPECT_EQ(test, rdma_entropy_udp_sport(p, 0, 0, 0x11), 0xc000);
}

/* The application's flow label wins under every policy, masked to 20 bits. */
static void roce_entropy_app_flow_label_wins(struct kunit *test)
{
	enum rdma_entropy_policy p = *(const enum rdma_entropy_policy *)
		test->param_value;
	u32 state = 4;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		u32 fl = next_input(&state) & IB_GRH_FLOWLABEL_MASK;
		u32 lqpn = next_input(&state) >> 8;
		u32 rqpn = next_input(&state) >> 8;

		if (!fl)
			continue;
		KUNIT_ASSERT_EQ(test, rdma_entropy_flow_label(p, fl, lqpn, rqpn),
				fl);
		KUNIT_ASSERT_EQ(test,
				rdma_entropy_ud_flow_label(p, fl, lqpn,
							   IB_MULTICAST_QPN),
				fl);
		KUNIT_ASSERT_EQ(test, rdma_entropy_udp_sport(p, fl, lqpn, rqpn),
				rdma_flow_label_to_udp_sport(fl));
	}
	KUNIT_EXPECT_EQ(test, rdma_entropy_flow_label(p, 0xfff12345, 1, 1),
			0x12345);
}

/* A UD send to the multicast QPN depends on the source QPN only. */
static void roce_entropy_ud_multicast(struct kunit *test)
{
	enum rdma_entropy_policy p = *(const enum rdma_entropy_policy *)
		test->param_value;
	u32 state = 5;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		u32 sqpn = next_input(&state) >> 8;

		if (sqpn == RDMA_ENTROPY_GSI_QPN)
			continue;
		KUNIT_ASSERT_EQ(test,
				rdma_entropy_ud_flow_label(p, 0, sqpn,
							   IB_MULTICAST_QPN),
				rdma_entropy_qpn_flow_label(p, sqpn, 1));
	}
}

/*
 * QP1 sends the CM MADs: they use their AH's flow label, or none, whatever
 * the destination QPN and the policy.
 */
static void roce_entropy_ud_gsi(struct kunit *test)
{
	enum rdma_entropy_policy p = *(const enum rdma_entropy_policy *)
		test->param_value;
	u32 state = 6;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		u32 fl = next_input(&state);
		u32 dqpn = next_input(&state) >> 8;

		KUNIT_ASSERT_EQ(test,
				rdma_entropy_ud_flow_label(p, 0,
							   RDMA_ENTROPY_GSI_QPN,
							   dqpn), 0);
		KUNIT_ASSERT_EQ(test,
				rdma_entropy_ud_flow_label(p, fl,
							   RDMA_ENTROPY_GSI_QPN,
							   dqpn),
				fl & IB_GRH_FLOWLABEL_MASK);
	}
}

/* ---- policy specifics ---- */

static void roce_entropy_off_generates_nothing(struct kunit *test)
{
	u32 state = 6;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		u32 a = next_input(&state), b = next_input(&state);

		KUNIT_ASSERT_EQ(test,
				rdma_entropy_cm_flow_label(RDMA_ENTROPY_OFF,
							   a >> 16, b >> 16),
				0);
		KUNIT_ASSERT_EQ(test,
				rdma_entropy_udp_sport(RDMA_ENTROPY_OFF, 0,
						       a >> 8, b >> 8),
				0xc000);
	}
}

/* "rfc" is exactly what 6.12's rdma_get_udp_sport() already puts on the wire */
static void roce_entropy_rfc_matches_6_12(struct kunit *test)
{
	u32 state = 7;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		u32 fl = i & 1 ? next_input(&state) & IB_GRH_FLOWLABEL_MASK : 0;
		u32 lqpn = next_input(&state) >> 8;
		u32 rqpn = next_input(&state) >> 8;

		KUNIT_ASSERT_EQ(test,
				rdma_entropy_udp_sport(RDMA_ENTROPY_RFC, fl,
						       lqpn, rqpn),
				rdma_get_udp_sport(fl, lqpn, rqpn));
	}
}

/*
 * "builtin" is 6.12 for every input, 32 bits of each: a connected QP's port
 * is rdma_get_udp_sport() whatever the device's base port, its IPv6 header
 * has the consumer's flow label only, and nothing is generated per UD send.
 * Odd rounds have a flow label, and one in four of those only bits above 20.
 */
static void roce_entropy_builtin_matches_stock(struct kunit *test)
{
	u32 state = 9;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		u32 fl = i & 1 ? next_input(&state) : 0;
		u32 lqpn = next_input(&state);
		u32 rqpn = next_input(&state);
		u16 base = 0xc000 | (next_input(&state) >> 18), sport = 0;

		if ((i & 7) == 7)
			fl &= ~IB_GRH_FLOWLABEL_MASK;
		KUNIT_ASSERT_EQ(test,
				rdma_entropy_path(RDMA_ENTROPY_BUILTIN, fl, lqpn,
						  rqpn, base, &sport),
				fl & IB_GRH_FLOWLABEL_MASK);
		KUNIT_ASSERT_EQ_MSG(test, sport,
				    rdma_get_udp_sport(fl, lqpn, rqpn),
				    "fl %#x qpns %#x %#x", fl, lqpn, rqpn);
		KUNIT_ASSERT_FALSE(test, rdma_entropy_ud_per_send(RDMA_ENTROPY_BUILTIN,
								  fl));
		KUNIT_ASSERT_EQ(test,
				rdma_entropy_ud_flow_label(RDMA_ENTROPY_BUILTIN, fl,
							   lqpn, rqpn),
				fl & IB_GRH_FLOWLABEL_MASK);
	}
}

/* ---- the decisions drivers delegate to the helper ---- */

struct path_case {
	enum rdma_entropy_policy policy;
	u32 fl;
	u32 lqpn;
	u32 rqpn;
	u16 base_sport;
	u32 expected_fl;
	u16 expected_sport;
	enum rdma_entropy_source expected_source;
};

/*
 * Connected QPs (rxe, mlx5 RC/UC/XRC).  base_sport 0xd000 stands for an
 * mlx5 device whose minimum RoCE source port is not 0xC000.  Expected
 * values from the golden vectors above; the source is what the resource
 * dump shows: the address's flow label, the QPN hash, or none ("off").
 */
#define QPN RDMA_ENTROPY_SRC_QPN
#define ADDR RDMA_ENTROPY_SRC_ADDRESS
#define NONE RDMA_ENTROPY_SRC_NONE
static const struct path_case path_cases[] = {
	{ RDMA_ENTROPY_BUILTIN, 0, 0x12, 0x12, 0xd000, 0, 0xc144, QPN },
	{ RDMA_ENTROPY_BUILTIN, 0, 0, 0x11, 0xd000, 0, 0xc000, QPN },
	{ RDMA_ENTROPY_BUILTIN, 0x12345, 0x12, 0x12, 0xd000, 0x12345, 0xe341,
	  ADDR },
	/*
	 * 6.12 looked at every bit: a label with bits above 20 only is a
	 * label, folding to 0xC000; bit 31 (0x80000005) folds away; a
	 * QPN's bits above 24 enter the product: 0x1000001 * 1 = 0x1000001,
	 * ^ >> 20 gives 0x1000011, 20 bits 0x11.
	 */
	{ RDMA_ENTROPY_BUILTIN, 0x100000, 0x12, 0x12, 0xd000, 0, 0xc000, ADDR },
	{ RDMA_ENTROPY_BUILTIN, 0x80000005, 0x12, 0x12, 0xd000, 5, 0xc005,
	  ADDR },
	{ RDMA_ENTROPY_BUILTIN, 0, 0x1000001, 1, 0xd000, 0, 0xc011, QPN },
	{ RDMA_ENTROPY_OFF, 0, 0x12, 0x12, 0xc000, 0, 0xc000, NONE },
	{ RDMA_ENTROPY_OFF, 0, 0x12, 0x12, 0xd000, 0, 0xd000, NONE },
	{ RDMA_ENTROPY_OFF, 0xabcde, 0x12, 0x12, 0xd000, 0xabcde, 0xfcf4, ADDR },
	/* a device that reports no base port: 0xC000, never 0 */
	{ RDMA_ENTROPY_OFF, 0, 0x12, 0x12, 0, 0, 0xc000, NONE },
	{ RDMA_ENTROPY_RFC, 0, 0, 0x11, 0, 0, 0xc000, QPN },
	{ RDMA_ENTROPY_RFC, 0, 0x12, 0x12, 0xd000, 0x144, 0xc144, QPN },
	{ RDMA_ENTROPY_RFC, 0, 0x11, 0x12, 0xc000, 0x132, 0xc132, QPN },
	{ RDMA_ENTROPY_RFC, 0, 0, 0x11, 0xd000, 0, 0xd000, QPN },
	{ RDMA_ENTROPY_RFC, 0x12345, 0x12, 0x12, 0xd000, 0x12345, 0xe341, ADDR },
	{ RDMA_ENTROPY_RFC, 0xfff12345, 0x12, 0x12, 0xd000, 0x12345, 0xe341,
	  ADDR },
	/* no bit inside the mask: the consumer set none */
	{ RDMA_ENTROPY_RFC, 0x100000, 0x12, 0x12, 0xd000, 0x144, 0xc144, QPN },
	{ RDMA_ENTROPY_RFC, 0x80000000, 0x12, 0x12, 0xd000, 0x144, 0xc144, QPN },
	/* the 24 bits of a QPN that go on the wire: 1 * 1 */
	{ RDMA_ENTROPY_RFC, 0, 0x1000001, 1, 0xd000, 1, 0xc001, QPN },
};

#undef QPN
#undef ADDR
#undef NONE

static void path_desc(const struct path_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s fl %#x qpns %#x %#x base %#x",
		 rdma_entropy_name(c->policy), c->fl, c->lqpn, c->rqpn,
		 c->base_sport);
}

KUNIT_ARRAY_PARAM(path, path_cases, path_desc);

static void roce_entropy_path_decision(struct kunit *test)
{
	const struct path_case *c = test->param_value;
	u16 sport = 0;

	KUNIT_EXPECT_EQ(test, rdma_entropy_path(c->policy, c->fl, c->lqpn,
						c->rqpn, c->base_sport, &sport),
			c->expected_fl);
	KUNIT_EXPECT_EQ(test, sport, c->expected_sport);
}

/* rdma_entropy_path_state(): the same decision, and where it came from. */
static void roce_entropy_path_state_decision(struct kunit *test)
{
	const struct path_case *c = test->param_value;
	struct rdma_entropy_state st;

	memset(&st, 0xa5, sizeof(st));
	rdma_entropy_path_state(&st, c->policy, c->fl, c->lqpn, c->rqpn,
				c->base_sport);
	KUNIT_EXPECT_EQ(test, st.flow_label, c->expected_fl);
	KUNIT_EXPECT_EQ(test, st.udp_sport, c->expected_sport);
	KUNIT_EXPECT_EQ(test, st.policy, c->policy);
	KUNIT_EXPECT_EQ(test, st.source, c->expected_source);
}

struct per_send_case {
	enum rdma_entropy_policy policy;
	u32 ah_fl;
	bool per_send;
};

/* UD AHs: only an AH without a flow label, under rfc, goes per send. */
static const struct per_send_case per_send_cases[] = {
	{ RDMA_ENTROPY_BUILTIN, 0, false },
	{ RDMA_ENTROPY_BUILTIN, 0xabcde, false },
	{ RDMA_ENTROPY_OFF, 0, false },
	{ RDMA_ENTROPY_RFC, 0, true },
	{ RDMA_ENTROPY_OFF, 0xabcde, false },
	{ RDMA_ENTROPY_RFC, 0x00001, false },
	{ RDMA_ENTROPY_RFC, 0x100000, true },	/* no bit inside the mask */
};

static void per_send_desc(const struct per_send_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s ah fl %#x",
		 rdma_entropy_name(c->policy), c->ah_fl);
}

KUNIT_ARRAY_PARAM(per_send, per_send_cases, per_send_desc);

static void roce_entropy_ud_per_send_decision(struct kunit *test)
{
	const struct per_send_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_entropy_ud_per_send(c->policy, c->ah_fl),
			c->per_send);
}

/*
 * A per-send UD port, as mlx5 writes it into the WQE and rxe into the
 * packet: from the QPN pair, the multicast QPN counting as 1, and the
 * device's base port (0xd000 here) when the product is zero.
 */
static u16 ud_send_sport(enum rdma_entropy_policy policy, u32 sqpn, u32 dqpn)
{
	return rdma_entropy_sport(rdma_entropy_ud_flow_label(policy, 0, sqpn,
							     dqpn),
				  0xd000);
}

static void roce_entropy_ud_per_send_sport(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, ud_send_sport(RDMA_ENTROPY_RFC, 0x11, 0x12),
			0xc132);
	KUNIT_EXPECT_EQ(test, ud_send_sport(RDMA_ENTROPY_RFC, 0x12, 0x11),
			0xc132);
	KUNIT_EXPECT_EQ(test,
			ud_send_sport(RDMA_ENTROPY_RFC, 0xc0ffee, IB_MULTICAST_QPN),
			0xffe1);
	KUNIT_EXPECT_EQ(test, ud_send_sport(RDMA_ENTROPY_RFC, 0x11, 0), 0xd000);
}

/* ---- a port's policy, through a device made up for the test ---- */

struct port_test {
	struct ib_device *dev;
};

/* port_data of a device with one port, as alloc_port_data() lays it out */
static struct ib_port_data *test_port_data(struct kunit *test)
{
	return kunit_kcalloc(test, 2, sizeof(struct ib_port_data), GFP_KERNEL);
}

/*
 * One RoCE v2 port, policy "rfc", of a zeroed ib_device that declares
 * IBK_ROCE_ENTROPY: enough for rdma_port_entropy(), which reads nothing
 * else.
 */
static int roce_entropy_port_init(struct kunit *test)
{
	struct port_test *t;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->dev = kunit_kzalloc(test, sizeof(*t->dev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->dev);
	t->dev->port_data = test_port_data(test);
	KUNIT_ASSERT_NOT_NULL(test, t->dev->port_data);

	t->dev->phys_port_cnt = 1;
	t->dev->attrs.kernel_cap_flags = IBK_ROCE_ENTROPY;
	t->dev->port_data[1].immutable.core_cap_flags =
		RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	ib_port_roce(t->dev, 1)->entropy = RDMA_ENTROPY_RFC;
	test->priv = t;
	return 0;
}

/*
 * The port's policy, and for any port number that is not the device's the
 * builtin policy without a read beyond the device's ports: the port number
 * can come from an address user space wrote.
 */
static void roce_entropy_port_bounds(struct kunit *test)
{
	static const u32 bad_ports[] = { 0, 2, 3, 255, 256, U32_MAX };
	struct port_test *t = test->priv;
	int i;

	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_RFC);
	for (i = 0; i < ARRAY_SIZE(bad_ports); i++)
		KUNIT_EXPECT_EQ_MSG(test, rdma_port_entropy(t->dev, bad_ports[i]),
				    RDMA_ENTROPY_BUILTIN, "port %u", bad_ports[i]);
}

/*
 * A device whose driver does not declare IBK_ROCE_ENTROPY reads the builtin
 * policy whatever its ports hold, and nothing can set it.
 */
static void roce_entropy_port_undeclared(struct kunit *test)
{
	struct port_test *t = test->priv;

	t->dev->attrs.kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_BUILTIN);
	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "off", 3),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, ib_port_roce(t->dev, 1)->entropy,
			RDMA_ENTROPY_RFC);
}

/*
 * An InfiniBand port of a device that follows the policy (mlx5 drives both
 * kinds) has none: it reads builtin whatever it holds, rdma_cm's replies on
 * it keep 6.12's labels, and nothing can set it.
 */
static void roce_entropy_port_ib(struct kunit *test)
{
	struct port_test *t = test->priv;

	t->dev->port_data[1].immutable.core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_BUILTIN);
	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "off", 3),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, ib_port_roce(t->dev, 1)->entropy,
			RDMA_ENTROPY_RFC);
	t->dev->port_data[1].immutable.core_cap_flags = RDMA_CORE_PORT_IBA_ROCE;
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_BUILTIN);
}

/*
 * A registering device's ports follow the defaults, whatever they held;
 * the knob then sets the port, as sysfs writes it, and a bad value changes
 * nothing.
 */
static void roce_entropy_port_defaults(struct kunit *test)
{
	enum rdma_entropy_policy def = rdma_entropy_default();
	struct port_test *t = test->priv;
	struct ib_port_roce *roce = ib_port_roce(t->dev, 1);

	roce->entropy = (def + 1) % RDMA_ENTROPY_NR;
	rdma_entropy_init_port(t->dev, 1);
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), def);

	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "off\n", 4), 4);
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_OFF);
	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "max", 3),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_OFF);
	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 2, NULL, "rfc", 3),
			-ENODEV);
}

/*
 * A port no one set follows the default, whenever the default changes: a
 * device registered before the default was set gets it too.  Once its knob
 * sets it, the port keeps its own policy.  The default is put back.
 */
static void roce_entropy_port_follows_default(struct kunit *test)
{
	enum rdma_entropy_policy def = rdma_entropy_default();
	struct port_test *t = test->priv;

	rdma_entropy_init_port(t->dev, 1);
	rdma_entropy_set_default(RDMA_ENTROPY_RFC);
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_RFC);
	rdma_entropy_set_default(RDMA_ENTROPY_OFF);
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_OFF);
	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "builtin", 7),
			7);
	rdma_entropy_set_default(RDMA_ENTROPY_RFC);
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1),
			RDMA_ENTROPY_BUILTIN);
	rdma_entropy_set_default(def);
}

struct follow_case {
	const char *name;
	const char *words[2];	/* written to the knob, in order; each works */
	const char *bad;	/* then written, refused: changes nothing */
	bool follows;		/* what rdma netlink shows then */
	enum rdma_entropy_policy own;	/* the port's own policy otherwise */
};

/*
 * A port set on its own returns to following the default with "default";
 * a port that is set keeps its own policy, even one equal to the default
 * when it was set.
 */
static const struct follow_case follow_cases[] = {
	{ "never set", { }, NULL, true },
	{ "set", { "off" }, NULL, false, RDMA_ENTROPY_OFF },
	{ "set to the default's policy", { "rfc" }, NULL, false,
	  RDMA_ENTROPY_RFC },
	{ "set, then default", { "off", "default" }, NULL, true },
	{ "newlines", { "rfc\n", "default\n" }, NULL, true },
	{ "default, then set", { "default", "builtin" }, NULL, false,
	  RDMA_ENTROPY_BUILTIN },
	{ "default twice", { "default", "default" }, NULL, true },
	{ "following, a bad word", { }, "Default", true },
	{ "set, a bad word", { "off" }, "defaults", false, RDMA_ENTROPY_OFF },
	{ "set, two lines", { "rfc" }, "default\nrfc", false,
	  RDMA_ENTROPY_RFC },
};

static void follow_desc(const struct follow_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(follow, follow_cases, follow_desc);

/*
 * After the writes, the port reads the default, each new default as it is
 * set, when rdma_entropy_port_follows_default() (what rdma netlink shows)
 * says it follows it, and its own policy whatever the default when it
 * says it does not.  The default is put back.
 */
static void roce_entropy_port_back_to_default(struct kunit *test)
{
	static const enum rdma_entropy_policy defaults[] = {
		RDMA_ENTROPY_RFC, RDMA_ENTROPY_OFF, RDMA_ENTROPY_BUILTIN,
	};
	const struct follow_case *c = test->param_value;
	enum rdma_entropy_policy def = rdma_entropy_default();
	struct port_test *t = test->priv;
	int i;

	rdma_entropy_init_port(t->dev, 1);
	KUNIT_EXPECT_TRUE(test, rdma_entropy_port_follows_default(t->dev, 1));
	rdma_entropy_set_default(RDMA_ENTROPY_RFC);
	for (i = 0; i < ARRAY_SIZE(c->words) && c->words[i]; i++)
		KUNIT_EXPECT_EQ_MSG(test,
				    roce_entropy_store(t->dev, 1, NULL,
						       c->words[i],
						       strlen(c->words[i])),
				    (ssize_t)strlen(c->words[i]), "%s",
				    c->words[i]);
	if (c->bad)
		KUNIT_EXPECT_EQ(test,
				roce_entropy_store(t->dev, 1, NULL, c->bad,
						   strlen(c->bad)),
				-EINVAL);

	KUNIT_EXPECT_EQ(test, rdma_entropy_port_follows_default(t->dev, 1),
			c->follows);
	for (i = 0; i < ARRAY_SIZE(defaults); i++) {
		rdma_entropy_set_default(defaults[i]);
		KUNIT_EXPECT_EQ_MSG(test, rdma_port_entropy(t->dev, 1),
				    c->follows ? defaults[i] : c->own,
				    "default %s", rdma_entropy_name(defaults[i]));
		KUNIT_EXPECT_EQ(test,
				rdma_entropy_port_follows_default(t->dev, 1),
				c->follows);
	}
	rdma_entropy_set_default(def);
}

/* A write to port 1's knob by a task without CAP_NET_ADMIN. */
static ssize_t store_without_net_admin(struct kunit *test,
				       struct ib_device *dev, const char *buf)
{
	const struct cred *old;
	struct cred *cred;
	ssize_t ret;

	cred = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, cred);
	cap_lower(cred->cap_effective, CAP_NET_ADMIN);
	old = override_creds(cred);
	ret = roce_entropy_store(dev, 1, NULL, buf, strlen(buf));
	revert_creds(old);
	put_cred(cred);
	return ret;
}

/*
 * rdma_entropy_follow_default() as rdma netlink calls it: it undoes a set,
 * and a port without a policy (beyond the device's ports, not RoCE v2, or
 * of a device that does not follow the policy) gets -ENODEV, changes
 * nothing and never follows.  "default" asks CAP_NET_ADMIN as every word.
 */
static void roce_entropy_port_follow_helper(struct kunit *test)
{
	static const u32 bad_ports[] = { 0, 2, 255, U32_MAX };
	struct port_test *t = test->priv;
	struct ib_port_roce *roce = ib_port_roce(t->dev, 1);
	int i;

	KUNIT_EXPECT_FALSE(test, rdma_entropy_port_follows_default(t->dev, 1));
	for (i = 0; i < ARRAY_SIZE(bad_ports); i++) {
		KUNIT_EXPECT_EQ_MSG(test,
				    rdma_entropy_follow_default(t->dev,
								bad_ports[i]),
				    -ENODEV, "port %u", bad_ports[i]);
		KUNIT_EXPECT_FALSE_MSG(test,
				       rdma_entropy_port_follows_default(t->dev,
									 bad_ports[i]),
				       "port %u", bad_ports[i]);
	}

	KUNIT_EXPECT_EQ(test, store_without_net_admin(test, t->dev, "default"),
			-EPERM);
	KUNIT_EXPECT_FALSE(test, rdma_entropy_port_follows_default(t->dev, 1));

	t->dev->port_data[1].immutable.core_cap_flags = RDMA_CORE_PORT_IBA_IB;
	KUNIT_EXPECT_EQ(test, rdma_entropy_follow_default(t->dev, 1), -ENODEV);
	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "default", 7),
			-ENODEV);
	KUNIT_EXPECT_FALSE(test, rdma_entropy_port_follows_default(t->dev, 1));
	t->dev->port_data[1].immutable.core_cap_flags =
		RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP;
	t->dev->attrs.kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	KUNIT_EXPECT_EQ(test, rdma_entropy_follow_default(t->dev, 1), -ENODEV);
	KUNIT_EXPECT_FALSE(test, rdma_entropy_port_follows_default(t->dev, 1));
	KUNIT_EXPECT_EQ(test, roce->entropy, RDMA_ENTROPY_RFC);

	t->dev->attrs.kernel_cap_flags = IBK_ROCE_ENTROPY;
	KUNIT_EXPECT_EQ(test, rdma_entropy_follow_default(t->dev, 1), 0);
	KUNIT_EXPECT_TRUE(test, rdma_entropy_port_follows_default(t->dev, 1));
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1),
			rdma_entropy_default());
}

/*
 * Without CAP_NET_ADMIN, the privilege rdma netlink's set asks, the knob
 * refuses every write, good or bad, and the port keeps its policy.
 */
static void roce_entropy_port_privilege(struct kunit *test)
{
	struct port_test *t = test->priv;

	KUNIT_ASSERT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "rfc", 3), 3);
	KUNIT_EXPECT_EQ(test, store_without_net_admin(test, t->dev, "off"),
			-EPERM);
	KUNIT_EXPECT_EQ(test, store_without_net_admin(test, t->dev, "max"),
			-EPERM);
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_RFC);
	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "off", 3), 3);
}

struct knob_case {
	const char *name;
	u64 kernel_cap_flags;
	u32 core_cap_flags;
	bool has_knob;
	u64 scope;
};

#define V2	RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP
#define SPORT	IBK_ROCE_ENTROPY_SPORT
#define LABEL	IBK_ROCE_ENTROPY_FLOW_LABEL

/*
 * The knob is on RoCE v2 ports of drivers that declare they follow it, in
 * part or whole, and the scope says which part.
 */
static const struct knob_case knob_cases[] = {
	{ "declared, RoCE v2", IBK_ROCE_ENTROPY, V2, true, SPORT | LABEL },
	{ "declared, RoCE v1 and v2", IBK_ROCE_ENTROPY | IBK_LOCAL_DMA_LKEY,
	  RDMA_CORE_PORT_IBA_ROCE | V2, true, SPORT | LABEL },
	{ "port only, RoCE v2", SPORT | IBK_LOCAL_DMA_LKEY, V2, true, SPORT },
	{ "label only, RoCE v2", LABEL | IBK_LOCAL_DMA_LKEY, V2, true, LABEL },
	{ "not declared, RoCE v2", IBK_LOCAL_DMA_LKEY, V2, false, 0 },
	{ "declared, RoCE v1", IBK_ROCE_ENTROPY, RDMA_CORE_PORT_IBA_ROCE, false,
	  0 },
	{ "label only, RoCE v1", LABEL, RDMA_CORE_PORT_IBA_ROCE, false, 0 },
	{ "declared, InfiniBand", IBK_ROCE_ENTROPY, RDMA_CORE_PORT_IBA_IB, false,
	  0 },
	{ "declared, iWARP", IBK_ROCE_ENTROPY, RDMA_CORE_PORT_IWARP, false, 0 },
};

#undef LABEL
#undef SPORT
#undef V2

static void knob_desc(const struct knob_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(knob, knob_cases, knob_desc);

static void roce_entropy_port_knob(struct kunit *test)
{
	const struct knob_case *c = test->param_value;
	struct port_test *t = test->priv;

	t->dev->port_data[1].immutable.core_cap_flags = c->core_cap_flags;
	t->dev->attrs.kernel_cap_flags = c->kernel_cap_flags;

	KUNIT_EXPECT_EQ(test, rdma_entropy_port_has_knob(t->dev, 1),
			c->has_knob);
	KUNIT_EXPECT_EQ(test, rdma_entropy_port_scope(t->dev, 1), c->scope);
}

/* ---- the knob's parser ---- */

struct parse_case {
	const char *str;
	int expected;
};

static char overlong[PAGE_SIZE];

static const struct parse_case parse_cases[] = {
	{ "builtin", RDMA_ENTROPY_BUILTIN },
	{ "builtin\n", RDMA_ENTROPY_BUILTIN },
	{ "off", RDMA_ENTROPY_OFF },
	{ "rfc", RDMA_ENTROPY_RFC },
	{ "off\n", RDMA_ENTROPY_OFF },
	{ "rfc\n", RDMA_ENTROPY_RFC },
	{ "", -EINVAL },
	{ "\n", -EINVAL },
	{ "rf", -EINVAL },
	{ "rfcx", -EINVAL },
	{ "rfc\n\n", -EINVAL },
	{ " rfc", -EINVAL },
	{ "RFC", -EINVAL },
	{ "on", -EINVAL },
	{ "Builtin", -EINVAL },
	{ "builtin6.12", -EINVAL },
	{ "linux", -EINVAL },
	{ "off\nrfc", -EINVAL },
	{ overlong, -EINVAL },
};

static void parse_desc(const struct parse_case *c, char *desc)
{
	if (c->str == overlong)
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "overlong");
	else
		snprintf(desc, KUNIT_PARAM_DESC_SIZE, "\"%*pE\"",
			 (int)strlen(c->str), c->str);
}

KUNIT_ARRAY_PARAM(parse, parse_cases, parse_desc);

static int roce_entropy_parse_init(struct kunit *test)
{
	/* "rfcrfcrfc...", one byte short of a page, NUL-terminated */
	memset(overlong, 'x', sizeof(overlong) - 1);
	memcpy(overlong, "rfc", 3);
	return 0;
}

static void roce_entropy_parse_names(struct kunit *test)
{
	const struct parse_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_entropy_parse(c->str), c->expected);
}

static void roce_entropy_names_round_trip(struct kunit *test)
{
	enum rdma_entropy_policy p = *(const enum rdma_entropy_policy *)
		test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_entropy_parse(rdma_entropy_name(p)), (int)p);
}

static struct kunit_case roce_entropy_hash_cases[] = {
	KUNIT_CASE_PARAM(roce_entropy_fold_golden, fold_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_cm_golden, cm_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_qpn_golden, qpn_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_ud_golden, ud_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_cm_symmetric, product_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_qpn_symmetric, policy_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_qpn_24_bits, policy_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_ranges, policy_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_zero_inputs, product_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_app_flow_label_wins, policy_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_ud_multicast, product_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_ud_gsi, policy_gen_params),
	KUNIT_CASE(roce_entropy_off_generates_nothing),
	KUNIT_CASE(roce_entropy_rfc_matches_6_12),
	KUNIT_CASE(roce_entropy_builtin_matches_stock),
	{}
};

static struct kunit_suite roce_entropy_hash_suite = {
	.name = "roce_entropy",
	.test_cases = roce_entropy_hash_cases,
};

static struct kunit_case roce_entropy_driver_cases[] = {
	KUNIT_CASE_PARAM(roce_entropy_path_decision, path_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_path_state_decision, path_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_ud_per_send_decision,
			 per_send_gen_params),
	KUNIT_CASE(roce_entropy_ud_per_send_sport),
	{}
};

static struct kunit_suite roce_entropy_driver_suite = {
	.name = "roce_entropy_driver",
	.test_cases = roce_entropy_driver_cases,
};

static struct kunit_case roce_entropy_port_cases[] = {
	KUNIT_CASE(roce_entropy_port_bounds),
	KUNIT_CASE_PARAM(roce_entropy_port_knob, knob_gen_params),
	KUNIT_CASE(roce_entropy_port_undeclared),
	KUNIT_CASE(roce_entropy_port_ib),
	KUNIT_CASE(roce_entropy_port_defaults),
	KUNIT_CASE(roce_entropy_port_follows_default),
	KUNIT_CASE_PARAM(roce_entropy_port_back_to_default, follow_gen_params),
	KUNIT_CASE(roce_entropy_port_follow_helper),
	KUNIT_CASE(roce_entropy_port_privilege),
	{}
};

static struct kunit_suite roce_entropy_port_suite = {
	.name = "roce_entropy_port",
	.init = roce_entropy_port_init,
	.test_cases = roce_entropy_port_cases,
};

static struct kunit_case roce_entropy_policy_cases[] = {
	KUNIT_CASE_PARAM(roce_entropy_parse_names, parse_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_names_round_trip, policy_gen_params),
	{}
};

static struct kunit_suite roce_entropy_policy_suite = {
	.name = "roce_entropy_policy",
	.init = roce_entropy_parse_init,
	.test_cases = roce_entropy_policy_cases,
};

kunit_test_suites(&roce_entropy_hash_suite, &roce_entropy_driver_suite,
		  &roce_entropy_port_suite, &roce_entropy_policy_suite);

MODULE_DESCRIPTION("KUnit tests for the RoCE v2 entropy helpers");
MODULE_LICENSE("GPL");
