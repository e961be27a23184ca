// SPDX-License-Identifier: GPL-2.0
// pcap: a capture's RoCE v2 connections judged against a policy; exit 1
// when one disagrees.
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

// --port-flow-label PORT:FL
std::map<std::uint16_t, std::uint32_t> port_flow_labels(const std::vector<std::string> &args)
{
	std::map<std::uint16_t, std::uint32_t> m;

	for (const auto &a : args) {
		const auto colon = a.find(':');
		if (colon == std::string::npos)
			throw UsageError("--port-flow-label " + a + ": PORT:FL expected");
		const auto port = static_cast<std::uint16_t>(
		    parse_number(a.substr(0, colon), 0xFFFF, "service port"));
		m[port] = static_cast<std::uint32_t>(
		    parse_number(a.substr(colon + 1), kFlowLabelMask, "flow label"));
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
	return {{"packets", d.packets},
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
// capture taken while the policy changed needs them all.  Under linux the
// flow labels are those of the QPs (their port; none goes on the wire),
// and rxe's own ports are given apart: QP1's for the CM MADs, and for UD
// each sending QP's, src's and dst's.
json predictions_json(const Connection &c)
{
	json p = json::object();
	for (auto policy : {Policy::Off, Policy::Rfc, Policy::Mix, Policy::Linux}) {
		json q = json::object();
		if (c.cm_ports)
			q["cm"] = prediction_json(
			    cm_flow_label(policy, c.cm_ports->first, c.cm_ports->second));
		if (c.qpns.size() == 2 && !(c.ud && policy == Policy::Linux))
			q["qpn"] =
			    prediction_json(c.ud ? ud_flow_label(policy, 0, c.qpns[0], c.qpns[1])
			                         : flow_label(policy, 0, c.qpns[0], c.qpns[1]));
		p[std::string(policy_name(policy))] = q;
	}
	p["linux"]["cm_mads"] = wire_json(linux_rxe_cm_mad(), c.ipv6);
	if (c.ud && c.qpns.size() == 2)
		p["linux"]["ud"] = {wire_json(linux_rxe_ud(c.qpns[0]), c.ipv6),
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

// linux's prediction per kind of packet: "CM MADs 0xd872, data -> 0xc144,
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
	else
		s += "; nothing to predict from: one port expected";
	s += ": " + std::string(c.consistent ? "ok" : "DISAGREES");
	if (c.mismatched)
		s += " (" + std::to_string(c.mismatched) + " packets off their prediction)";
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
	    .add_json("predicted", predictions_json(c))
	    .add_text(connection_text(c, n));
	return r;
}

} // namespace

// Judge a capture: exit 1 when a connection disagrees with the policy.
int pcap_cmd(const PcapArgs &args, std::ostream &out)
{
	const Policy policy = policy_arg(args.policy);
	std::uint32_t app_fl = 0;
	unsigned not_roce, malformed;

	if (!args.app_fl.empty())
		app_fl = static_cast<std::uint32_t>(
		    parse_number(args.app_fl, kFlowLabelMask, "flow label"));
	const auto port_fl = port_flow_labels(args.port_fls);
	std::vector<RocePacket> packets;
	try {
		packets = read_capture(args.file, not_roce, malformed);
	} catch (const CaptureError &e) {
		throw UsageError(e.what());
	}
	const CaptureSummary sum = judge_capture(packets, policy, app_fl, port_fl);

	std::vector<Record> conns;
	for (const auto &c : sum.connections)
		conns.push_back(connection_record(c, static_cast<unsigned>(conns.size() + 1)));
	Record r;
	r.add_json("policy", policy_name(policy))
	    .add("connections", conns)
	    .add_json("packets", sum.packets)
	    .add_json("not_roce", not_roce)
	    .add_json("malformed", malformed)
	    .add_json("distinct_udp_sports", sum.distinct_udp_sports)
	    .add_json("inconsistent", sum.inconsistent)
	    .add_text(format("summary: %zu connections, %u RoCE v2 packets, %u distinct UDP "
	                     "source ports, %u disagree with %s; skipped %u other and %u "
	                     "malformed frames\n",
	                     sum.connections.size(), sum.packets, sum.distinct_udp_sports,
	                     sum.inconsistent, std::string(policy_name(policy)).c_str(), not_roce,
	                     malformed));
	print(r, args.json, out);
	return sum.inconsistent ? 1 : 0;
}

} // namespace roce
