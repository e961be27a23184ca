// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for the RoCE v2 entropy helpers.
 *
 * The golden vectors live in roce_entropy_vectors.h, shared with the
 * userspace tool's tests; the properties below hold for every policy.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <net/netlink.h>
#include <rdma/roce_entropy.h>
#include <uapi/rdma/rdma_netlink.h>

#include "core_priv.h"
#include "roce_entropy_vectors.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

static const enum rdma_entropy_policy all_policies[] = {
	RDMA_ENTROPY_BUILTIN,
	RDMA_ENTROPY_OFF,
	RDMA_ENTROPY_RFC,
	RDMA_ENTROPY_MIX,
};

/* The policies built on symmetric products (and "off", which has none). */
static const enum rdma_entropy_policy product_policies[] = {
	RDMA_ENTROPY_OFF,
	RDMA_ENTROPY_RFC,
	RDMA_ENTROPY_MIX,
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

/*
 * Behind a switch that hashes the low bits of the port, the RFC hash of
 * equal small QPNs (squares) reaches only 3 of 8 paths; "mix" reaches all.
 */
static void roce_entropy_mix_low_bits(struct kunit *test)
{
	unsigned long rfc_seen = 0, mix_seen = 0;
	u32 qpn;

	for (qpn = 16; qpn < 80; qpn++) {
		rfc_seen |= BIT(rdma_entropy_udp_sport(RDMA_ENTROPY_RFC, 0,
						       qpn, qpn) & 7);
		mix_seen |= BIT(rdma_entropy_udp_sport(RDMA_ENTROPY_MIX, 0,
						       qpn, qpn) & 7);
	}
	KUNIT_EXPECT_EQ(test, rfc_seen, BIT(0) | BIT(1) | BIT(4));
	KUNIT_EXPECT_EQ(test, mix_seen, 0xffUL);
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
	 * label, folding to 0xC000; rdma_cm's mark (bit 31) folds away; a
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
	{ RDMA_ENTROPY_MIX, 0, 0x12, 0x12, 0xd000, 0xc1c9f, 0xdcaf, QPN },
	{ RDMA_ENTROPY_MIX, 0, 0xffffff, 0xffffff, 0xc000, 0x58b21, 0xcb37,
	  QPN },
	{ RDMA_ENTROPY_MIX, 0xabcde, 0x12, 0x12, 0xc000, 0xabcde, 0xfcf4, ADDR },
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

/* UD AHs: only an AH without a flow label, under rfc or mix, goes per send. */
static const struct per_send_case per_send_cases[] = {
	{ RDMA_ENTROPY_BUILTIN, 0, false },
	{ RDMA_ENTROPY_BUILTIN, 0xabcde, false },
	{ RDMA_ENTROPY_OFF, 0, false },
	{ RDMA_ENTROPY_RFC, 0, true },
	{ RDMA_ENTROPY_MIX, 0, true },
	{ RDMA_ENTROPY_OFF, 0xabcde, false },
	{ RDMA_ENTROPY_RFC, 0x00001, false },
	{ RDMA_ENTROPY_MIX, 0xabcde, false },
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
	KUNIT_EXPECT_EQ(test,
			ud_send_sport(RDMA_ENTROPY_MIX, 0x12, IB_MULTICAST_QPN),
			0xc1af);
	KUNIT_EXPECT_EQ(test, ud_send_sport(RDMA_ENTROPY_RFC, 0x11, 0), 0xd000);
	KUNIT_EXPECT_EQ(test, ud_send_sport(RDMA_ENTROPY_MIX, 1, 1), 0xd000);
}

struct reply_case {
	enum rdma_entropy_policy policy;
	u32 rx_fl;
	u32 fl;
	u32 expected_fl;
};

/*
 * A reply's address built from a received packet (the CM's SIDR REP, REJ,
 * DREP): the flow label received (IPv6) wins; without one (IPv4) the
 * connection's is used, but under "builtin", as in 6.12, none.
 */
static const struct reply_case reply_cases[] = {
	{ RDMA_ENTROPY_RFC, 0, 0x12345, 0x12345 },
	{ RDMA_ENTROPY_RFC, 0, 0xfff12345, 0x12345 },
	{ RDMA_ENTROPY_RFC, 0, 0, 0 },
	{ RDMA_ENTROPY_RFC, 0xabcde, 0x12345, 0xabcde },
	{ RDMA_ENTROPY_MIX, 0xabcde, 0, 0xabcde },
	{ RDMA_ENTROPY_MIX, 0xfffabcde, 0, 0xabcde },
	{ RDMA_ENTROPY_OFF, 0, 0x12345, 0x12345 },
	{ RDMA_ENTROPY_BUILTIN, 0, 0x12345, 0 },
	{ RDMA_ENTROPY_BUILTIN, 0xabcde, 0x12345, 0xabcde },
};

static void reply_desc(const struct reply_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s rx fl %#x fl %#x",
		 rdma_entropy_name(c->policy), c->rx_fl, c->fl);
}

KUNIT_ARRAY_PARAM(reply, reply_cases, reply_desc);

static void roce_entropy_reply_flow_label_decision(struct kunit *test)
{
	const struct reply_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_entropy_reply_flow_label(c->policy, c->rx_fl,
							    c->fl),
			c->expected_fl);
}

