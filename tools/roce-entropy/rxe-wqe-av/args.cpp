// SPDX-License-Identifier: GPL-2.0
// rxe-wqe-av's command line, checked before any verbs call.
#include <CLI/CLI.hpp>

#include "args/args.h"
#include "wqe_av.h"

namespace roce::wqe_av
{
namespace
{

struct Args {
	std::string send_dev, recv_dev, send_gid, recv_gid, dmac, av_flow_label = "0",
	                                                          av_sgid_index, timeout = "10";
	std::vector<std::string> av_ports;
};

void fill(const Args &args, Options &opts)
{
	const auto devs =
	    device_pair_arg(args.send_dev, args.recv_dev, args.send_gid, args.recv_gid);
	opts.send_dev = devs.a;
	opts.recv_dev = devs.b;
	opts.send_gid = devs.gid_a;
	opts.recv_gid = devs.gid_b;
	const auto mac = parse_mac(args.dmac);
	if (!mac)
		throw UsageError("--dmac '" + args.dmac +
		                 "' is not a MAC address (aa:bb:cc:dd:ee:ff)");
	opts.dmac = *mac;
	if (!args.av_ports.empty()) {
		opts.av_ports.clear();
		for (const auto &p : args.av_ports)
			opts.av_ports.push_back(number_arg(p, 0, 255, "AV port"));
	}
	opts.av_flow_label = number_arg(args.av_flow_label, 0, 0xFFFFF, "flow label");
	if (!args.av_sgid_index.empty())
		opts.av_sgid_index = number_arg(args.av_sgid_index, 0, 255, "AV GID index");
	opts.timeout = number_arg(args.timeout, 1, 3600, "timeout");
}

} // namespace

std::optional<int> parse_args(int argc, const char *const *argv, Options &opts, std::ostream &out,
                              std::ostream &err)
{
	CLI::App app{"UD sends with an address vector written by hand into rxe's user-mapped send "
	             "queue (ah_num 0, the old provider's form) with a chosen av.port_num; "
	             "prints JSON",
	             "rxe-wqe-av"};
	Args args;

	app.add_option("--send-dev", args.send_dev, "the sending rxe device")->required();
	app.add_option("--recv-dev", args.recv_dev, "the receiving rxe device")->required();
	number_option(app.add_option("--send-gid", args.send_gid,
	                             "IPv4-mapped RoCE v2 GID index on the sender"))
	    ->required();
	number_option(app.add_option("--recv-gid", args.recv_gid,
	                             "IPv4-mapped RoCE v2 GID index on the receiver"))
	    ->required();
	app.add_option("--dmac", args.dmac, "MAC address of the sender's next hop, for the AV")
	    ->required();
	number_option(app.add_option("--av-port", args.av_ports,
	                             "av.port_num of one hand-written send, 0-255; repeatable "
	                             "(1 is the valid port)"),
	              "2 and 255");
	number_option(app.add_option("--av-flow-label", args.av_flow_label,
	                             "flow label of the sends' address (0: the policy decides)"));
	number_option(
	    app.add_option("--av-sgid-index", args.av_sgid_index,
	                   "grh.sgid_index of the hand-written AVs (default: --send-gid; another "
	                   "makes the kernel fail the sends, which exercises the error path)"));
	number_option(app.add_option("--timeout", args.timeout,
	                             "seconds to wait for each completion and arrival"));

	return parse_app(app, argc, argv, out, err, [&] { fill(args, opts); });
}

} // namespace roce::wqe_av
