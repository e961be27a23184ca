// SPDX-License-Identifier: GPL-2.0
// simulate --fabric: make fabric's leaf-spine fabric simulated
// (lib/sim/fabric_sim.h), each policy under each leaf hash.
#include "args/args.h"
#include "commands.h"
#include "output/record.h"
#include "sim/fabric_sim.h"

namespace roce
{
namespace
{

FabricTopology topology_arg(const std::string &text)
{
	unsigned v[3];
	std::size_t at = 0;

	for (int i = 0; i < 3; i++) {
		const std::size_t x = i < 2 ? text.find('x', at) : text.size();
		if (x == std::string::npos)
			throw UsageError("--fabric " + text +
			                 ": give LEAVESxSPINESxHOSTS, as 4x4x4");
		v[i] = number_arg(text.substr(at, x - at), 1, i == 2 ? 256 : 1024,
		                  i == 0   ? "leaves"
		                  : i == 1 ? "spines"
		                           : "hosts a leaf");
		at = x + 1;
	}
	if (v[0] < 2)
		throw UsageError("--fabric " + text +
		                 ": a fabric of one leaf has no uplink to hash");
	if (v[0] * v[2] > 65536)
		throw UsageError("--fabric " + text + ": more than 65536 hosts");
	return {v[0], v[1], v[2], 1000};
}

} // namespace

int simulate_fabric_cmd(const SimulateArgs &args, std::ostream &out)
{
	FabricSimParams params;
	std::vector<FabricHash> hashes;

	if (args.grid || !args.svg.empty())
		throw UsageError("--fabric prints its own table: no --grid or --svg");
	params.topo = topology_arg(args.fabric);
	if (args.job != "perm" && args.job != "a2a")
		throw UsageError("unknown job '" + args.job + "' (perm or a2a)");
	params.all_to_all = args.job == "a2a";
	if (args.connect != "cm" && args.connect != "qpn")
		throw UsageError("unknown connection '" + args.connect + "' (cm or qpn)");
	params.cm = args.connect == "cm";
	params.qps = number_arg(args.qps, 1, 64, "QPs per pair");
	params.trials = number_arg(args.trials, 1, 100000, "trials");
	const auto fn = parse_switch_hash(args.hash);
	if (!fn)
		throw UsageError("unknown switch hash '" + args.hash + "'");
	params.fn = *fn;
	const std::vector<SimPolicy> policies =
	    sim_policies(args.policies, {SimPolicy::Builtin, SimPolicy::Off, SimPolicy::Rfc,
	                                 SimPolicy::Mix, SimPolicy::Ideal});
	for (const auto &name : args.fabric_hashes) {
		const auto h = parse_fabric_hash(name);
		if (!h)
			throw UsageError("unknown fabric hash '" + name +
			                 "' (ipv4, ipv6-label, ipv6, dqp)");
		hashes.push_back(*h);
	}
	if (hashes.empty())
		hashes = {FabricHash::Ipv4, FabricHash::Ipv6Label, FabricHash::Ipv6,
		          FabricHash::Dqp};

	std::string head = format("%-11s", "leaf hash");
	for (auto p : policies)
		head += format(" %-20s", std::string(name_of(p)).c_str());
	std::vector<Record> rows;
	Record r;
	r.add_json("leaves", params.topo.leaves)
	    .add_json("spines", params.topo.spines)
	    .add_json("hosts_per_leaf", params.topo.hosts_per_leaf)
	    .add_json("job", args.job)
	    .add_json("qps", params.qps)
	    .add_json("connect", args.connect)
	    .add_json("switch_hash", name_of(params.fn))
	    .add_json("trials", params.trials)
	    .add_text(format("fabric: %u leaves x %u spines, %u hosts; %s, %u QP(s) a host pair, "
	                     "%s; switch hash %s, %u trials\n"
	                     "the busiest link's bytes over the ideal's (every packet sprayed), "
	                     "mean (p95); then the busiest leaf-spine link over their mean\n",
	                     params.topo.leaves, params.topo.spines, params.topo.hosts(),
	                     args.job.c_str(), params.qps, params.cm ? "rdma_cm" : "QPN-connected",
	                     std::string(name_of(params.fn)).c_str(), params.trials) +
	              head + "\n");
	for (auto h : hashes) {
		params.hash = h;
		std::string line = format("%-11s", std::string(name_of(h)).c_str());
		nlohmann::json pj = nlohmann::json::object();
		for (auto p : policies) {
			params.policy = p;
			const FabricSimResult res = simulate_fabric(params);
			line += format(" %4.2f (%4.2f) %4.2f     ", res.over_ideal_mean,
			               res.over_ideal_p95, res.link_max_mean);
			pj[std::string(name_of(p))] = {{"over_ideal_mean", res.over_ideal_mean},
			                               {"over_ideal_p95", res.over_ideal_p95},
			                               {"over_ideal_max", res.over_ideal_max},
			                               {"link_max_over_mean", res.link_max_mean}};
		}
		Record row;
		rows.push_back(std::move(row.add_json("hash", name_of(h))
		                             .add_json("policies", pj)
		                             .add_text(line + "\n")));
	}
	r.add("results", rows);
	print(r, args.json, out);
	return 0;
}

} // namespace roce
