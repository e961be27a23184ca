// SPDX-License-Identifier: GPL-2.0
// roce-ping's command line: everything checked before any RDMA call.
#include <CLI/CLI.hpp>
#include <arpa/inet.h>
#include <cstring>
#include <netinet/in.h>

#include "args/args.h"
#include "entropy/entropy.h"
#include "ping.h"

namespace roce
{
namespace
{

sockaddr_storage parse_addr(const std::string &text, std::uint16_t port, const char *what)
{
	sockaddr_storage ss{};
	auto *sin = reinterpret_cast<sockaddr_in *>(&ss);
	auto *sin6 = reinterpret_cast<sockaddr_in6 *>(&ss);

	if (inet_pton(AF_INET, text.c_str(), &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
	} else if (inet_pton(AF_INET6, text.c_str(), &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(port);
	} else {
		throw UsageError(std::string(what) + " '" + text +
		                 "' is not a numeric IPv4 or IPv6 address");
	}
	return ss;
}

struct Args {
	std::string bind, server, port = "7471", connections, messages, size = "64", flow_label,
	                          until, timeout = "20", sport_base, cycles, qp_timeout,
	                          retry_count = "7", interval, stall_min = "250";
	bool close_at_once = false, expect_reject = false, json = false, keep_going = false,
	     one_way = false;
};

// What both sides take: the QP's ACK timeout and retry count, --keep-going.
void fill_qp(const Args &args, PingOptions &opts)
{
	if (!args.qp_timeout.empty())
		opts.qp_timeout =
		    static_cast<std::uint8_t>(number_arg(args.qp_timeout, 0, 31, "QP timeout"));
	opts.retry_count = number_arg(args.retry_count, 0, 7, "retry count");
	opts.keep_going = args.keep_going;
	opts.one_way = args.one_way;
	if (opts.one_way && opts.close_at_once)
		throw UsageError("--close-at-once closes after the echoes; --one-way has none: "
		                 "they cannot be combined");
	if (opts.keep_going && opts.close_at_once)
		throw UsageError("--keep-going goes on after a failure; --close-at-once closes "
		                 "each connection as it ends: they cannot be combined");
}

void fill(const Args &args, bool server, PingOptions &opts)
{
	const auto port = static_cast<std::uint16_t>(number_arg(args.port, 1, 0xFFFF, "port"));

	opts.server = server;
	opts.json = args.json;
	opts.timeout = number_arg(args.timeout, 1, 3600, "timeout");
	opts.size = number_arg(args.size, 1, 1 << 16, "size");
	opts.close_at_once = args.close_at_once;
	opts.expect_reject = args.expect_reject;
	fill_qp(args, opts);
	if (!args.messages.empty())
		opts.messages = number_arg(args.messages, 1, 1000000, "messages");
	if (server) {
		opts.bind = parse_addr(args.bind, port, "--bind");
		opts.connections = args.connections.empty()
		                       ? 0
		                       : number_arg(args.connections, 0, 4096, "connections");
		if (!args.messages.empty() && !opts.close_at_once)
			throw UsageError(
			    "the server's --messages says when --close-at-once closes: "
			    "it needs --close-at-once");
		return;
	}
	opts.bind = parse_addr(args.bind, 0, "--bind");
	opts.remote = parse_addr(args.server, port, "--server");
	if (opts.bind.ss_family != opts.remote.ss_family)
		throw UsageError("--bind and --server must both be IPv4 or both IPv6");
	opts.connections =
	    args.connections.empty() ? 1 : number_arg(args.connections, 1, 1024, "connections");
	opts.until = args.until;
	opts.stall_min_ms = number_arg(args.stall_min, 1, 3600000, "stall minimum");
	if (!args.interval.empty()) {
		opts.interval_ms = number_arg(args.interval, 1, 60000, "interval");
		if (opts.until.empty())
			throw UsageError("--interval paces the round trips that --until holds: "
			                 "it needs --until");
	}
	if (opts.keep_going && (opts.cycles || !args.cycles.empty() || opts.expect_reject))
		throw UsageError("--keep-going reports each connection's fate: it cannot be "
		                 "combined with --cycles or --expect-reject");
	if (!args.cycles.empty()) {
		opts.cycles = number_arg(args.cycles, 1, 1000000, "cycles");
		if (!opts.until.empty())
			throw UsageError("--until holds the connections open: it cannot be "
			                 "combined with --cycles");
		if (opts.close_at_once)
			throw UsageError("--cycles disconnects and waits each time: it cannot be "
			                 "combined with --close-at-once");
	}
	if (opts.expect_reject &&
	    (opts.close_at_once || opts.cycles || !opts.until.empty() || !args.messages.empty()))
		throw UsageError("--expect-reject makes no connection: no --close-at-once, "
		                 "--cycles, --until or --messages");
	if (!args.sport_base.empty()) {
		opts.sport_base = static_cast<std::uint16_t>(
		    number_arg(args.sport_base, 1024, 0xFFFF, "source port base"));
		if (opts.sport_base + opts.connections - 1 > 0xFFFF)
			throw UsageError("--sport-base " + args.sport_base +
			                 " leaves no room for " + std::to_string(opts.connections) +
			                 " connections");
	}
	if (!args.flow_label.empty()) {
		opts.flow_label = static_cast<std::uint32_t>(
		    number_arg(args.flow_label, 1, kFlowLabelMask, "flow label"));
		if (opts.bind.ss_family != AF_INET6)
			throw UsageError("--flow-label needs IPv6 addresses: rdma_cm takes an "
			                 "application's flow label from sin6_flowinfo only");
		reinterpret_cast<sockaddr_in6 *>(&opts.bind)->sin6_flowinfo =
		    htonl(opts.flow_label);
	}
}

} // namespace

std::optional<int> parse_ping_args(int argc, const char *const *argv, PingOptions &opts,
                                   std::ostream &out, std::ostream &err)
{
	CLI::App app{"rdma_cm RC ping-pong over RoCE v2: a server, and a client that reports "
	             "each connection's CM ports and QPNs",
	             "roce-ping"};
	app.require_subcommand(1);

	Args srv;
	auto *srv_cmd = app.add_subcommand("server", "echo every message back");
	srv_cmd->add_option("--bind", srv.bind, "local address to listen on")->required();
	number_option(srv_cmd->add_option("--port", srv.port, "rdma_cm port"));
	number_option(srv_cmd->add_option("--connections", srv.connections,
	                                  "exit after serving this many (default: until killed)"));
	number_option(srv_cmd->add_option("--size", srv.size, "largest message"));
	srv_cmd->add_flag("--close-at-once", srv.close_at_once,
	                  "once the echo of a connection's last message has completed, "
	                  "disconnect, destroy its ID and its QP at once");
	number_option(srv_cmd->add_option("--messages", srv.messages,
	                                  "with --close-at-once: round trips per connection"),
	              "10");
	number_option(
	    srv_cmd->add_option("--qp-timeout", srv.qp_timeout,
	                        "the QP's ACK timeout, 4.096 us * 2^N (0-31; default: rdma_cm's)"));
	number_option(srv_cmd->add_option("--retry-count", srv.retry_count,
	                                  "the QP's transport retry count (0-7)"),
	              "7");
	srv_cmd->add_flag("--keep-going", srv.keep_going,
	                  "a connection whose echo fails is reported, the others go on");
	srv_cmd->add_flag("--one-way", srv.one_way,
	                  "echo nothing: the client's sends are the traffic (its --one-way)");

	Args cli;
	auto *cli_cmd = app.add_subcommand("client", "connect and ping");
	cli_cmd->add_option("--bind", cli.bind, "local address")->required();
	cli_cmd->add_option("--server", cli.server, "the server's address")->required();
	number_option(cli_cmd->add_option("--port", cli.port, "rdma_cm port"));
	number_option(cli_cmd->add_option("--connections", cli.connections, "connections at once"),
	              "1");
	number_option(cli_cmd->add_option("--messages", cli.messages, "round trips each"), "10");
	number_option(cli_cmd->add_option("--size", cli.size, "bytes per message"));
	number_option(cli_cmd->add_option("--flow-label", cli.flow_label,
	                                  "the application's IPv6 flow label (sin6_flowinfo)"));
	cli_cmd->add_option("--until", cli.until,
	                    "after the messages, ping every 100 ms until FILE exists");
	number_option(cli_cmd->add_option(
	    "--sport-base", cli.sport_base,
	    "bind connection i to rdma_cm port BASE + i (default: rdma_cm picks)"));
	number_option(
	    cli_cmd->add_option("--cycles", cli.cycles,
	                        "connect, ping, disconnect N times in a row and print the rate"));
	number_option(cli_cmd->add_option("--timeout", cli.timeout, "seconds per connection step"));
	cli_cmd->add_flag("--close-at-once", cli.close_at_once,
	                  "after the round trips, disconnect, destroy the ID and the QP at once, "
	                  "without waiting for DISCONNECTED");
	cli_cmd->add_flag("--expect-reject", cli.expect_reject,
	                  "succeed only if every connection is rejected (a port nobody listens "
	                  "on)");
	number_option(
	    cli_cmd->add_option("--qp-timeout", cli.qp_timeout,
	                        "the QP's ACK timeout, 4.096 us * 2^N (0-31; default: rdma_cm's)"));
	number_option(cli_cmd->add_option("--retry-count", cli.retry_count,
	                                  "the QP's transport retry count (0-7)"),
	              "7");
	number_option(cli_cmd->add_option("--interval", cli.interval,
	                                  "with --until: milliseconds between round trips"),
	              "100");
	cli_cmd->add_flag("--keep-going", cli.keep_going,
	                  "a connection that fails (an error completion, or no echo for "
	                  "--timeout s) is reported, the others go on");
	cli_cmd->add_flag("--one-way", cli.one_way,
	                  "the server echoes nothing (its --one-way): a round trip is a send "
	                  "and its ACK");
	number_option(
	    cli_cmd->add_option("--stall-min", cli.stall_min,
	                        "list each connection's gaps between round trips of at least MS"),
	    "250");
	cli_cmd->add_flag("--json", cli.json, "print JSON");

	return parse_app(app, argc, argv, out, err, [&] {
		if (srv_cmd->parsed())
			fill(srv, true, opts);
		else
			fill(cli, false, opts);
	});
}

} // namespace roce
