// SPDX-License-Identifier: GPL-2.0
// roce-qps: many QP pairs without rdma_cm, one end on each of two devices:
// RC QPs connected directly by QPN and GID (as NCCL and UCX set them up),
// or UD QPs that send through an address handle per peer.  One send per
// pair, or round trips.  For the many-QPs test and the demo: it prints
// every pair's QPNs and, under a policy, the UDP source port and flow label
// the pair's packets must carry.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include "entropy/entropy.h"

namespace roce
{

struct QpsOptions {
	std::string dev_a, dev_b;      // the two devices: A sends, B receives
	unsigned port = 1;             // the IB port on both
	unsigned gid_a = 0, gid_b = 0; // RoCE v2 GID indexes
	unsigned pairs = 1;
	unsigned batch = 256;         // sends in flight at once
	unsigned size = 16;           // bytes per message
	std::optional<Policy> policy; // predict ports under this policy
	unsigned timeout = 20;        // seconds without a completion: failure
	bool ud = false;              // UD QPs with an AH per peer, not RC
	// 0: one send from A to B; N: N round trips, B answering each message
	unsigned round_trips = 0;
	bool json = false;
};

// Parse ARGV into OPTS.  Returns nothing when the options are good, or the
// exit status (0 for --help, 2 for a usage error, with a message on ERR).
std::optional<int> parse_qps_args(int argc, const char *const *argv, QpsOptions &opts,
                                  std::ostream &out, std::ostream &err);

// The number of distinct values among DRAWS independent uniform draws from
// SLOTS values (the birthday problem): its mean and standard deviation.
struct Birthday {
	double mean = 0;
	double sd = 0;
};
Birthday birthday_distinct(unsigned draws, unsigned slots);

// The UDP source ports RoCE v2 uses: 0xC000-0xFFFF.
inline constexpr unsigned kSportSlots = 0x4000;

// Create, connect and exercise the pairs.  Returns the exit status: 0 when
// every pair's messages completed and arrived intact, 1 otherwise.
int run_qps(const QpsOptions &opts, std::ostream &out, std::ostream &err);

} // namespace roce
