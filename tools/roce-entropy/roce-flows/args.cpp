// SPDX-License-Identifier: GPL-2.0
// roce-flows's command line, checked before any verbs call, and how a
// flow's bytes are shared among its QPs.
#include <CLI/CLI.hpp>
#include <arpa/inet.h>

#include "args/args.h"
#include "flows.h"

namespace roce
{
namespace
{

struct Args {
	std::vector<std::string> flows;
	std::string started, qps = "1", bytes, message = "16384", depth = "2", cm_port = "18700",
	                     ack_timeout = "20", retry_count = "7", timeout = "60";
	bool cm = false, keep_going = false, json = false;
};

int family_of(const std::string &addr)
{
	unsigned char buf[16];

	if (inet_pton(AF_INET, addr.c_str(), buf) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, addr.c_str(), buf) == 1)
		return AF_INET6;
	return AF_UNSPEC;
}

void fill(const Args &args, FlowsOptions &opts)
{
	for (const auto &f : args.flows)
		opts.flows.push_back(flow_arg(f));
	opts.cm = args.cm;
	opts.qps = number_arg(args.qps, 1, 64, "QPs per flow");
	opts.bytes = number_arg(args.bytes, 1, 1u << 30, "bytes");
	opts.message = number_arg(args.message, 1, 1u << 24, "message");
	opts.depth = number_arg(args.depth, 1, 64, "depth");
	opts.cm_port = number_arg(args.cm_port, 1, 65535, "CM port");
	opts.ack_timeout = number_arg(args.ack_timeout, 1, 31, "ACK timeout");
	opts.retry_count = number_arg(args.retry_count, 0, 7, "retry count");
	opts.timeout = number_arg(args.timeout, 1, 3600, "timeout");
	opts.keep_going = args.keep_going;
	opts.started = args.started;
	opts.json = args.json;
}

} // namespace

FlowSpec flow_arg(const std::string &text)
{
	const auto comma = text.find(',');

	if (comma == std::string::npos)
		throw UsageError("flow '" + text + "': give SRC,DST");
	FlowSpec f{text.substr(0, comma), text.substr(comma + 1)};
	const int fs = family_of(f.src), fd = family_of(f.dst);
	if (fs == AF_UNSPEC || fd == AF_UNSPEC)
		throw UsageError("flow '" + text + "': " + (fs == AF_UNSPEC ? f.src : f.dst) +
		                 " is not an IPv4 or IPv6 address");
	if (fs != fd)
		throw UsageError("flow '" + text + "': one family for both ends");
	if (f.src == f.dst)
		throw UsageError("flow '" + text + "': a flow between two addresses");
	return f;
}

QpShare qp_share(std::uint64_t bytes, unsigned qps, unsigned index, unsigned message)
{
	if (!qps || !message || index >= qps)
		return {};

	const std::uint64_t share = bytes / qps + (index < bytes % qps ? 1 : 0);
	return {share, (share + message - 1) / message};
}

std::optional<int> parse_flows_args(int argc, const char *const *argv, FlowsOptions &opts,
                                    std::ostream &out, std::ostream &err)
{
	CLI::App app{"the fabric benchmark's traffic: flows of RC QPs between this host's "
	             "RoCE v2 devices, connected by rdma_cm or by QPN, RDMA WRITEs all "
	             "started at once; prints each flow's completion time",
	             "roce-flows"};
	Args args;

	app.add_option("flow", args.flows,
	               "SRC,DST: addresses of RoCE v2 GIDs of two local devices")
	    ->required();
	app.add_flag("--cm", args.cm, "connect with rdma_cm (default: QPN and GID, flow label 0)");
	number_option(app.add_option("--qps", args.qps, "QP pairs per flow (at most 64)"));
	number_option(app.add_option("--bytes", args.bytes, "bytes per flow, shared by its QPs"))
	    ->required();
	number_option(app.add_option("--message", args.message, "bytes per RDMA WRITE"));
	number_option(app.add_option("--depth", args.depth, "WRITEs in flight per QP"));
	number_option(app.add_option("--cm-port", args.cm_port, "the listeners' port (--cm)"));
	number_option(app.add_option("--ack-timeout", args.ack_timeout,
	                             "the QPs' local ACK timeout, 4.096 us * 2^N (the fabric's "
	                             "queues are deep)"));
	number_option(app.add_option("--retry-count", args.retry_count,
	                             "the QPs' retries after an ACK timeout (rxe retries for "
	                             "ever at 7)"));
	number_option(
	    app.add_option("--timeout", args.timeout, "seconds without progress before giving up"));
	app.add_flag("--keep-going", args.keep_going,
	             "an error completion fails its flow only: the others go on");
	app.add_option("--started", args.started,
	               "make this file when every pair is connected and the flows start");
	app.add_flag("--json", args.json, "print JSON, with every flow and QP");

	return parse_app(app, argc, argv, out, err, [&] { fill(args, opts); });
}

} // namespace roce
