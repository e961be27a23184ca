// SPDX-License-Identifier: GPL-2.0
// rxe-wqe-av's command line and the pieces that work on plain memory: the
// maps reader, the queue header check, the search for the marked WQE and
// the hand-made WQE, on queues laid out here as the kernel lays them out.
#include <netinet/in.h> // before the uapi headers: glibc's sockaddr_in

#include <algorithm>
#include <cstring>
#include <gtest/gtest.h>
#include <infiniband/verbs.h>
#include <rdma/rdma_user_rxe.h>
#include <sstream>
#include <string>
#include <vector>

#include "roce_version.h"
#include "wqe_av.h"

namespace roce::wqe_av
{
namespace
{

struct Parsed {
	std::optional<int> status;
	Options opts;
	std::string out, err;
};

// The required options, each replaced by the same option in MORE.
Parsed parse(std::vector<std::string> more)
{
	const std::vector<std::pair<std::string, std::string>> base = {
	    {"--send-dev", "rxea"},
	    {"--recv-dev", "rxeb"},
	    {"--send-gid", "1"},
	    {"--recv-gid", "0x1"},
	    {"--dmac", "02:00:0a:01:00:01"}};
	std::vector<std::string> args;
	Parsed p;
	std::vector<const char *> argv{"rxe-wqe-av"};
	std::ostringstream out, err;

	for (const auto &[name, value] : base)
		if (std::find(more.begin(), more.end(), name) == more.end()) {
			args.push_back(name);
			args.push_back(value);
		}
	args.insert(args.end(), more.begin(), more.end());
	for (const auto &a : args)
		argv.push_back(a.c_str());
	p.status = parse_args(static_cast<int>(argv.size()), argv.data(), p.opts, out, err);
	p.out = out.str();
	p.err = err.str();
	return p;
}

TEST(WqeAvArgs, Defaults)
{
	auto p = parse({});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.send_dev, "rxea");
	EXPECT_EQ(p.opts.recv_dev, "rxeb");
	EXPECT_EQ(p.opts.send_gid, 1u);
	EXPECT_EQ(p.opts.recv_gid, 1u);
	EXPECT_EQ(p.opts.dmac, (std::array<std::uint8_t, 6>{0x02, 0x00, 0x0a, 0x01, 0x00, 0x01}));
	EXPECT_EQ(p.opts.av_ports, (std::vector<unsigned>{2, 255}));
	EXPECT_EQ(p.opts.av_flow_label, 0u);
	EXPECT_EQ(p.opts.timeout, 10u);
	EXPECT_FALSE(p.opts.av_sgid_index);
}

TEST(WqeAvArgs, AvPortsReplaceTheDefaultInOrder)
{
	auto p = parse({"--av-port", "0", "--av-port", "0xff", "--av-port", "1"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.av_ports, (std::vector<unsigned>{0, 255, 1}));
}

TEST(WqeAvArgs, FlowLabelTimeoutAndGidIndex)
{
	auto p = parse({"--av-flow-label", "0xFFFFF", "--timeout", "300", "--av-sgid-index", "0"});
	ASSERT_FALSE(p.status) << p.err;
	EXPECT_EQ(p.opts.av_flow_label, 0xFFFFFu);
	EXPECT_EQ(p.opts.timeout, 300u);
	EXPECT_EQ(p.opts.av_sgid_index, 0u);
}

TEST(WqeAvArgs, Rejected)
{
	const std::vector<std::pair<std::vector<std::string>, std::string>> bad = {
	    {{"--av-port", "256"}, "AV port 256 is out of range"},
	    {{"--av-port", "-1"}, "is not a number"},
	    {{"--av-flow-label", "0x100000"}, "out of range"},
	    {{"--timeout", "0"}, "timeout 0 is below 1"},
	    {{"--av-sgid-index", "256"}, "AV GID index 256"},
	    {{"--send-gid", "256"}, "GID index 256"},
	    {{"--dmac", "02:00:0a:01:00"}, "is not a MAC address"},
	    {{"--dmac", "02-00-0a-01-00-01"}, "is not a MAC address"},
	    {{"--send-dev", ""}, "must not be empty"},
	    {{"--bogus"}, ""},
	};

	for (const auto &[args, message] : bad) {
		auto p = parse(args);
		ASSERT_TRUE(p.status) << args.front();
		EXPECT_EQ(*p.status, 2) << args.front();
		EXPECT_NE(p.err.find(message), std::string::npos) << args.front() << ": " << p.err;
	}
}

TEST(WqeAvArgs, RequiredAndHelp)
{
	Options opts;
	std::ostringstream out, err;
	const char *none[] = {"rxe-wqe-av", "--send-dev", "rxea"};
	const char *help[] = {"rxe-wqe-av", "--help"};

	EXPECT_EQ(parse_args(3, none, opts, out, err), 2);
	EXPECT_NE(err.str().find("required"), std::string::npos) << err.str();
	EXPECT_EQ(parse_args(2, help, opts, out, err), 0);
	EXPECT_NE(out.str().find("--av-port"), std::string::npos);
}

TEST(WqeAvArgs, Version)
{
	Options opts;
	std::ostringstream out, err;
	const char *version[] = {"rxe-wqe-av", "--version"};

	EXPECT_EQ(parse_args(2, version, opts, out, err), 0);
	EXPECT_EQ(out.str(), std::string("rxe-wqe-av ") + kRoceVersion + "\n");
	EXPECT_EQ(err.str(), "");
}

TEST(WqeAvMac, Parse)
{
	EXPECT_EQ(parse_mac("aa:BB:cc:01:02:ff"),
	          (std::array<std::uint8_t, 6>{0xaa, 0xbb, 0xcc, 0x01, 0x02, 0xff}));
	EXPECT_FALSE(parse_mac(""));
	EXPECT_FALSE(parse_mac("aa:bb:cc:01:02:f"));
	EXPECT_FALSE(parse_mac("aa:bb:cc:01:02:fff"));
	EXPECT_FALSE(parse_mac("aa:bb:cc:01:02:g0"));
	EXPECT_FALSE(parse_mac("aa:bb:cc:01:02-ff"));
	EXPECT_FALSE(parse_mac("+a:bb:cc:01:02:ff"));
}

TEST(WqeAvMaps, Lines)
{
	auto r = parse_maps_line("7f12a4c00000-7f12a4c05000 rw-s 00003000 00:05 1043"
	                         "                       /dev/infiniband/uverbs0");
	ASSERT_TRUE(r);
	EXPECT_EQ(r->start, 0x7f12a4c00000u);
	EXPECT_EQ(r->end, 0x7f12a4c05000u);
	EXPECT_EQ(r->perms, "rw-s");
	EXPECT_EQ(r->path, "/dev/infiniband/uverbs0");

	r = parse_maps_line("7ffd1000-7ffd3000 rw-p 00000000 00:00 0 ");
	ASSERT_TRUE(r);
	EXPECT_EQ(r->perms, "rw-p");
	EXPECT_EQ(r->path, "");

	r = parse_maps_line("1000-2000 r--p 00000000 08:01 42   /tmp/a file (deleted)");
	ASSERT_TRUE(r);
	EXPECT_EQ(r->path, "/tmp/a file (deleted)");

	EXPECT_FALSE(parse_maps_line(""));
	EXPECT_FALSE(parse_maps_line("2000-1000 rw-s 0 00:05 1 /x"));
	EXPECT_FALSE(parse_maps_line("zz-2000 rw-s 0 00:05 1 /x"));
	EXPECT_FALSE(parse_maps_line("1000-2000 rw-s 0 00:05"));
	EXPECT_FALSE(parse_maps_line("1000-2000 rw 0 00:05 1 /x"));
}

// A queue as the kernel lays it out: header, then SLOTS slots of 2^LOG2.
class Queue
{
public:
	Queue(unsigned log2, std::uint32_t slots, std::uint32_t prod = 0, std::uint32_t cons = 0)
	    : log2_(log2), words_((sizeof(rxe_queue_buf) + (std::size_t{slots} << log2)) / 8)
	{
		set(offsetof(rxe_queue_buf, log2_elem_size), log2);
		set(offsetof(rxe_queue_buf, index_mask), slots - 1);
		set(offsetof(rxe_queue_buf, producer_index), prod);
		set(offsetof(rxe_queue_buf, consumer_index), cons);
	}
	void set(std::size_t offset, std::uint32_t v)
	{
		std::memcpy(bytes() + offset, &v, sizeof(v));
	}
	std::byte *bytes()
	{
		return reinterpret_cast<std::byte *>(words_.data());
	}
	std::size_t size() const
	{
		return words_.size() * 8;
	}
	std::byte *slot(std::uint32_t i)
	{
		return bytes() + sizeof(rxe_queue_buf) + (std::size_t{i} << log2_);
	}

private:
	unsigned log2_;
	std::vector<std::uint64_t> words_; // 8-byte aligned, like the mapping
};

constexpr std::size_t kSge = kWqeSgeOffset;
static_assert(kSge == 208); // offsetof(struct rxe_send_wqe, dma.sge) in C

// A send WQE with one SGE, as rdma-core's provider writes it.
void put_wqe(std::byte *slot, std::uint64_t wr_id, std::uint32_t opcode, std::uint32_t qpn,
             std::uint64_t addr, std::uint32_t lkey)
{
	rxe_send_wqe wqe{};
	rxe_sge sge{addr, 64, lkey};

	wqe.wr.wr_id = wr_id;
	wqe.wr.opcode = opcode;
	wqe.wr.send_flags = IBV_SEND_SIGNALED;
	wqe.wr.wr.ud.remote_qpn = qpn;
	wqe.wr.wr.ud.remote_qkey = 0x52574156;
	wqe.wr.wr.ud.ah_num = 7;
	wqe.wr.wr.ud.av.port_num = 1;
	wqe.dma.length = 64;
	wqe.dma.resid = 64;
	wqe.dma.num_sge = 1;
	wqe.ssn = 5;
	std::memcpy(slot, &wqe, kSge);
	std::memcpy(slot + kSge, &sge, sizeof(sge));
}

TEST(WqeAvQueue, Geometry)
{
	Queue q(8, 16, 3, 2);
	auto g = send_queue_geometry(q.bytes(), q.size());
	ASSERT_TRUE(g);
	EXPECT_EQ(g->log2_elem_size, 8u);
	EXPECT_EQ(g->elem_size(), 256u);
	EXPECT_EQ(g->slots, 16u);
	EXPECT_EQ(g->producer, 3u);
	EXPECT_EQ(g->consumer, 2u);

	// A mapping one byte short of the slots, or shorter than the header.
	EXPECT_FALSE(send_queue_geometry(q.bytes(), q.size() - 1));
	EXPECT_FALSE(send_queue_geometry(q.bytes(), sizeof(rxe_queue_buf) - 1));
}

TEST(WqeAvQueue, GeometryRejects)
{
	Queue ok(8, 16);
	Queue small(6, 16); // 64-byte slots: a CQ's, not a send queue's
	EXPECT_FALSE(send_queue_geometry(small.bytes(), small.size()));

	Queue q(8, 16);
	q.set(offsetof(rxe_queue_buf, index_mask), 14); // not 2^n - 1
	EXPECT_FALSE(send_queue_geometry(q.bytes(), q.size()));
	q.set(offsetof(rxe_queue_buf, index_mask), 15);
	q.set(offsetof(rxe_queue_buf, producer_index), 16);
	EXPECT_FALSE(send_queue_geometry(q.bytes(), q.size()));
	q.set(offsetof(rxe_queue_buf, producer_index), 15);
	q.set(offsetof(rxe_queue_buf, consumer_index), 16);
	EXPECT_FALSE(send_queue_geometry(q.bytes(), q.size()));
	q.set(offsetof(rxe_queue_buf, consumer_index), 0);
	q.set(offsetof(rxe_queue_buf, log2_elem_size), 40);
	EXPECT_FALSE(send_queue_geometry(q.bytes(), q.size()));
	EXPECT_TRUE(send_queue_geometry(ok.bytes(), ok.size()));
}

TEST(WqeAvQueue, FindsOnlyTheMarkedSend)
{
	Queue q(8, 8, 4, 4);
	const Marker m{0x1234567890ab5741, 0x11, 0x7f0000001000, 0xabc};

	put_wqe(q.slot(3), m.wr_id, IBV_WR_SEND, m.remote_qpn, m.sge_addr, m.sge_lkey);
	// Near misses: each differs from the marker in one field.
	put_wqe(q.slot(0), m.wr_id, 0, m.remote_qpn, m.sge_addr, m.sge_lkey);
	put_wqe(q.slot(1), m.wr_id, IBV_WR_SEND, 0x12, m.sge_addr, m.sge_lkey);
	put_wqe(q.slot(2), m.wr_id, IBV_WR_SEND, m.remote_qpn, m.sge_addr + 64, m.sge_lkey);
	put_wqe(q.slot(5), m.wr_id, IBV_WR_SEND, m.remote_qpn, m.sge_addr, m.sge_lkey + 1);
	put_wqe(q.slot(6), m.wr_id + 1, IBV_WR_SEND, m.remote_qpn, m.sge_addr, m.sge_lkey);

	auto g = send_queue_geometry(q.bytes(), q.size());
	ASSERT_TRUE(g);
	EXPECT_EQ(find_marked_slots(q.bytes(), *g, m), (std::vector<std::uint32_t>{3}));

	put_wqe(q.slot(7), m.wr_id, IBV_WR_SEND, m.remote_qpn, m.sge_addr, m.sge_lkey);
	EXPECT_EQ(find_marked_slots(q.bytes(), *g, m), (std::vector<std::uint32_t>{3, 7}));
}

TEST(WqeAvWqe, HostileFromTemplate)
{
	Queue q(8, 4);
	put_wqe(q.slot(0), 0x5741, IBV_WR_SEND, 0x11, 0x7f0000001000, 0xabc);
	// What the kernel left in the slot after the send.
	rxe_send_wqe done;
	std::memcpy(&done, q.slot(0), kSge);
	done.state = 3;
	done.status = 4;
	done.mask = 0x1000;
	done.first_psn = done.last_psn = 9;
	done.dma.resid = 0;
	done.dma.sge_offset = 64;
	std::memcpy(q.slot(0), &done, kSge);
	const std::span<const std::byte> templ(q.slot(0), 256);

	HandAv av;
	av.port_num = 255;
	av.dmac = {0x02, 0, 0, 0, 0, 0x11};
	av.dgid = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 2, 0, 2};
	av.saddr = htonl(0x0a010002);
	av.daddr = htonl(0x0a020002);
	av.sgid_index = 3;
	av.flow_label = 0x12345;

	const auto out = hostile_wqe(templ, 0x5742, 2, av);
	ASSERT_EQ(out.size(), 256u);
	rxe_send_wqe w;
	std::memcpy(&w, out.data(), kSge);
	EXPECT_EQ(w.wr.wr_id, 0x5742u);
	EXPECT_EQ(w.wr.opcode, static_cast<std::uint32_t>(IBV_WR_SEND));
	EXPECT_EQ(w.wr.send_flags, static_cast<std::uint32_t>(IBV_SEND_SIGNALED));
	EXPECT_EQ(w.wr.wr.ud.remote_qpn, 0x11u);
	EXPECT_EQ(w.wr.wr.ud.remote_qkey, 0x52574156u);
	EXPECT_EQ(w.wr.wr.ud.ah_num, 0u);
	const rxe_av &a = w.wr.wr.ud.av;
	EXPECT_EQ(a.port_num, 255);
	EXPECT_EQ(a.network_type, RXE_NETWORK_TYPE_IPV4);
	EXPECT_EQ(std::memcmp(a.dmac, av.dmac.data(), 6), 0);
	EXPECT_EQ(std::memcmp(a.grh.dgid.raw, av.dgid.data(), 16), 0);
	EXPECT_EQ(a.grh.flow_label, 0x12345u);
	EXPECT_EQ(a.grh.sgid_index, 3);
	EXPECT_EQ(a.grh.hop_limit, 64);
	EXPECT_EQ(a.grh.traffic_class, 0);
	EXPECT_EQ(a.sgid_addr._sockaddr_in.sin_family, AF_INET);
	EXPECT_EQ(ntohl(a.sgid_addr._sockaddr_in.sin_addr.s_addr), 0x0a010002u);
	EXPECT_EQ(a.dgid_addr._sockaddr_in.sin_family, AF_INET);
	EXPECT_EQ(ntohl(a.dgid_addr._sockaddr_in.sin_addr.s_addr), 0x0a020002u);
	EXPECT_EQ(a.sgid_addr._sockaddr_in.sin_port, 0);
	// A newly posted WQE again.
	EXPECT_EQ(w.state, 0u);
	EXPECT_EQ(w.status, 0u);
	EXPECT_EQ(w.mask, 0u);
	EXPECT_EQ(w.first_psn, 0u);
	EXPECT_EQ(w.last_psn, 0u);
	EXPECT_EQ(w.ssn, 7u);
	EXPECT_EQ(w.dma.length, 64u);
	EXPECT_EQ(w.dma.resid, 64u);
	EXPECT_EQ(w.dma.num_sge, 1u);
	EXPECT_EQ(w.dma.cur_sge, 0u);
	EXPECT_EQ(w.dma.sge_offset, 0u);
	// The SGE and the rest of the slot are the template's.
	EXPECT_TRUE(std::equal(out.begin() + kSge, out.end(), templ.begin() + kSge));
	rxe_sge sge;
	std::memcpy(&sge, out.data() + kSge, sizeof(sge));
	EXPECT_EQ(sge.addr, 0x7f0000001000u);
	EXPECT_EQ(sge.lkey, 0xabcu);

	EXPECT_TRUE(hostile_wqe(templ.first(kSge + 15), 1, 1, av).empty());
}

TEST(WqeAvGid, Ipv4Mapped)
{
	const std::array<std::uint8_t, 16> mapped = {0, 0, 0,    0,    0,  0, 0, 0,
	                                             0, 0, 0xff, 0xff, 10, 1, 0, 2};
	const std::array<std::uint8_t, 16> v6 = {0xfd, 0x01, 0, 0, 0, 0, 0, 0,
	                                         0,    0,    0, 0, 0, 0, 0, 2};
	auto a = gid_ipv4(mapped);
	ASSERT_TRUE(a);
	EXPECT_EQ(ntohl(*a), 0x0a010002u);
	EXPECT_FALSE(gid_ipv4(v6));
}

} // namespace
} // namespace roce::wqe_av
