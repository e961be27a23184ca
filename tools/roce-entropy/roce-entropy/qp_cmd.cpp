// SPDX-License-Identifier: GPL-2.0
// qp: each QP of the host with the RoCE v2 entropy its driver programmed,
// from the rdma netlink resource dump (the series' RDMA_NLDEV_ATTR_RES_ROCE_*
// attributes, which iproute2's rdma does not print yet).
#include <fstream>

#include "audit/audit.h"
#include "commands.h"
#include "nl/rdma_nl.h"
#include "output/record.h"

namespace roce
{
namespace
{

using nlohmann::json;

// enum ib_qp_type and enum ib_qp_state, as rdma names them.
constexpr std::string_view kQpTypes[] = {
    "SMI",           "GSI",     "RC",         "UC",      "UD",     "RAW_IPV6",
    "RAW_ETHERTYPE", "UNKNOWN", "RAW_PACKET", "XRC_INI", "XRC_TGT"};
constexpr std::string_view kQpStates[] = {"RESET", "INIT", "RTR", "RTS", "SQD", "SQE", "ERR"};
constexpr std::uint8_t kQpTypeDriver = 0xFF;

template <std::size_t N>
std::string name_of(const std::string_view (&names)[N], std::optional<std::uint8_t> v)
{
	if (!v)
		return "";
	if (*v < N)
		return std::string(names[*v]);
	return "unknown (" + std::to_string(*v) + ")";
}

// What /proc says the process is called; empty once it has gone.
std::string task_comm(std::uint32_t pid)
{
	std::ifstream in("/proc/" + std::to_string(pid) + "/comm");
	std::string comm;
	std::getline(in, comm);
	return comm;
}

QpEntry qp_entry(const nl::ResQp &r)
{
	QpEntry q;
	q.dev = r.dev_name;
	q.port = r.port;
	q.lqpn = r.lqpn;
	q.rqpn = r.rqpn;
	q.type = r.type == kQpTypeDriver ? "DRIVER" : name_of(kQpTypes, r.type);
	q.state = name_of(kQpStates, r.state);
	q.pid = r.pid;
	q.comm = r.pid ? task_comm(*r.pid) : r.kern_name;
	if (r.policy) {
		const auto p = nl::policy_from_nl(*r.policy);
		q.policy = p ? std::string(policy_name(*p))
		             : "unknown (" + std::to_string(*r.policy) + ")";
	}
	q.source = r.source;
	q.flow_label = r.flow_label;
	if (r.udp_sport)
		q.udp_sport = *r.udp_sport;
	return q;
}

// The keys of rdma -j for what it prints too, roce-* for the rest.
json qp_json(const QpEntry &q)
{
	json j = {{"ifname", q.dev}, {"port", q.port}, {"lqpn", q.lqpn}};
	if (q.rqpn)
		j["rqpn"] = *q.rqpn;
	j["type"] = q.type;
	j["state"] = q.state;
	if (q.pid)
		j["pid"] = *q.pid;
	j["comm"] = q.comm;
	if (q.policy)
		j["roce-entropy"] = *q.policy;
	if (q.source)
		j["roce-fl-source"] = *q.source;
	if (q.flow_label)
		j["roce-flow-label"] = *q.flow_label;
	if (q.udp_sport)
		j["roce-udp-sport"] = *q.udp_sport;
	return j;
}

} // namespace

std::string entropy_text(const std::optional<std::uint32_t> &fl, std::uint32_t sport)
{
	std::string s;
	if (fl)
		s = "flow label " + hex(*fl, 5) + ", ";
	return s + "port " + std::to_string(sport) + " (" + hex(sport, 4) + ")";
}

std::string qp_text(const QpEntry &q)
{
	std::string s = q.dev + '/' + std::to_string(q.port) + " lqpn " + std::to_string(q.lqpn);
	if (q.rqpn)
		s += " rqpn " + std::to_string(*q.rqpn);
	s += ' ' + q.type + ' ' + q.state;
	if (!q.comm.empty())
		s += " [" + q.comm + ']';
	if (!q.policy || !q.source)
		return s + '\n';
	s += ": " + *q.policy + ", " + *q.source;
	if (q.udp_sport)
		s += ", " + entropy_text(q.flow_label, *q.udp_sport);
	return s + '\n';
}

std::vector<QpEntry> live_qps()
{
	nl::Socket sock;
	std::vector<QpEntry> qps;
	for (const auto &r : sock.qps())
		qps.push_back(qp_entry(r));
	return qps;
}

int qp_cmd(const QpArgs &args, std::ostream &out)
{
	refuse_stale_modules("/");
	const auto qps = live_qps();
	if (args.json) {
		json all = json::array();
		for (const auto &q : qps)
			all.push_back(qp_json(q));
		out << all.dump() << '\n';
		return kExitOk;
	}
	for (const auto &q : qps)
		out << qp_text(q);
	return kExitOk;
}

} // namespace roce