/* ---- re-path: the sequence ---- */

static void repath_desc(const struct roce_entropy_repath_vector *v, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "base %#07x move %u", v->base,
		 v->move);
}

KUNIT_ARRAY_PARAM(repath, roce_entropy_repath_vectors, repath_desc);

static void roce_entropy_repath_golden(struct kunit *test)
{
	const struct roce_entropy_repath_vector *v = test->param_value;
	u32 fl = rdma_repath_flow_label(v->base, v->move);

	KUNIT_EXPECT_EQ(test, fl, v->fl);
	KUNIT_EXPECT_EQ(test, rdma_flow_label_to_udp_sport(fl), v->udp_sport);
}

/* The low bits of a port that a move's number changes. */
static u32 repath_port_step(u32 base, u32 fl)
{
	return (rdma_flow_label_to_udp_sport(fl) ^
		rdma_flow_label_to_udp_sport(base)) & RDMA_REPATH_STEP_MASK;
}

/*
 * One move of one base: a 20-bit label, never 0, never the base, and a port
 * whose low 6 bits are the base port's XOR the move's number.  The last
 * makes the ports of the base and of moves 1 to 63 pairwise different, and
 * so their labels too.  Returns whether all hold.
 */
static bool repath_move_ok(u32 base, u32 move)
{
	u32 fl = rdma_repath_flow_label(base, move);
	u32 step = (move - 1) % RDMA_REPATH_STEPS + 1;

	return fl && !(fl & ~IB_GRH_FLOWLABEL_MASK) && fl != base &&
	       repath_port_step(base, fl) == step;
}

/* Every 20-bit base, its first 8 moves: the properties above, exhaustively. */
static void roce_entropy_repath_all_bases(struct kunit *test)
{
	u32 base, move, bad = 0, first_base = 0, first_move = 0;

	for (base = 0; base <= IB_GRH_FLOWLABEL_MASK; base++) {
		for (move = 1; move <= 8; move++) {
			if (repath_move_ok(base, move))
				continue;
			if (!bad++) {
				first_base = base;
				first_move = move;
			}
		}
		cond_resched();
	}
	KUNIT_EXPECT_EQ_MSG(test, bad, 0, "first: base %#x move %u",
			    first_base, first_move);
}

/*
 * A walk of bases, the edges among them: every move up to 63 holds the
 * properties, the 63 ports are pairwise different and differ from the base
 * port, move 63 + n is move n, move 0 is the base, and only 20 bits of the
 * base count.
 */
