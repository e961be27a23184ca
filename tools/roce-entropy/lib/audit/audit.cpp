// SPDX-License-Identifier: GPL-2.0
#include "audit/audit.h"

#include <charconv>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <utility>

namespace roce
{
namespace
{

using nlohmann::json;

// Every object in J: rdma -j nests its entries in arrays (one per device,
// or one per entry, depending on iproute2's version).
void collect_objects(const json &j, std::vector<json> &out)
{
	if (j.is_object())
		out.push_back(j);
	else if (j.is_array())
		for (const auto &e : j)
			collect_objects(e, out);
}

std::vector<json> parse_objects(std::string_view text, std::string_view what)
{
	std::vector<json> objects;
	std::istringstream in{std::string(text)};

	for (;;) {
		in >> std::ws;
		if (in.eof())
			break;
		json j;
		try {
			in >> j;
		} catch (const json::exception &e) {
			throw AuditInputError(std::string(what) + ": not JSON: " + e.what());
		}
		if (!j.is_array() && !j.is_object())
			throw AuditInputError(
			    std::string(what) +
			    ": not the JSON of rdma -j: a list of objects expected, "
			    "got " +
			    j.type_name());
		collect_objects(j, objects);
	}
	return objects;
}

// Fields of one entry; a field of the wrong type or out of range is an error.
class Fields
{
public:
	Fields(const json &j, std::string where) : j_(j), where_(std::move(where))
	{
	}

	std::optional<std::string> str(const char *key) const
	{
		auto it = j_.find(key);
		if (it == j_.end())
			return std::nullopt;
		if (!it->is_string())
			fail(key, "is not a string");
		return it->get<std::string>();
	}

	std::optional<std::uint32_t> num(const char *key, std::uint32_t max) const
	{
		auto it = j_.find(key);
		if (it == j_.end())
			return std::nullopt;
		if (!it->is_number_unsigned() && !(it->is_number_integer() && *it >= 0))
			fail(key, "is not an unsigned number");
		const auto v = it->get<std::uint64_t>();
		if (v > max)
			fail(key, std::to_string(v) + " is out of range (at most " +
			              std::to_string(max) + ")");
		return static_cast<std::uint32_t>(v);
	}

	std::string need_str(const char *key) const
	{
		auto v = str(key);
		if (!v)
			fail(key, "is missing");
		return *v;
	}

	std::uint32_t need_num(const char *key, std::uint32_t max) const
	{
		auto v = num(key, max);
		if (!v)
			fail(key, "is missing");
		return *v;
	}

	std::optional<Endpoint> endpoint(const char *key) const
	{
		auto s = str(key);
		if (!s)
			return std::nullopt;
		const auto colon = s->rfind(':');
		std::uint16_t port = 0;
		if (colon == std::string::npos || colon == 0)
			fail(key, "'" + *s + "' is not ADDRESS:PORT");
		const char *first = s->data() + colon + 1, *last = s->data() + s->size();
		const auto [end, ec] = std::from_chars(first, last, port);
		if (first == last || ec != std::errc() || end != last)
			fail(key, "'" + *s + "' does not end in a port number");
		return Endpoint{s->substr(0, colon), port};
	}

private:
	[[noreturn]] void fail(const char *key, const std::string &what) const
	{
		throw AuditInputError(where_ + ": \"" + key + "\" " + what);
	}

