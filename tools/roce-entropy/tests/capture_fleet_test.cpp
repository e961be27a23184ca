// SPDX-License-Identifier: GPL-2.0
// A mixed fleet: --policy-for HOST=POLICY, each packet judged under its
// sender's policy, rdma_cm's flow label made by the active side's.
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

// Both hosts of rping-v4-stock.pcapng (RealCapture.RpingIpv4OnStock) on
// stock 6.12, the rest of the fleet under rfc.
TEST(Fleet, EveryHostOfTheCaptureNamed)
{
	auto r = pcap_cli({test::data_dir() + "/rping-v4-stock.pcapng", "--policy", "rfc",
	                   "--policy-for", "10.1.0.2=builtin", "--policy-for", "10.2.0.2=builtin",
	                   "--json"});
	EXPECT_EQ(r.status, 0) << r.out << r.err;
	auto j = json::parse(r.out);
	EXPECT_EQ(j["policy"], "rfc");
	EXPECT_EQ(j["policy_for"], (json{{"10.1.0.2", "builtin"}, {"10.2.0.2", "builtin"}}));
	const auto c = j["connections"][0];
	EXPECT_EQ(c["forward"]["policy"], "builtin");
	EXPECT_EQ(c["reverse"]["policy"], "builtin");
	EXPECT_EQ(c["expected_cm"]["udp_sport"], 0xD872);
	EXPECT_EQ(c["forward"]["expected_data"]["udp_sport"], 0xF69D);
	EXPECT_EQ(c["verdict"], "ok");

	// the active side under rfc: the connection's flow label would be rfc's
	// of its CM ports, on every packet of both sides
	r = pcap_cli({test::data_dir() + "/rping-v4-stock.pcapng", "--policy", "rfc",
	              "--policy-for", "10.2.0.2=builtin", "--json"});
	EXPECT_EQ(r.status, 1) << r.out;
	j = json::parse(r.out);
	EXPECT_EQ(j["connections"][0]["forward"]["policy"], "rfc");
	EXPECT_EQ(j["connections"][0]["mismatched"], 21 + 18); // all but B's CM MADs
}

// rdma_cm's flow label of CM ports 1 and 7471 as the active side makes it:
// builtin 1 * 31 + 7471 = 0x1d4e (port 0xdd4e), rfc 0x1d32 (port 0xdd32).
// The passive side uses the REQ's; each side sends it its own way.
Conversation mixed(bool linux_active)
{
	const std::uint16_t port = linux_active ? kLinuxSportPorts1And7471 : kSportPorts1And7471;
	const std::uint32_t fl = linux_active ? 0x1D4E : kFlPorts1And7471;
	// A side under builtin: CM MADs on QP1's port; flow label 0 everywhere.
	const std::uint16_t a_cm = linux_active ? kQp1Port : port,
	                    b_cm = linux_active ? port : kQp1Port;
	const std::uint32_t a_fl = linux_active ? 0 : fl, b_fl = linux_active ? fl : 0;
	Conversation c{true, "fd01::2", "fd02::2", a_cm, a_fl, {}};
	auto from = [&](bool a, bool cm) {
		c.sport = cm ? (a ? a_cm : b_cm) : port;
		c.fl = a ? a_fl : b_fl;
	};
	from(true, true);
	c.mad(true, req(0x1111, 0x21, 1, 7471));
	from(false, true);
	c.mad(false, rep(0x2222, 0x1111, 0x22));
	from(true, true);
	c.mad(true, ids(kCmRtu, 0x1111, 0x2222));
	from(true, false);
	c.add(true, 0x22);
	from(false, false);
	c.add(false, 0x21, {}, {}, 0x11);
	c.add(false, 0x21);
	from(true, false);
	c.add(true, 0x22, {}, {}, 0x11);
	return c;
}

