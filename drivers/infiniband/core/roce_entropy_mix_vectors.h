/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Golden vectors for the "mix" policy, in the form of roce_entropy_vectors.h
 * and shared the same way, with the KUnit suite and the userspace tool's
 * tests.
 *
 * The rows follow the formulas in Documentation/infiniband/roce_entropy.rst,
 * evaluated with Python's unbounded integers, not with this code:
 *
 *   CM:   fl = ((dport * sport * 0x61C88647) mod 2^32) >> 12
 *   QPN:  fl = ((lqpn * rqpn * 0x61C8864680B583EB) mod 2^64) >> 44
 *
 * and the port is the RFC fold of the flow label, as under every policy.
 */
#ifndef _ROCE_ENTROPY_MIX_VECTORS_H
#define _ROCE_ENTROPY_MIX_VECTORS_H

#include "roce_entropy_vectors.h"

static const struct roce_entropy_cm_vector roce_entropy_mix_cm_vectors[] = {
	{ "mix", 0x0000, 0x12b7, 0x00000, 0xc000 },
	{ "mix", 0x0001, 0x0001, 0x61c88, 0xdc90 },
	{ "mix", 0x0001, 0x4000, 0x2191c, 0xd914 },
	{ "mix", 0x0100, 0x0100, 0x86470, 0xe451 },
	{ "mix", 0xffff, 0xffff, 0x553a8, 0xd3bd },
	{ "mix", 0xc001, 0x4791, 0x4f3af, 0xf3bc },
	{ "mix", 0x1c06, 0xd43f, 0x08d84, 0xcd86 },
};

static const struct roce_entropy_qpn_vector roce_entropy_mix_qpn_vectors[] = {
	{ "mix", 0x000000, 0x000011, 0x00000, 0x00000, 0xc000 },
	{ "mix", 0x000001, 0x000001, 0x00000, 0x61c88, 0xdc90 },
	{ "mix", 0x000012, 0x000012, 0x00000, 0xc1c9f, 0xdcaf },
	{ "mix", 0x000011, 0x000012, 0x00000, 0xe1b08, 0xdb30 },
	{ "mix", 0x001000, 0x001000, 0x00000, 0x4680b, 0xe81a },
	{ "mix", 0x123456, 0x654321, 0x00000, 0xfe773, 0xe74c },
	{ "mix", 0xffffff, 0xffffff, 0x00000, 0x58b21, 0xcb37 },
	{ "mix", 0x000012, 0x000012, 0xabcde, 0xabcde, 0xfcf4 },
};

static const struct roce_entropy_qpn_vector roce_entropy_mix_ud_vectors[] = {
	{ "mix", 0x000011, 0x000012, 0x00000, 0xe1b08, 0xdb30 },
	{ "mix", 0x000012, 0xffffff, 0x00000, 0xe0197, 0xc1af },
	{ "mix", 0xc0ffee, 0xffffff, 0x00000, 0x5b0d9, 0xf0cf },
	/* QP1: the AH's flow label or none */
	{ "mix", 0x000001, 0x000001, 0x00000, 0x00000, 0xc000 },
	{ "mix", 0x000001, 0xffffff, 0x00000, 0x00000, 0xc000 },
};

#endif /* _ROCE_ENTROPY_MIX_VECTORS_H */
