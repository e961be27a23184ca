// SPDX-License-Identifier: GPL-2.0
// RoCE v2 captures: read with libpcap, group into connections, and judge
// each connection's UDP source ports and IPv6 flow labels against the
// policy's prediction.  Reading and judging stream: the state kept grows
// with the connections, never with the packets.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
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

// An IPv4 address (its four bytes first) or an IPv6 address.
struct IpAddr {
	std::array<std::uint8_t, 16> bytes{};
	bool v6 = false;

	// "10.1.0.2", "fd01::2"; parse() takes the same and nothing else.
	std::string text() const;
	static std::optional<IpAddr> parse(std::string_view text);
	friend auto operator<=>(const IpAddr &, const IpAddr &) = default;
};

struct CmMad {
	std::uint16_t attr = 0;
	std::uint32_t local_id = 0;  // local comm ID; SIDR: request ID
	std::uint32_t remote_id = 0; // remote comm ID
	// REQ, REP: the sender's QPN; SIDR_REP: the QPN (none if not captured).
	std::optional<std::uint32_t> qpn;
	std::optional<std::uint16_t> sport, dport; // REQ, SIDR_REQ: rdma_cm ports
	// REQ, SIDR_REQ: the snap length cut the service ID or the ports.
	bool ports_cut = false;
};

struct RocePacket {
	IpAddr src, dst;              // the innermost IP header's
	std::uint32_t flow_label = 0; // IPv6 only
	std::uint16_t udp_sport = 0;
	std::uint8_t opcode = 0;
	std::uint32_t dest_qp = 0;
	std::optional<std::uint32_t> src_qp; // UD: from the DETH
	std::optional<CmMad> cm;             // a CM MAD (to QP1)
	bool cut = false;                    // the capture kept only part of the frame
	// The interface it was captured on: Linux cooked captures v2 (an
	// "any" capture) name it, by index.
	std::optional<std::uint32_t> ifindex;

	bool ipv6() const
	{
		return src.v6;
	}
};

// Roce: PKT is filled.  Truncated: the snap length cut the frame before
// what the judge needs (the BTH, a UD packet's DETH, a MAD's header and
// comm IDs).  Malformed: a length field that its frame contradicts.
enum class ParseStatus { Roce, NotRoce, Malformed, Truncated };

// Parse one captured frame of LINKTYPE (DLT_EN10MB, DLT_LINUX_SLL or
// DLT_LINUX_SLL2) of CAPLEN captured bytes, WIRELEN on the wire (0: as
// captured).  VLAN and QinQ tags, IPv6 extension headers, VXLAN and GRE
// (ERSPAN types I to III, transparent Ethernet, IP) are looked through to
// the innermost RoCE v2 packet.
ParseStatus parse_frame(int linktype, const std::uint8_t *data, std::size_t caplen, RocePacket &pkt,
                        std::size_t wirelen = 0);

// What one direction of a connection carried.
struct Direction {
	Policy policy = Policy::Rfc; // its sender's
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
	// builtin, from its first stream's source QPN); none without data or
	// without a prediction that counts.
	std::optional<WireEntropy> expected_data;
};

std::string_view verdict_name(Verdict v); // "ok", "disagrees", "unjudged"

// A connection is judged packet by packet (lib/capture/judge.cpp and the
// README say what each policy predicts).  Agrees: every packet is on its
// prediction.  Disagrees: a packet is off its prediction, or the packets
// with none do not share one port and flow label.  Unjudged: some packets
// have no prediction the capture can support (no CM seen where the policy
// needs the CM ports, one QPN of an RC pair), and the rest agree.
struct Connection {
	std::string src, dst; // src: the active side when CM was seen
	bool ipv6 = false;
	bool ud = false;
	std::vector<std::uint32_t> qpns; // src's, dst's (when known)
	std::optional<std::pair<std::uint16_t, std::uint16_t>> cm_ports;
	std::set<std::uint16_t> udp_sports;
	std::set<std::uint32_t> flow_labels; // IPv6 only
	Direction forward, reverse;          // src to dst, dst to src
	// The one flow label of every packet, when all predict one (off, rfc,
	// mix; never under builtin, whose rxe sends none).
	std::optional<std::uint32_t> expected_flow_label;
	std::optional<WireEntropy> expected_cm; // its CM MADs, both ways
	unsigned packets = 0;
	unsigned cm_mads = 0;
	unsigned mismatched = 0;  // packets off their prediction
	unsigned unpredicted = 0; // packets with no prediction that counts
	Verdict verdict = Verdict::Unjudged;
	bool consistent = false;         // not Disagrees
	std::set<std::string> judged_by; // "cm_ports", "qpns", "flow_label", ...
	std::string unjudged_reason;     // why, when unpredicted
};

// Frames that gave no RoCE v2 packet, and packets the snap length cut.
struct ReadCounts {
	unsigned not_roce = 0;  // other frames, skipped
	unsigned malformed = 0; // RoCE v2 frames with lying lengths, skipped
	unsigned truncated = 0; // cut before what the judge needs, skipped
	unsigned cut = 0;       // RoCE v2 packets read as far as they were kept
};

struct CaptureSummary {
	std::vector<Connection> connections;
	unsigned packets = 0; // RoCE v2 packets
	unsigned distinct_udp_sports = 0;
	unsigned agree = 0, inconsistent = 0, unjudged = 0; // connections by verdict
};

// What a capture is judged against.
struct JudgeConfig {
	Policy policy = Policy::Rfc;                    // every host not in HOSTS
	std::map<IpAddr, Policy> hosts;                 // --policy-for
	std::uint32_t app_fl = 0;                       // the application's flow label (wins)
	std::map<std::uint16_t, std::uint32_t> port_fl; // by rdma_cm service port

	Policy policy_of(const IpAddr &host) const;
};

// Judges a capture fed packet by packet; finish() once, at the end.
class CaptureJudge
{
public:
	explicit CaptureJudge(JudgeConfig cfg);
	~CaptureJudge();
	CaptureJudge(const CaptureJudge &) = delete;
	CaptureJudge &operator=(const CaptureJudge &) = delete;

	void add(const RocePacket &pkt);
	CaptureSummary finish();

	struct State;

private:
	std::unique_ptr<State> s_;
};

CaptureSummary judge_capture(const std::vector<RocePacket> &packets, const JudgeConfig &cfg);

// The same with one POLICY for every host; APP_FL, when not 0, is the flow
// label the application set (it wins everywhere); PORT_FL gives the flow
// label the applications of some rdma_cm services set, by service port.
CaptureSummary judge_capture(const std::vector<RocePacket> &packets, Policy policy,
                             std::uint32_t app_fl,
                             const std::map<std::uint16_t, std::uint32_t> &port_fl = {});

struct CaptureError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Read the capture FILE (pcap or pcapng) frame by frame, handing each RoCE
// v2 packet to ON_PACKET.  Throws CaptureError when the file cannot be
// read or has an unsupported link type.
ReadCounts read_capture(const std::string &file,
                        const std::function<void(const RocePacket &)> &on_packet);

// Every RoCE v2 packet of FILE at once (tests, the fuzzer).
std::vector<RocePacket> read_capture(const std::string &file, ReadCounts &counts);

} // namespace roce
