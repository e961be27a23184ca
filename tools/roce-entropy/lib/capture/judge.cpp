// SPDX-License-Identifier: GPL-2.0
// What a policy predicts for each packet of a connection, and the verdict.
//
// Each packet is judged under its sender's policy (--policy-for).  The
// flow label it carries is the application's if it set one; else, with
// the CM seen, rdma_cm's from the CM ports under the active side's policy
// (the REQ carries it to the passive side; a SIDR REQ only in its IPv6
// header, so over IPv4, and from an active side that writes flow label 0
// there (builtin, off), each end derives its own), or the QPN hash of a CM
// connection without rdma_cm; without CM the QPN hash under the sender's
// policy.  On the wire, off, rfc and mix put the fold of that flow label
// into the UDP source port and the flow label itself into the IPv6 header;
// builtin (stock 6.12 rxe) puts the fold into RC data only, sends UD and
// the CM's MADs on the sending QP's own port, and writes flow label 0.
//
// Without the CM the QPN hash is only tentative: an rdma_cm connection
// whose setup the capture missed takes its flow label from CM ports the
// capture does not show.  So a connection without CM agrees when its
// packets are on the QPN hash, and is unjudged (not disagreeing) when none
// is; some on it and some off disagree.  Packets left without a prediction
// must still share one port and flow label (per direction when the two
// ends follow different policies), carry flow label 0 under builtin, and
// under the others over IPv6 a port that is the fold of their flow label.
#include <set>

#include "capture/state.h"

