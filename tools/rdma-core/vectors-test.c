// SPDX-License-Identifier: GPL-2.0
/*
 * The UD rule of rdma-core's util/roce_entropy.h (the patches of this
 * directory) against the golden vectors the kernel's KUnit suite and the
 * C++ tool's tests check: the fold of a flow label into a UDP source port,
 * and the flow label and port of one UD send under each policy.  The
 * policy's name goes through the header's own parser, as a provider reads
 * it from the kernel's knob.
 *
 * Built by tools/buildlib/rdma-core.sh against the patched tree, with
 * rdma-core's own warnings; prints KTAP.
 */
#include <stdio.h>
#include <util/roce_entropy.h>

#include "roce_entropy_mix_vectors.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static int tests, failed;

static void result(int ok, const char *what)
{
	printf("%s %d %s\n", ok ? "ok" : "not ok", ++tests, what);
	failed += !ok;
}

static int check_ud(const struct roce_entropy_qpn_vector *v, size_t n)
{
	enum roce_entropy_policy policy;
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		uint32_t fl;
		uint16_t sport;

		if (!roce_entropy_parse(v[i].policy, &policy)) {
			printf("# policy \"%s\" not parsed\n", v[i].policy);
			bad++;
			continue;
		}
		fl = roce_entropy_ud_flow_label(policy, v[i].app_fl,
						v[i].lqpn, v[i].rqpn);
		sport = roce_entropy_sport(fl);
		if (fl != v[i].fl || sport != v[i].udp_sport) {
			printf("# %s sqpn %#x dqpn %#x label %#x: %#x/%#x, not %#x/%#x\n",
			       v[i].policy, v[i].lqpn, v[i].rqpn, v[i].app_fl,
			       fl, sport, v[i].fl, v[i].udp_sport);
			bad++;
		}
	}

	return !bad;
}

int main(void)
{
	int bad = 0;
	size_t i;

	printf("KTAP version 1\n1..3\n");

	for (i = 0; i < ARRAY_LEN(roce_entropy_fold_vectors); i++) {
		const struct roce_entropy_fold_vector *v =
			&roce_entropy_fold_vectors[i];

		if (roce_entropy_sport(v->fl) != v->udp_sport) {
			printf("# fold %#x: %#x, not %#x\n", v->fl,
			       roce_entropy_sport(v->fl), v->udp_sport);
			bad++;
		}
	}
	result(!bad, "fold vectors");
	result(check_ud(roce_entropy_ud_vectors,
			ARRAY_LEN(roce_entropy_ud_vectors)),
	       "UD vectors of builtin, off and rfc");
	result(check_ud(roce_entropy_mix_ud_vectors,
			ARRAY_LEN(roce_entropy_mix_ud_vectors)),
	       "UD vectors of mix");

	return failed ? 1 : 0;
}