static void roce_entropy_repath_all_moves(struct kunit *test)
{
	static const u32 edges[] = { 0, 1, 0x4001, 0x7181d, 0xfffff };
	u32 state = 9, base, move, fl, port;
	unsigned long *ports;
	int i;

	ports = kunit_kcalloc(test, BITS_TO_LONGS(1 << 14), sizeof(long),
			      GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ports);

	for (i = 0; i < PROPERTY_ROUNDS + ARRAY_SIZE(edges); i++) {
		base = i < ARRAY_SIZE(edges) ? edges[i] :
			next_input(&state) & IB_GRH_FLOWLABEL_MASK;
		bitmap_zero(ports, 1 << 14);
		__set_bit(rdma_flow_label_to_udp_sport(base) & 0x3fff, ports);
		KUNIT_ASSERT_EQ(test, rdma_repath_flow_label(base, 0), base);
		for (move = 1; move <= RDMA_REPATH_STEPS; move++) {
			fl = rdma_repath_flow_label(base, move);
			port = rdma_flow_label_to_udp_sport(fl);
			KUNIT_ASSERT_TRUE_MSG(test, repath_move_ok(base, move),
					      "base %#x move %u: %#x", base,
					      move, fl);
			KUNIT_ASSERT_FALSE_MSG(test,
					       __test_and_set_bit(port & 0x3fff,
								  ports),
					       "base %#x move %u: port %#x again",
					       base, move, port);
			KUNIT_ASSERT_EQ(test,
					rdma_repath_flow_label(base, move +
							       RDMA_REPATH_STEPS),
					fl);
			KUNIT_ASSERT_EQ(test,
					rdma_repath_flow_label(base | 0xfff00000,
							       move),
					fl);
		}
	}
}

/*
 * A switch that hashes the low k bits of the port (here k = 3, 8 paths):
 * the base and moves 1 to 7 use each of the 8 paths once.
 */
static void roce_entropy_repath_low_bits(struct kunit *test)
{
	u32 state = 10, base, move, seen;
	int i;

	for (i = 0; i < PROPERTY_ROUNDS; i++) {
		base = next_input(&state) & IB_GRH_FLOWLABEL_MASK;
		seen = 0;
		for (move = 0; move < 8; move++) {
			u16 port = rdma_flow_label_to_udp_sport(rdma_repath_flow_label(base,
										   move));

			seen |= BIT(port & 7);
		}
		KUNIT_ASSERT_EQ_MSG(test, seen, 0xff, "base %#x", base);
	}
}

/* ---- re-path: which events move a QP ---- */

struct repath_rule_case {
	const char *name;
	enum rdma_repath repath;
	bool pinned;
	enum rdma_repath_event event;
	unsigned int rounds;
	bool moves;
};

static const struct repath_rule_case repath_rule_cases[] = {
	{ "timeout, first", RDMA_REPATH_ON, false, RDMA_REPATH_TIMEOUT, 1,
	  false },
	{ "timeout, second in a row", RDMA_REPATH_ON, false,
	  RDMA_REPATH_TIMEOUT, 2, true },
	{ "timeout, sixth in a row", RDMA_REPATH_ON, false,
	  RDMA_REPATH_TIMEOUT, 6, true },
	{ "timeout, none counted", RDMA_REPATH_ON, false, RDMA_REPATH_TIMEOUT,
	  0, false },
	{ "timeout, second, re-path off", RDMA_REPATH_OFF, false,
	  RDMA_REPATH_TIMEOUT, 2, false },
	{ "timeout, second, application's label", RDMA_REPATH_ON, true,
	  RDMA_REPATH_TIMEOUT, 2, false },
	{ "timeout, second, a setting that is none", RDMA_REPATH_NR, false,
	  RDMA_REPATH_TIMEOUT, 2, false },
	/* an event that is neither, as a NAK would be: never */
	{ "no such event", RDMA_REPATH_ON, false,
	  (enum rdma_repath_event)(RDMA_REPATH_DUPLICATE + 1), 2, false },
	{ "duplicate, first", RDMA_REPATH_ON, false, RDMA_REPATH_DUPLICATE, 1,
	  false },
	{ "duplicate, second in a row", RDMA_REPATH_ON, false,
	  RDMA_REPATH_DUPLICATE, 2, true },
	{ "duplicate, third in a row", RDMA_REPATH_ON, false,
	  RDMA_REPATH_DUPLICATE, 3, true },
	{ "duplicate, none counted", RDMA_REPATH_ON, false,
	  RDMA_REPATH_DUPLICATE, 0, false },
	{ "duplicate, second, application's label", RDMA_REPATH_ON, true,
	  RDMA_REPATH_DUPLICATE, 2, false },
	{ "duplicate, second, re-path off", RDMA_REPATH_OFF, false,
	  RDMA_REPATH_DUPLICATE, 2, false },
};

