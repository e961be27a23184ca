// SPDX-License-Identifier: GPL-2.0
#include "cli.h"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "capture.h"
#include "ecmp_report.h"
#include "entropy.h"
#include "number.h"
#include "simulate.h"
#include "svg.h"

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
		throw UsageError("unknown policy '" + name + "' (off, rfc, mix or linux)");
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

struct SimulateArgs {
	std::vector<std::string> policies;
	std::string scenario = "seq-ports";
	std::string hash = "crc16";
	std::string connections = "256";
	std::string paths = "8";
	std::string trials = "64";
	std::string offset = "1";
	bool grid = false;
	bool json = false;
	std::string svg;
};

SimParams base_params(const SimulateArgs &args)
{
	SimParams params;
	auto scenario = parse_scenario(args.scenario);
	auto hash = parse_switch_hash(args.hash);

	if (!scenario)
		throw UsageError("unknown scenario '" + args.scenario + "'");
	if (!hash)
		throw UsageError("unknown switch hash '" + args.hash + "'");
	params.scenario = *scenario;
	params.hash = *hash;
	params.connections =
	    static_cast<unsigned>(parse_number(args.connections, 1 << 20, "connections"));
	params.paths = static_cast<unsigned>(parse_number(args.paths, 4096, "paths"));
	params.trials = static_cast<unsigned>(parse_number(args.trials, 100000, "trials"));
	params.offset = static_cast<unsigned>(parse_number(args.offset, 0xFFFFFF, "offset"));
	if (!params.connections || !params.paths || !params.trials)
		throw UsageError("connections, paths and trials must be at least 1");
	return params;
}

json result_json(const SimResult &r)
{
	return {{"max_mean", r.max_mean},
	        {"max_mean_p95", r.max_mean_p95},
	        {"distinct_udp_sports", r.distinct_ports},
	        {"collisions", r.collisions},
	        {"load", r.load}};
}

// Load per path of the first trial, per policy, random ports' p95 shaded.
void write_simulate_svg(const std::string &file, SimParams params,
                        const std::vector<SimPolicy> &policies)
{
	std::vector<BarPanel> panels;
	const double mean = static_cast<double>(params.connections) / params.paths;

	params.policy = SimPolicy::Ideal;
	const SimResult ideal = simulate(params);
	for (auto p : policies) {
		params.policy = p;
		const SimResult r = simulate(params);
		BarPanel panel;
		char title[96];
		std::snprintf(title, sizeof(title), "%s: max/mean %.2f (p95 %.2f)",
		              std::string(name_of(p)).c_str(), r.max_mean, r.max_mean_p95);
		panel.title = title;
		for (auto n : r.load)
			panel.bars.push_back(n / mean);
		panel.band_hi = ideal.max_mean_p95;
		panel.colour = policy_colour(std::string(name_of(p)));
		panels.push_back(std::move(panel));
	}
	std::ofstream f(file);
	write_bar_panels(f,
	                 std::to_string(params.connections) + " connections over " +
	                     std::to_string(params.paths) + " paths, " +
	                     std::string(name_of(params.scenario)) + ", switch hash " +
	                     std::string(name_of(params.hash)),
	                 "bars: connections per path / mean (first trial); shaded: up to random "
	                 "ports' p95 of the busiest path; dashed: an even spread",
	                 panels, 3);
	if (!f)
		throw UsageError("cannot write " + file);
}

int simulate_one(const SimulateArgs &args, std::ostream &out)
{
	SimParams params = base_params(args);
	std::vector<SimPolicy> policies;
	json rows = json::array();

	for (const auto &name : args.policies) {
		auto p = parse_sim_policy(name);
		if (!p)
			throw UsageError("unknown policy '" + name +
			                 "' (off, rfc, mix, linux, rxe-legacy, ideal)");
		policies.push_back(*p);
	}
	if (policies.empty())
		policies = {SimPolicy::Rfc, SimPolicy::Mix, SimPolicy::Linux, SimPolicy::RxeLegacy,
		            SimPolicy::Ideal};
	if (!args.json) {
		out << params.connections << " connections over " << params.paths << " paths, "
		    << name_of(params.scenario) << ", switch hash " << name_of(params.hash) << "\n";
		out << "policy       max/mean  p95   distinct  collisions (birthday "
		    << birthday_collisions(params.connections) << ")\n";
	}
	for (auto p : policies) {
		params.policy = p;
		const SimResult r = simulate(params);
		if (args.json) {
			json row = result_json(r);
			row["policy"] = name_of(p);
			rows.push_back(row);
			continue;
		}
		char line[128];
		std::snprintf(line, sizeof(line), "%-12s %8.3f %5.2f %9.1f %10.4f\n",
		              std::string(name_of(p)).c_str(), r.max_mean, r.max_mean_p95,
		              r.distinct_ports, r.collisions);
		out << line;
	}
	if (!args.svg.empty())
		write_simulate_svg(args.svg, params, policies);
	if (args.json)
		out << json{{"connections", params.connections},
		            {"paths", params.paths},
		            {"scenario", name_of(params.scenario)},
		            {"switch_hash", name_of(params.hash)},
		            {"birthday_collisions", birthday_collisions(params.connections)},
		            {"results", rows}}
		    << '\n';
	return 0;
}

