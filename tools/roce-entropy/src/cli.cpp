// SPDX-License-Identifier: GPL-2.0
#include "cli.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "entropy.h"
#include "number.h"

namespace roce
{
namespace
{

using nlohmann::json;

struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

Policy policy_arg(const std::string &name)
{
	auto policy = parse_policy(name);
	if (!policy)
		throw UsageError("unknown policy '" + name + "' (off, rfc or mix)");
	return *policy;
}

std::string hex(std::uint32_t value, int width)
{
	char buf[16];
	std::snprintf(buf, sizeof(buf), "0x%0*x", width, value);
	return buf;
}

struct FlowLabelArgs {
	std::string policy;
	std::vector<std::string> cm_ports;
	std::vector<std::string> qpns;
	std::string app_fl;
	bool json = false;
};

int flow_label_cmd(const FlowLabelArgs &args, std::ostream &out)
{
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
		    static_cast<std::uint32_t>(parse_number(args.qpns[0], 0xFFFFFF, "local QPN"));
		auto rqpn =
		    static_cast<std::uint32_t>(parse_number(args.qpns[1], 0xFFFFFF, "remote QPN"));
		fl = flow_label(policy, app_fl, lqpn, rqpn);
	}
	const std::uint16_t sport = udp_sport(fl);

	if (args.json)
		out << json{{"policy", policy_name(policy)},
		            {"flow_label", fl},
		            {"udp_sport", sport}}
		    << '\n';
	else
		out << "policy     " << policy_name(policy) << '\n'
		    << "flow_label " << hex(fl, 5) << " (" << fl << ")\n"
		    << "udp_sport  " << hex(sport, 4) << " (" << sport << ")\n";
	return 0;
}

int udp_sport_cmd(const std::string &fl_text, bool as_json, std::ostream &out)
{
	auto fl = static_cast<std::uint32_t>(parse_number(fl_text, kFlowLabelMask, "flow label"));
	const std::uint16_t sport = udp_sport(fl);

	if (as_json)
		out << json{{"flow_label", fl}, {"udp_sport", sport}} << '\n';
	else
		out << "udp_sport " << hex(sport, 4) << " (" << sport << ")\n";
	return 0;
}

} // namespace

int run_cli(int argc, const char *const *argv, std::ostream &out, std::ostream &err)
{
	CLI::App app{"RoCE v2 entropy: predict UDP source ports and flow labels, check captures, "
	             "simulate ECMP",
	             "roce-entropy"};
	app.require_subcommand(1);

	FlowLabelArgs fl_args;
	auto *fl_cmd = app.add_subcommand(
	    "flow-label", "the flow label and UDP source port the kernel would use");
	fl_cmd->add_option("--policy", fl_args.policy, "off, rfc or mix")->required();
	auto *cm_opt =
	    fl_cmd
	        ->add_option("--cm-ports", fl_args.cm_ports, "rdma_cm source and destination ports")
	        ->expected(2);
	auto *qpn_opt =
	    fl_cmd->add_option("--qpn", fl_args.qpns, "local and remote QP numbers")->expected(2);
	cm_opt->excludes(qpn_opt);
	fl_cmd->add_option("--flow-label", fl_args.app_fl, "the application's flow label");
	fl_cmd->add_flag("--json", fl_args.json, "print JSON");

	std::string sport_fl;
	bool sport_json = false;
	auto *sport_cmd =
	    app.add_subcommand("udp-sport", "the UDP source port folded from a flow label");
	sport_cmd->add_option("--flow-label", sport_fl, "20-bit flow label")->required();
	sport_cmd->add_flag("--json", sport_json, "print JSON");

	try {
		app.parse(argc, argv);
		if (fl_cmd->parsed()) {
			if (fl_args.cm_ports.empty() && fl_args.qpns.empty())
				throw UsageError("flow-label needs --cm-ports or --qpn");
			return flow_label_cmd(fl_args, out);
		}
		return udp_sport_cmd(sport_fl, sport_json, out);
	} catch (const CLI::ParseError &e) {
		const int status = app.exit(e, out, err);
		return status ? 2 : 0;
	} catch (const std::exception &e) {
		err << "roce-entropy: error: " << e.what() << '\n';
		return 2;
	}
}

} // namespace roce
