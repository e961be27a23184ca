// SPDX-License-Identifier: GPL-2.0
// RoCE v2 captures: read with libpcap, group into connections, and judge
// each connection's UDP source ports and IPv6 flow labels against the
// policy's prediction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "entropy.h"

namespace roce
{

// The CM MAD attributes the grouping uses (IBTA vol. 1, 12.6).
enum CmAttr : std::uint16_t {
	kCmReq = 0x10,
	kCmMra = 0x11,
	kCmRej = 0x12,
	kCmRep = 0x13,
	kCmRtu = 0x14,
	kCmDreq = 0x15,
	kCmDrep = 0x16,
	kCmSidrReq = 0x17,
	kCmSidrRep = 0x18,
};

struct CmMad {
	std::uint16_t attr = 0;
	std::uint32_t local_id = 0;                // local comm ID; SIDR: request ID
	std::uint32_t remote_id = 0;               // remote comm ID
	std::uint32_t qpn = 0;                     // REQ, REP: local QPN; SIDR_REP: QPN
	std::optional<std::uint16_t> sport, dport; // REQ, SIDR_REQ: rdma_cm ports
};

struct RocePacket {
	std::string src, dst; // IP addresses as text
	bool ipv6 = false;
	std::uint32_t flow_label = 0; // IPv6 only
	std::uint16_t udp_sport = 0;
	std::uint8_t opcode = 0;
	std::uint32_t dest_qp = 0;
	std::optional<std::uint32_t> src_qp; // UD: from the DETH
	std::optional<CmMad> cm;             // a CM MAD (to QP1)
};

enum class ParseStatus { Roce, NotRoce, Malformed };

// Parse one captured frame of LINKTYPE (DLT_EN10MB or DLT_LINUX_SLL) of
// CAPLEN captured bytes.  Fills PKT when the result is Roce.
ParseStatus parse_frame(int linktype, const std::uint8_t *data, std::size_t caplen,
                        RocePacket &pkt);

// What one direction of a connection carried.
struct Direction {
	unsigned packets = 0;
	std::set<std::uint16_t> udp_sports;
	std::set<std::uint16_t> cm_udp_sports, data_udp_sports; // the two apart
	std::set<std::uint32_t> flow_labels;                    // IPv6 only
};

struct Connection {
	std::string src, dst; // src: the active side when CM was seen
	bool ipv6 = false;
	bool ud = false;
	std::vector<std::uint32_t> qpns; // src's, dst's (when known)
	std::optional<std::pair<std::uint16_t, std::uint16_t>> cm_ports;
	std::set<std::uint16_t> udp_sports;
	std::set<std::uint32_t> flow_labels; // IPv6 only
	Direction forward, reverse;          // src to dst, dst to src
	std::optional<std::uint32_t> expected_flow_label;
	unsigned packets = 0;
	unsigned cm_mads = 0;
	bool consistent = false;
};

struct CaptureSummary {
	std::vector<Connection> connections;
	unsigned packets = 0;   // RoCE v2 packets
	unsigned not_roce = 0;  // other frames, skipped
	unsigned malformed = 0; // truncated or malformed RoCE v2 frames, skipped
	unsigned distinct_udp_sports = 0;
	unsigned inconsistent = 0;
};

// Group PACKETS into connections and judge them under POLICY; APP_FL, when
// not 0, is the flow label the application set (it wins everywhere).
CaptureSummary judge_capture(const std::vector<RocePacket> &packets, Policy policy,
                             std::uint32_t app_fl);

struct CaptureError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Read every frame of the capture FILE (pcap or pcapng).  NOT_ROCE and
// MALFORMED count what was skipped.  Throws CaptureError when the file
// cannot be read or has an unsupported link type.
std::vector<RocePacket> read_capture(const std::string &file, unsigned &not_roce,
                                     unsigned &malformed);

} // namespace roce