static void repath_rule_desc(const struct repath_rule_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(repath_rule, repath_rule_cases, repath_rule_desc);

static void roce_entropy_repath_rules(struct kunit *test)
{
	const struct repath_rule_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_repath_should_move(c->repath, c->pinned,
						      c->event, c->rounds),
			c->moves);
}

struct cm_generated_case {
	u16 port_a;
	u16 port_b;
	u32 fl;
	bool generated;
};

/*
 * An rdma_cm label is the CM's if a policy derives it from the ports, in
 * either order (the passive side has them the other way round).  Labels
 * from the CM golden vectors.
 */
static const struct cm_generated_case cm_generated_cases[] = {
	{ 0xc001, 0x4791, 0x787b0, true },	/* builtin, active side's order */
	{ 0x4791, 0xc001, 0x787b0, true },	/* ... seen from the passive side */
	{ 0xc001, 0x4791, 0x96a90, true },	/* builtin, the other order */
	{ 0xc001, 0x4791, 0x89f0e, true },	/* rfc */
	{ 0x4791, 0xc001, 0x89f0e, true },
	{ 0xc001, 0x4791, 0x4f3af, true },	/* mix */
	{ 0x4791, 0xc001, 0x4f3af, true },
	{ 0x1c06, 0xd43f, 0xcf18b, true },
	{ 0xd43f, 0x1c06, 0x08d84, true },
	{ 0x1c06, 0xd43f, 0x438f9, true },
	{ 0xc001, 0x4791, 0xfff89f0e, true },	/* 20 bits count */
	{ 0xc001, 0x4791, 0x5a5a5, false },	/* an application's */
	{ 0xc001, 0x4791, 0xcf18b, false },	/* another connection's */
	{ 0xc001, 0x4791, 0, false },		/* none */
	{ 0, 0x12b7, 0, false },		/* rfc of a zero port: none */
	{ 0, 0x12b7, 0x012b7, true },		/* builtin of it */
};

static void cm_generated_desc(const struct cm_generated_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "ports %#x %#x fl %#x",
		 c->port_a, c->port_b, c->fl);
}

KUNIT_ARRAY_PARAM(cm_generated, cm_generated_cases, cm_generated_desc);

static void roce_entropy_repath_cm_generated(struct kunit *test)
{
	const struct cm_generated_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_repath_cm_generated(c->fl, c->port_a,
						       c->port_b),
			c->generated);
}

struct pinned_case {
	const char *name;
	u32 fl;
	bool pinned;
};

/*
 * Whether a QP's label is the application's, from the label of its address
 * alone: rdma_cm marks its own with RDMA_ENTROPY_FL_CM.  Only 20 bits are a
 * label.
 */
