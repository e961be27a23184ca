// SPDX-License-Identifier: GPL-2.0
// Streams into connections: each CM session with the data it claimed, then
// the rest.  UD names both QPNs in every packet (BTH and DETH).  RC and UC
// name only the destination QPN: a stream from A to B's QP qb and one from
// B to A's QP qa are the two directions of one connection when the capture
// ties them, as the README says:
//   1. they are the only streams between A and B, one each way; or
//   2. they carry one and the same UDP source port and flow label, and no
//      other stream between A and B, either way, carries it (every policy
//      gives both directions of an RC connection one port).
// Any other stream is a connection of one QPN: which QP sends to it is not
// in the capture.
#include <algorithm>
#include <map>
#include <set>

#include "capture/state.h"

namespace roce::capture_detail
{
namespace
{

using Streams = std::vector<const Stream *>;
using End = std::pair<IpAddr, std::uint32_t>; // an address and a QPN

void by_first(Streams &v)
{
	std::sort(v.begin(), v.end(),
	          [](const Stream *a, const Stream *b) { return a->first < b->first; });
}

Group group_of(const Stream &st)
{
	Group g;
	g.conn.src = st.key.src.text();
	g.conn.dst = st.key.dst.text();
	g.conn.ud = st.ud();
	g.streams = {&st};
	return g;
}

void add_sessions(std::vector<Group> &groups, const Sessions &s, std::vector<Streams> &owned)
{
	for (std::size_t i = 0; i < s.list.size(); i++) {
		const Session &ses = s.list[i];
		Group g;
		g.conn.src = ses.active.text();
		g.conn.dst = ses.passive.text();
		g.conn.cm_ports = ses.ports;
		g.conn.ud = ses.sidr;
		if (ses.active_qpn)
			g.conn.qpns.push_back(*ses.active_qpn);
		if (ses.passive_qpn)
			g.conn.qpns.push_back(*ses.passive_qpn);
		g.session = &ses;
		g.streams = std::move(owned[i]);
		by_first(g.streams);
		groups.push_back(std::move(g));
	}
}

void pair_ud(std::vector<Group> &groups, const Streams &ud)
{
	std::map<std::pair<End, End>, std::size_t> pairs;

	for (const Stream *st : ud) {
		const End a{st->key.src, st->key.sqpn}, b{st->key.dst, st->key.dqpn};
		auto [it, fresh] =
		    pairs.try_emplace(a < b ? std::pair{a, b} : std::pair{b, a}, groups.size());
		if (fresh) {
			groups.push_back(group_of(*st));
			groups.back().conn.qpns = {st->key.sqpn, st->key.dqpn};
		} else {
			groups[it->second].streams.push_back(st);
		}
	}
}

// Rule 2 between two hosts: each (port, flow label) carried by exactly one
// stream each way, each carrying nothing else.
void pair_by_value(const Streams &between, const IpAddr &lo,
                   std::map<const Stream *, const Stream *> &partner)
{
	std::map<std::pair<std::uint16_t, std::uint32_t>, std::pair<Streams, Streams>> carriers;

	for (const Stream *st : between) {
		std::set<std::pair<std::uint16_t, std::uint32_t>> values;
		for (const auto &[key, n] : st->tally)
			values.insert({std::get<0>(key), std::get<1>(key)});
		for (const auto &v : values) {
			auto &[fwd, back] = carriers[v];
			(st->key.src == lo ? fwd : back).push_back(st);
		}
	}
	for (const auto &[v, ways] : carriers) {
		const auto &[fwd, back] = ways;
		if (fwd.size() != 1 || back.size() != 1 || fwd[0]->tally.size() != 1 ||
		    back[0]->tally.size() != 1)
			continue;
		partner[fwd[0]] = back[0];
		partner[back[0]] = fwd[0];
	}
}

void pair_rc(std::vector<Group> &groups, const Streams &rc)
{
	std::map<std::pair<IpAddr, IpAddr>, Streams> between;
	std::map<const Stream *, const Stream *> partner;
	std::set<const Stream *> done;

	for (const Stream *st : rc)
		between[std::minmax(st->key.src, st->key.dst)].push_back(st);
	for (const auto &[hosts, streams] : between) {
		if (hosts.first == hosts.second)
			continue; // a host's traffic to itself: nothing tells the ways apart
		const IpAddr &lo = hosts.first;
		const auto fwd = std::count_if(streams.begin(), streams.end(),
		                               [&lo](const Stream *s) { return s->key.src == lo; });
		if (fwd == 1 && streams.size() == 2) {
			partner[streams[0]] = streams[1];
			partner[streams[1]] = streams[0];
		} else {
			pair_by_value(streams, lo, partner);
		}
	}
	for (const Stream *st : rc) {
		if (!done.insert(st).second)
			continue;
		Group g = group_of(*st);
		auto it = partner.find(st);
		if (it == partner.end()) {
			g.conn.qpns = {st->key.dqpn};
		} else {
			g.conn.qpns = {it->second->key.dqpn, st->key.dqpn};
			g.streams.push_back(it->second);
			done.insert(it->second);
		}
		groups.push_back(std::move(g));
	}
}

} // namespace

std::vector<Group> make_groups(const Sessions &s,
                               const std::unordered_map<StreamKey, Stream, KeyHash> &streams)
{
	std::vector<Streams> owned(s.list.size());
	Streams ud, rc;
	std::vector<Group> groups;

	for (const auto &[key, st] : streams) {
		if (key.owner != kLoose)
			owned[key.owner].push_back(&st);
		else
			(st.ud() ? ud : rc).push_back(&st);
	}
	by_first(ud);
	by_first(rc);
	add_sessions(groups, s, owned);
	pair_ud(groups, ud);
	pair_rc(groups, rc);
	return groups;
}

} // namespace roce::capture_detail
