// SPDX-License-Identifier: GPL-2.0
// rxe-wqe-av's verbs side: the two UD QPs, the normal send, the search for
// the send queue among the uverbs mappings, the hand-written sends and
// their doorbell.  main.cpp says why.
#include <netinet/in.h> // before the uapi headers: glibc's sockaddr_in

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <infiniband/verbs.h>
#include <nlohmann/json.hpp>
#include <random>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <stdexcept>
#include <thread>
#include <unistd.h>

#include "device.h"
#include "verbs/error.h"
#include "wqe_av.h"

namespace roce::wqe_av
{
namespace
{

using Clock = std::chrono::steady_clock;

std::string hex64(std::uint64_t v)
{
	char buf[19];

	std::snprintf(buf, sizeof(buf), "0x%016llx", static_cast<unsigned long long>(v));
	return buf;
}

// A message: its tag, then bytes that depend on it.
void fill_message(std::byte *buf, std::uint64_t tag)
{
	std::memcpy(buf, &tag, sizeof(tag));
	for (unsigned k = sizeof(tag); k < kPayload; k++)
		buf[k] = static_cast<std::byte>((tag + k) & 0xff);
}

// The tag of a received message, if the rest of it is intact.
std::optional<std::uint64_t> message_tag(const std::byte *buf)
{
	std::uint64_t tag;
	std::byte want[kPayload];

	std::memcpy(&tag, buf, sizeof(tag));
	fill_message(want, tag);
	if (std::memcmp(buf, want, kPayload) != 0)
		return std::nullopt;
	return tag;
}

// Completions of CQ until PRED accepts one or TIMEOUT seconds pass; the
// others go to OTHERS.
template <typename Pred>
std::optional<ibv_wc> wait_wc(ibv_cq *cq, unsigned timeout, Pred pred, std::vector<ibv_wc> &others)
{
	const auto deadline = Clock::now() + std::chrono::seconds(timeout);

	for (;;) {
		ibv_wc wc[16];
		const int n = ibv_poll_cq(cq, 16, wc);
		if (n < 0)
			fail("ibv_poll_cq", -n);
		std::optional<ibv_wc> found;
		for (int i = 0; i < n; i++) {
			if (!found && pred(wc[i]))
				found = wc[i];
			else
				others.push_back(wc[i]);
		}
		if (found)
			return found;
		if (Clock::now() > deadline)
			return std::nullopt;
		if (!n)
			std::this_thread::sleep_for(std::chrono::microseconds(500));
	}
}

// The send queue: where it is mapped and which slot the normal send took.
struct Ring {
	std::byte *base = nullptr;
	std::size_t len = 0;
	std::string path;
	QueueGeometry geo;
	std::uint32_t slot = 0;