TEST(Fleet, StockActiveSideAndRfcPassive)
{
	TempCapture cap(mixed(true).frames);
	auto r =
	    pcap_cli({cap.path(), "--policy", "rfc", "--policy-for", "fd01::2=builtin", "--json"});
	EXPECT_EQ(r.status, 0) << r.out << r.err;
	const auto c = json::parse(r.out)["connections"][0];
	EXPECT_EQ(c["forward"]["expected_data"],
	          (json{{"udp_sport", kLinuxSportPorts1And7471}, {"flow_label", 0}}));
	EXPECT_EQ(c["reverse"]["expected_data"],
	          (json{{"udp_sport", kLinuxSportPorts1And7471}, {"flow_label", 0x1D4E}}));
	EXPECT_EQ(c["expected_cm"]["udp_sport"], kQp1Port); // the REQ's, from A
	// one policy for both: each side's packets disagree somewhere
	EXPECT_EQ(pcap_cli({cap.path(), "--policy", "rfc"}).status, 1);
	EXPECT_EQ(pcap_cli({cap.path(), "--policy", "builtin"}).status, 1);
}

TEST(Fleet, RfcActiveSideAndStockPassive)
{
	TempCapture cap(mixed(false).frames);
	EXPECT_EQ(
	    pcap_cli({cap.path(), "--policy", "builtin", "--policy-for", "fd01::2=rfc"}).status, 0);
	EXPECT_EQ(
	    pcap_cli({cap.path(), "--policy", "rfc", "--policy-for", "fd01::2=builtin"}).status, 1);
}

// rdma_cm UD over IPv6, the active side A under ACTIVE (builtin or off: flow
// label 0 in every header), the passive B under rfc: the SIDR REQ carries no
// flow label, so B derives its own from the CM ports (1, 7471) and sends
// its SIDR REP and data there.  A sends the SIDR REQ on QP1's port under
// builtin, its data from QP 0x40 on that QP's own port; under off both on
// the base port.
Conversation sidr_v6(bool builtin)
{
	const std::uint16_t a_cm = builtin ? kQp1Port : 0xC000,
	                    a_data = builtin ? kLegacy40 : 0xC000;
	Conversation c{true, "fd01::2", "fd02::2", a_cm, 0, {}};
	c.mad(true, sidr_req(0x77, 1, 7471));
	c.sport = kSportPorts1And7471;
	c.fl = kFlPorts1And7471;
	c.mad(false, sidr_rep(0x77, 0x30));
	c.sport = a_data;
	c.fl = 0;
	c.add(true, 0x30, 0x40);
	c.sport = kSportPorts1And7471;
	c.fl = kFlPorts1And7471;
	c.add(false, 0x40, 0x30);
	return c;
}

TEST(Fleet, SidrOverIpv6FromAnActiveSideWithoutFlowLabel)
{
	for (const auto &[active, builtin] :
	     std::vector<std::pair<std::string, bool>>{{"builtin", true}, {"off", false}}) {
		TempCapture cap(sidr_v6(builtin).frames);
		auto r = pcap_cli(
		    {cap.path(), "--policy", "rfc", "--policy-for", "fd01::2=" + active, "--json"});
		EXPECT_EQ(r.status, 0) << active << ": " << r.out << r.err;
		const auto c = json::parse(r.out)["connections"][0];
		EXPECT_EQ(c["cm_mads"], 2) << active;
		EXPECT_EQ(c["mismatched"], 0) << active;
		EXPECT_EQ(c["reverse"]["expected_data"], (json{{"udp_sport", kSportPorts1And7471},
		                                               {"flow_label", kFlPorts1And7471}}))
		    << active;
		// B would have taken A's label, had A written one: rfc's own
		// prediction of rdma_cm's label under the active side's policy
		EXPECT_EQ(pcap_cli({cap.path(), "--policy", "rfc"}).status, 1) << active;
	}
}

// rdma_cm RC, the active side A (QPN 0x11) under off: its REQ carries flow
// label 0, so A sends everything on the base port 0xc000, and the passive
// side B (QPN 0x12) its CM MADs on its CM port (QP1's under builtin, the
// base port under the others) and its data on its own QPN hash: under
// builtin 6.12's rdma_calc_flow_label(0x12, 0x11) = 0x132 (no bits above
// 19), port 0xc132, flow label 0 on the wire; under mix 0xe1b08 and port
// 0xdb30 (WithoutCmEachSideUnderItsOwn below).
Conversation off_active(const std::string &passive)
{
	const bool stock = passive == "builtin";
	Conversation c{true, "fd01::2", "fd02::2", 0xC000, 0, {}};
	c.mad(true, req(0x1111, 0x11, 1, 7471));
	c.sport = stock ? kQp1Port : 0xC000;
	c.mad(false, rep(0x2222, 0x1111, 0x12));
	c.sport = 0xC000;
	c.mad(true, ids(kCmRtu, 0x1111, 0x2222));
	c.add(true, 0x12);
	c.sport = stock ? 0xC132 : 0xDB30;
	c.fl = stock ? 0 : 0xE1B08;
	c.add(false, 0x11);
	return c;
}

