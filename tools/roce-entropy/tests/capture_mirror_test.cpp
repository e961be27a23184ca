// SPDX-License-Identifier: GPL-2.0
// The project's own captures as switches and routers deliver them: VLAN
// and QinQ tags, IPv6 extension headers, VXLAN, ERSPAN types I to III.
// Each must give what the plain capture gives; Wireshark's own dissectors
// (tshark, when installed) must read the frames built here as we do.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iomanip>
#include <memory>
#include <pcap/pcap.h>
#include <sstream>
#include <string>
#include <vector>

#include "capture/capture.h"
#include "capture_fixture.h"
#include "synth.h"
#include "test_paths.h"

namespace roce
{
namespace
{

using namespace roce::test;

struct Variant {
	const char *name;
	std::function<Buf(const Buf &)> wrap;
};

std::vector<Buf> wrap_all(const std::vector<Buf> &frames, const Variant &v)
{
	std::vector<Buf> out;
	for (const auto &f : frames)
		out.push_back(v.wrap(f));
	return out;
}

std::string variant_name(const testing::TestParamInfo<Variant> &info)
{
	return info.param.name;
}

// rping over IPv6 under rfc (RealCapture.RpingIpv6UnderRfc): one
// connection, 41 packets on port 0xf13b and flow label 0x33137.
class MirroredRping : public testing::TestWithParam<Variant>
{
};

TEST_P(MirroredRping, JudgedAsThePlainCapture)
{
	auto frames = wrap_all(read_frames(test::data_dir() + "/rping-v6-rfc.pcapng"), GetParam());
	auto j = judge_frames(frames, Policy::Rfc);
	EXPECT_EQ(j.not_roce + j.malformed + j.truncated, 0u);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	const Connection &c = j.sum.connections[0];
	EXPECT_EQ(c.src, "fd01::2");
	ASSERT_TRUE(c.cm_ports);
	EXPECT_EQ(c.cm_ports->first, 45313);
	EXPECT_EQ(c.packets, 41u);
	EXPECT_EQ(c.cm_mads, 5u);
	EXPECT_EQ(c.udp_sports, std::set<std::uint16_t>{0xf13b});
	EXPECT_EQ(c.flow_labels, std::set<std::uint32_t>{0x33137});
	EXPECT_EQ(c.verdict, Verdict::Agrees);
}

INSTANTIATE_TEST_SUITE_P(
    Wrapped, MirroredRping,
    testing::Values(
        Variant{"vlan", [](const Buf &f) { return with_vlans(f, {0x8100}); }},
        Variant{"qinq_88a8",
                [](const Buf &f) {
	                return with_vlans(f, {0x88A8, 0x8100});
                }},
        Variant{"qinq_9100",
                [](const Buf &f) {
	                return with_vlans(f, {0x9100, 0x8100});
                }},
        Variant{"three_tags",
                [](const Buf &f) {
	                return with_vlans(f, {0x88A8, 0x9100, 0x8100});
                }},
        Variant{"hop_by_hop", [](const Buf &f) { return with_ipv6_ext(f, {0}); }},
        Variant{"routing", [](const Buf &f) { return with_ipv6_ext(f, {43}); }},
        Variant{"fragment_whole", [](const Buf &f) { return with_ipv6_ext(f, {44}); }},
        Variant{"dest_opts", [](const Buf &f) { return with_ipv6_ext(f, {60}); }},
        Variant{"ah", [](const Buf &f) { return with_ipv6_ext(f, {51}); }},
        Variant{"four_ext",
                [](const Buf &f) {
	                return with_ipv6_ext(f, {0, 43, 44, 60});
                }},
        Variant{"vxlan_v4", [](const Buf &f) { return mirrored(f, Mirror::Vxlan); }},
        Variant{"vxlan_v6", [](const Buf &f) { return mirrored(f, Mirror::Vxlan, true); }},
        Variant{"erspan1", [](const Buf &f) { return mirrored(f, Mirror::Erspan1); }},
        Variant{"erspan2", [](const Buf &f) { return mirrored(f, Mirror::Erspan2); }},
        Variant{"erspan2_v6", [](const Buf &f) { return mirrored(f, Mirror::Erspan2, true); }},
        Variant{"erspan3", [](const Buf &f) { return mirrored(f, Mirror::Erspan3); }},
        Variant{"erspan3_sub",
                [](const Buf &f) { return mirrored(f, Mirror::Erspan3, false, true); }},
        Variant{"erspan2_of_qinq_ext",
                [](const Buf &f) {
	                return mirrored(with_vlans(with_ipv6_ext(f, {0, 60}), {0x88A8, 0x8100}),
	                                Mirror::Erspan2);
                }},
        Variant{
            "vxlan_in_erspan3",
            [](const Buf &f) { return mirrored(mirrored(f, Mirror::Vxlan), Mirror::Erspan3); }}),
    variant_name);

// A fragment of an IPv6 packet (offset or more-fragments set) is not
// looked into, nor is a stack of encapsulations deeper than four.
TEST(Mirrored, FragmentsAndDeepNestingAreNotRead)
{
	const Buf f = read_frames(test::data_dir() + "/rping-v6-rfc.pcapng").at(3);
	Buf frag = with_ipv6_ext(f, {44});
	frag[14 + 40 + 3] = 1; // more fragments
	Buf deep = f;
	for (int i = 0; i < 5; i++)
		deep = mirrored(deep, Mirror::Vxlan);
	auto j = judge_frames({frag, deep, mirrored(deep, Mirror::Erspan3)}, Policy::Rfc);
	EXPECT_EQ(j.not_roce, 3u);
	EXPECT_TRUE(j.sum.connections.empty());
}

// A header that the frame on the wire contradicts is malformed: an ERSPAN
// of the wrong version, an extension header running past the payload.
TEST(Mirrored, LyingHeadersAreMalformed)
{
	const Buf f = read_frames(test::data_dir() + "/rping-v6-rfc.pcapng").at(3);
	Buf bad_version = mirrored(f, Mirror::Erspan2);
	bad_version[14 + 20 + 8] = 0x20; // ERSPAN II says version 2
	Buf long_ext = with_ipv6_ext(f, {60});
	long_ext[14 + 40 + 1] = 200; // 1608 bytes of options
	auto j = judge_frames({bad_version, long_ext}, Policy::Rfc);
	EXPECT_EQ(j.malformed, 2u);
}

// What tshark says of each frame: UDP source port and BTH destination QP
// of the innermost RoCE v2 packet, "port qpn" per line.
std::string tshark_fields(const std::string &file)
{
	const std::string cmd = "tshark -r " + file +
	                        " -T fields -E occurrence=l -e udp.srcport "
	                        "-e infiniband.bth.destqp 2>/dev/null";
	std::unique_ptr<FILE, decltype(&pclose)> p(popen(cmd.c_str(), "r"), &pclose);
	std::string out;
	char buf[256];
	while (p && fgets(buf, sizeof(buf), p.get()))
		out += buf;
	return out;
}

TEST(Mirrored, TsharkReadsTheFramesAsWeDo)
{
	if (std::system("command -v tshark >/dev/null 2>&1") != 0)
		GTEST_SKIP() << "tshark is not installed";
	const auto plain = read_frames(test::data_dir() + "/rping-v6-rfc.pcapng");
	for (const Variant &v :
	     {Variant{"qinq",
	              [](const Buf &f) {
		              return with_vlans(f, {0x88A8, 0x8100});
	              }},
	      Variant{"ext",
	              [](const Buf &f) {
		              return with_ipv6_ext(f, {0, 43, 44, 60});
	              }},
	      Variant{"vxlan", [](const Buf &f) { return mirrored(f, Mirror::Vxlan); }},
	      Variant{"erspan2", [](const Buf &f) { return mirrored(f, Mirror::Erspan2); }},
	      Variant{"erspan3", [](const Buf &f) { return mirrored(f, Mirror::Erspan3); }}}) {
		TempCapture cap(wrap_all(plain, v));
		ReadCounts rc;
		std::ostringstream ours;
		for (const auto &p : read_capture(cap.path(), rc))
			ours << p.udp_sport << "\t0x" << std::hex << std::setw(6)
			     << std::setfill('0') << p.dest_qp << std::dec << '\n';
		EXPECT_EQ(tshark_fields(cap.path()), ours.str()) << v.name;
		EXPECT_EQ(rc.not_roce, 0u) << v.name;
	}
}

} // namespace
} // namespace roce