static const struct pinned_case pinned_cases[] = {
	{ "none: the QP generates one", 0, false },
	{ "the application's", 0x89f0e, true },
	{ "rdma_cm's, marked", 0x89f0e | RDMA_ENTROPY_FL_CM, false },
	{ "a mark alone: none", RDMA_ENTROPY_FL_CM, false },
	{ "bits above 20 only: none", 0x100000, false },
	{ "other bits above 20: the application's", 0x7ff5a5a5, true },
	{ "every bit", U32_MAX, false },
};

static void pinned_desc(const struct pinned_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pinned, pinned_cases, pinned_desc);

static void roce_entropy_repath_pinned(struct kunit *test)
{
	const struct pinned_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_repath_pinned(c->fl), c->pinned);
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
 * One port, policy "mix", re-path on, of a zeroed ib_device that declares
 * IBK_ROCE_ENTROPY: enough for rdma_port_entropy() and the reply helpers,
 * which read nothing else.
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
	ib_port_roce(t->dev, 1)->entropy = RDMA_ENTROPY_MIX;
	ib_port_roce(t->dev, 1)->repath = RDMA_REPATH_ON;
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

	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_MIX);
	for (i = 0; i < ARRAY_SIZE(bad_ports); i++)
		KUNIT_EXPECT_EQ_MSG(test, rdma_port_entropy(t->dev, bad_ports[i]),
				    RDMA_ENTROPY_BUILTIN, "port %u", bad_ports[i]);
}

/* The same for the re-path setting: off for any port that is not one. */
static void roce_entropy_port_repath_bounds(struct kunit *test)
{
	static const u32 bad_ports[] = { 0, 2, 3, 255, 256, U32_MAX };
	struct port_test *t = test->priv;
	int i;

	KUNIT_EXPECT_EQ(test, rdma_port_repath(t->dev, 1), RDMA_REPATH_ON);
	for (i = 0; i < ARRAY_SIZE(bad_ports); i++)
		KUNIT_EXPECT_EQ_MSG(test, rdma_port_repath(t->dev, bad_ports[i]),
				    RDMA_REPATH_OFF, "port %u", bad_ports[i]);
}

/*
 * A device whose driver does not declare IBK_ROCE_ENTROPY reads the builtin
 * policy and re-path off whatever its ports hold, and nothing can set them.
 */
static void roce_entropy_port_undeclared(struct kunit *test)
{
	struct port_test *t = test->priv;

	t->dev->attrs.kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_BUILTIN);
	KUNIT_EXPECT_EQ(test, rdma_port_repath(t->dev, 1), RDMA_REPATH_OFF);
	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "rfc", 3),
			-ENODEV);
	KUNIT_EXPECT_EQ(test, ib_port_roce(t->dev, 1)->entropy,
			RDMA_ENTROPY_MIX);
}

/*
 * A registering device's ports start with the defaults, whatever they held;
 * the knob then sets the port, as sysfs writes it, and a bad value changes
 * nothing.
 */
static void roce_entropy_port_defaults(struct kunit *test)
{
	enum rdma_entropy_policy def = rdma_entropy_default();
	enum rdma_repath def_repath = rdma_repath_default();
	struct port_test *t = test->priv;
	struct ib_port_roce *roce = ib_port_roce(t->dev, 1);

	roce->entropy = (def + 1) % RDMA_ENTROPY_NR;
	roce->repath = def_repath == RDMA_REPATH_ON ? RDMA_REPATH_OFF :
						      RDMA_REPATH_ON;
	rdma_entropy_init_port(t->dev, 1);
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), def);
	KUNIT_EXPECT_EQ(test, rdma_port_repath(t->dev, 1), def_repath);

	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "mix\n", 4), 4);
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_MIX);
	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 1, NULL, "max", 3),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, rdma_port_entropy(t->dev, 1), RDMA_ENTROPY_MIX);
	KUNIT_EXPECT_EQ(test, roce_entropy_store(t->dev, 2, NULL, "rfc", 3),
			-ENODEV);
}