TEST(Fleet, OffActiveSidePassiveSideOnItsOwnQpnHash)
{
	for (const std::string passive : {"builtin", "mix"}) {
		TempCapture cap(off_active(passive).frames);
		auto r = pcap_cli({cap.path(), "--policy", "off", "--policy-for",
		                   "fd02::2=" + passive, "--json"});
		EXPECT_EQ(r.status, 0) << passive << ": " << r.out << r.err;
		const auto c = json::parse(r.out)["connections"][0];
		EXPECT_EQ(c["mismatched"], 0) << passive;
		EXPECT_EQ(c["reverse"]["expected_data"]["udp_sport"],
		          passive == "builtin" ? 0xC132 : 0xDB30)
		    << passive;
		// the base port, had B followed A's flow label
		EXPECT_NE(c["reverse"]["expected_data"]["udp_sport"], 0xC000) << passive;
	}
}

// Without CM each side hashes the QPNs under its own policy: 0x11 * 0x12 =
// 0x132 under rfc (port 0xc132); under mix (0x132 * 0x61c8864680b583eb
// mod 2^64) >> 44 = 0xe1b08, port (0x1b08 ^ 0x38) | 0xc000 = 0xdb30.
TEST(Fleet, WithoutCmEachSideUnderItsOwn)
{
	Conversation c{true, "fd01::2", "fd02::2", 0xC132, 0x132, {}};
	c.add(true, 0x12);
	c.sport = 0xDB30;
	c.fl = 0xE1B08;
	c.add(false, 0x11);
	TempCapture cap(c.frames);
	auto r = pcap_cli({cap.path(), "--policy", "rfc", "--policy-for", "fd02::2=mix", "--json"});
	EXPECT_EQ(r.status, 0) << r.out;
	const auto conn = json::parse(r.out)["connections"][0];
	EXPECT_EQ(conn["qpns"], (json{0x11, 0x12}));
	EXPECT_EQ(conn["reverse"]["expected_data"]["flow_label"], 0xE1B08);
	EXPECT_EQ(pcap_cli({cap.path(), "--policy", "rfc"}).status, 1);
}

// Without CM, off predicts the base port only when both ends are off: an
// rdma_cm connection's flow label may come from its active side.
TEST(Fleet, OffWithoutCmNeedsBothEnds)
{
	Conversation c{false, "10.1.0.2", "10.2.0.2", 0xC000, 0, {}};
	c.add(true, 0x12);
	TempCapture cap(c.frames);
	EXPECT_EQ(
	    pcap_cli({cap.path(), "--policy-for", "10.1.0.2=off", "--policy-for", "10.2.0.2=off"})
	        .status,
	    0);
	EXPECT_EQ(pcap_cli({cap.path(), "--policy-for", "10.1.0.2=off"}).status, 3);
}

TEST(Fleet, BadPolicyForExitsTwo)
{
	TempCapture cap(cm_rc(false, kSportPorts1And7471, 0).frames);
	for (const auto &[arg, message] : std::vector<std::pair<std::string, std::string>>{
	         {"10.1.0.2", "HOST=POLICY expected"},
	         {"host=rfc", "not an IPv4 or IPv6 address"},
	         {"10.1.0.2=fast", "unknown policy"},
	         {"fd01::2=rfc,fd01:0::2=mix", "unknown policy"}}) {
		auto r = pcap_cli({cap.path(), "--policy-for", arg});
		EXPECT_EQ(r.status, 2) << arg;
		EXPECT_NE(r.err.find(message), std::string::npos) << arg << ": " << r.err;
	}
	auto r =
	    pcap_cli({cap.path(), "--policy-for", "fd01::2=rfc", "--policy-for", "fd01:0::2=mix"});
	EXPECT_EQ(r.status, 2);
	EXPECT_NE(r.err.find("fd01::2 given twice"), std::string::npos) << r.err;
}

} // namespace
} // namespace roce
