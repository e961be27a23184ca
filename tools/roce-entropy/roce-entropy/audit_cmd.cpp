// SPDX-License-Identifier: GPL-2.0
// audit: each QP of the host's rdma netlink resource dump, the entropy its
// driver programmed against what its policy predicts; exit 1 when one
// disagrees, 3 when none could be judged.  The QPs come from the dump
// itself (qp_cmd.cpp), the rdma_cm IDs from iproute2's rdma.
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "args/args.h"
#include "audit/audit.h"
#include "audit/rdma.h"
#include "commands.h"
#include "output/record.h"

namespace roce
{
namespace
{

using nlohmann::json;

std::string read_file(const std::string &path)
{
	std::ifstream in(path, std::ios::binary);
	if (!in)
		throw UsageError("cannot read " + path);
	std::ostringstream s;
	s << in.rdbuf();
	return s.str();
}

std::string endpoint_text(const Endpoint &e)
{
	return e.addr + ':' + std::to_string(e.port);
}

json opt_json(const auto &v)
{
	return v ? json(*v) : json(nullptr);
}

std::string verdict_text(const QpVerdict &v)
{
	std::string s = "  ";

	if (v.cm)
		s += "rdma_cm " + endpoint_text(v.cm->local) + " -> " +
		     endpoint_text(v.cm->remote) + " (" + v.cm->side + ")";
	else if (v.qp.rqpn)
		s += "QPNs " + std::to_string(v.qp.lqpn) + ' ' + std::to_string(*v.qp.rqpn);
	else
		s += "no rdma_cm ID";
	if (v.expected && v.expected->cm_flow_label)
		s += ", its AHs' flow label " + hex(*v.expected->cm_flow_label, 5);
	if (v.expected && v.expected->udp_sport)
		s += ": predicted " + v.expected->source + ", " +
		     entropy_text(v.expected->flow_label, v.expected->udp_sport);
	switch (v.verdict) {
	case Verdict::Agrees:
		s += ": ok";
		break;
	case Verdict::Disagrees:
		s += ": DISAGREES";
		break;
	case Verdict::Unjudged:
		s += ": not judged";
		break;
	}
	for (std::size_t i = 0; i < v.notes.size(); i++)
		s += (i ? "; " : ": ") + v.notes[i];
	return s + '\n';
}

Record qp_record(const QpVerdict &v)
{
	const QpEntry &q = v.qp;
	Record r;
	json cm = nullptr, expected = nullptr;

	if (v.cm)
		cm = {{"src", endpoint_text(v.cm->local)},
		      {"dst", endpoint_text(v.cm->remote)},
		      {"ps", v.cm->ps},
		      {"ports", {v.cm->sport, v.cm->dport}},
		      {"side", v.cm->side}};
	if (v.expected) {
		expected = {{"source", v.expected->source},
		            {"flow_label", opt_json(v.expected->flow_label)},
		            {"udp_sport",
		             v.expected->udp_sport ? json(v.expected->udp_sport) : json(nullptr)}};
		if (v.expected->cm_flow_label)
			expected["cm_flow_label"] = *v.expected->cm_flow_label;
	}
	r.add_json("dev", q.dev)
	    .add_json("port", q.port)
	    .add_json("lqpn", q.lqpn)
	    .add_json("rqpn", opt_json(q.rqpn))
	    .add_json("type", q.type)
	    .add_json("state", q.state)
	    .add_json("comm", q.comm)
	    .add_json("pid", opt_json(q.pid))
	    .add_json("policy", opt_json(q.policy))
	    .add_json("source", opt_json(q.source))
	    .add_json("flow_label", opt_json(q.flow_label))
	    .add_json("udp_sport", opt_json(q.udp_sport))
	    .add_json("cm", cm)
	    .add_json("expected", expected)
	    .add_json("verdict", audit_verdict_name(v.verdict))
	    .add_json("notes", v.notes)
	    .add_text(qp_text(q) + verdict_text(v));
	return r;
}

} // namespace

int audit_cmd(const AuditArgs &args, std::ostream &out)
{
	if (args.qp_file.empty() != args.cm_id_file.empty())
		throw UsageError("--qp and --cm-id go together: the rdma_cm IDs say which QPs "
		                 "are rdma_cm connections");
	AuditOptions opts;
	opts.port_flow_labels = port_flow_label_args(args.port_fls);
	if (!args.base_sport.empty())
		opts.base_sport = static_cast<std::uint16_t>(
		    number_arg(args.base_sport, 1, 0xFFFF, "base UDP source port"));

	std::vector<QpEntry> qps;
	std::string cm_id_text, cm_id_what;
	AuditResult res;
	if (args.qp_file.empty())
		refuse_stale_modules("/");
	try {
		if (args.qp_file.empty()) {
			cm_id_what = args.rdma + " -j res show cm_id";
			try {
				cm_id_text = run_program({args.rdma, "-j", "res", "show", "cm_id"});
			} catch (const ProgramNotRun &e) {
				// The package only recommends iproute2: say what is missing.
				throw std::runtime_error(
				    std::string(e.what()) +
				    " (rdma is iproute2's: apt install iproute2, or "
				    "give saved dumps with --qp and --cm-id)");
			}
			qps = live_qps();
		} else {
			qps = parse_qps(read_file(args.qp_file), args.qp_file);
			cm_id_what = args.cm_id_file;
			cm_id_text = read_file(args.cm_id_file);
		}
		res = audit(qps, parse_cm_ids(cm_id_text, cm_id_what), opts);
	} catch (const AuditInputError &e) {
		throw UsageError(e.what());
	}

	std::vector<Record> rows;
	for (const auto &v : res.qps)
		rows.push_back(qp_record(v));
	const bool nothing = !res.agree && !res.disagree;
	Record r;
	r.add("qps", rows)
	    .add_json("agree", res.agree)
	    .add_json("disagree", res.disagree)
	    .add_json("unjudged", res.unjudged)
	    .add_text(format("summary: %zu QPs: %u agree, %u disagree, %u not judged%s\n",
	                     res.qps.size(), res.agree, res.disagree, res.unjudged,
	                     nothing ? "; nothing could be judged" : ""));
	print(r, args.json, out);
	if (res.disagree)
		return 1;
	return nothing ? 3 : 0;
}

} // namespace roce
