// SPDX-License-Identifier: GPL-2.0
#include "lab/failover.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace roce
{
namespace
{

using nlohmann::json;

constexpr std::array<const char *, 4> kMoveNames = {"a_requester", "a_responder", "b_requester",
                                                    "b_responder"};

unsigned count(const json &j, const char *what)
{
	const json &n = j.at(what);
	if (!n.is_number_integer() || n.get<std::int64_t>() < 0)
		throw std::runtime_error(std::string("'") + what + "': " + n.dump() +
		                         " is not a count");
	return n.get<unsigned>();
}

FailoverPhase parse_phase(const json &p, double start_unix_ms)
{
	FailoverPhase phase;

	phase.name = p.at("name").get<std::string>();
	if (phase.name != "quiet" && phase.name != "ab" && phase.name != "ba" &&
	    phase.name != "both")
		throw std::runtime_error("unknown failover phase '" + phase.name + "'");
	phase.start_ms = p.at("start_unix_ms").get<double>() - start_unix_ms;
	phase.end_ms = p.at("end_unix_ms").get<double>() - start_unix_ms;
	for (std::size_t i = 0; i < kMoveNames.size(); i++)
		phase.moves[i] = count(p.at("moves"), kMoveNames[i]);
	return phase;
}

FailoverConn parse_conn(const json &c)
{
	FailoverConn conn;

	conn.sport = c.at("sport").get<unsigned>();
	conn.status = c.contains("rejected") ? "rejected" : c.at("status").get<std::string>();
	conn.longest_stall_ms = c.value("longest_stall_ms", 0.0);
	if (c.contains("stalls"))
		conn.stalls = c["stalls"].get<std::vector<std::pair<double, double>>>();
	return conn;
}

FailoverRun parse_run(const json &r)
{
	FailoverRun run;
	const json &client = r.at("client");
	double start = 0;

	run.policy = r.at("policy").get<std::string>();
	run.family = r.at("family").get<std::string>();
	run.repath = r.at("repath").get<bool>();
	run.ok = r.at("ok").get<bool>() && client.is_object();
	run.link = r.at("link").is_number_integer() ? r["link"].get<int>() : -1;
	if (client.is_object()) {
		start = client.value("start_unix_ms", 0.0);
		for (const auto &c : client.at("connections"))
			run.conns.push_back(parse_conn(c));
	}
	for (const auto &p : r.at("phases"))
		run.phases.push_back(parse_phase(p, start));
	if (r.at("trace").is_object()) {
		run.traced_requester = count(r["trace"], "requester");
		run.traced_responder = count(r["trace"], "responder");
		run.traced_same_label = count(r["trace"], "same_label");
	}
	return run;
}

const FailoverPhase *phase_named(const FailoverRun &run, const std::string &name)
{
	for (const auto &p : run.phases)
		if (p.name == name)
			return &p;
	return nullptr;
}

} // namespace

double FailoverAct::rto_ms() const
{
	return 4.096e-3 * std::ldexp(1.0, static_cast<int>(qp_timeout));
}

double FailoverAct::stall_goal_ms() const
{
	return interval_ms + 3 * rto_ms();
}

FailoverAct parse_failover(const json &f)
{
	FailoverAct act;

	if (!f.is_object())
		throw std::runtime_error("'failover' is not an object");
	act.connections = count(f, "connections");
	act.qp_timeout = count(f, "qp_timeout");
	act.retry_count = count(f, "retry_count");
	act.interval_ms = count(f, "interval_ms");
	act.stall_min_ms = count(f, "stall_min_ms");
	act.hole_s = f.at("hole_s").get<double>();
	if (act.qp_timeout > 31 || act.retry_count > 7)
		throw std::runtime_error(
		    "'failover': a QP timeout above 31 or a retry count above 7");
	for (const auto &r : f.at("runs"))
		act.runs.push_back(parse_run(r));
	if (act.runs.empty())
		throw std::runtime_error("'failover' has no runs");
	return act;
}

namespace
{

std::string quiet_text(const FailoverVerdict &v)
{
	return v.quiet_stall_ms > 0 ? format("%.0f ms", v.quiet_stall_ms)
	                            : std::string("no gap listed");
}

} // namespace

FailoverVerdict judge_failover(const FailoverAct &act, const FailoverRun &run, bool judge_stalls)
{
	FailoverVerdict v;
	std::vector<std::string> failed;
	unsigned all_moves = 0;

	for (const auto &c : run.conns) {
		if (c.status == "ok")
			v.completed++;
		else
			v.failed[c.status]++;
		v.longest_stall_ms = std::max(v.longest_stall_ms, c.longest_stall_ms);
	}
	v.within_goal = v.longest_stall_ms <= act.stall_goal_ms();
	if (const FailoverPhase *quiet = phase_named(run, "quiet"))
		for (const auto &c : run.conns)
			for (const auto &[from, to] : c.stalls)
				if (from >= quiet->start_ms && to <= quiet->end_ms)
					v.quiet_stall_ms = std::max(v.quiet_stall_ms, to - from);
	for (const auto &p : run.phases) {
		v.requester_moves += p.moves[0] + p.moves[2];
		v.responder_moves += p.moves[1] + p.moves[3];
		if (p.name == "quiet")
			v.quiet_moves += p.moves[0] + p.moves[1] + p.moves[2] + p.moves[3];
	}
	all_moves = v.requester_moves + v.responder_moves;
	v.judged = run.repath;
	if (!run.ok)
		failed.push_back("the run did not go through (the guest's log says why)");
	if (run.conns.size() != act.connections)
		failed.push_back(
		    format("%zu of %u connections reported", run.conns.size(), act.connections));
	if (run.traced_requester != v.requester_moves || run.traced_responder != v.responder_moves)
		failed.push_back(format("moves counted %u/%u, traced %u/%u", v.requester_moves,
		                        v.responder_moves, run.traced_requester,
		                        run.traced_responder));
	if (run.traced_same_label)
		failed.push_back(format("%u moves kept their flow label", run.traced_same_label));
	if (!run.repath) {
		if (all_moves)
			failed.push_back(format("%u moves with re-path off", all_moves));
	} else {
		const FailoverPhase *ab = phase_named(run, "ab"), *ba = phase_named(run, "ba");
		if (v.completed != act.connections)
			failed.push_back(
			    format("%u of %u connections completed", v.completed, act.connections));
		if (v.quiet_moves)
			failed.push_back(format("%u moves while nothing was lost", v.quiet_moves));
		if (!ab || !ab->moves[0])
			failed.push_back("no requester on A moved when A to B was lost");
		if (!ba || !ba->moves[3])
			failed.push_back("no responder on B moved when B to A was lost");
		if (judge_stalls && !v.within_goal)
			failed.push_back(format("longest gap %.0f ms over the goal of %.0f ms",
			                        v.longest_stall_ms, act.stall_goal_ms()));
	}
	v.ok = failed.empty();
	if (!v.ok) {
		for (const auto &f : failed)
			v.why += (v.why.empty() ? "" : "; ") + f;
	} else if (run.repath) {
		v.why = format("every connection survived, longest gap %.0f ms %s the goal of %.0f "
		               "ms%s; without loss %s",
		               v.longest_stall_ms, v.within_goal ? "within" : "over",
		               act.stall_goal_ms(), judge_stalls ? "" : " (a figure, not judged)",
		               quiet_text(v).c_str());
	} else {
		v.why = format("baseline: %u of %u connections failed, nothing moved",
		               act.connections - v.completed, act.connections);
	}
	return v;
}

namespace
{

std::string failed_text(const FailoverVerdict &v)
{
	std::string s;
	for (const auto &[status, n] : v.failed)
		s += (s.empty() ? "" : ", ") + std::to_string(n) + ' ' + status;
	return s.empty() ? "0" : s;
}

std::string phase_moves_text(const FailoverRun &run)
{
	std::string s;
	for (const auto &p : run.phases)
		s += format("%s%s %u/%u", s.empty() ? "" : ", ", p.name.c_str(),
		            p.moves[0] + p.moves[2], p.moves[1] + p.moves[3]);
	return s;
}

Record run_record(const FailoverRun &run, const FailoverVerdict &v)
{
	Record r;
	json phases = json::array(), failed = json::object();

	for (const auto &p : run.phases) {
		json moves = json::object();
		for (std::size_t i = 0; i < kMoveNames.size(); i++)
			moves[kMoveNames[i]] = p.moves[i];
		phases.push_back({{"name", p.name},
		                  {"start_ms", p.start_ms},
		                  {"end_ms", p.end_ms},
		                  {"moves", moves}});
	}
	for (const auto &[status, n] : v.failed)
		failed[status] = n;
	r.add_json("policy", run.policy)
	    .add_json("repath", run.repath)
	    .add_json("family", run.family)
	    .add_json("link", run.link)
	    .add_json("connections", run.conns.size())
	    .add_json("completed", v.completed)
	    .add_json("failed", failed)
	    .add_json("longest_stall_ms", v.longest_stall_ms)
	    .add_json("quiet_longest_stall_ms", v.quiet_stall_ms)
	    .add_json("stall_within_goal", v.within_goal)
	    .add_json("requester_moves", v.requester_moves)
	    .add_json("responder_moves", v.responder_moves)
	    .add_json("phases", phases)
	    .add_json("judged", v.judged)
	    .add_json("ok", v.ok)
	    .add_json("verdict", v.why)
	    .add_text(format("%-6s %-7s %5u/%-4zu %-38s %5.0f / %-5.0f  %s\n", run.policy.c_str(),
	                     run.repath ? "on" : "off", v.completed, run.conns.size(),
	                     failed_text(v).c_str(), v.longest_stall_ms, v.quiet_stall_ms,
	                     phase_moves_text(run).c_str()) +
	              "       " + (v.ok ? "ok" : "FAIL") + ": " + v.why + '\n');
	return r;
}

} // namespace

Record failover_report(const FailoverAct &act, bool judge_stalls)
{
	std::vector<Record> list;
	bool ok = true;
	Record settings;

	settings.add_json("connections", act.connections)
	    .add_json("qp_timeout", act.qp_timeout)
	    .add_json("rto_ms", act.rto_ms())
	    .add_json("retry_count", act.retry_count)
	    .add_json("interval_ms", act.interval_ms)
	    .add_json("hole_s", act.hole_s)
	    .add_json("stall_goal_ms", act.stall_goal_ms())
	    .add_json("stalls_judged", judge_stalls);
	for (const auto &run : act.runs) {
		const FailoverVerdict v = judge_failover(act, run, judge_stalls);
		ok &= v.ok;
		list.push_back(run_record(run, v));
	}
	const std::string head = format(
	    "\nfailover: %u rdma_cm RC connections (%s), a message every %u ms each; QP timeout "
	    "%u (%.1f ms), retry count %u (rxe takes 7 as \"retry forever\"); one link "
	    "black-holed %.0f s A to B, then B to A, then both\n"
	    "policy re-path  completed failed (status)                longest gap (ms): "
	    "all / no loss  moves requester/responder per phase\n",
	    act.connections, act.runs.front().family == "ipv6" ? "IPv6" : "IPv4", act.interval_ms,
	    act.qp_timeout, act.rto_ms(), act.retry_count, act.hole_s);
	Record r;
	r.add_text(head).add("settings", settings).add("runs", list).add_json("ok", ok);
	return r;
}

} // namespace roce