namespace roce::capture_detail
{
namespace
{

struct Prediction {
	WireEntropy e;
	const char *basis;
	bool tentative = false;
};

struct FlowLabel {
	std::uint32_t fl;
	const char *basis;
	bool tentative = false;
};

// One (stream, port, flow label, attribute) of a group, with its count.
struct Entry {
	const Stream *st;
	Direction *d;
	bool cm;
	std::uint16_t sport;
	std::uint32_t fl;
	unsigned n;
	std::optional<Prediction> want;
};

struct Ctx {
	const Group &g;
	const JudgeConfig &cfg;
	std::uint32_t app_fl; // the application's, or 0
};

// The flow label that a packet of ST's carries under its sender's policy S.
std::optional<FlowLabel> flow_label_of(const Ctx &x, const Stream &st, Policy s)
{
	const Connection &c = x.g.conn;
	const Session *ses = x.g.session;

	if (x.app_fl)
		return FlowLabel{x.app_fl, "flow_label"};
	if (ses) {
		const Policy a = x.cfg.policy_of(ses->active);
		const bool own =
		    ses->sidr && (!st.key.src.v6 || a == Policy::Builtin || a == Policy::Off);
		const Policy p = own ? s : a;
		if (ses->ports)
			return FlowLabel{cm_flow_label(p, ses->ports->first, ses->ports->second),
			                 "cm_ports"};
		if (p == Policy::Off)
			return FlowLabel{0, "policy"};
		if (!ses->req_seen || ses->ports_cut)
			return std::nullopt; // rdma_cm's or not: unknown
		if (ses->sidr)
			return st.ud() ? std::optional{FlowLabel{
			                     ud_flow_label(s, 0, st.key.sqpn, st.key.dqpn), "qpns"}}
			               : std::nullopt;
		if (c.qpns.size() == 2) // the CM without rdma_cm: no flow label in its path
			return FlowLabel{flow_label(p, 0, c.qpns[0], c.qpns[1]), "qpns"};
		return std::nullopt;
	}
	if (s == Policy::Off && x.cfg.policy_of(st.key.dst) == Policy::Off)
		return FlowLabel{0, "policy"};
	if (st.ud())
		return FlowLabel{ud_flow_label(s, 0, st.key.sqpn, st.key.dqpn), "qpns", true};
	if (c.qpns.size() == 2)
		return FlowLabel{flow_label(s, 0, c.qpns[0], c.qpns[1]), "qpns", true};
	return std::nullopt;
}

std::optional<Prediction> predict(const Ctx &x, const Stream &st, bool cm)
{
	const Policy s = x.cfg.policy_of(st.key.src);

	if (s == Policy::Builtin && cm)
		return Prediction{linux_rxe_cm_mad(), "qp_ports"};
	if (s == Policy::Builtin && st.ud())
		return Prediction{linux_rxe_ud(st.key.sqpn), "qp_ports"};
	auto fl = flow_label_of(x, st, s);
	if (!fl)
		return std::nullopt;
	// A connected QP whose address has no flow label (rdma_cm's under off
	// on the active side) takes its own host's QPN hash: the RFC's rule,
	// and 6.12's rdma_get_udp_sport().  Its CM MADs stay on the base port.
	if (!fl->fl && !cm && !st.ud() && s != Policy::Off) {
		const auto &q = x.g.conn.qpns;
		if (q.size() != 2)
			return std::nullopt;
		fl = FlowLabel{flow_label(s, 0, q[0], q[1]), "qpns"};
	}
	if (s == Policy::Builtin)
		return Prediction{linux_rxe_rc(fl->fl), fl->basis, fl->tentative};
	return Prediction{{udp_sport(fl->fl), fl->fl}, fl->basis, fl->tentative};
}

bool matches(const Entry &e, const WireEntropy &w)
{
	return e.sport == w.udp_sport && (!e.st->key.src.v6 || e.fl == w.flow_label);
}

// What a packet without a prediction must still be: flow label 0 from stock
// rxe; over IPv6 from the others, its port the fold of its flow label.
bool well_formed(const Entry &e, Policy sender)
{
	if (!e.st->key.src.v6)
		return true;
	if (sender == Policy::Builtin)
		return e.fl == 0;
	return e.sport == udp_sport(e.fl);
}

// The counts of G's packets, per direction and in all; its entries.
std::vector<Entry> count(Group &g)
{
	Connection &c = g.conn;
	std::vector<Entry> entries;

	for (const Stream *st : g.streams) {
		Direction &d = st->key.src.text() == c.src ? c.forward : c.reverse;
		for (const auto &[ifindex, n] : st->interfaces)
			d.interfaces[ifindex] += n;
		for (const auto &[key, n] : st->tally) {
			const auto &[sport, fl, attr] = key;
			const bool cm = attr != kDataAttr;
			d.packets += n;
			if (cm) {
				d.cm_packets += n;
				d.cm_attrs[static_cast<std::uint16_t>(attr)] += n;
			}
			d.udp_sports.insert(sport);
			(cm ? d.cm_udp_sports : d.data_udp_sports).insert(sport);
			c.udp_sports.insert(sport);
			c.ipv6 = st->key.src.v6;
			if (c.ipv6) {
				d.flow_labels.insert(fl);
				c.flow_labels.insert(fl);
			}
			entries.push_back({st, &d, cm, sport, fl, n, std::nullopt});
		}
	}
	c.packets = c.forward.packets + c.reverse.packets;
	c.cm_mads = c.forward.cm_packets + c.reverse.cm_packets;
	return entries;
}

std::string unjudged_reason(const Group &g, bool tentative_missed)
{
	const Session *ses = g.session;

	if (ses && !ses->req_seen)
		return "the CM exchange began before the capture: its REQ was not seen";
	if (ses && ses->ports_cut)
		return "the snap length cut the REQ before its rdma_cm ports";
	if (ses)
		return "the CM exchange does not name both QPNs";
	if (tentative_missed)
		return "no CM seen and not on the QPN hash: an rdma_cm connection's CM ports are "
		       "not in the capture";
	return "no CM seen and one QPN: which QP sends to it is not in the capture";
}

} // namespace

void judge_group(Group &g, const JudgeConfig &cfg)
{
	Connection &c = g.conn;
	std::uint32_t app_fl = cfg.app_fl;
	std::set<std::uint32_t> fls; // of the predictions that count
	bool all_fl = true;          // ... all off, rfc or mix

	if (c.cm_ports) {
		auto it = cfg.port_fl.find(c.cm_ports->second);
		if (it != cfg.port_fl.end())
			app_fl = it->second;
	}
	const Ctx x{g, cfg, app_fl & kFlowLabelMask};
	const IpAddr *src = g.session ? &g.session->active : &g.streams.front()->key.src;
	const IpAddr *dst = g.session ? &g.session->passive : &g.streams.front()->key.dst;
	c.forward.policy = cfg.policy_of(*src);
	c.reverse.policy = cfg.policy_of(*dst);

	auto entries = count(g);
	bool tentative_hit = false, tentative_missed = false;
	for (auto &e : entries) {
		e.want = predict(x, *e.st, e.cm);
		if (e.want && e.want->tentative)
			(matches(e, e.want->e) ? tentative_hit : tentative_missed) = true;
	}
	std::set<std::pair<std::uint16_t, std::uint32_t>> loose[2];
	for (auto &e : entries) {
		const Policy sender = cfg.policy_of(e.st->key.src);
		if (!e.want || (e.want->tentative && !tentative_hit)) {
			if (!well_formed(e, sender)) {
				c.mismatched += e.n;
				continue;
			}
			c.unpredicted += e.n;
			loose[e.d == &c.reverse].insert({e.sport, e.fl});
			continue;
		}
		const WireEntropy &w = e.want->e;
		c.judged_by.insert(e.want->basis);
		c.mismatched += matches(e, w) ? 0 : e.n;
		if (e.cm && !c.expected_cm)
			c.expected_cm = w;
		if (!e.cm && !e.d->expected_data)
			e.d->expected_data = w;
		all_fl &= sender != Policy::Builtin;
		fls.insert(w.flow_label);
	}
	if (all_fl && fls.size() == 1)
		c.expected_flow_label = *fls.begin();
	bool loose_ok = loose[0].size() <= 1 && loose[1].size() <= 1;
	if (c.forward.policy == c.reverse.policy) {
		loose[0].insert(loose[1].begin(), loose[1].end());
		loose_ok &= loose[0].size() <= 1;
	}
	if (c.mismatched || !loose_ok)
		c.verdict = Verdict::Disagrees;
	else if (c.unpredicted)
		c.verdict = Verdict::Unjudged;
	else
		c.verdict = Verdict::Agrees;
	c.consistent = c.verdict != Verdict::Disagrees;
	if (c.unpredicted)
		c.unjudged_reason = unjudged_reason(g, tentative_missed);
}

} // namespace roce::capture_detail
