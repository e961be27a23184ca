// SPDX-License-Identifier: GPL-2.0
// CM MADs into sessions: one per REQ or SIDR_REQ, or per exchange that
// began before the capture.
#include "capture/group.h"

namespace roce::capture_detail
{
namespace
{

// Which session a CM MAD belongs to; REQ and SIDR_REQ start one.
CmSession *match_session(std::vector<CmSession> &sessions, const RocePacket &pkt)
{
	const CmMad &cm = *pkt.cm;

	for (auto &s : sessions) {
		const bool from_active = pkt.src == s.active && pkt.dst == s.passive;
		const bool from_passive = pkt.src == s.passive && pkt.dst == s.active;
		if (s.sidr) {
			if ((from_active || from_passive) && cm.local_id == s.active_id &&
			    (cm.attr == kCmSidrReq || cm.attr == kCmSidrRep))
				return &s;
			continue;
		}
		if (from_active &&
		    (cm.local_id == s.active_id || (s.passive_id && cm.remote_id == s.passive_id)))
			return &s;
		if (from_passive &&
		    (cm.remote_id == s.active_id || (s.passive_id && cm.local_id == s.passive_id)))
			return &s;
	}
	return nullptr;
}

} // namespace

std::vector<CmSession> cm_sessions(const std::vector<RocePacket> &packets)
{
	std::vector<CmSession> sessions;

	for (const auto &pkt : packets) {
		if (!pkt.cm)
			continue;
		const CmMad &cm = *pkt.cm;
		CmSession *s = match_session(sessions, pkt);
		if (!s) {
			// A REQ or SIDR_REQ starts a session; any other MAD
			// whose session began before the capture starts one
			// from what it says.  A REJ without a local comm ID
			// answers a REQ (no listener, or a duplicate): it
			// comes from the passive side, and names the active
			// side's comm ID.
			const bool rej_to_req = cm.attr == kCmRej && cm.local_id == 0;
			const bool from_passive =
			    cm.attr == kCmRep || cm.attr == kCmSidrRep || rej_to_req;
			CmSession fresh;
			fresh.active = from_passive ? pkt.dst : pkt.src;
			fresh.passive = from_passive ? pkt.src : pkt.dst;
			fresh.active_id = from_passive && (cm.attr == kCmRep || rej_to_req)
			                      ? cm.remote_id
			                      : cm.local_id;
			fresh.passive_id = cm.attr == kCmRep ? cm.local_id
			                   : from_passive    ? 0
			                                     : cm.remote_id;
			fresh.sidr = cm.attr == kCmSidrReq || cm.attr == kCmSidrRep;
			sessions.push_back(fresh);
			s = &sessions.back();
		}
		s->mads.push_back(&pkt);
		if (cm.sport)
			s->ports = {{*cm.sport, *cm.dport}};
		if (cm.attr == kCmReq)
			s->active_qpn = cm.qpn;
		if (cm.attr == kCmRep) {
			s->passive_id = cm.local_id;
			s->passive_qpn = cm.qpn;
		}
		if (cm.attr == kCmSidrRep)
			s->passive_qpn = cm.qpn;
	}
	return sessions;
}

} // namespace roce::capture_detail
