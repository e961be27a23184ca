// SPDX-License-Identifier: GPL-2.0
// flow-label and udp-sport: what the kernel would put on the wire.
#include "args/args.h"
#include "commands.h"
#include "output/record.h"

namespace roce
{

int flow_label_cmd(const FlowLabelArgs &args, std::ostream &out)
{
	if (args.cm_ports.empty() && args.qpns.empty())
		throw UsageError("flow-label needs --cm-ports or --qpn");
	const Policy policy = policy_arg(args.policy);
	std::uint32_t app_fl = 0;
	std::uint32_t fl;

	if (!args.app_fl.empty())
		app_fl = static_cast<std::uint32_t>(
		    parse_number(args.app_fl, kFlowLabelMask, "flow label"));
	if (!args.cm_ports.empty()) {
		auto sport = static_cast<std::uint16_t>(
		    parse_number(args.cm_ports[0], 0xFFFF, "source port"));
		auto dport = static_cast<std::uint16_t>(
		    parse_number(args.cm_ports[1], 0xFFFF, "destination port"));
		fl = app_fl ? app_fl : cm_flow_label(policy, sport, dport);
	} else {
		auto lqpn =
		    static_cast<std::uint32_t>(parse_number(args.qpns[0], kQpnMask, "local QPN"));
		auto rqpn =
		    static_cast<std::uint32_t>(parse_number(args.qpns[1], kQpnMask, "remote QPN"));
		fl = flow_label(policy, app_fl, lqpn, rqpn);
	}
	const std::uint16_t sport = udp_sport(fl);

	Record r(Record::Layout::KeyValue);
	r.add("policy", policy_name(policy), std::string(policy_name(policy)))
	    .add("flow_label", fl, hex_dec(fl, 5))
	    .add("udp_sport", sport, hex_dec(sport, 4));
	print(r, args.json, out);
	return 0;
}

int udp_sport_cmd(const std::string &fl_text, bool as_json, std::ostream &out)
{
	auto fl = static_cast<std::uint32_t>(parse_number(fl_text, kFlowLabelMask, "flow label"));
	const std::uint16_t sport = udp_sport(fl);

	Record r(Record::Layout::KeyValue);
	r.add_json("flow_label", fl).add("udp_sport", sport, hex_dec(sport, 4));
	print(r, as_json, out);
	return 0;
}

} // namespace roce