	const json &j_;
	std::string where_;
};

std::string entry_name(std::string_view what, std::size_t n)
{
	return std::string(what) + ": entry " + std::to_string(n + 1);
}

bool is_connected(const std::string &type)
{
	return type == "RC" || type == "UC" || type == "XRC_INI" || type == "XRC_TGT";
}

bool is_datagram(const std::string &type)
{
	return type == "UD" || type == "GSI";
}

// The QP's rdma_cm ID, and which side of the connection it is.
std::optional<CmConnection> cm_connection(const QpEntry &qp, const std::vector<CmIdEntry> &ids,
                                          const std::set<std::pair<std::string, int>> &listeners)
{
	for (const auto &id : ids) {
		if (id.dev != qp.dev || id.lqpn != qp.lqpn || id.state == "LISTEN" || !id.src ||
		    !id.dst)
			continue;
		CmConnection c{*id.src, *id.dst, id.ps, id.src->port, id.dst->port, "active"};
		if (listeners.count({id.ps, id.src->port})) {
			c.side = "passive";
			c.sport = id.dst->port;
			c.dport = id.src->port;
		} else if (!listeners.count({id.ps, id.dst->port})) {
			c.side = "unknown";
		}
		return c;
	}
	return std::nullopt;
}

std::string hex_str(std::uint32_t v)
{
	std::ostringstream s;
	s << "0x" << std::hex << v;
	return s.str();
}

std::string source_of(Policy policy, std::uint32_t addr_fl)
{
	if (addr_fl & kFlowLabelMask)
		return "address";
	return policy == Policy::Off ? "none" : "qpn";
}

// Compare a connected QP with what its policy gives an address with the
// flow label ADDR_FL; the reasons it differs go to NOTES.
Expected connected_expected(Policy policy, std::uint32_t addr_fl, const QpEntry &qp,
                            std::uint16_t base)
{
	const WireEntropy e = path_entropy(policy, addr_fl, qp.lqpn, *qp.rqpn, base);
	return {source_of(policy, addr_fl), e.flow_label, e.udp_sport, std::nullopt};
}

std::vector<std::string> differences(Policy policy, const Expected &e, const QpEntry &qp)
{
	std::vector<std::string> d;

	if (*qp.source != e.source)
		d.push_back("source " + *qp.source + ", predicted " + e.source);
	if (*qp.udp_sport != e.udp_sport)
		d.push_back("UDP source port " + std::to_string(*qp.udp_sport) + ", predicted " +
		            std::to_string(e.udp_sport));
	// Under builtin the flow label in the IPv6 header is the driver's: mlx5
	// programs the address's, rxe sends none.
	if (e.flow_label && *qp.flow_label != *e.flow_label &&
	    !(policy == Policy::Builtin && *qp.flow_label == 0))
		d.push_back("flow label " + hex_str(*qp.flow_label) + ", predicted " +
		            hex_str(*e.flow_label));
	return d;
}

void judge_connected(QpVerdict &v, Policy policy, const AuditOptions &opts)
{
	const QpEntry &qp = v.qp;

	if (!qp.rqpn) {
		v.notes.push_back("no remote QPN in the dump");
		return;
	}
	if (!v.cm) {
		std::uint32_t addr_fl = 0;
		if (*qp.source == "address") {
			if (!*qp.flow_label) {
				v.notes.push_back(
				    "the flow label of its address is not shown (under builtin rxe "
				    "sends none): nothing to fold");
				return;
			}
			addr_fl = *qp.flow_label; // the consumer's: its fold must be the port
		}
		v.expected = connected_expected(policy, addr_fl, qp, opts.base_sport);
		v.notes = differences(policy, *v.expected, qp);
		v.verdict = v.notes.empty() ? Verdict::Agrees : Verdict::Disagrees;
		return;
	}

	// rdma_cm: the flow label of the address is the CM ports' hash, unless
	// the application set one.
	CmConnection &cm = *v.cm;
	auto addr_fl_of = [&](std::uint16_t sport, std::uint16_t dport) {
		auto it = opts.port_flow_labels.find(dport);
		return it != opts.port_flow_labels.end() ? it->second
		                                         : cm_flow_label(policy, sport, dport);
	};
	v.expected =
	    connected_expected(policy, addr_fl_of(cm.sport, cm.dport), qp, opts.base_sport);
	v.notes = differences(policy, *v.expected, qp);
	if (!v.notes.empty() && cm.side == "unknown" && policy == Policy::Builtin) {
		// builtin's hash is not symmetric and no listener tells the side:
		// the other order may be the one
		Expected other =
		    connected_expected(policy, addr_fl_of(cm.dport, cm.sport), qp, opts.base_sport);
		if (differences(policy, other, qp).empty()) {
			std::swap(cm.sport, cm.dport);
			cm.side = "passive (no listener seen; the other order agrees)";
			v.expected = other;
			v.notes.clear();
		}
	}
	if (!v.notes.empty() && !opts.port_flow_labels.count(cm.dport) && *qp.flow_label &&
	    udp_sport(*qp.flow_label) == *qp.udp_sport)
		v.notes.push_back("an application's own flow label? --port-flow-label " +
		                  std::to_string(cm.dport) + ":" + hex_str(*qp.flow_label));
	v.verdict = v.notes.empty() ? Verdict::Agrees : Verdict::Disagrees;
}

void judge_datagram(QpVerdict &v, Policy policy, const AuditOptions &opts)
{
	const QpEntry &qp = v.qp;
	const std::string &source = *qp.source;

	if (v.cm) {
		// What rdma_cm gives the AHs of this connection; not judged here.
		auto it = opts.port_flow_labels.find(v.cm->dport);
		v.expected = Expected{source, std::nullopt, 0,
		                      it != opts.port_flow_labels.end()
		                          ? it->second
		                          : cm_flow_label(policy, v.cm->sport, v.cm->dport)};
	}
	if (source == "per-qp") {
		// rxe under builtin: one port per UD QP, 0xC000 + hash_32(qpn, 14)
		const Expected e{"per-qp", 0, rxe_legacy_sport(qp.lqpn),
		                 v.expected ? v.expected->cm_flow_label : std::nullopt};
		v.expected = e;
		if (policy != Policy::Builtin)
			v.notes.push_back("one port per QP under " +
			                  std::string(policy_name(policy)) +
			                  ": only builtin has it");
		else if (!qp.udp_sport || !qp.flow_label)
			v.notes.push_back("no roce_udp_sport or roce_flow_label in the dump");
		else
			v.notes = differences(policy, e, qp);
		v.verdict = v.notes.empty() ? Verdict::Agrees : Verdict::Disagrees;
		return;
	}
	if (source == "per-send") {
		if (policy != Policy::Rfc && policy != Policy::Mix) {
			v.notes.push_back("a flow label per send under " +
			                  std::string(policy_name(policy)) +
			                  ": only rfc and mix have it");
			v.verdict = Verdict::Disagrees;
			return;
		}
		v.notes.push_back("each send its own (the QPNs, or its AH's flow label): judge the "
		                  "wire (roce-entropy pcap)");
		return;
	}
	if (source == "per-ah") {
		v.notes.push_back("each AH's own flow label and port: judge the wire (roce-entropy "
		                  "pcap)");
		return;
	}
	v.notes.push_back("a UD QP with source " + source);
	v.verdict = Verdict::Disagrees;
}

void judge(QpVerdict &v, const AuditOptions &opts)
{
	const QpEntry &qp = v.qp;

	if (!qp.policy || !qp.source) {
		v.notes.push_back("no RoCE v2 entropy in the dump: no address yet, or a driver or "
		                  "kernel without the series");
		return;
	}
	const auto policy = parse_policy(*qp.policy);
	if (!policy) {
		v.notes.push_back("unknown policy '" + *qp.policy + "'");
		return;
	}
	if (is_datagram(qp.type)) {
		judge_datagram(v, *policy, opts);
		return;
	}
	if (!is_connected(qp.type)) {
		v.notes.push_back("no prediction for " + qp.type + " QPs");
		return;
	}
	const std::string &s = *qp.source;
	if (s != "address" && s != "qpn" && s != "none") {
		v.notes.push_back("a connected QP with source " + s);
		v.verdict = Verdict::Disagrees;
		return;
	}
	if (!qp.udp_sport || !qp.flow_label) {
		v.notes.push_back("no roce_udp_sport or roce_flow_label in the dump");
		return;
	}
	judge_connected(v, *policy, opts);
}

} // namespace

std::vector<QpEntry> parse_qps(std::string_view text, std::string_view what)
{
	std::vector<QpEntry> qps;
	const auto objects = parse_objects(text, what);

	for (std::size_t n = 0; n < objects.size(); n++) {
		const Fields f(objects[n], entry_name(what, n));
		QpEntry q;
		q.dev = f.need_str("ifname");
		q.port = f.num("port", 0xFFFF).value_or(0);
		q.lqpn = f.need_num("lqpn", kQpnMask);
		q.rqpn = f.num("rqpn", kQpnMask);
		q.type = f.str("type").value_or("");
		q.state = f.str("state").value_or("");
		q.comm = f.str("comm").value_or("");
		q.pid = f.num("pid", 0xFFFFFFFF);
		q.policy = f.str("roce-entropy");
		// roce-entropy qp --json's key, or what rdma -j -dd prints of the
		// driver table
		q.source = f.str("roce-fl-source");
		if (!q.source)
			q.source = f.str("drv_roce_fl_source");
		q.flow_label = f.num("roce-flow-label", kFlowLabelMask);
		q.udp_sport = f.num("roce-udp-sport", 0xFFFF);
		qps.push_back(std::move(q));
	}
	return qps;
}

std::vector<CmIdEntry> parse_cm_ids(std::string_view text, std::string_view what)
{
	std::vector<CmIdEntry> ids;
	const auto objects = parse_objects(text, what);

	for (std::size_t n = 0; n < objects.size(); n++) {
		const Fields f(objects[n], entry_name(what, n));
		CmIdEntry c;
		c.dev = f.need_str("ifname");
		c.lqpn = f.num("lqpn", kQpnMask);
		c.qp_type = f.str("qp-type").value_or("");
		c.state = f.need_str("state");
		c.ps = f.need_str("ps");
		c.comm = f.str("comm").value_or("");
		c.src = f.endpoint("src-addr");
		c.dst = f.endpoint("dst-addr");
		ids.push_back(std::move(c));
	}
	return ids;
}

std::string_view audit_verdict_name(Verdict v)
{
	switch (v) {
	case Verdict::Agrees:
		return "agrees";
	case Verdict::Disagrees:
		return "disagrees";
	case Verdict::Unjudged:
		break;
	}
	return "not judged";
}

AuditResult audit(const std::vector<QpEntry> &qps, const std::vector<CmIdEntry> &cm_ids,
                  const AuditOptions &opts)
{
	std::set<std::pair<std::string, int>> listeners;
	AuditResult r;

	for (const auto &id : cm_ids)
		if (id.state == "LISTEN" && id.src)
			listeners.insert({id.ps, id.src->port});
	for (const auto &qp : qps) {
		QpVerdict v{
		    qp, cm_connection(qp, cm_ids, listeners), std::nullopt, Verdict::Unjudged, {}};
		judge(v, opts);
		switch (v.verdict) {
		case Verdict::Agrees:
			r.agree++;
			break;
		case Verdict::Disagrees:
			r.disagree++;
			break;
		case Verdict::Unjudged:
			r.unjudged++;
			break;
		}
		r.qps.push_back(std::move(v));
	}
	return r;
}

} // namespace roce
