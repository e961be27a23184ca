// SPDX-License-Identifier: GPL-2.0
// pcap: a capture's RoCE v2 connections judged against a policy, per host
// where --policy-for says; the exit status says how it went (cli.h).
#include <map>
#include <optional>

#include "args/args.h"
#include "capture/capture.h"
#include "commands.h"
#include "output/record.h"

namespace roce
{
namespace
{

using nlohmann::json;

// --policy-for HOST=POLICY: an IPv4 or IPv6 address, once each.
std::map<IpAddr, Policy> host_policies(const std::vector<std::string> &args)
{
	std::map<IpAddr, Policy> m;

	for (const auto &a : args) {
		const auto eq = a.find('=');
		if (eq == std::string::npos)
			throw UsageError("--policy-for " + a + ": HOST=POLICY expected");
		const auto host = IpAddr::parse(a.substr(0, eq));
		if (!host)
			throw UsageError("--policy-for " + a + ": '" + a.substr(0, eq) +
			                 "' is not an IPv4 or IPv6 address");
		if (!m.emplace(*host, policy_arg(a.substr(eq + 1))).second)
			throw UsageError("--policy-for " + a + ": " + host->text() +
			                 " given twice");
	}
	return m;
}

json prediction_json(std::uint32_t fl)
{
	return {{"flow_label", fl}, {"udp_sport", udp_sport(fl)}};
}

// A per-packet prediction: its port, and over IPv6 its flow label.
json wire_json(const std::optional<WireEntropy> &e, bool ipv6)
{
	if (!e)
		return nullptr;
	return {{"udp_sport", e->udp_sport},
	        {"flow_label", ipv6 ? json(e->flow_label) : json(nullptr)}};
}

json direction_json(const Direction &d, bool ipv6)
{
	json attrs = json::object(), interfaces = json::object();
	for (const auto &[attr, n] : d.cm_attrs)
		attrs[cm_attr_name(attr)] = n;
	for (const auto &[ifindex, n] : d.interfaces)
		interfaces[std::to_string(ifindex)] = n;
	return {{"policy", policy_name(d.policy)},
	        {"packets", d.packets},
	        {"cm_packets", d.cm_packets},
	        {"cm_messages", attrs},
	        {"data_packets", d.packets - d.cm_packets},
	        {"udp_sports", d.udp_sports},
	        {"cm_udp_sports", d.cm_udp_sports},
	        {"data_udp_sports", d.data_udp_sports},
	        {"flow_labels", d.flow_labels},
	        {"interfaces", interfaces},
	        {"expected_data", wire_json(d.expected_data, ipv6)}};
}

// What each policy gives the connection from its CM ports and from its QPNs
// (the RFC's rule for a QP that rdma_cm gave no flow label): the judge of a
// capture taken while the policy changed needs them all.  Under builtin the
// flow labels are those of the QPs (their port; none goes on the wire),
// and rxe's own ports are given apart: QP1's for the CM MADs, and for UD
// each sending QP's, src's and dst's.
json predictions_json(const Connection &c)
{
	json p = json::object();
	for (auto policy : {Policy::Off, Policy::Rfc, Policy::Mix, Policy::Builtin}) {
		json q = json::object();
		if (c.cm_ports)
			q["cm"] = prediction_json(
			    cm_flow_label(policy, c.cm_ports->first, c.cm_ports->second));
		if (c.qpns.size() == 2 && !(c.ud && policy == Policy::Builtin))
			q["qpn"] =
			    prediction_json(c.ud ? ud_flow_label(policy, 0, c.qpns[0], c.qpns[1])
			                         : flow_label(policy, 0, c.qpns[0], c.qpns[1]));
		p[std::string(policy_name(policy))] = q;
	}
	p["builtin"]["cm_mads"] = wire_json(linux_rxe_cm_mad(), c.ipv6);
	if (c.ud && c.qpns.size() == 2)
		p["builtin"]["ud"] = {wire_json(linux_rxe_ud(c.qpns[0]), c.ipv6),
		                      wire_json(linux_rxe_ud(c.qpns[1]), c.ipv6)};
	return p;
}

std::string hex_list(const auto &values, int width)
{
	std::string s;
	for (auto v : values)
		s += hex(static_cast<std::uint32_t>(v), width) + ' ';
	return s;
}

// builtin's prediction per kind of packet: "CM MADs 0xd872, data -> 0xc144,
// data <- 0xc144, flow label 0".
std::string per_kind_text(const Connection &c)
{
	std::string s;
	auto add = [&s](const char *what, const std::optional<WireEntropy> &e) {
		if (!e)
			return;
		s += (s.empty() ? "" : ", ") + std::string(what) + ' ' + hex(e->udp_sport, 4);
	};
	add("CM MADs", c.expected_cm);
	add("data ->", c.forward.expected_data);
	add("data <-", c.reverse.expected_data);
	if (c.ipv6)
		s += ", flow label 0";
	return s;
}

// The text of connection N: two lines.
std::string connection_text(const Connection &c, unsigned n)
{
	std::string s = "connection " + std::to_string(n) + ": " + c.src + " -> " + c.dst + ' ' +
	                (c.ud ? "UD" : "RC") + ", QPNs [ " + hex_list(c.qpns, 6) + ']';
	if (c.cm_ports)
		s += ", CM ports " + std::to_string(c.cm_ports->first) + ' ' +
		     std::to_string(c.cm_ports->second);
	s += "\n  " + std::to_string(c.packets) + " packets (" + std::to_string(c.forward.packets) +
	     " -> and " + std::to_string(c.reverse.packets) + " <-, " + std::to_string(c.cm_mads) +
	     " CM MADs); UDP source ports [ " + hex_list(c.udp_sports, 4) + ']';
	if (c.ipv6)
		s += ", flow labels [ " + hex_list(c.flow_labels, 5) + ']';
	if (c.expected_flow_label)
		s += "; expected " + hex(udp_sport(*c.expected_flow_label), 4) +
		     (c.ipv6 ? " / " + hex(*c.expected_flow_label, 5) : "");
	else if (c.expected_cm || c.forward.expected_data || c.reverse.expected_data)
		s += "; expected " + per_kind_text(c);
	switch (c.verdict) {
	case Verdict::Agrees:
		s += ": ok";
		break;
	case Verdict::Disagrees:
		s += ": DISAGREES";
		if (c.mismatched)
			s += " (" + std::to_string(c.mismatched) + " packets off their prediction)";
		break;
	case Verdict::Unjudged:
		s += ": UNJUDGED (" + std::to_string(c.unpredicted) +
		     " packets: " + c.unjudged_reason + ')';
		break;
	}
	return s + '\n';
}

Record connection_record(const Connection &c, unsigned n)
{
	Record r;
	json expected_sport = nullptr, expected_fl = nullptr, cm_ports = nullptr;

	if (c.cm_ports)
		cm_ports = {c.cm_ports->first, c.cm_ports->second};
	if (c.expected_flow_label) {
		expected_sport = udp_sport(*c.expected_flow_label);
		if (c.ipv6)
			expected_fl = *c.expected_flow_label;
	}
	r.add_json("src", c.src)
	    .add_json("dst", c.dst)
	    .add_json("transport", c.ud ? "UD" : "RC")
	    .add_json("qpns", c.qpns)
	    .add_json("cm_ports", cm_ports)
	    .add_json("udp_sports", c.udp_sports)
	    .add_json("flow_labels", c.ipv6 ? json(c.flow_labels) : json::array())
	    .add_json("expected_udp_sport", expected_sport)
	    .add_json("expected_flow_label", expected_fl)
	    .add_json("expected_cm", wire_json(c.expected_cm, c.ipv6))
	    .add_json("packets", c.packets)
	    .add_json("forward", direction_json(c.forward, c.ipv6))
	    .add_json("reverse", direction_json(c.reverse, c.ipv6))
	    .add_json("cm_mads", c.cm_mads)
	    .add_json("mismatched", c.mismatched)
	    .add_json("unpredicted", c.unpredicted)
	    .add_json("consistent", c.consistent)
	    .add_json("verdict", verdict_name(c.verdict))
	    .add_json("judged_by", c.judged_by)
	    .add_json("unjudged_reason",
	              c.unjudged_reason.empty() ? json(nullptr) : json(c.unjudged_reason))
	    .add_json("predicted", predictions_json(c))
	    .add_text(connection_text(c, n));
	return r;
}

// The summary's text: the verdicts, the packets, what was skipped.
std::string summary_text(const CaptureSummary &sum, const ReadCounts &rc, const JudgeConfig &cfg)
{
	std::string policies(policy_name(cfg.policy));
	for (const auto &[host, policy] : cfg.hosts)
		policies +=
		    std::string(", ") + std::string(policy_name(policy)) + " on " + host.text();
	std::string s = format("summary: %zu connections: %u ok, %u disagree with %s, %u unjudged; "
	                       "%u RoCE v2 packets, %u distinct UDP source ports; skipped %u "
	                       "other, %u malformed and %u truncated frames\n",
	                       sum.connections.size(), sum.agree, sum.inconsistent,
	                       policies.c_str(), sum.unjudged, sum.packets, sum.distinct_udp_sports,
	                       rc.not_roce, rc.malformed, rc.truncated);
	if (rc.cut)
		s += format("  %u packets cut by the snap length, read as far as kept\n", rc.cut);
	if (sum.connections.empty())
		s += "  nothing judged: no RoCE v2 connection in the capture\n";
	return s;
}

} // namespace

// Judge a capture: exit 1 when a connection disagrees, 3 when none does but
// one is unjudged or there is none.
int pcap_cmd(const PcapArgs &args, std::ostream &out)
{
	JudgeConfig cfg;

	cfg.policy = policy_arg(args.policy);
	cfg.hosts = host_policies(args.policy_for);
	if (!args.app_fl.empty())
		cfg.app_fl = static_cast<std::uint32_t>(
		    parse_number(args.app_fl, kFlowLabelMask, "flow label"));
	cfg.port_fl = port_flow_label_args(args.port_fls);

	CaptureJudge judge(cfg);
	ReadCounts rc;
	try {
		rc = read_capture(args.file, [&](const RocePacket &p) { judge.add(p); });
	} catch (const CaptureError &e) {
		throw UsageError(e.what());
	}
	const CaptureSummary sum = judge.finish();

	// Each connection is printed as soon as it is described: a capture of
	// many keeps one at a time.  The JSON is the one object of every
	// command, its connections first.
	if (args.json)
		out << "{\"connections\":[";
	for (std::size_t i = 0; i < sum.connections.size(); i++) {
		const Record c =
		    connection_record(sum.connections[i], static_cast<unsigned>(i + 1));
		if (args.json)
			out << (i ? "," : "") << c.json();
		else
			out << c.text();
	}
	json hosts = json::object();
	for (const auto &[host, policy] : cfg.hosts)
		hosts[host.text()] = policy_name(policy);
	const int status = sum.inconsistent                          ? kExitDisagrees
	                   : sum.unjudged || sum.connections.empty() ? kExitUnjudged
	                                                             : kExitOk;
	Record r;
	r.add_json("policy", policy_name(cfg.policy))
	    .add_json("policy_for", hosts)
	    .add_json("packets", sum.packets)
	    .add_json("not_roce", rc.not_roce)
	    .add_json("malformed", rc.malformed)
	    .add_json("truncated", rc.truncated)
	    .add_json("cut", rc.cut)
	    .add_json("distinct_udp_sports", sum.distinct_udp_sports)
	    .add_json("agree", sum.agree)
	    .add_json("inconsistent", sum.inconsistent)
	    .add_json("unjudged", sum.unjudged)
	    .add_json("exit_status", status)
	    .add_text(summary_text(sum, rc, cfg));
	if (args.json)
		out << "]," << r.json().dump().substr(1) << '\n';
	else
		out << r.text();
	return status;
}

} // namespace roce
