// SPDX-License-Identifier: GPL-2.0
// roce-flows: the fabric benchmark's traffic (make fabric).  Every flow is
// a source and a destination address, each the RoCE v2 GID of a device of
// this host; a flow is QPS RC QP pairs, connected by rdma_cm or by QPN and
// GID (as NCCL does, the flow label left 0), that RDMA WRITE BYTES between
// them.  Every flow starts at once, after every connection is up, in one
// process: each flow's completion time, and the job's (the last flow's),
// are measured on one clock.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace roce
{

struct FlowSpec {
	std::string src, dst; // addresses, as given
};

struct FlowsOptions {
	std::vector<FlowSpec> flows;
	bool cm = false;           // rdma_cm, not QPN and GID by hand
	unsigned qps = 1;          // QP pairs per flow
	std::uint64_t bytes = 0;   // per flow, shared among its QPs
	unsigned message = 16384;  // bytes per RDMA WRITE
	unsigned depth = 2;        // WRITEs in flight per QP
	unsigned cm_port = 18700;  // the listeners' port (--cm)
	unsigned ack_timeout = 20; // the QPs' local ACK timeout exponent
	unsigned retry_count = 7;  // rxe takes 7 as "retry for ever"
	unsigned timeout = 60;     // seconds without progress: failure
	// a QP's error completion fails its flow, not the run: the others go
	// on (the fabric's failure act)
	bool keep_going = false;
	std::string started; // a file made when the flows start (after connecting)
	bool json = false;
};

// "SRC,DST" as a flow; throws UsageError.
FlowSpec flow_arg(const std::string &text);

// Parse ARGV into OPTS.  Returns nothing when the options are good, or the
// exit status (0 for --help, 2 for a usage error, with a message on ERR).
std::optional<int> parse_flows_args(int argc, const char *const *argv, FlowsOptions &opts,
                                    std::ostream &out, std::ostream &err);

// The WRITEs of one QP's share of BYTES over QPS QPs, MESSAGE bytes at
// most each: QP INDEX's byte count (the first BYTES % QPS QPs carry one
// byte more), and how many WRITEs carry it.
struct QpShare {
	std::uint64_t bytes = 0;
	std::uint64_t writes = 0;
};
QpShare qp_share(std::uint64_t bytes, unsigned qps, unsigned index, unsigned message);

// Connect, move the bytes, report (each flow's completion time and its
// longest gap between two completions).  Returns the exit status: 0 when
// every flow completed, 1 otherwise.
int run_flows(const FlowsOptions &opts, std::ostream &out, std::ostream &err);

} // namespace roce
