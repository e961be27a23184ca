// SPDX-License-Identifier: GPL-2.0
// Captures as production gives them: begun after the connections were set
// up, cut by a snap length, many QP pairs between two hosts without CM,
// hosts under different policies; and the exit status of each verdict.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "capture/capture.h"
#include "capture_fixture.h"
#include "cli_run.h"
#include "synth.h"
#include "test_paths.h"

namespace roce
{
namespace
{

using namespace roce::test;
using nlohmann::json;

// ---- no CM seen: tests/data/*-nocm.pcapng, made with editcap -r ----

// rping-v6-rfc.pcapng from its 4th packet: no REQ, REP or RTU; the data
// (QPNs 0x14 both ways) and the DREQ and DREP.  The data is on the CM
// ports' 0xf13b, not the QPN hash's 0x14 * 0x14 = 0x190 (0xc190): it may
// well be an rdma_cm connection, whose ports the capture does not show.
TEST(NoCm, RdmaCmDataIsUnjudgedNotDisagreeing)
{
	auto r = pcap_cli({test::data_dir() + "/rping-v6-rfc-nocm.pcapng", "--json"});
	EXPECT_EQ(r.status, 3) << r.out << r.err;
	auto j = json::parse(r.out);
	EXPECT_EQ(j["inconsistent"], 0);
	EXPECT_EQ(j["unjudged"], 2);
	EXPECT_EQ(j["agree"], 0);
	ASSERT_EQ(j["connections"].size(), 2u);
	const auto &dreq = j["connections"][0], &data = j["connections"][1];
	EXPECT_EQ(dreq["cm_mads"], 2);
	EXPECT_EQ(dreq["verdict"], "unjudged");
	EXPECT_EQ(dreq["unjudged_reason"],
	          "the CM exchange began before the capture: its REQ was not seen");
	EXPECT_EQ(data["qpns"], (json{0x14, 0x14}));
	EXPECT_EQ(data["packets"], 36);
	EXPECT_EQ(data["unpredicted"], 36);
	EXPECT_EQ(data["mismatched"], 0);
	EXPECT_EQ(data["verdict"], "unjudged");
	EXPECT_EQ(data["consistent"], true);
	EXPECT_EQ(data["expected_udp_sport"], nullptr);

	r = pcap_cli({test::data_dir() + "/rping-v6-rfc-nocm.pcapng"});
	EXPECT_NE(r.out.find("UNJUDGED (36 packets: no CM seen and not on the QPN hash"),
	          std::string::npos)
	    << r.out;
	EXPECT_NE(r.out.find("0 ok, 0 disagree with rfc, 2 unjudged"), std::string::npos) << r.out;
	// off needs no CM ports: 0xf13b is not its 0xc000
	EXPECT_EQ(
	    pcap_cli({test::data_dir() + "/rping-v6-rfc-nocm.pcapng", "--policy", "off"}).status,
	    1);
}

// rping-v4-stock.pcapng's data only: under builtin too the RC data's port
// comes from the CM ports (60471 * 31 + 7174), not the QPN hash.
TEST(NoCm, StockRcDataIsUnjudged)
{
	auto r =
	    pcap_cli({test::data_dir() + "/rping-v4-stock-nocm.pcapng", "--policy", "builtin"});
	EXPECT_EQ(r.status, 3) << r.out;
	EXPECT_NE(r.out.find("0 ok, 0 disagree with builtin, 1 unjudged"), std::string::npos)
	    << r.out;
}

// udaddy-v6-stock.pcapng without its SIDR REQ and REP: stock rxe sends UD
// on each QP's own port, which the DETH names: judged without the CM.
TEST(NoCm, StockUdIsJudgedFromItsQpns)
{
	auto r = pcap_cli(
	    {test::data_dir() + "/udaddy-v6-stock-nocm.pcapng", "--policy", "builtin", "--json"});
	EXPECT_EQ(r.status, 0) << r.out;
	const auto c = json::parse(r.out)["connections"][0];
	EXPECT_EQ(c["verdict"], "ok");
	EXPECT_EQ(c["judged_by"], json{"qp_ports"});
	EXPECT_EQ(c["forward"]["expected_data"]["udp_sport"], 0xF241);
	EXPECT_EQ(c["reverse"]["expected_data"]["udp_sport"], 0xD9CE);
	// rfc: a UD send carries its flow label, and its port is the label's
	// fold; flow label 0 with port 0xf241 is neither
	EXPECT_EQ(
	    pcap_cli({test::data_dir() + "/udaddy-v6-stock-nocm.pcapng", "--policy", "rfc"}).status,
	    1);
}

// Both directions of an RC pair on one port that is not the QPN hash: an
// rdma_cm connection as far as the capture tells (unjudged); one direction
// on the QPN hash and the other not: a connection without CM that
// disagrees.
TEST(NoCm, OneDirectionOnTheQpnHashSettlesIt)
{
	Conversation cm_like{false, "10.1.0.2", "10.2.0.2", 0xDD32, 0, {}};
	cm_like.add(true, 0x12);
	cm_like.add(false, 0x11);
	auto j = judge_frames(cm_like.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].verdict, Verdict::Unjudged);
	EXPECT_EQ(j.sum.unjudged, 1u);

