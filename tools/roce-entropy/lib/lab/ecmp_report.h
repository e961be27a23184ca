// SPDX-License-Identifier: GPL-2.0
// The ECMP demo's report (make demo): per policy, stock 6.12 (builtin) first,
// how the demo's connections spread over the routers' links and the sending
// host's next hops, and what each connection's packets carried, from one
// capture per phase at the router judged by "roce-entropy pcap --json".
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "output/record.h"

namespace roce
{

// One connection of the demo, as its client reported it and the capture
// saw it.
struct DemoConnection {
	std::string kind;   // "rdma_cm RC", "RC" (no CM, QPNs exchanged), "UD" (an AH per peer)
	bool found = false; // its packets, both ways, are in the capture
	bool consistent = false;             // every packet as the policy predicts (pcap's verdict)
	std::set<std::uint16_t> udp_sports;  // both ways, CM MADs included
	std::set<std::uint32_t> flow_labels; // IPv6
	std::map<unsigned, std::uint64_t> forward_links, reverse_links; // link: packets
	// Stock 6.12 rxe sends it on more than one port: an rdma_cm
	// connection's CM MADs on QP1's, a UD QP on its own.
	bool linux_splits = false;
};

// One batch of connections under one policy, counted on one set of links.
struct EcmpRun {
	std::string act;    // "ecmp": the routers' links; "host": the sending host's next hops
	std::string mix;    // "cm": rdma_cm RC only; "users": what users run (DemoConnection.kind)
	std::string family; // "ipv4", "ipv6"
	std::string policy; // builtin, off, rfc, mix
	bool clients_ok = false;
	std::vector<std::uint64_t> forward;      // packets per link, A to B
	std::vector<std::uint64_t> reverse;      // B to A (none for the host's next hops)
	unsigned connection_count = 0;           // for the host's next hops too
	std::vector<DemoConnection> connections; // the routers' links only
	double capture_coverage = 1;   // the phase's captured packets over the routers' count
	bool balance_asserted = false; // judged against random ports' p95, or reported
	double ideal_mean = 0, ideal_p95 = 0; // random ports over as many links
};

struct EcmpVerdict {
	double forward_max_mean = 0, reverse_max_mean = 0;
	unsigned missing = 0;             // connections not in the capture
	unsigned inconsistent = 0;        // off the policy's prediction
	unsigned split = 0;               // on more than one UDP source port
	unsigned linux_splits = 0;        // of them, stock 6.12's prediction
	unsigned apart = 0;               // the two directions on different links
	unsigned fl_zero = 0, fl_set = 0; // IPv6: flow label 0 only, or one set
	std::map<std::string, std::pair<unsigned, unsigned>> by_kind; // kind: split, all
	bool within_p95 = false;
	bool ok = false;
	std::string why; // what the check found, in words
};

// Largest load over the mean load; 0 when nothing was counted.
double max_mean(const std::vector<std::uint64_t> &load);

// The self-check of a run.  Every run: its clients completed; on the
// routers' links every connection is in the capture, as the policy
// predicts, and the capture holds 99% of what the routers counted.  off:
// each direction on one link.  rfc and mix: every connection on one port,
// a flow label on IPv6; the balance within random ports' p95 where
// asserted.  builtin: exactly the connections stock 6.12 splits are split
// (and it splits some).
EcmpVerdict judge(const EcmpRun &run);

// The runs of the VM's raw result (tools/demo/ecmp.sh), with each phase's
// "pcap" (roce-entropy pcap --json of its capture, added by demo.sh).
// Throws std::runtime_error on anything missing or malformed.
std::vector<EcmpRun> parse_ecmp_runs(const nlohmann::json &raw);

// The report: a table per act, mix and family, each run's verdict, and a
// summary table with the policies side by side; as JSON
// ({"runs": [...], "ok": ...}).
Record ecmp_report(const std::vector<EcmpRun> &runs);
// Packets per link over the mean, A to B: a column per policy.
void write_ecmp_svg(const std::vector<EcmpRun> &runs, std::ostream &out);

} // namespace roce