struct knob_case {
	const char *name;
	u64 kernel_cap_flags;
	u32 core_cap_flags;
	bool has_knob;
};

/* The knob is on RoCE v2 ports of drivers that declare they follow it. */
static const struct knob_case knob_cases[] = {
	{ "declared, RoCE v2", IBK_ROCE_ENTROPY,
	  RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP, true },
	{ "declared, RoCE v1 and v2", IBK_ROCE_ENTROPY | IBK_LOCAL_DMA_LKEY,
	  RDMA_CORE_PORT_IBA_ROCE | RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP, true },
	{ "not declared, RoCE v2", IBK_LOCAL_DMA_LKEY,
	  RDMA_CORE_PORT_IBA_ROCE_UDP_ENCAP, false },
	{ "declared, RoCE v1", IBK_ROCE_ENTROPY, RDMA_CORE_PORT_IBA_ROCE, false },
	{ "declared, InfiniBand", IBK_ROCE_ENTROPY, RDMA_CORE_PORT_IBA_IB, false },
	{ "declared, iWARP", IBK_ROCE_ENTROPY, RDMA_CORE_PORT_IWARP, false },
};

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
}

/* A reply's address takes the connection's flow label as its port's policy says. */
static void roce_entropy_port_reply(struct kunit *test)
{
	struct port_test *t = test->priv;
	struct rdma_ah_attr attr = {};

	rdma_ah_set_port_num(&attr, 1);
	rdma_entropy_set_reply_flow_label(t->dev, &attr, 0x12345);
	KUNIT_EXPECT_EQ(test, attr.grh.flow_label, 0);	/* no GRH: untouched */

	rdma_ah_set_ah_flags(&attr, IB_AH_GRH);
	rdma_entropy_set_reply_flow_label(t->dev, &attr, 0x12345);
	KUNIT_EXPECT_EQ(test, attr.grh.flow_label, 0x12345);

	attr.grh.flow_label = 0xabcde;			/* received: wins */
	rdma_entropy_set_reply_flow_label(t->dev, &attr, 0x12345);
	KUNIT_EXPECT_EQ(test, attr.grh.flow_label, 0xabcde);

	attr.grh.flow_label = 0;			/* port 2: not one */
	rdma_ah_set_port_num(&attr, 2);
	rdma_entropy_set_reply_flow_label(t->dev, &attr, 0x12345);
	KUNIT_EXPECT_EQ(test, attr.grh.flow_label, 0);
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
	{ "mix", RDMA_ENTROPY_MIX },
	{ "off\n", RDMA_ENTROPY_OFF },
	{ "rfc\n", RDMA_ENTROPY_RFC },
	{ "mix\n", RDMA_ENTROPY_MIX },
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
	{ "mix\nrfc", -EINVAL },
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

static const struct parse_case repath_parse_cases[] = {
	{ "off", RDMA_REPATH_OFF },
	{ "on", RDMA_REPATH_ON },
	{ "off\n", RDMA_REPATH_OFF },
	{ "on\n", RDMA_REPATH_ON },
	{ "", -EINVAL },
	{ "\n", -EINVAL },
	{ "o", -EINVAL },
	{ "of", -EINVAL },
	{ "onn", -EINVAL },
	{ "on\n\n", -EINVAL },
	{ " on", -EINVAL },
	{ "On", -EINVAL },
	{ "ON", -EINVAL },
	{ "1", -EINVAL },
	{ "yes", -EINVAL },
	{ "rfc", -EINVAL },
	{ "on\noff", -EINVAL },
	{ overlong, -EINVAL },
};

KUNIT_ARRAY_PARAM(repath_parse, repath_parse_cases, parse_desc);

static void roce_entropy_repath_parse_names(struct kunit *test)
{
	const struct parse_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_repath_parse(c->str), c->expected);
}

