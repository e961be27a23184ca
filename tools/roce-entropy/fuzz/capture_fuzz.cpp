// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the capture reader behind `roce-entropy pcap`.
//
// The first byte says what the rest of the input is:
//   0 mod 4   a capture file (pcap or pcapng), read by read_capture()
//             through a memfd, then grouped by judge_capture() under every
//             policy, builtin included, and as a mixed fleet;
//   1, 2, 3   one frame for parse_frame(), as Ethernet (VLAN tags, VXLAN,
//             GRE and ERSPAN, IPv6 extension headers included), Linux
//             cooked (SLL) or Linux cooked v2 (SLL2); with bit 2 set, the
//             IP and UDP length fields are first made to end where the
//             frame ends, so that a frame cut anywhere still parses as far
//             as it goes, and a read past the UDP payload is a read past
//             the buffer, which ASan sees; with bit 3 set, the frame was
//             longer on the wire than captured (by 64 times the first
//             byte's top four bits, plus one), as under a snap length.
// Besides the sanitizers, each result is checked against what the reader
// promises (field widths, every packet in exactly one connection, ...);
// a broken promise aborts, and libFuzzer reports it as a crash.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <pcap/pcap.h>
#include <set>
#include <string>
#include <sys/mman.h>
#include <unistd.h>
#include <vector>

#include "capture/capture.h"

