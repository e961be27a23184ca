// SPDX-License-Identifier: GPL-2.0
// CM MADs into sessions as they come: one per REQ or SIDR_REQ, or per
// exchange that began before the capture; each session claims the data to
// the QPNs its REQ, REP or SIDR_REP named, from then on.
#include "capture/state.h"

namespace roce::capture_detail
{
namespace
{

std::size_t mix(std::size_t h, std::uint64_t v)
{
	h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
	return h;
}

std::size_t hash_addr(std::size_t h, const IpAddr &a)
{
	std::uint64_t lo = 0, hi = 0;
	for (std::size_t i = 0; i < 8; i++) {
		lo = lo << 8 | a.bytes[i];
		hi = hi << 8 | a.bytes[8 + i];
	}
	return mix(mix(mix(h, lo), hi), a.v6);
}

std::uint32_t lookup(const std::unordered_map<IdKey, std::uint32_t, KeyHash> &map, const IdKey &key)
{
	auto it = map.find(key);
	return it == map.end() ? kLoose : it->second;
}

// The session a CM MAD belongs to, or kLoose: by the comm IDs it carries,
// from the active side or from the passive.  SIDR has its request ID.
std::uint32_t match(const Sessions &s, const RocePacket &pkt)
{
	const CmMad &cm = *pkt.cm;
	std::uint32_t i;

	if (cm.attr == kCmSidrReq || cm.attr == kCmSidrRep) {
		i = lookup(s.by_sidr_id, {pkt.src, pkt.dst, cm.local_id});
		return i != kLoose ? i : lookup(s.by_sidr_id, {pkt.dst, pkt.src, cm.local_id});
	}
	i = lookup(s.by_active_id, {pkt.src, pkt.dst, cm.local_id});
	if (i == kLoose && cm.remote_id)
		i = lookup(s.by_passive_id, {pkt.src, pkt.dst, cm.remote_id});
	if (i == kLoose)
		i = lookup(s.by_active_id, {pkt.dst, pkt.src, cm.remote_id});
	if (i == kLoose && cm.local_id)
		i = lookup(s.by_passive_id, {pkt.dst, pkt.src, cm.local_id});
	return i;
}

// A session begun by PKT: a REQ or SIDR_REQ starts one; any other MAD whose
// exchange began before the capture starts one from what it says.  A REJ
// without a local comm ID answers a REQ (no listener, or a duplicate): it
// comes from the passive side, and names the active side's comm ID.
Session begin(const RocePacket &pkt, std::uint64_t seq)
{
	const CmMad &cm = *pkt.cm;
	const bool rej_to_req = cm.attr == kCmRej && cm.local_id == 0;
	const bool from_passive = cm.attr == kCmRep || cm.attr == kCmSidrRep || rej_to_req;
	Session s;

	s.active = from_passive ? pkt.dst : pkt.src;
	s.passive = from_passive ? pkt.src : pkt.dst;
	s.active_id =
	    from_passive && (cm.attr == kCmRep || rej_to_req) ? cm.remote_id : cm.local_id;
	s.passive_id = cm.attr == kCmRep ? cm.local_id : from_passive ? 0 : cm.remote_id;
	s.sidr = cm.attr == kCmSidrReq || cm.attr == kCmSidrRep;
	s.first = seq;
	return s;
}

void claim(Sessions &s, const IpAddr &src, const IpAddr &dst, std::uint32_t qpn, std::uint32_t i)
{
	s.claims[StreamKey{src, dst, qpn, kNoQpn, kLoose}] = i;
}

} // namespace

std::size_t KeyHash::operator()(const StreamKey &k) const
{
	return mix(mix(mix(hash_addr(hash_addr(0, k.src), k.dst), k.dqpn), k.sqpn), k.owner);
}

std::size_t KeyHash::operator()(const IdKey &k) const
{
	return mix(hash_addr(hash_addr(0, k.active), k.passive), k.id);
}

std::uint32_t cm_session(Sessions &s, const RocePacket &pkt, std::uint64_t seq)
{
	const CmMad &cm = *pkt.cm;
	std::uint32_t i = match(s, pkt);

	if (i == kLoose) {
		i = static_cast<std::uint32_t>(s.list.size());
		s.list.push_back(begin(pkt, seq));
		const Session &b = s.list.back();
		if (b.sidr) {
			s.by_sidr_id.try_emplace({b.active, b.passive, b.active_id}, i);
		} else {
			s.by_active_id.try_emplace({b.active, b.passive, b.active_id}, i);
			if (b.passive_id)
				s.by_passive_id.try_emplace({b.active, b.passive, b.passive_id}, i);
		}
	}
	Session &ses = s.list[i];
	if (cm.sport)
		ses.ports = {{*cm.sport, *cm.dport}};
	switch (cm.attr) {
	case kCmReq:
	case kCmSidrReq:
		ses.req_seen = true;
		ses.ports_cut |= cm.ports_cut;
		if (cm.attr == kCmReq && cm.qpn) {
			ses.active_qpn = cm.qpn;
			claim(s, ses.passive, ses.active, *cm.qpn, i);
		}
		break;
	case kCmRep:
		if (!ses.passive_id && cm.local_id) {
			ses.passive_id = cm.local_id;
			s.by_passive_id.try_emplace({ses.active, ses.passive, cm.local_id}, i);
		}
		[[fallthrough]];
	case kCmSidrRep:
		if (cm.qpn) {
			ses.passive_qpn = cm.qpn;
			claim(s, ses.active, ses.passive, *cm.qpn, i);
		}
		break;
	default:
		break;
	}
	return i;
}

std::uint32_t data_owner(Sessions &s, const RocePacket &pkt)
{
	auto it = s.claims.find(StreamKey{pkt.src, pkt.dst, pkt.dest_qp, kNoQpn, kLoose});
	if (it == s.claims.end())
		return kLoose;
	const std::uint32_t i = it->second;
	Session &ses = s.list[i];
	if (ses.sidr && !ses.active_qpn && pkt.src_qp && pkt.src == ses.active) {
		ses.active_qpn = *pkt.src_qp;
		claim(s, ses.passive, ses.active, *pkt.src_qp, i);
	}
	return i;
}

} // namespace roce::capture_detail