// The whole grid: every scenario and switch hash, n in 64..4096, m in 2..64.
int simulate_grid(const SimulateArgs &args, std::ostream &out)
{
	const SimParams base = base_params(args);
	const std::vector<SimPolicy> policies = {SimPolicy::Rfc, SimPolicy::Mix, SimPolicy::Linux,
	                                         SimPolicy::RxeLegacy, SimPolicy::Ideal};
	json cells = json::array();
	std::vector<double> sum(policies.size(), 0);
	unsigned at_256_8 = 0, mix_worse = 0, cells_n = 0;
	double mix_worst = 0;

	if (!args.json)
		out << "    n   m scenario     hash   rfc    mix    linux     rxe-legacy ideal "
		       "(p95)\n";
	for (unsigned n : {64u, 256u, 1024u, 4096u}) {
		for (unsigned m : {2u, 8u, 16u, 64u}) {
			for (int s = 0; s < 6; ++s) {
				for (int h = 0; h < 4; ++h) {
					SimParams params = base;
					params.connections = n;
					params.paths = m;
					params.scenario = static_cast<Scenario>(s);
					params.hash = static_cast<SwitchHash>(h);
					std::vector<SimResult> r;
					for (auto p : policies) {
						params.policy = p;
						r.push_back(simulate(params));
					}
					const double noise = r[4].max_mean_p95 - r[4].max_mean;
					++cells_n;
					if (r[1].max_mean > r[0].max_mean + noise)
						++mix_worse;
					mix_worst =
					    std::max(mix_worst, r[1].max_mean / r[4].max_mean);
					if (n == 256 && m == 8) {
						++at_256_8;
						for (std::size_t i = 0; i < policies.size(); ++i)
							sum[i] += r[i].max_mean;
					}
					json cell = {{"connections", n},
					             {"paths", m},
					             {"scenario", name_of(params.scenario)},
					             {"switch_hash", name_of(params.hash)}};
					for (std::size_t i = 0; i < policies.size(); ++i)
						cell[std::string(name_of(policies[i]))] =
						    result_json(r[i]);
					cells.push_back(cell);
					if (args.json)
						continue;
					char line[160];
					std::snprintf(
					    line, sizeof(line),
					    "%5u %3u %-12s %-6s %5.2f  %5.2f  %5.2f     "
					    "%5.2f      %5.2f (%4.2f)\n",
					    n, m, std::string(name_of(params.scenario)).c_str(),
					    std::string(name_of(params.hash)).c_str(),
					    r[0].max_mean, r[1].max_mean, r[2].max_mean,
					    r[3].max_mean, r[4].max_mean, r[4].max_mean_p95);
					out << line;
				}
			}
		}
	}
	json summary = {{"cells", cells_n},
	                {"mix_worse_than_rfc_beyond_noise", mix_worse},
	                {"mix_worst_relative_to_ideal", mix_worst}};
	for (std::size_t i = 0; i < policies.size(); ++i)
		summary["mean_max_mean_n256_m8"][std::string(name_of(policies[i]))] =
		    sum[i] / at_256_8;
	if (args.json) {
		out << json{{"cells", cells}, {"summary", summary}} << '\n';
	} else {
		out << "summary: mean max/mean at n=256, m=8:";
		for (std::size_t i = 0; i < policies.size(); ++i)
			out << ' ' << name_of(policies[i]) << ' ' << sum[i] / at_256_8;
		out << "\nsummary: cells where mix is worse than rfc beyond noise: " << mix_worse
		    << " of " << cells_n << "; mix's worst cell / ideal: " << mix_worst << '\n';
	}
	return 0;
}