static void roce_entropy_repath_names_round_trip(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, rdma_repath_parse(rdma_repath_name(RDMA_REPATH_OFF)),
			RDMA_REPATH_OFF);
	KUNIT_EXPECT_EQ(test, rdma_repath_parse(rdma_repath_name(RDMA_REPATH_ON)),
			RDMA_REPATH_ON);
	KUNIT_EXPECT_STREQ(test, rdma_repath_name(RDMA_REPATH_NR), "unknown");
}

static void roce_entropy_names_round_trip(struct kunit *test)
{
	enum rdma_entropy_policy p = *(const enum rdma_entropy_policy *)
		test->param_value;

	KUNIT_EXPECT_EQ(test, rdma_entropy_parse(rdma_entropy_name(p)), (int)p);
}

/* ---- the QP's entropy in the rdma netlink resource dump ---- */

/* An attribute the dump must not have. */
#define NO_ATTR	(-1LL)

struct fill_res_case {
	const char *desc;
	struct rdma_entropy_state st;
	/* the values of the four attributes, or NO_ATTR */
	long long policy, source, flow_label, udp_sport;
};

/* The uAPI's values, written out: the enums' order is ABI. */
static const struct fill_res_case fill_res_cases[] = {
	{ "unset", { 0x144, 0xc144, RDMA_ENTROPY_RFC, RDMA_ENTROPY_SRC_UNSET },
	  NO_ATTR, NO_ATTR, NO_ATTR, NO_ATTR },
	{ "rfc qpn", { 0x144, 0xc144, RDMA_ENTROPY_RFC, RDMA_ENTROPY_SRC_QPN },
	  2, 1, 0x144, 0xc144 },
	{ "mix address",
	  { 0xabcde, 0xfcf4, RDMA_ENTROPY_MIX, RDMA_ENTROPY_SRC_ADDRESS },
	  3, 0, 0xabcde, 0xfcf4 },
	{ "off none", { 0, 0xc000, RDMA_ENTROPY_OFF, RDMA_ENTROPY_SRC_NONE },
	  1, 2, 0, 0xc000 },
	{ "builtin per-qp", { 0, 0xd872, RDMA_ENTROPY_BUILTIN,
			    RDMA_ENTROPY_SRC_PER_QP },
	  0, 5, 0, 0xd872 },
	{ "rfc per-send", { 0, 0, RDMA_ENTROPY_RFC, RDMA_ENTROPY_SRC_PER_SEND },
	  2, 3, NO_ATTR, NO_ATTR },
	{ "off per-ah", { 0, 0, RDMA_ENTROPY_OFF, RDMA_ENTROPY_SRC_PER_AH },
	  1, 4, NO_ATTR, NO_ATTR },
	{ "bad policy", { 0x144, 0xc144, RDMA_ENTROPY_NR, RDMA_ENTROPY_SRC_QPN },
	  NO_ATTR, NO_ATTR, NO_ATTR, NO_ATTR },
	{ "bad source", { 0x144, 0xc144, RDMA_ENTROPY_RFC, RDMA_ENTROPY_SRC_NR },
	  NO_ATTR, NO_ATTR, NO_ATTR, NO_ATTR },
};

