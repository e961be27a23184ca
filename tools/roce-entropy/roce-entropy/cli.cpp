// SPDX-License-Identifier: GPL-2.0
// roce-entropy's command line: the subcommands and their options; each
// subcommand lives in its own file (commands.h).
#include "cli.h"

#include <CLI/CLI.hpp>

#include "args/args.h"
#include "commands.h"

namespace roce
{
namespace
{

CLI::App *add_flow_label(CLI::App &app, FlowLabelArgs &a)
{
	auto *cmd = app.add_subcommand("flow-label",
	                               "the flow label and UDP source port the kernel would use");
	cmd->add_option("--policy", a.policy, "off, rfc, mix or builtin")->required();
	auto *cm_opt = number_option(cmd->add_option("--cm-ports", a.cm_ports,
	                                             "rdma_cm source and destination ports"))
	                   ->expected(2);
	auto *qpn_opt =
	    number_option(cmd->add_option("--qpn", a.qpns, "local and remote QP numbers"))
	        ->expected(2);
	cm_opt->excludes(qpn_opt);
	number_option(cmd->add_option("--flow-label", a.app_fl, "the application's flow label"));
	cmd->add_flag("--json", a.json, "print JSON");
	return cmd;
}

struct UdpSportArgs {
	std::string flow_label;
	bool json = false;
};

CLI::App *add_udp_sport(CLI::App &app, UdpSportArgs &a)
{
	auto *cmd = app.add_subcommand("udp-sport", "the UDP source port folded from a flow label");
	number_option(cmd->add_option("--flow-label", a.flow_label, "20-bit flow label"))
	    ->required();
	cmd->add_flag("--json", a.json, "print JSON");
	return cmd;
}

CLI::App *add_simulate(CLI::App &app, SimulateArgs &a)
{
	auto *cmd = app.add_subcommand(
	    "simulate", "spread connections over ECMP paths and compare with random ports");
	cmd->add_option("--policy", a.policies,
	                "off, rfc, mix, builtin (stock 6.12), rxe-legacy, ideal (default: all but "
	                "off)");
	cmd->add_option("--scenario", a.scenario,
	                "seq-ports, random-ports, seq-qpns, offset-qpns, stride8-qpns, "
	                "random-qpns");
	cmd->add_option("--switch-hash", a.hash, "crc16, crc32, xor, jhash");
	number_option(cmd->add_option("-n,--connections", a.connections, "connections"));
	number_option(cmd->add_option("-m,--paths", a.paths, "ECMP paths"));
	number_option(cmd->add_option("--trials", a.trials, "trials of random inputs"));
	number_option(cmd->add_option("--offset", a.offset, "k of offset-qpns"));
	cmd->add_flag("--grid", a.grid, "the whole grid, with a summary");
	cmd->add_option("--svg", a.svg, "write a chart of the load per path (not --grid)");
	cmd->add_option("--fabric", a.fabric,
	                "LxSxH: a leaf-spine fabric of L leaves, S spines, H hosts a leaf "
	                "(make fabric's), jobs' completion time over the ideal");
	cmd->add_option("--job", a.job, "with --fabric: perm (a permutation) or a2a (all-to-all)")
	    ->capture_default_str();
	number_option(cmd->add_option("--qps", a.qps, "with --fabric: QPs per host pair"));
	cmd->add_option("--connect", a.connect, "with --fabric: cm (rdma_cm) or qpn")
	    ->capture_default_str();
	cmd->add_option("--fabric-hash", a.fabric_hashes,
	                "with --fabric: ipv4, ipv6-label, ipv6, dqp (default: all)");
	cmd->add_flag("--json", a.json, "print JSON");
	return cmd;
}

CLI::App *add_pcap(CLI::App &app, PcapArgs &a)
{
	auto *cmd = app.add_subcommand(
	    "pcap", "group a capture's RoCE v2 packets into connections and check their ports "
	            "(exit 1 when one disagrees, 3 when one is unjudged)");
	cmd->add_option("file", a.file, "pcap or pcapng file")->required();
	cmd->add_option("--policy", a.policy,
	                "off, rfc, mix or builtin (stock 6.12 rxe) (default rfc)");
	number_option(cmd->add_option("--flow-label", a.app_fl,
	                              "the flow label the application set (it wins)"));
	cmd->add_option("--port-flow-label", a.port_fls,
	                "PORT:FL: the flow label the application of the rdma_cm service on "
	                "PORT set (wins over --flow-label there); repeatable");
	cmd->add_option("--policy-for", a.policy_for,
	                "HOST=POLICY: the policy of the host at this IPv4 or IPv6 address "
	                "(--policy for the others); repeatable");
	cmd->add_flag("--json", a.json, "print JSON");
	return cmd;
}

CLI::App *add_audit(CLI::App &app, AuditArgs &a)
{
	auto *cmd = app.add_subcommand(
	    "audit", "judge the entropy the kernel programmed into each QP of this host (the "
	             "rdma netlink resource dump) against its policy (exit 1 when one disagrees, "
	             "3 when none could be judged)");
	cmd->add_option("--qp", a.qp_file,
	                "the saved output of 'roce-entropy qp --json' (default: the resource "
	                "dump of this host)");
	cmd->add_option("--cm-id", a.cm_id_file,
	                "the saved output of 'rdma -j res show cm_id', with --qp");
	cmd->add_option("--rdma", a.rdma,
	                "the rdma program of iproute2, for the rdma_cm IDs (default rdma)");
	cmd->add_option("--port-flow-label", a.port_fls,
	                "PORT:FL: the flow label the application of the rdma_cm service on "
	                "PORT set; repeatable");
	number_option(cmd->add_option("--base-sport", a.base_sport,
	                              "the devices' UDP source port without entropy"),
	              "0xC000, rxe's");
	cmd->add_flag("--json", a.json, "print JSON");
	return cmd;
}

CLI::App *add_status(CLI::App &app, StatusArgs &a)
{
	auto *cmd = app.add_subcommand(
	    "status", "the package's health on this host: the loaded ib_core, the ports' "
	              "policies, each 6.12 kernel's modules and build record, Secure Boot (exit 1 "
	              "when our modules cannot run)");
	cmd->add_option("--root", a.root, "read the host's files under this directory")
	    ->type_name("DIR")
	    ->capture_default_str();
	cmd->add_flag("--json", a.json, "print JSON");
	return cmd;
}

CLI::App *add_qp(CLI::App &app, QpArgs &a)
{
	auto *cmd = app.add_subcommand("qp", "each QP of this host and the RoCE v2 entropy its "
	                                     "driver programmed (the rdma netlink resource dump)");
	cmd->add_flag("--json", a.json, "print JSON: one array, rdma -j's keys and roce-*");
	return cmd;
}

// policy show|set|default|repath: each its own subcommand, ACTION the one parsed
// (show without one).
CLI::App *add_policy(CLI::App &app, PolicyArgs &a)
{
	auto *cmd = app.add_subcommand(
	    "policy", "show or set the RoCE v2 entropy policies over rdma netlink (exit 2 when "
	              "the kernel refuses)");
	cmd->require_subcommand(0, 1);
	auto *show = cmd->add_subcommand("show", "every port's policy and the default (the "
	                                         "default without a subcommand)");
	show->add_option("target", a.target, "only this device or port")->type_name("DEV[/PORT]");
	show->add_flag("--json", a.json, "print JSON");
	auto *set = cmd->add_subcommand("set", "set a port's policy");
	set->add_option("port", a.target, "the port")->type_name("DEV/PORT")->required();
	set->add_option("policy", a.policy,
	                "off, rfc, mix or builtin; default: follow the default again")
	    ->required();
	set->add_flag("--json", a.json, "print what was set as JSON");
	auto *def = cmd->add_subcommand(
	    "default", "show or set the policy devices start with when they register");
	def->add_option("policy", a.policy, "off, rfc, mix or builtin (none: show it)");
	def->add_flag("--json", a.json, "print JSON");
	auto *repath = cmd->add_subcommand(
	    "repath", "show or set the re-path setting devices start with when they register");
	repath->add_option("setting", a.policy, "off or on (none: show it)");
	repath->add_flag("--json", a.json, "print JSON");
	cmd->add_flag("--json", a.json, "print JSON");
	cmd->parse_complete_callback([cmd, &a] {
		a.action = "show";
		for (const auto *sub : cmd->get_subcommands())
			a.action = sub->get_name();
	});
	return cmd;
}

} // namespace

int run_cli(int argc, const char *const *argv, std::ostream &out, std::ostream &err)
{
	CLI::App app{"RoCE v2 entropy: predict UDP source ports and flow labels, check captures, "
	             "simulate ECMP",
	             "roce-entropy"};
	FlowLabelArgs fl_args;
	UdpSportArgs sport_args;
	SimulateArgs sim_args;
	PcapArgs pcap_args;
	AuditArgs audit_args;
	StatusArgs status_args;
	PolicyArgs policy_args;
	QpArgs qp_args;

	app.require_subcommand(1);
	const auto *fl_cmd = add_flow_label(app, fl_args);
	add_udp_sport(app, sport_args);
	const auto *sim_cmd = add_simulate(app, sim_args);
	const auto *pcap_sub = add_pcap(app, pcap_args);
	const auto *audit_sub = add_audit(app, audit_args);
	const auto *status_sub = add_status(app, status_args);
	const auto *policy_sub = add_policy(app, policy_args);
	const auto *qp_sub = add_qp(app, qp_args);
	return run_app(app, argc, argv, out, err, [&] {
		if (policy_sub->parsed())
			return policy_cmd(policy_args, out);
		if (qp_sub->parsed())
			return qp_cmd(qp_args, out);
		if (pcap_sub->parsed())
			return pcap_cmd(pcap_args, out);
		if (audit_sub->parsed())
			return audit_cmd(audit_args, out);
		if (status_sub->parsed())
			return status_cmd(status_args, out);
		if (sim_cmd->parsed())
			return simulate_cmd(sim_args, out);
		if (fl_cmd->parsed())
			return flow_label_cmd(fl_args, out);
		return udp_sport_cmd(sport_args.flow_label, sport_args.json, out);
	});
}

} // namespace roce