namespace
{

int capture_fd = -1;
std::string capture_path;

[[noreturn]] void broken(const char *promise)
{
	std::fprintf(stderr, "capture_fuzz: broken promise: %s\n", promise);
	std::abort();
}

void expect(bool ok, const char *promise)
{
	if (!ok)
		broken(promise);
}

void check_packet(const roce::RocePacket &p)
{
	expect(p.src.v6 == p.dst.v6, "both addresses are of one family");
	expect(p.dest_qp <= 0xFFFFFF, "the destination QPN has 24 bits");
	expect(!p.src_qp || *p.src_qp <= 0xFFFFFF, "the DETH's source QPN has 24 bits");
	expect(p.flow_label <= roce::kFlowLabelMask, "the flow label has 20 bits");
	expect(p.ipv6() || p.flow_label == 0, "IPv4 has no flow label");
	expect(!p.cm || p.src_qp, "a CM MAD comes with a DETH");
	if (p.cm) {
		expect(!p.cm->qpn || *p.cm->qpn <= 0xFFFFFF, "a CM MAD's QPN has 24 bits");
		expect(p.cm->sport.has_value() == p.cm->dport.has_value(),
		       "rdma_cm ports come in pairs");
	}
}

// POLICY: the one of every host, or nullopt for a mixed fleet.
void check_summary(const roce::CaptureSummary &sum, std::size_t packets,
                   std::optional<roce::Policy> policy)
{
	using roce::Verdict;
	unsigned total = 0, counted[3] = {};

	for (const auto &c : sum.connections) {
		expect(c.packets > 0, "a connection has packets");
		expect(c.forward.packets + c.reverse.packets == c.packets,
		       "a connection's packets go one way or the other");
		expect(c.qpns.size() <= 2, "a connection has at most two QPNs");
		expect(c.cm_mads <= c.packets, "CM MADs are packets of their connection");
		expect(!c.udp_sports.empty(), "a connection has a UDP source port");
		expect(c.consistent == (c.verdict != Verdict::Disagrees),
		       "consistent means not disagreeing");
		expect(c.verdict != Verdict::Agrees || (c.mismatched == 0 && c.unpredicted == 0),
		       "an agreeing connection has every packet on its prediction");
		expect(c.verdict != Verdict::Unjudged || (c.unpredicted > 0 && c.mismatched == 0),
		       "an unjudged connection has packets without a prediction, none off one");
		expect(c.unpredicted == 0 || !c.unjudged_reason.empty(),
		       "packets without a prediction come with the reason");
		expect(c.verdict != Verdict::Agrees || !c.judged_by.empty(),
		       "an agreeing connection says what judged it");
		// (builtin predicts per kind of packet and sending QP: no such bound)
		if (policy && *policy != roce::Policy::Builtin && c.verdict == Verdict::Agrees &&
		    c.expected_flow_label)
			expect(c.udp_sports == std::set{roce::udp_sport(*c.expected_flow_label)},
			       "an agreeing connection of one flow label has its port");
		expect(c.mismatched + c.unpredicted <= c.packets,
		       "mismatched and unpredicted packets are packets of their connection");
		expect(c.forward.cm_packets + c.reverse.cm_packets == c.cm_mads,
		       "each CM MAD goes one way or the other");
		expect(policy != roce::Policy::Builtin || !c.expected_flow_label,
		       "builtin predicts per packet, not one flow label per connection");
		expect(!c.expected_flow_label || *c.expected_flow_label <= roce::kFlowLabelMask,
		       "the expected flow label has 20 bits");
		total += c.packets;
		counted[static_cast<int>(c.verdict)]++;
	}
	expect(total == packets, "every packet is in exactly one connection");
	expect(sum.packets == total, "the summary counts every packet");
	expect(sum.agree == counted[0] && sum.inconsistent == counted[1] &&
	           sum.unjudged == counted[2],
	       "the summary counts each verdict");
	expect(sum.distinct_udp_sports <= total, "no more ports than packets");
}

void judge(const std::vector<roce::RocePacket> &packets)
{
	for (auto policy :
	     {roce::Policy::Off, roce::Policy::Rfc, roce::Policy::Mix, roce::Policy::Builtin}) {
		check_summary(roce::judge_capture(packets, policy, 0), packets.size(), policy);
		check_summary(roce::judge_capture(packets, policy, 0x5A5A5), packets.size(),
		              policy);
	}
	if (packets.empty())
		return;
	// A mixed fleet: the first packet's sender under builtin, its receiver
	// under mix, the rest under rfc.
	roce::JudgeConfig cfg;
	cfg.hosts[packets[0].src] = roce::Policy::Builtin;
	cfg.hosts.emplace(packets[0].dst, roce::Policy::Mix);
	check_summary(roce::judge_capture(packets, cfg), packets.size(), std::nullopt);
}

void fuzz_capture_file(const std::uint8_t *data, std::size_t size)
{
	if (ftruncate(capture_fd, 0) || pwrite(capture_fd, data, size, 0) != ssize_t(size))
		broken("the memfd takes the input");
	roce::ReadCounts counts;
	std::vector<roce::RocePacket> packets;
	try {
		packets = roce::read_capture(capture_path, counts);
	} catch (const roce::CaptureError &) {
		return; // not a capture, or a link type it refuses: a clean error
	}
	for (const auto &p : packets)
		check_packet(p);
	judge(packets);
}

void put16(std::vector<std::uint8_t> &b, std::size_t off, std::size_t v)
{
	if (off + 2 <= b.size() && v <= 0xFFFF) {
		b[off] = static_cast<std::uint8_t>(v >> 8);
		b[off + 1] = static_cast<std::uint8_t>(v);
	}
}

// Make the IPv4 total length or IPv6 payload length, and the UDP length,
// end at the end of FRAME.
void fit_lengths(int linktype, std::vector<std::uint8_t> &frame)
{
	std::size_t off = linktype == DLT_LINUX_SLL ? 16 : linktype == DLT_LINUX_SLL2 ? 20 : 12;

	if (linktype == DLT_EN10MB) {
		while (off + 2 <= frame.size() && ((frame[off] == 0x81 && frame[off + 1] == 0x00) ||
		                                   (frame[off] == 0x88 && frame[off + 1] == 0xA8) ||
		                                   (frame[off] == 0x91 && frame[off + 1] == 0x00)))
			off += 4; // VLAN tags
		off += 2;
	}
	if (off >= frame.size())
		return;
	const std::size_t l3 = frame.size() - off;
	if (frame[off] >> 4 == 4) {
		const std::size_t ihl = (frame[off] & 0xFu) * 4;
		put16(frame, off + 2, l3);
		if (l3 >= ihl)
			put16(frame, off + ihl + 4, l3 - ihl);
	} else if (frame[off] >> 4 == 6 && l3 >= 40) {
		put16(frame, off + 4, l3 - 40);
		put16(frame, off + 44, l3 - 40);
	}
}

void fuzz_frame(int linktype, bool fit, std::size_t more, const std::uint8_t *data,
                std::size_t size)
{
	// A copy of exactly SIZE bytes, so that ASan sees a read past the end.
	std::vector<std::uint8_t> frame(data, data + size);
	roce::RocePacket pkt;

	if (fit)
		fit_lengths(linktype, frame);

	if (roce::parse_frame(linktype, frame.data(), frame.size(), pkt, frame.size() + more) !=
	    roce::ParseStatus::Roce)
		return;
	expect(pkt.cut == (more > 0), "a packet cut by the snap length says so");
	check_packet(pkt);
	judge({pkt, pkt});
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	capture_fd = memfd_create("capture_fuzz", 0);
	if (capture_fd < 0) {
		std::perror("capture_fuzz: memfd_create");
		std::exit(1);
	}
	capture_path = "/proc/self/fd/" + std::to_string(capture_fd);
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	if (size == 0)
		return -1;
	const bool fit = data[0] & 4;
	const std::size_t more = data[0] & 8 ? 1 + 64u * (data[0] >> 4) : 0;

	switch (data[0] % 4) {
	case 0:
		fuzz_capture_file(data + 1, size - 1);
		break;
	case 1:
		fuzz_frame(DLT_EN10MB, fit, more, data + 1, size - 1);
		break;
	case 2:
		fuzz_frame(DLT_LINUX_SLL, fit, more, data + 1, size - 1);
		break;
	default:
		fuzz_frame(DLT_LINUX_SLL2, fit, more, data + 1, size - 1);
		break;
	}
	return 0;
}