static void fill_res_desc(const struct fill_res_case *c, char *desc)
{
	strscpy(desc, c->desc, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(fill_res, fill_res_cases, fill_res_desc);

/*
 * Read the attributes of @msg back: each of the four at most once, with
 * its size, and nothing else.
 */
static void read_res_attrs(struct kunit *test, struct sk_buff *msg,
			   long long val[4])
{
	static const int size[4] = { 1, 1, 4, 2 };
	struct nlattr *a;
	int i, rem;

	for (i = 0; i < 4; i++)
		val[i] = NO_ATTR;
	nla_for_each_attr(a, (struct nlattr *)msg->data, msg->len, rem) {
		i = nla_type(a) - RDMA_NLDEV_ATTR_RES_ROCE_ENTROPY;
		KUNIT_ASSERT_TRUE_MSG(test, i >= 0 && i < 4,
				      "unexpected attribute %d", nla_type(a));
		KUNIT_ASSERT_EQ(test, val[i], NO_ATTR);
		KUNIT_ASSERT_EQ(test, nla_len(a), size[i]);
		switch (size[i]) {
		case 1:
			val[i] = nla_get_u8(a);
			break;
		case 2:
			val[i] = nla_get_u16(a);
			break;
		default:
			val[i] = nla_get_u32(a);
		}
	}
	KUNIT_EXPECT_EQ(test, rem, 0);
}

static void roce_entropy_fill_res(struct kunit *test)
{
	const struct fill_res_case *c = test->param_value;
	struct sk_buff *msg;
	long long val[4];

	msg = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msg);

	KUNIT_EXPECT_EQ(test, rdma_entropy_fill_res_qp(msg, &c->st), 0);
	read_res_attrs(test, msg, val);
	KUNIT_EXPECT_EQ(test, val[0], c->policy);
	KUNIT_EXPECT_EQ(test, val[1], c->source);
	KUNIT_EXPECT_EQ(test, val[2], c->flow_label);
	KUNIT_EXPECT_EQ(test, val[3], c->udp_sport);
	kfree_skb(msg);
}

/*
 * A message without room for all four attributes: -EMSGSIZE, and none of
 * them is left in it; with exactly the room, all four.
 */
static void roce_entropy_fill_res_full(struct kunit *test)
{
	const struct rdma_entropy_state st = {
		0x144, 0xc144, RDMA_ENTROPY_RFC, RDMA_ENTROPY_SRC_QPN
	};
	unsigned int need, room;
	struct sk_buff *msg;

	msg = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, msg);
	KUNIT_ASSERT_EQ(test, rdma_entropy_fill_res_qp(msg, &st), 0);
	need = msg->len;
	kfree_skb(msg);
	KUNIT_ASSERT_GT(test, need, 0);

	for (room = 0; room <= need; room++) {
		msg = alloc_skb(NLMSG_GOODSIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, msg);
		skb_put(msg, skb_tailroom(msg) - room);
		if (room < need) {
			KUNIT_EXPECT_EQ(test,
					rdma_entropy_fill_res_qp(msg, &st),
					-EMSGSIZE);
			KUNIT_EXPECT_EQ(test, skb_tailroom(msg), room);
		} else {
			KUNIT_EXPECT_EQ(test,
					rdma_entropy_fill_res_qp(msg, &st), 0);
			KUNIT_EXPECT_EQ(test, skb_tailroom(msg), 0);
		}
		kfree_skb(msg);
	}
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
	KUNIT_CASE(roce_entropy_mix_low_bits),
	KUNIT_CASE_PARAM(roce_entropy_repath_golden, repath_gen_params),
	KUNIT_CASE(roce_entropy_repath_all_bases),
	KUNIT_CASE(roce_entropy_repath_all_moves),
	KUNIT_CASE(roce_entropy_repath_low_bits),
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
	KUNIT_CASE_PARAM(roce_entropy_reply_flow_label_decision,
			 reply_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_fill_res, fill_res_gen_params),
	KUNIT_CASE(roce_entropy_fill_res_full),
	KUNIT_CASE_PARAM(roce_entropy_repath_rules, repath_rule_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_repath_pinned, pinned_gen_params),
	KUNIT_CASE_PARAM(roce_entropy_repath_cm_generated,
			 cm_generated_gen_params),
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
	KUNIT_CASE(roce_entropy_port_defaults),
	KUNIT_CASE(roce_entropy_port_reply),
	KUNIT_CASE(roce_entropy_port_repath_bounds),
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
	KUNIT_CASE_PARAM(roce_entropy_repath_parse_names,
			 repath_parse_gen_params),
	KUNIT_CASE(roce_entropy_repath_names_round_trip),
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
