// SPDX-License-Identifier: GPL-2.0
// make fabric's jobs judged: each job's completion time against the ideal
// (its bytes over the fabric's capacity for its pattern, as if every
// packet were sprayed evenly), its flows' p50 and p99, how evenly the
// leaf-spine links carried it; then each cell (hash, job, QPs per pair,
// connection) per policy over its seeds, against stock 6.12.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "output/record.h"
#include "sim/fabric_ideal.h"

namespace roce
{

struct FabricJob {
	std::string policy, hash, job, connect;
	unsigned qps = 1, seed = 0;
	FabricTopology topo;
	std::uint64_t bytes_per_flow = 0;
	double job_seconds = 0;
	std::vector<FabricFlow> flows;
	// bytes each leaf-spine link sent: leaf L's uplink to spine S at
	// L*spines+S, then spine S's downlink to leaf L at
	// leaves*spines + S*leaves+L
	std::vector<std::uint64_t> uplink_bytes;
};

// The calibration: one flow alone, and a permutation pinned to every
// uplink once, each as a fraction of the link rate.
struct FabricCalibration {
	double one_flow = 0, pinned = 0;
	unsigned flows = 0;
};

// The failure act under one policy: a permutation on the whole fabric,
// then again with one leaf-spine link black-holed AFTER seconds in.
struct FabricFailover {
	std::string policy, link;
	double after = 0;
	unsigned flows = 0;
	unsigned base_done = 0, hole_done = 0;     // flows that completed
	double base_jct = 0, hole_jct = 0;         // the last flow's end
	double base_longest = 0, hole_longest = 0; // longest gap of a flow
};

// JOBS: those that ran; PLANNED: how many each boot's plan line said it
// would run, summed (a job that failed has no line); the same for the
// failure act.
struct FabricRuns {
	std::vector<FabricJob> jobs;
	std::optional<FabricCalibration> calibration;
	std::vector<FabricFailover> failovers;
	unsigned planned = 0, failovers_planned = 0;
};

// The lines of IN, one JSON object each (tools/fabric/fabric.sh's
// runs.jsonl); NAME names it in errors.  Throws UsageError on a line that
// is not a job, a calibration, a failure act or a plan ({"plan": {"jobs":
// N, "failover": M}}), or whose hosts or links do not fit its topology.
FabricRuns parse_fabric_runs(std::istream &in, const std::string &name);

struct JobFigures {
	double jct = 0, ideal = 0, p50 = 0, p99 = 0;
	double link_max_mean = 0; // the busiest leaf-spine link over their mean
};
JobFigures job_figures(const FabricJob &job);

// The report: a table per hash and job of JCT over the ideal per policy
// (mean, and min-max over seeds), JCT over stock's, p99 and the links'
// max/mean; the headline (each policy's geometric mean over the cells of
// JCT over ideal and over stock).  Stock is the STOCK=1 boot's "stock"
// policy, or "builtin" (6.12's formula through our modules) when that boot
// did not run, and the report says which.  Then the failure act: per
// policy the flows that completed, the longest gap, the completion time
// against the whole fabric's.  Its "ok": every planned job and act ran
// and the calibration shows the fabric, not rxe's CPU, as the bottleneck.
Record fabric_report(const FabricRuns &runs);

// This run against an earlier one (make fabric keeps the last run's jobs):
// for each policy in each cell both ran, whether their JCT over the ideal
// agree, their ranges over seeds overlapping as the report prints them (two
// decimals); those that do not, and each
// policy's geometric mean over those cells in both.  Runs of different
// topologies are not compared, and the report says so.
Record fabric_compare(const FabricRuns &now, const FabricRuns &before);

// A chart: per cell, a bar per policy of its JCT over the ideal, whiskers
// for the seeds' spread.
void write_fabric_svg(const FabricRuns &runs, std::ostream &out);

} // namespace roce
