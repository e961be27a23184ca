// SPDX-License-Identifier: GPL-2.0
// The judge's state, shared by its files: packets summed into streams as
// they come (collect.cpp), CM sessions (sessions.cpp), streams grouped into
// connections at the end (group.cpp), and the verdict on one (judge.cpp).
// Nothing here grows with the packets: a stream keeps, per UDP source
// port, flow label and CM attribute it saw, a count, and one per interface
// it was captured on.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "capture/capture.h"

namespace roce::capture_detail
{

inline constexpr std::uint32_t kNoQpn = 0xFFFFFFFF; // an RC stream's source QPN
inline constexpr std::uint32_t kLoose = 0xFFFFFFFF; // a stream no session claimed
inline constexpr std::uint32_t kDataAttr = 0x10000; // a tally of data, not CM MADs

// Packets from SRC to DST's QP DQPN, from SQPN for UD, that went to OWNER
// (a session's index, or kLoose).
struct StreamKey {
	IpAddr src, dst;
	std::uint32_t dqpn = 0, sqpn = kNoQpn, owner = kLoose;

	friend bool operator==(const StreamKey &, const StreamKey &) = default;
};

// A session's comm ID (or SIDR request ID) between its two sides.
struct IdKey {
	IpAddr active, passive;
	std::uint32_t id = 0;

	friend bool operator==(const IdKey &, const IdKey &) = default;
};

struct KeyHash {
	std::size_t operator()(const StreamKey &k) const;
	std::size_t operator()(const IdKey &k) const;
};

// (UDP source port, flow label, CM attribute or kDataAttr) -> packets.
using Tally = std::map<std::tuple<std::uint16_t, std::uint32_t, std::uint32_t>, unsigned>;

struct Stream {
	StreamKey key;
	std::uint64_t first = 0; // the number of its first packet
	Tally tally;
	// Interface index (Linux cooked captures v2) -> packets.
	std::map<std::uint32_t, unsigned> interfaces;

	bool ud() const
	{
		return key.sqpn != kNoQpn;
	}
};

// One CM exchange: begun by a REQ or SIDR_REQ, or by whatever MAD of an
// exchange that began before the capture came first.
struct Session {
	IpAddr active, passive;
	std::uint32_t active_id = 0, passive_id = 0;
	std::optional<std::uint32_t> active_qpn, passive_qpn;
	std::optional<std::pair<std::uint16_t, std::uint16_t>> ports;
	bool sidr = false;
	bool req_seen = false;  // its REQ or SIDR_REQ
	bool ports_cut = false; // ... cut before its rdma_cm ports
	std::uint64_t first = 0;
};

struct Sessions {
	std::vector<Session> list;
	std::unordered_map<IdKey, std::uint32_t, KeyHash> by_active_id, by_passive_id, by_sidr_id;
	// Who receives data to a QPN (StreamKey without sqpn and owner): the
	// session that named it last.
	std::unordered_map<StreamKey, std::uint32_t, KeyHash> claims;
};

// The session of the CM MAD PKT (packet number SEQ), begun if none is.
std::uint32_t cm_session(Sessions &s, const RocePacket &pkt, std::uint64_t seq);

// The session that claims the data packet PKT, or kLoose; a SIDR session
// learns its active side's QPN from the first send it claims.
std::uint32_t data_owner(Sessions &s, const RocePacket &pkt);

struct Group {
	Connection conn;
	std::vector<const Stream *> streams; // by their first packet
	const Session *session = nullptr;
};

// The streams as connections: the sessions' first, then UD paired by its
// QPNs, then RC and UC paired as group.cpp says.
std::vector<Group> make_groups(const Sessions &s,
                               const std::unordered_map<StreamKey, Stream, KeyHash> &streams);

// Count G's packets and judge them under CFG.
void judge_group(Group &g, const JudgeConfig &cfg);

} // namespace roce::capture_detail