struct PcapArgs {
	std::string file, policy = "rfc", app_fl;
	std::vector<std::string> port_fls; // PORT:FL
	bool json = false;
};

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
	json attrs = json::object();
	for (const auto &[attr, n] : d.cm_attrs)
		attrs[cm_attr_name(attr)] = n;
	return {{"packets", d.packets},
	        {"cm_packets", d.cm_packets},
	        {"cm_messages", attrs},
	        {"data_packets", d.packets - d.cm_packets},
	        {"udp_sports", d.udp_sports},
	        {"cm_udp_sports", d.cm_udp_sports},
	        {"data_udp_sports", d.data_udp_sports},
	        {"flow_labels", d.flow_labels},
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

json connection_json(const Connection &c)
{
	json j = {{"src", c.src},
	          {"dst", c.dst},
	          {"transport", c.ud ? "UD" : "RC"},
	          {"qpns", c.qpns},
	          {"cm_ports", nullptr},
	          {"udp_sports", c.udp_sports},
	          {"flow_labels", c.flow_labels},
	          {"expected_udp_sport", nullptr},
	          {"expected_flow_label", nullptr},
	          {"expected_cm", wire_json(c.expected_cm, c.ipv6)},
	          {"packets", c.packets},
	          {"forward", direction_json(c.forward, c.ipv6)},
	          {"reverse", direction_json(c.reverse, c.ipv6)},
	          {"cm_mads", c.cm_mads},
	          {"mismatched", c.mismatched},
	          {"unpredicted", c.unpredicted},
	          {"consistent", c.consistent},
	          {"predicted", predictions_json(c)}};
	if (c.cm_ports)
		j["cm_ports"] = {c.cm_ports->first, c.cm_ports->second};
	if (c.expected_flow_label) {
		j["expected_udp_sport"] = udp_sport(*c.expected_flow_label);
		if (c.ipv6)
			j["expected_flow_label"] = *c.expected_flow_label;
	}
	if (!c.ipv6)
		j["flow_labels"] = json::array();
	return j;
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

	if (args.json) {
		json conns = json::array();
		for (const auto &c : sum.connections)
			conns.push_back(connection_json(c));
		out << json{{"policy", policy_name(policy)},
		            {"connections", conns},
		            {"packets", sum.packets},
		            {"not_roce", not_roce},
		            {"malformed", malformed},
		            {"distinct_udp_sports", sum.distinct_udp_sports},
		            {"inconsistent", sum.inconsistent}}
		    << '\n';
		return sum.inconsistent ? 1 : 0;
	}
	unsigned n = 0;
	for (const auto &c : sum.connections) {
		out << "connection " << ++n << ": " << c.src << " -> " << c.dst << ' '
		    << (c.ud ? "UD" : "RC") << ", QPNs [ " << hex_list(c.qpns, 6) << ']';
		if (c.cm_ports)
			out << ", CM ports " << c.cm_ports->first << ' ' << c.cm_ports->second;
		out << "\n  " << c.packets << " packets (" << c.forward.packets << " -> and "
		    << c.reverse.packets << " <-, " << c.cm_mads << " CM MADs); UDP source ports [ "
		    << hex_list(c.udp_sports, 4) << ']';
		if (c.ipv6)
			out << ", flow labels [ " << hex_list(c.flow_labels, 5) << ']';
		if (c.expected_flow_label)
			out << "; expected " << hex(udp_sport(*c.expected_flow_label), 4)
			    << (c.ipv6 ? " / " + hex(*c.expected_flow_label, 5) : "");
		else if (c.expected_cm || c.forward.expected_data || c.reverse.expected_data)
			out << "; expected " << per_kind_text(c);
		else
			out << "; nothing to predict from: one port expected";
		out << ": " << (c.consistent ? "ok" : "DISAGREES");
		if (c.mismatched)
			out << " (" << c.mismatched << " packets off their prediction)";
		out << '\n';
	}
	out << "summary: " << sum.connections.size() << " connections, " << sum.packets
	    << " RoCE v2 packets, " << sum.distinct_udp_sports << " distinct UDP source ports, "
	    << sum.inconsistent << " disagree with " << policy_name(policy) << "; skipped "
	    << not_roce << " other and " << malformed << " malformed frames\n";
	return sum.inconsistent ? 1 : 0;
}

struct EcmpReportArgs {
	std::string input, svg, output;
	bool json = false;
};

// The ECMP demo's raw counts: a table (or JSON), report.json and the chart.
// Exit status 1 when a policy fails its check.
int ecmp_report_cmd(const EcmpReportArgs &args, std::ostream &out)
{
	std::ifstream in(args.input);
	if (!in)
		throw UsageError("cannot read " + args.input);
	json raw;
	try {
		raw = json::parse(in);
	} catch (const json::exception &e) {
		throw UsageError(args.input + ": not JSON: " + e.what());
	}
	std::vector<EcmpRun> runs = parse_ecmp_runs(raw);

	// Each run against random ports over as many links.
	std::map<std::pair<unsigned, unsigned>, SimResult> ideals;
	for (auto &run : runs) {
		SimParams params;
		params.policy = SimPolicy::Ideal;
		params.connections = static_cast<unsigned>(run.udp_sports.size());
		params.paths = static_cast<unsigned>(run.forward.size());
		params.trials = 4000;
		auto key = std::pair{params.connections, params.paths};
		if (!ideals.count(key))
			ideals[key] = simulate(params);
		run.ideal_mean = ideals[key].max_mean;
		run.ideal_p95 = ideals[key].max_mean_p95;
	}

	const json report = ecmp_report_json(runs);
	if (!args.output.empty()) {
		std::ofstream f(args.output);
		f << report.dump(2) << '\n';
		if (!f)
			throw UsageError("cannot write " + args.output);
	}
	if (!args.svg.empty()) {
		std::ofstream f(args.svg);
		write_ecmp_svg(runs, f);
		if (!f)
			throw UsageError("cannot write " + args.svg);
	}
	if (args.json)
		out << report << '\n';
	else
		print_ecmp_table(runs, out);
	return report["ok"].get<bool>() ? 0 : 1;
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
	fl_cmd->add_option("--policy", fl_args.policy, "off, rfc, mix or linux")->required();
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

	SimulateArgs sim_args;
	auto *sim_cmd = app.add_subcommand(
	    "simulate", "spread connections over ECMP paths and compare with random ports");
	sim_cmd->add_option(
	    "--policy", sim_args.policies,
	    "off, rfc, mix, linux (stock 6.12), rxe-legacy, ideal (default: all but "
	    "off)");
	sim_cmd->add_option("--scenario", sim_args.scenario,
	                    "seq-ports, random-ports, seq-qpns, offset-qpns, stride8-qpns, "
	                    "random-qpns");
	sim_cmd->add_option("--switch-hash", sim_args.hash, "crc16, crc32, xor, jhash");
	sim_cmd->add_option("-n,--connections", sim_args.connections, "connections");
	sim_cmd->add_option("-m,--paths", sim_args.paths, "ECMP paths");
	sim_cmd->add_option("--trials", sim_args.trials, "trials of random inputs");
	sim_cmd->add_option("--offset", sim_args.offset, "k of offset-qpns");
	sim_cmd->add_flag("--grid", sim_args.grid, "the whole grid, with a summary");
	sim_cmd->add_option("--svg", sim_args.svg,
	                    "write a chart of the load per path (not --grid)");
	sim_cmd->add_flag("--json", sim_args.json, "print JSON");

	PcapArgs pcap_args;
	auto *pcap_sub = app.add_subcommand(
	    "pcap", "group a capture's RoCE v2 packets into connections and check their ports "
	            "(exit 1 when one disagrees)");
	pcap_sub->add_option("file", pcap_args.file, "pcap or pcapng file")->required();
	pcap_sub->add_option("--policy", pcap_args.policy,
	                     "off, rfc, mix or linux (stock 6.12 rxe) (default rfc)");
	pcap_sub->add_option("--flow-label", pcap_args.app_fl,
	                     "the flow label the application set (it wins)");
	pcap_sub->add_option("--port-flow-label", pcap_args.port_fls,
	                     "PORT:FL: the flow label the application of the rdma_cm service on "
	                     "PORT set (wins over --flow-label there); repeatable");
	pcap_sub->add_flag("--json", pcap_args.json, "print JSON");

	EcmpReportArgs ecmp_args;
	auto *ecmp_cmd = app.add_subcommand(
	    "ecmp-report", "judge the ECMP demo's packets per link (exit 1 when a policy fails)");
	ecmp_cmd->add_option("input", ecmp_args.input, "the demo's raw result (JSON)")->required();
	ecmp_cmd->add_option("--svg", ecmp_args.svg, "write a chart of the load per link");
	ecmp_cmd->add_option("--output", ecmp_args.output, "write the report as JSON");
	ecmp_cmd->add_flag("--json", ecmp_args.json, "print JSON");

	try {
		app.parse(argc, argv);
		if (pcap_sub->parsed())
			return pcap_cmd(pcap_args, out);
		if (ecmp_cmd->parsed())
			return ecmp_report_cmd(ecmp_args, out);
		if (sim_cmd->parsed() && sim_args.grid && !sim_args.svg.empty())
			throw UsageError("--svg charts one simulation, not the --grid");
		if (sim_cmd->parsed())
			return sim_args.grid ? simulate_grid(sim_args, out)
			                     : simulate_one(sim_args, out);
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