	Conversation half{false, "10.1.0.2", "10.2.0.2", 0xC132, 0, {}}; // 0x11 * 0x12
	half.add(true, 0x12);
	half.sport = 0xC000;
	half.add(false, 0x11);
	j = judge_frames(half.frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 1u);
	EXPECT_EQ(j.sum.connections[0].verdict, Verdict::Disagrees);
	EXPECT_EQ(j.sum.connections[0].mismatched, 1u);
	EXPECT_EQ(j.sum.connections[0].judged_by, std::set<std::string>{"qpns"});
}

TEST(NoCm, NothingJudgedNeverExitsZero)
{
	Buf arp(42, 0);
	put(arp, 12, 0x0806, 2);
	TempCapture empty({arp});
	auto r = pcap_cli({empty.path()});
	EXPECT_EQ(r.status, 3);
	EXPECT_NE(r.out.find("nothing judged"), std::string::npos) << r.out;
	// one stream, one QPN: nothing to predict from under rfc
	Conversation one{false, "10.1.0.2", "10.2.0.2", 0xC132, 0, {}};
	one.add(true, 0x12);
	TempCapture single(one.frames);
	EXPECT_EQ(pcap_cli({single.path()}).status, 3);
	// under off it needs none
	Conversation base{false, "10.1.0.2", "10.2.0.2", 0xC000, 0, {}};
	base.add(true, 0x12);
	TempCapture off(base.frames);
	EXPECT_EQ(pcap_cli({off.path(), "--policy", "off"}).status, 0);
}

// ---- header-only captures ----

// editcap -s 256 of rping-v6-rfc.pcapng: the five CM MADs (342 bytes) are
// cut, their fields (the REQ's ports end at byte 250) are not.
TEST(SnapLength, HeaderOnlyCaptureIsJudgedInFull)
{
	auto r = pcap_cli({test::data_dir() + "/rping-v6-rfc-s256.pcapng", "--json"});
	EXPECT_EQ(r.status, 0) << r.out;
	auto j = json::parse(r.out);
	EXPECT_EQ(j["cut"], 5);
	EXPECT_EQ(j["malformed"], 0);
	EXPECT_EQ(j["truncated"], 0);
	const auto c = j["connections"][0];
	EXPECT_EQ(c["cm_ports"], (json{45313, 7174}));
	EXPECT_EQ(c["packets"], 41);
	EXPECT_EQ(c["verdict"], "ok");
	EXPECT_EQ(c["judged_by"], json{"cm_ports"});
}

// editcap -s 128: the REQ keeps its comm ID but not its QPN nor its ports.
TEST(SnapLength, ReqCutBeforeItsPortsIsUnjudged)
{
	auto r = pcap_cli({test::data_dir() + "/rping-v6-rfc-s128.pcapng", "--json"});
	EXPECT_EQ(r.status, 3) << r.out;
	auto j = json::parse(r.out);
	EXPECT_EQ(j["malformed"], 0);
	EXPECT_EQ(j["packets"], 41);
	const auto c = j["connections"][0];
	EXPECT_EQ(c["cm_mads"], 5);
	EXPECT_EQ(c["unjudged_reason"], "the snap length cut the REQ before its rdma_cm ports");
	EXPECT_EQ(j["inconsistent"], 0);
}

// cm_rc()'s REQ (IPv4) cut at CUT bytes: Ethernet 0-14, IP -34, UDP -42,
// BTH -54, DETH -62, MAD header -86, comm IDs -94, QPN 118-121, ports
// 228-230.  Before the comm IDs end it is skipped and counted.
class CutBeforeTheJudgesFields : public testing::TestWithParam<std::size_t>
{
};

TEST_P(CutBeforeTheJudgesFields, IsSkippedAndCounted)
{
	auto j =
	    judge_frames(cm_rc(false, kSportPorts1And7471, 0).frames, Policy::Rfc, 0, {GetParam()});
	EXPECT_EQ(j.truncated, 1u);
	EXPECT_EQ(j.malformed, 0u);
	EXPECT_EQ(j.sum.packets, 8u);
}

INSTANTIATE_TEST_SUITE_P(Cuts, CutBeforeTheJudgesFields,
                         testing::Values(10, 30, 40, 50, 60, 80, 90));

struct ReqCut {
	std::size_t cut;
	Verdict verdict;
	std::size_t connections; // without the REQ's QPN, B's data is apart
};

class CutReq : public testing::TestWithParam<ReqCut>
{
};

TEST_P(CutReq, IsReadAsFarAsKept)
{
	auto j = judge_frames(cm_rc(false, kSportPorts1And7471, 0).frames, Policy::Rfc, 0,
	                      {GetParam().cut});
	EXPECT_EQ(j.truncated + j.malformed, 0u);
	EXPECT_EQ(j.cut, 1u);
	EXPECT_EQ(j.sum.packets, 9u);
	ASSERT_EQ(j.sum.connections.size(), GetParam().connections);
	EXPECT_EQ(j.sum.connections[0].cm_mads, 5u);
	EXPECT_EQ(j.sum.connections[0].verdict, GetParam().verdict);
	EXPECT_EQ(j.sum.inconsistent, 0u);
}

INSTANTIATE_TEST_SUITE_P(Cuts, CutReq,
                         testing::Values(ReqCut{100, Verdict::Unjudged, 2},
                                         ReqCut{200, Verdict::Unjudged, 1},
                                         ReqCut{230, Verdict::Agrees, 1}));

// ---- many QP pairs between two hosts without CM ----

// RC pairs (A's QPN, B's QPN) under rfc, each both ways on its port.
std::vector<Buf> rc_pairs(const std::vector<std::pair<std::uint32_t, std::uint32_t>> &pairs)
{
	std::vector<Buf> frames;
	for (auto [qa, qb] : pairs) {
		const std::uint32_t fl = qpn_flow_label(Policy::Rfc, qa, qb);
		Conversation c{false, "10.1.0.2", "10.2.0.2", udp_sport(fl), fl, {}};
		c.add(true, qb);
		c.add(false, qa, {}, {}, 0x11);
		c.add(false, qa);
		c.add(true, qb, {}, {}, 0x11);
		frames.insert(frames.end(), c.frames.begin(), c.frames.end());
	}
	return frames;
}

// By hand: 0x11 * 0x12 = 0x132, 0x21 * 0x22 = 0x462, 0x31 * 0x32 = 0x992:
// three ports, each carried by one stream each way.
TEST(QpPairs, PairedByTheirSharedPort)
{
	auto j = judge_frames(rc_pairs({{0x11, 0x12}, {0x21, 0x22}, {0x31, 0x32}}), Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 3u);
	EXPECT_EQ(j.sum.connections[0].qpns, (std::vector<std::uint32_t>{0x11, 0x12}));
	EXPECT_EQ(j.sum.connections[1].qpns, (std::vector<std::uint32_t>{0x21, 0x22}));
	EXPECT_EQ(j.sum.connections[2].qpns, (std::vector<std::uint32_t>{0x31, 0x32}));
	EXPECT_EQ(j.sum.connections[2].udp_sports, std::set<std::uint16_t>{0xC992});
	EXPECT_EQ(j.sum.agree, 3u);
	EXPECT_EQ(j.sum.connections[1].forward.packets, 2u);
	EXPECT_EQ(j.sum.connections[1].reverse.packets, 2u);
}

// 2 * 6 = 3 * 4 = 12: two pairs on port 0xc00c; which of B's QPs answers
// which of A's is not in the capture.  The third pair is on its own port.
TEST(QpPairs, PairsSharingAPortStayApart)
{
	auto j = judge_frames(rc_pairs({{2, 6}, {3, 4}, {0x11, 0x12}}), Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 5u);
	unsigned single = 0;
	for (const auto &c : j.sum.connections)
		single += c.qpns.size() == 1 && c.verdict == Verdict::Unjudged;
	EXPECT_EQ(single, 4u);
	EXPECT_EQ(j.sum.agree, 1u);
	EXPECT_EQ(j.sum.inconsistent, 0u);
}

// One pair's reply on the base port, beside a good pair: the two streams
// of the first no longer share a port, so nothing ties them.
TEST(QpPairs, AsymmetricPairIsNotGuessed)
{
	auto frames = rc_pairs({{0x21, 0x22}});
	Conversation bad{false, "10.1.0.2", "10.2.0.2", 0xC132, 0, {}};
	bad.add(true, 0x12);
	bad.sport = 0xC000;
	bad.add(false, 0x11);
	frames.insert(frames.end(), bad.frames.begin(), bad.frames.end());
	auto j = judge_frames(frames, Policy::Rfc);
	ASSERT_EQ(j.sum.connections.size(), 3u);
	EXPECT_EQ(j.sum.agree, 1u);
	EXPECT_EQ(j.sum.unjudged, 2u);
}

} // namespace
} // namespace roce
