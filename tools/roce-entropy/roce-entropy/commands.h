// SPDX-License-Identifier: GPL-2.0
// roce-entropy's subcommands: each takes its arguments as given on the
// command line, builds its result once as a Record and prints it as text
// or JSON.  Each returns the exit status (see cli.h) or throws UsageError.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "entropy/entropy.h"
#include "sim/simulate.h"

namespace roce
{

// The exit statuses (cli.h).
inline constexpr int kExitOk = 0, kExitDisagrees = 1, kExitUsage = 2, kExitUnjudged = 3;

struct FlowLabelArgs {
	std::string policy;
	std::vector<std::string> cm_ports;
	std::vector<std::string> qpns;
	std::string app_fl;
	bool json = false;
};
int flow_label_cmd(const FlowLabelArgs &args, std::ostream &out);

int udp_sport_cmd(const std::string &fl_text, bool as_json, std::ostream &out);

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
	// --fabric LxSxH: make fabric's leaf-spine fabric instead
	std::string fabric, job = "perm", qps = "1", connect = "cm";
	std::vector<std::string> fabric_hashes;
};
int simulate_cmd(const SimulateArgs &args, std::ostream &out);
// --policy's names as policies, DEFAULTS when none is given; UsageError
// for an unknown one.
std::vector<SimPolicy> sim_policies(const std::vector<std::string> &names,
                                    const std::vector<SimPolicy> &defaults);
// simulate --fabric (simulate_fabric_cmd.cpp)
int simulate_fabric_cmd(const SimulateArgs &args, std::ostream &out);

struct PcapArgs {
	std::string file, policy = "rfc", app_fl;
	std::vector<std::string> port_fls;   // PORT:FL
	std::vector<std::string> policy_for; // HOST=POLICY
	bool json = false;
};
int pcap_cmd(const PcapArgs &args, std::ostream &out);

struct AuditArgs {
	std::string qp_file, cm_id_file, rdma = "rdma", base_sport;
	std::vector<std::string> port_fls; // PORT:FL
	bool json = false;
};
int audit_cmd(const AuditArgs &args, std::ostream &out);

// Throws UsageError when the RDMA modules loaded on the host under ROOT
// are ours but not the build of these tools' package version
// (mismatched_modules_at()): the commands that talk to them over rdma
// netlink (policy, qp, audit without saved dumps) refuse rather than
// misread them.
void refuse_stale_modules(const std::string &root);

struct StatusArgs {
	std::string root = "/"; // every path read is under it
	bool json = false;
};
int status_cmd(const StatusArgs &args, std::ostream &out);

// policy: the RoCE v2 entropy policies over rdma netlink.  ACTION is
// "show" (TARGET: empty, DEV or DEV/PORT), "set" (TARGET DEV/PORT, POLICY)
// or "default" (POLICY: empty to show it).
struct PolicyArgs {
	std::string action, target, policy;
	bool json = false;
};
int policy_cmd(const PolicyArgs &args, std::ostream &out);

// qp: each QP of the host and its entropy, from the rdma netlink resource
// dump.
struct QpArgs {
	bool json = false;
};
int qp_cmd(const QpArgs &args, std::ostream &out);

struct QpEntry;
// The QPs of the host's resource dump, as the audit reads them.
std::vector<QpEntry> live_qps();
// "rxea/1 lqpn 20 rqpn 19 RC RTS [roce-ping]: rfc, address, flow label
// 0x00039, port 49209 (0xc039)" and a newline.
std::string qp_text(const QpEntry &q);
// "flow label 0x33137, port 61755 (0xf13b)"; no flow label, no "flow label".
std::string entropy_text(const std::optional<std::uint32_t> &fl, std::uint32_t sport);

} // namespace roce
