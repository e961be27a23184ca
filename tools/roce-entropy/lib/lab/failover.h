// SPDX-License-Identifier: GPL-2.0
// The ECMP demo's failover act (make demo): steady rdma_cm RC connections
// while one of the routers' links black-holes A to B, then B to A, then
// both ways; per run (policy, re-path off or on) which connections
// completed, the longest gap between two acknowledged messages, the moves
// rxe's counters and trace counted.  Judged and drawn as a timeline.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "output/record.h"

namespace roce
{

// One phase of a run: "quiet" (no loss), then "ab", "ba" or "both" (the
// link dropping that way), from START to END (ms since the client began)
// with the moves made: rxea as requester and responder, rxeb the same.
struct FailoverPhase {
	std::string name;
	double start_ms = 0, end_ms = 0;
	std::array<unsigned, 4> moves{}; // a_requester, a_responder, b_requester, b_responder
};

// One connection as its client reported it; the gaps of at least the
// act's stall_min_ms, from and to, in ms since the client began (a failed
// connection's last gap ends when it failed).
struct FailoverConn {
	unsigned sport = 0;
	std::string status; // "ok", or the completion's status
	double longest_stall_ms = 0;
	std::vector<std::pair<double, double>> stalls;
};

struct FailoverRun {
	std::string policy, family;
	bool repath = false;
	bool ok = false; // the guest's run went through (connections up, a report)
	int link = -1;   // the link black-holed
	std::vector<FailoverPhase> phases;
	std::vector<FailoverConn> conns;
	unsigned traced_requester = 0, traced_responder = 0, traced_same_label = 0;
};

struct FailoverAct {
	unsigned connections = 0, qp_timeout = 0, retry_count = 0, interval_ms = 0;
	unsigned stall_min_ms = 0;
	double hole_s = 0;
	std::vector<FailoverRun> runs;

	// The QP's retransmission timeout, 4.096 us * 2^qp_timeout, in ms.
	double rto_ms() const;
	// The goal for the longest gap: a message's interval and 3 timeouts.
	double stall_goal_ms() const;
};

struct FailoverVerdict {
	unsigned completed = 0;
	std::map<std::string, unsigned> failed; // status: connections
	double longest_stall_ms = 0;
	// The longest gap that began and ended in the phase without loss (0:
	// none of the act's stall_min_ms): the guest's own pace, which a gap in
	// a black hole is read against.
	double quiet_stall_ms = 0;
	bool within_goal = false;
	unsigned requester_moves = 0, responder_moves = 0, quiet_moves = 0;
	bool judged = false; // re-path on: asserted; off: the baseline, reported
	bool ok = false;
	std::string why;
};

// The act of the demo's raw result ("failover", tools/demo/failover.sh).
// Throws std::runtime_error on anything missing or malformed.
FailoverAct parse_failover(const nlohmann::json &failover);

// A run's self-check.  Every run: the guest's run went through, every
// connection reported, the trace has one event per move counted, none
// keeping its label.  Re-path off (the baseline): nothing moves; its
// failures are reported.  On: every connection completed, nothing moved
// before the loss, requesters on A moved when A to B was lost and
// responders on B when B to A was; with JUDGE_STALLS the longest gap is
// within the goal (otherwise it is a figure: a time in the guest follows
// the host's load).
FailoverVerdict judge_failover(const FailoverAct &act, const FailoverRun &run, bool judge_stalls);

// The act's table and verdicts; in the JSON {"settings": ..., "runs":
// [...], "ok": ...}.
Record failover_report(const FailoverAct &act, bool judge_stalls);

// A timeline per run: a row per connection, its gaps marked, where it
// failed, the black holes shaded.
void write_failover_svg(const FailoverAct &act, std::ostream &out);

} // namespace roce
