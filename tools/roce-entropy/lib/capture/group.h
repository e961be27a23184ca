// SPDX-License-Identifier: GPL-2.0
// The pieces of judge_capture() shared by its files: packets grouped into
// connections, CM sessions, and the verdict on one group.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "capture/capture.h"

namespace roce::capture_detail
{

struct Group {
	Connection conn;
	std::vector<const RocePacket *> packets;
};

struct CmSession {
	std::string active, passive;
	std::uint32_t active_id = 0, passive_id = 0;
	std::optional<std::uint32_t> active_qpn, passive_qpn;
	std::optional<std::pair<std::uint16_t, std::uint16_t>> ports;
	bool sidr = false;
	std::vector<const RocePacket *> mads;
};

// The CM exchanges of PACKETS, in the order they began.
std::vector<CmSession> cm_sessions(const std::vector<RocePacket> &packets);

// Judge every packet of G against its prediction under POLICY; APP_FL, when
// not 0, is the application's flow label.
void judge_group(Group &g, Policy policy, std::uint32_t app_fl);

} // namespace roce::capture_detail
