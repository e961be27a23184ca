// SPDX-License-Identifier: GPL-2.0
// The ECMP demo's report: packets per link as the router counted them, per
// policy, judged against uniformly random ports (the ideal).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "output/record.h"

namespace roce
{

// One batch of connections under one policy.
struct EcmpRun {
	std::string family; // "ipv4", "ipv6": the router; "host-ipv4": the host's route
	std::string policy; // "off", "rfc" or "mix"
	std::vector<std::uint64_t> forward;    // packets per link, A to B
	std::vector<std::uint64_t> reverse;    // packets per link, B to A (may be empty)
	std::vector<std::uint16_t> udp_sports; // predicted per connection
	bool clients_ok = false;
	double ideal_mean = 0, ideal_p95 = 0; // random ports over as many links
};

struct EcmpVerdict {
	double forward_max_mean = 0;
	double reverse_max_mean = 0;
	unsigned distinct_sports = 0;
	bool ok = false;
	std::string why; // what the check found, in words
};

// Largest load over the mean load; 0 when nothing was counted.
double max_mean(const std::vector<std::uint64_t> &load);

// off: every packet of a direction on one link; rfc and mix: each
// direction within the run's ideal p95; every policy: the clients completed.
EcmpVerdict judge(const EcmpRun &run);

// Parse the VM's raw result (see tools/qemu/demo/ecmp.sh).  Throws
// std::runtime_error on anything missing or malformed.
std::vector<EcmpRun> parse_ecmp_runs(const nlohmann::json &raw);

// The report as JSON, a table and an SVG chart.
// The report: a table of packets per link and each run's verdict, or the
// same as JSON ({"runs": [...], "ok": ...}).
Record ecmp_report(const std::vector<EcmpRun> &runs);
void write_ecmp_svg(const std::vector<EcmpRun> &runs, std::ostream &out);

} // namespace roce
