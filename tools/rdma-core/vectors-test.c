// SPDX-License-Identifier: GPL-2.0
/*
 * The UD rule of rdma-core's util/roce_entropy.h (the patches of this
 * directory) against the golden vectors the kernel's KUnit suite and the
 * C++ tool's tests check: the fold of a flow label into a UDP source port,
 * and the flow label and port of one UD send under each policy.  The
 * policy's name goes through the header's own parser, as a provider reads
 * it from the kernel's knob.  Then the same rows through the mlx5
 * provider's own steps: the AH's address as mlx5_create_ah() leaves it,
 * and mlx5_av_set_entropy() on the copy a send puts in its WQE.
 *
 * Built by tools/buildlib/rdma-core.sh against the patched tree, with
 * rdma-core's own warnings; prints KTAP.
 */
#include <stdio.h>
#include <util/roce_entropy.h>
#include "wqe.h"

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

/*
 * A send through an mlx5 AH made for the row: its address as
 * mlx5_ah_set_udp_sport() and mlx5_create_ah() leave it (source GID index
 * 3, "random" port 0xC000 + 0x1123), then mlx5_av_set_entropy() as
 * _set_datagram_seg() calls it.  Under builtin without a flow label the
 * provider keeps its random port where the kernel's rows give the base
 * port; every other row is the kernel's.
 */
static int check_mlx5(const struct roce_entropy_qpn_vector *v, size_t n)
{
	enum roce_entropy_policy policy, entropy;
	int bad = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		struct mlx5_wqe_av av = {};
		uint16_t sport = v[i].udp_sport;
		uint32_t gid_fl;

		if (!roce_entropy_parse(v[i].policy, &policy)) {
			bad++;
			continue;
		}
		if (policy == ROCE_ENTROPY_BUILTIN && !v[i].app_fl)
			sport = 0xd123;
		av.rlid = htobe16(roce_entropy_ah_sport(policy, v[i].app_fl,
							0x1123));
		av.grh_gid_fl = htobe32(3 << 20 |
					(v[i].app_fl & IB_GRH_FLOWLABEL_MASK));
		entropy = roce_entropy_ud_per_send(policy, v[i].app_fl) ?
			  policy : ROCE_ENTROPY_BUILTIN;
		mlx5_av_set_entropy(&av, entropy, v[i].lqpn, v[i].rqpn);
		gid_fl = be32toh(av.grh_gid_fl);
		if (be16toh(av.rlid) != sport || gid_fl != (3 << 20 | v[i].fl)) {
			printf("# mlx5 %s sqpn %#x dqpn %#x label %#x: rlid %#x grh_gid_fl %#x, not %#x %#x\n",
			       v[i].policy, v[i].lqpn, v[i].rqpn, v[i].app_fl,
			       be16toh(av.rlid), gid_fl, sport,
			       3 << 20 | v[i].fl);
			bad++;
		}
	}

	return !bad;
}

int main(void)
{
	int bad = 0;
	size_t i;

	printf("KTAP version 1\n1..5\n");

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
	result(check_mlx5(roce_entropy_ud_vectors,
			  ARRAY_LEN(roce_entropy_ud_vectors)),
	       "mlx5 WQE addresses: UD vectors of builtin, off and rfc");
	result(check_mlx5(roce_entropy_mix_ud_vectors,
			  ARRAY_LEN(roce_entropy_mix_ud_vectors)),
	       "mlx5 WQE addresses: UD vectors of mix");

	return failed ? 1 : 0;
}