	std::uint32_t *index(std::size_t offset) const
	{
		return reinterpret_cast<std::uint32_t *>(base + offset);
	}
	std::uint32_t producer() const
	{
		return std::atomic_ref<std::uint32_t>(
		           *index(offsetof(rxe_queue_buf, producer_index)))
		    .load(std::memory_order_relaxed);
	}
	std::uint32_t consumer() const
	{
		return std::atomic_ref<std::uint32_t>(
		           *index(offsetof(rxe_queue_buf, consumer_index)))
		    .load(std::memory_order_acquire);
	}
	// The WQE's stores, then the index: the kernel loads the index with
	// acquire (smp_load_acquire) before it reads the slot.
	void publish(std::uint32_t producer) const
	{
		std::atomic_ref<std::uint32_t>(*index(offsetof(rxe_queue_buf, producer_index)))
		    .store(producer, std::memory_order_release);
	}
	std::byte *slot_addr(std::uint32_t i) const
	{
		return base + sizeof(rxe_queue_buf) +
		       std::size_t{i & (geo.slots - 1)} * geo.elem_size();
	}
};

// Among this process's shared, writable mappings of the sender's uverbs
// device, the one rxe queue whose slot holds the normal send.
Ring find_ring(const std::string &uverbs, const Marker &marker)
{
	std::ifstream maps("/proc/self/maps");
	std::string line;
	std::vector<Ring> found;
	unsigned mappings = 0;
	std::string seen; // for the message if it is not found

	if (!maps)
		fail("/proc/self/maps");
	while (std::getline(maps, line)) {
		const auto r = parse_maps_line(line);
		if (!r || r->perms != "rw-s" || !r->path.ends_with("/" + uverbs))
			continue;
		mappings++;
		Ring ring;
		ring.base = reinterpret_cast<std::byte *>(r->start);
		ring.len = r->end - r->start;
		ring.path = r->path;
		const auto geo = send_queue_geometry(ring.base, ring.len);
		seen += "; " + std::to_string(ring.len) + " bytes: ";
		if (!geo) {
			seen += "no send queue";
			continue;
		}
		ring.geo = *geo;
		const auto slots = find_marked_slots(ring.base, ring.geo, marker);
		seen += std::to_string(ring.geo.slots) + " slots of " +
		        std::to_string(ring.geo.elem_size()) + " bytes, producer " +
		        std::to_string(ring.geo.producer) + ", " + std::to_string(slots.size()) +
		        " marked";
		for (auto slot : slots) {
			ring.slot = slot;
			found.push_back(ring);
		}
	}
	if (found.size() != 1)
		throw VerbsError("cannot locate the send queue: " + std::to_string(found.size()) +
		                 " slots hold the normal send's WQE (wr_id " + hex64(marker.wr_id) +
		                 ") among " + std::to_string(mappings) +
		                 " shared mappings of /dev/" + "infiniband/" + uverbs + seen +
		                 "; is this rdma-core's rxe provider?");
	Ring &ring = found.front();
	// The normal send was the last WQE posted: just before the producer.
	if (ring.slot != ((ring.producer() - 1) & (ring.geo.slots - 1)))
		throw VerbsError("the normal send's WQE is in slot " + std::to_string(ring.slot) +
		                 " of " + ring.path + ", not just before the producer index " +
		                 std::to_string(ring.producer()));
	return ring;
}

struct Send {
	bool hostile = false;
	unsigned av_port = kPort;
	std::uint64_t wr_id = 0, tag = 0;
	std::optional<ibv_wc_status> status; // nothing: no completion in time
	bool received = false;
};

nlohmann::json report(const Device &s, const Device &r, const Ring *ring,
                      const std::vector<Send> &sends, std::size_t stray, bool ok,
                      const std::string &error)
{
	nlohmann::json list = nlohmann::json::array();

	for (const auto &x : sends)
		list.push_back({{"kind", x.hostile ? "hostile" : "normal"},
		                {"av_port", x.av_port},
		                {"wr_id", hex64(x.wr_id)},
		                {"tag", hex64(x.tag)},
		                {"completed", x.status.has_value()},
		                {"status", x.status ? nlohmann::json(ibv_wc_status_str(*x.status))
		                                    : nlohmann::json(nullptr)},
		                {"received", x.received}});
	nlohmann::json j = {{"send_dev", s.name()},
	                    {"recv_dev", r.name()},
	                    {"send_gid", gid_text(s.gid().data())},
	                    {"recv_gid", gid_text(r.gid().data())},
	                    {"sqpn", s.qpn()},
	                    {"dqpn", r.qpn()},
	                    {"ring", nullptr},
	                    {"sends", list},
	                    {"stray_completions", stray},
	                    {"ok", ok}};
	if (ring)
		j["ring"] = {{"path", ring->path},
		             {"slots", ring->geo.slots},
		             {"slot_size", ring->geo.elem_size()},
		             {"normal_slot", ring->slot}};
	if (!ok)
		j["error"] = error;
	return j;
}

} // namespace

int run(const Options &opts, std::ostream &out, std::ostream &err)
{
	// A normal send, the hostile ones, a normal send again.
	const unsigned nhostile = static_cast<unsigned>(opts.av_ports.size());
	const unsigned nsends = nhostile + 2;
	Device s, r;
	std::optional<Ring> ring;
	std::vector<Send> sends;
	std::vector<ibv_wc> stray;
	std::string error;

	try {
		s.open(opts.send_dev, opts.send_gid, 1);
		r.open(opts.recv_dev, opts.recv_gid, nsends);
	} catch (const std::exception &e) {
		err << "rxe-wqe-av: error: " << e.what() << '\n';
		return 1;
	}

	try {
		for (unsigned i = 0; i < nsends; i++)
			r.post_recv(i);
		s.create_ah(r.gid(), opts.av_flow_label);

		// A marker no other WQE or completion of this process holds.
		std::mt19937_64 rng{std::random_device{}()};
		const std::uint64_t marker = (rng() & ~0xffffULL) | 0x5741ULL;

		// Wait for the arrival of X's tag at the receiver.
		auto arrive = [&](Send &x) {
			const auto wc = wait_wc(
			    r.cq(), opts.timeout,
			    [&](const ibv_wc &w) {
				    return w.status == IBV_WC_SUCCESS &&
				           w.byte_len == kGrh + kPayload && w.src_qp == s.qpn() &&
				           w.wr_id < nsends &&
				           message_tag(r.recv_slot(static_cast<unsigned>(w.wr_id)) +
				                       kGrh) == x.tag;
			    },
			    stray);
			x.received = wc.has_value();
		};
		auto complete = [&](Send &x) {
			const auto wc = wait_wc(
			    s.cq(), opts.timeout,
			    [&](const ibv_wc &w) { return w.wr_id == x.wr_id; }, stray);
			if (wc)
				x.status = wc->status;
		};

		// A normal send, through the provider and an AH.
		auto normal_send = [&](std::uint64_t wr_id, const char *which) {
			Send &x = sends.emplace_back();
			x.wr_id = wr_id;
			x.tag = wr_id;
			fill_message(s.send_buf(), x.tag);
			s.post_send(x.wr_id, r.qpn());
			complete(x);
			if (x.status != IBV_WC_SUCCESS)
				throw VerbsError(std::string("the ") + which +
				                 " normal send did not complete successfully");
			arrive(x);
			if (!x.received)
				throw VerbsError(std::string("the ") + which +
				                 " normal send did not arrive");
		};
		normal_send(marker, "first");

		const ibv_sge sge = s.send_sge();
		ring = find_ring(s.uverbs_name(), {marker, r.qpn(), sge.addr, sge.lkey});
		// The template: the whole slot, before anything reuses it.
		const std::vector<std::byte> templ(ring->slot_addr(ring->slot),
		                                   ring->slot_addr(ring->slot) +
		                                       ring->geo.elem_size());

		HandAv av;
		av.dmac = opts.dmac;
		av.dgid = r.gid();
		av.saddr = *gid_ipv4(s.gid());
		av.daddr = *gid_ipv4(r.gid());
		av.sgid_index =
		    static_cast<std::uint8_t>(opts.av_sgid_index.value_or(s.gid_index()));
		av.flow_label = opts.av_flow_label;

		for (unsigned k = 1; k <= nhostile; k++) {
			Send &x = sends.emplace_back();
			x.hostile = true;
			x.av_port = opts.av_ports[k - 1];
			x.wr_id = marker + k;
			x.tag = marker + k;

			const std::uint32_t prod = ring->producer();
			const std::uint32_t mask = ring->geo.slots - 1;
			if (((prod + 1) & mask) == ring->consumer())
				throw VerbsError("the send queue is full");
			fill_message(s.send_buf(), x.tag);
			av.port_num = static_cast<std::uint8_t>(x.av_port);
			const auto wqe = hostile_wqe(templ, x.wr_id, k, av);
			if (wqe.empty())
				throw VerbsError("the send queue's slots are too small for a WQE");
			std::memcpy(ring->slot_addr(prod), wqe.data(), wqe.size());
			ring->publish((prod + 1) & mask);
			s.doorbell();

			complete(x);
			if (!x.status)
				throw VerbsError("hostile send " + std::to_string(k) +
				                 " (av_port " + std::to_string(x.av_port) +
				                 ") did not complete in " +
				                 std::to_string(opts.timeout) + " s");
			if (*x.status == IBV_WC_SUCCESS) {
				arrive(x);
				if (!x.received)
					throw VerbsError("hostile send " + std::to_string(k) +
					                 " (av_port " + std::to_string(x.av_port) +
					                 ") completed but did not arrive");
			} else {
				// An error completion leaves the QP in the error
				// state; bring it back for the next case.
				s.to_rts(true);
			}
		}
		// The QP still works, through the provider, from the producer
		// index the hand-written sends left.
		normal_send(marker + nsends - 1, "closing");
	} catch (const std::exception &e) {
		error = e.what();
	}

	out << report(s, r, ring ? &*ring : nullptr, sends, stray.size(), error.empty(), error)
	    << '\n';
	if (!error.empty()) {
		err << "rxe-wqe-av: error: " << error << '\n';
		return 1;
	}
	return 0;
}

} // namespace roce::wqe_av
