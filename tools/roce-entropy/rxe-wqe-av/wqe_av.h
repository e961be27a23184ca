// SPDX-License-Identifier: GPL-2.0
// rxe-wqe-av: UD sends whose address vector is written by hand into rxe's
// user-mapped send queue, as an old or hostile provider would (see
// main.cpp for how and why).  This header: the options, and the
// pieces that work on plain memory (the /proc/self/maps reader, the queue
// header check, the search for the marked WQE, the hand-made WQE), kept
// apart from the verbs so that they can be tested without a device.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace roce::wqe_av
{

struct Options {
	std::string send_dev, recv_dev;         // rxea, rxeb
	unsigned send_gid = 0, recv_gid = 0;    // RoCE v2 GID indexes (IPv4-mapped)
	std::array<std::uint8_t, 6> dmac{};     // the next hop's MAC, for the AV
	std::vector<unsigned> av_ports{2, 255}; // av.port_num of the hostile sends
	std::uint32_t av_flow_label = 0;        // grh.flow_label of every send
	std::optional<unsigned> av_sgid_index;  // the hostile AVs' (default send_gid)
	unsigned timeout = 10;                  // seconds for each completion and arrival
};

// Parse ARGV into OPTS.  Returns nothing when the options are good, or the
// exit status (0 for --help, 2 for a usage error, with a message on ERR).
std::optional<int> parse_args(int argc, const char *const *argv, Options &opts, std::ostream &out,
                              std::ostream &err);

// "aa:bb:cc:dd:ee:ff" (hex digits, either case); nothing if malformed.
std::optional<std::array<std::uint8_t, 6>> parse_mac(std::string_view text);

// One line of /proc/PID/maps.
struct MapRegion {
	std::uintptr_t start = 0, end = 0;
	std::string perms; // "rw-s"
	std::string path;  // empty for anonymous memory
};
std::optional<MapRegion> parse_maps_line(std::string_view line);

// The geometry of an rxe queue, read from the struct rxe_queue_buf at the
// start of its mapping.
struct QueueGeometry {
	unsigned log2_elem_size = 0;
	std::uint32_t slots = 0; // index_mask + 1
	std::uint32_t producer = 0, consumer = 0;

	std::size_t elem_size() const
	{
		return std::size_t{1} << log2_elem_size;
	}
};

// The header at BASE, when LEN bytes could be an rxe queue of send WQEs
// with at least one SGE: a sane element size and power-of-two slot count,
// slots that fit in the mapping, indexes within the mask.
std::optional<QueueGeometry> send_queue_geometry(const std::byte *base, std::size_t len);

// Where a send WQE's SGEs start, in the kernel's layout.  The uapi puts
// them in a __DECLARE_FLEX_ARRAY, a flexible array behind an empty struct:
// C gives that struct no bytes, C++ one, so in C++ sizeof(rxe_dma_info) is
// 32 and the array sits 8 bytes too far.  The kernel's SGEs follow
// dma.reserved: byte 24 of dma, 208 of the WQE.
inline constexpr std::size_t kWqeSgeOffset = 208;

// What identifies the normal send's WQE in the send queue.
struct Marker {
	std::uint64_t wr_id = 0;
	std::uint32_t remote_qpn = 0;
	std::uint64_t sge_addr = 0;
	std::uint32_t sge_lkey = 0;
};

// The slots of the queue at BASE holding an IBV_WR_SEND WQE with the
// marker's wr_id, remote QPN and single SGE.
std::vector<std::uint32_t> find_marked_slots(const std::byte *base, const QueueGeometry &geo,
                                             const Marker &marker);

// The address a hostile WQE carries.
struct HandAv {
	std::uint8_t port_num = 0;
	std::array<std::uint8_t, 6> dmac{};
	std::array<std::uint8_t, 16> dgid{};
	std::uint32_t saddr = 0, daddr = 0; // IPv4, network order
	std::uint8_t sgid_index = 0;
	std::uint32_t flow_label = 0;
	std::uint8_t hop_limit = 64;
};

// A WQE made from TEMPLATE (a whole slot, the normal send as the kernel
// left it): same opcode, flags, destination QP and Q_Key, SGE and lkey;
// a fresh wr_id, the template's ssn plus SEQ, the state of a newly posted
// WQE, ah_num 0 and the address vector AV written in by hand.  Empty if
// TEMPLATE cannot hold a WQE with one SGE.
std::vector<std::byte> hostile_wqe(std::span<const std::byte> templ, std::uint64_t wr_id,
                                   std::uint32_t seq, const HandAv &av);

// The IPv4 address of an IPv4-mapped GID (::ffff:a.b.c.d), network order.
std::optional<std::uint32_t> gid_ipv4(const std::array<std::uint8_t, 16> &gid);

// Run the sends; print JSON on OUT.  0 when the program worked, 1 if not.
int run(const Options &opts, std::ostream &out, std::ostream &err);

} // namespace roce::wqe_av
