// SPDX-License-Identifier: GPL-2.0
// RoCE v2 captures: read with libpcap, group into connections, and judge
// each connection's UDP source ports and IPv6 flow labels against the
// policy's prediction.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "entropy/entropy.h"

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

// "REQ", "DREP"...; "0x0019" for another attribute.
std::string cm_attr_name(std::uint16_t attr);

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
	// The interface it was captured on: Linux cooked captures v2 (an
	// "any" capture) name it, by index.
	std::optional<std::uint32_t> ifindex;
};

enum class ParseStatus { Roce, NotRoce, Malformed };

// Parse one captured frame of LINKTYPE (DLT_EN10MB or DLT_LINUX_SLL) of
// CAPLEN captured bytes.  Fills PKT when the result is Roce.
ParseStatus parse_frame(int linktype, const std::uint8_t *data, std::size_t caplen,
                        RocePacket &pkt);

// What one direction of a connection carried.
struct Direction {
	unsigned packets = 0;
	unsigned cm_packets = 0;                    // of them CM MADs; the rest is data
	std::map<std::uint16_t, unsigned> cm_attrs; // CM MADs by attribute
	std::set<std::uint16_t> udp_sports;
	std::set<std::uint16_t> cm_udp_sports, data_udp_sports; // the two apart
	std::set<std::uint32_t> flow_labels;                    // IPv6 only
	// Packets per interface they were captured on (Linux cooked captures
	// v2 only): which link each packet took, in a capture on several.
	std::map<std::uint32_t, unsigned> interfaces;
	// What the policy predicts for this direction's data (for UD under
	// linux, from its first packet's source QPN); none without data.
	std::optional<WireEntropy> expected_data;
};

// The prediction is made per packet.  Under off, rfc and mix it is one flow
// label per connection, from its CM ports or QPNs, and every packet (CM
// MADs included, both ways) must carry its fold and, over IPv6, the flow
// label itself.  Under linux (stock 6.12 rxe) it depends on the packet's
// kind: CM MADs on QP1's own port, UD data on its sending QP's, RC data on
// the fold of 6.12's flow label, and flow label 0 on every packet.  A
// packet with nothing to predict from counts as unpredicted: those of a
// connection must then share one port and one flow label.
struct Connection {
	std::string src, dst; // src: the active side when CM was seen
	bool ipv6 = false;
	bool ud = false;
	std::vector<std::uint32_t> qpns; // src's, dst's (when known)
	std::optional<std::pair<std::uint16_t, std::uint16_t>> cm_ports;
	std::set<std::uint16_t> udp_sports;
	std::set<std::uint32_t> flow_labels; // IPv6 only
	Direction forward, reverse;          // src to dst, dst to src
	// off, rfc, mix: the one flow label of the whole connection.
	std::optional<std::uint32_t> expected_flow_label;
	std::optional<WireEntropy> expected_cm; // its CM MADs, both ways
	unsigned packets = 0;
	unsigned cm_mads = 0;
	unsigned mismatched = 0;  // packets off their prediction
	unsigned unpredicted = 0; // packets with nothing to predict from
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
// PORT_FL gives the flow label the applications of some rdma_cm services
// set, by service port; it wins over APP_FL on their connections.
CaptureSummary judge_capture(const std::vector<RocePacket> &packets, Policy policy,
                             std::uint32_t app_fl,
                             const std::map<std::uint16_t, std::uint32_t> &port_fl = {});

struct CaptureError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Read every frame of the capture FILE (pcap or pcapng).  NOT_ROCE and
// MALFORMED count what was skipped.  Throws CaptureError when the file
// cannot be read or has an unsupported link type.
std::vector<RocePacket> read_capture(const std::string &file, unsigned &not_roce,
                                     unsigned &malformed);

} // namespace roce
