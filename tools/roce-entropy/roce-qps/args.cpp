// SPDX-License-Identifier: GPL-2.0
// roce-qps's command line, checked before any verbs call, and the birthday
// expectation it compares the pairs' ports with.
#include <CLI/CLI.hpp>
#include <cmath>

#include "args/args.h"
#include "qps.h"

namespace roce
{
namespace
{

struct Args {
	std::string dev_a, dev_b, port = "1", gid_a, gid_b, pairs = "1", batch = "256", size = "16",
	                          policy, timeout = "20", transport = "rc", round_trips = "0";
	bool json = false;
};

void fill(const Args &args, QpsOptions &opts)
{
	const auto devs = device_pair_arg(args.dev_a, args.dev_b, args.gid_a, args.gid_b);
	opts.dev_a = devs.a;
	opts.dev_b = devs.b;
	opts.gid_a = devs.gid_a;
	opts.gid_b = devs.gid_b;
	opts.port = number_arg(args.port, 1, 255, "port");
	opts.pairs = number_arg(args.pairs, 1, 65536, "pairs");
	opts.batch = number_arg(args.batch, 1, 4096, "batch");
	opts.size = number_arg(args.size, 4, 4096, "size");
	opts.timeout = number_arg(args.timeout, 1, 3600, "timeout");
	opts.json = args.json;
	if (args.transport != "rc" && args.transport != "ud")
		throw UsageError("unknown transport '" + args.transport + "' (rc or ud)");
	opts.ud = args.transport == "ud";
	opts.round_trips = number_arg(args.round_trips, 0, 1000000, "round trips");
	if (!args.policy.empty())
		opts.policy = policy_arg(args.policy);
}

} // namespace

std::optional<int> parse_qps_args(int argc, const char *const *argv, QpsOptions &opts,
                                  std::ostream &out, std::ostream &err)
{
	CLI::App app{"RC or UD QP pairs without rdma_cm between two RoCE v2 devices: one send "
	             "or round trips each; prints each pair's QPNs and the UDP source ports a "
	             "policy predicts",
	             "roce-qps"};
	Args args;

	app.add_option("--dev-a", args.dev_a, "the sending device")->required();
	app.add_option("--dev-b", args.dev_b, "the receiving device")->required();
	number_option(app.add_option("--gid-a", args.gid_a, "RoCE v2 GID index on A"))->required();
	number_option(app.add_option("--gid-b", args.gid_b, "RoCE v2 GID index on B"))->required();
	number_option(app.add_option("--port", args.port, "IB port number on both"));
	number_option(app.add_option("--pairs", args.pairs, "QP pairs (at most 65536)"));
	number_option(app.add_option("--batch", args.batch, "sends in flight at once"));
	number_option(app.add_option("--size", args.size, "bytes per message"));
	app.add_option("--policy", args.policy,
	               "predict each pair's port and flow label under off, rfc, mix or builtin");
	number_option(app.add_option("--timeout", args.timeout,
	                             "seconds without a completion before giving up"));
	app.add_option("--transport", args.transport,
	               "rc: RC QPs connected by QPN; ud: UD QPs, an address handle per peer")
	    ->capture_default_str();
	number_option(app.add_option("--round-trips", args.round_trips,
	                             "round trips per pair, B answering each message (0: one "
	                             "send from A to B)"));
	app.add_flag("--json", args.json, "print JSON, with every pair");

	return parse_app(app, argc, argv, out, err, [&] { fill(args, opts); });
}

// With q = 1 - 1/N and r = 1 - 2/N, the number of empty slots Z after n
// draws has E[Z] = N q^n and E[Z^2] = N q^n + N (N - 1) r^n; distinct
// values are N - Z, with the same variance.
Birthday birthday_distinct(unsigned draws, unsigned slots)
{
	if (!slots)
		return {};

	const long double n = draws, N = slots;
	const long double qn = std::pow(1.0L - 1.0L / N, n);
	const long double rn = std::pow(1.0L - 2.0L / N, n);
	const long double var = N * qn + N * (N - 1.0L) * rn - N * N * qn * qn;

	return {static_cast<double>(N * (1.0L - qn)),
	        static_cast<double>(std::sqrt(std::max(var, 0.0L)))};
}

} // namespace roce
