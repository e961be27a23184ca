// SPDX-License-Identifier: GPL-2.0
// roce-entropy audit: the judge of one QP, on entries written here with
// values worked out by hand (the formulas of roce_entropy.rst).
#include <gtest/gtest.h>

#include "audit/audit.h"

namespace roce
{
namespace
{

// By hand:
//   rfc QPN 0x12 * 0x12 = 0x144: port 0xc144 (49476)
//   rfc CM 45313 * 7174 = 0x13604206, folded 0x33137: port 0xf13b (61755)
//   builtin CM 45313 * 31 + 7174 = 0x158b25, 20 bits 0x58b25: 0xb25 ^ 0x16,
//     port 0xcb33 (52019); the other order 7174 * 31 + 45313 = 0x415bb:
//     0x15bb ^ 0x10, port 0xd5ab (54699)
//   fold of 0x5a5a5: low 14 bits 0x25a5 ^ top 6 bits 0x16 = 0x25b3, port
//     0xe5b3 (58803); of 0x12345: 0x2345 ^ 0x4 = 0x2341, port 0xe341
//   rxe's UD port of QPN 0x12 under builtin: 0xc000 + hash_32(0x12, 14) =
//     0xf806 (63494)
QpEntry rc(const char *policy, const char *source, std::uint32_t fl, std::uint32_t sport,
           std::uint32_t lqpn = 0x12, std::uint32_t rqpn = 0x12)
{
	QpEntry q;
	q.dev = "rxea";
	q.port = 1;
	q.lqpn = lqpn;
	q.rqpn = rqpn;
	q.type = "RC";
	q.state = "RTS";
	q.policy = policy;
	q.source = source;
	q.flow_label = fl;
	q.udp_sport = sport;
	return q;
}

QpEntry ud(const char *policy, const char *source, std::uint32_t lqpn = 0x12)
{
	QpEntry q;
	q.dev = "rxea";
	q.port = 1;
	q.lqpn = lqpn;
	q.type = lqpn == 1 ? "GSI" : "UD";
	q.state = "RTS";
	q.policy = policy;
	q.source = source;
	return q;
}

CmIdEntry cm_id(std::string state, std::optional<std::uint32_t> lqpn, Endpoint src,
                std::optional<Endpoint> dst, std::string dev = "rxea", std::string ps = "TCP")
{
	CmIdEntry c;
	c.dev = std::move(dev);
	c.lqpn = lqpn;
	c.qp_type = lqpn ? (ps == "UDP" ? "UD" : "RC") : "";
	c.state = std::move(state);
	c.ps = std::move(ps);
	c.src = std::move(src);
	c.dst = std::move(dst);
	return c;
}

QpVerdict judge_one(const QpEntry &q, const std::vector<CmIdEntry> &ids = {},
                    const AuditOptions &opts = {})
{
	const AuditResult r = audit({q}, ids, opts);
	EXPECT_EQ(r.qps.size(), 1u);
	EXPECT_EQ(r.agree + r.disagree + r.unjudged, 1u);
	return r.qps.at(0);
}

std::string notes(const QpVerdict &v)
{
	std::string s;
	for (const auto &n : v.notes)
		s += n + "; ";
	return s;
}

TEST(Audit, QpnPairAgrees)
{
	const auto v = judge_one(rc("rfc", "qpn", 0x144, 0xC144));
	EXPECT_EQ(v.verdict, Verdict::Agrees) << notes(v);
	ASSERT_TRUE(v.expected);
	EXPECT_EQ(v.expected->source, "qpn");
	EXPECT_EQ(v.expected->flow_label, 0x144u);
	EXPECT_EQ(v.expected->udp_sport, 0xC144);
}

TEST(Audit, QpnPairPortOffDisagrees)
{
	const auto v = judge_one(rc("rfc", "qpn", 0x144, 0xC145));
	EXPECT_EQ(v.verdict, Verdict::Disagrees);
	ASSERT_EQ(v.notes.size(), 1u);
	EXPECT_EQ(v.notes[0], "UDP source port 49477, predicted 49476");
}

TEST(Audit, QpnPairWrongSourceAndFlowLabelDisagree)
{
	const auto v = judge_one(rc("mix", "qpn", 0x144, 0xC144));
	EXPECT_EQ(v.verdict, Verdict::Disagrees);
	// mix of 0x12 * 0x12: 0xc1c9f, port 0xdcaf (the kernel's KUnit table)
	EXPECT_EQ(notes(v), "UDP source port 49476, predicted 56495; flow label 0x144, "
	                    "predicted 0xc1c9f; ");
}

TEST(Audit, LinuxQpnPairHasNoFlowLabelOnRxe)
{
	// 6.12's rdma_get_udp_sport(): the port of the RFC hash, no flow label
	EXPECT_EQ(judge_one(rc("builtin", "qpn", 0, 0xC144)).verdict, Verdict::Agrees);
}

TEST(Audit, OffHasTheBasePort)
{
	EXPECT_EQ(judge_one(rc("off", "none", 0, 0xC000)).verdict, Verdict::Agrees);
	AuditOptions mlx5;
	mlx5.base_sport = 0xD000;
	const auto v = judge_one(rc("off", "none", 0, 0xC000), {}, mlx5);
	EXPECT_EQ(v.verdict, Verdict::Disagrees);
	EXPECT_EQ(notes(v), "UDP source port 49152, predicted 53248; ");
}

TEST(Audit, ConsumerFlowLabelMustFoldToThePort)
{
	EXPECT_EQ(judge_one(rc("rfc", "address", 0x12345, 0xE341)).verdict, Verdict::Agrees);
	const auto v = judge_one(rc("rfc", "address", 0x12345, 0xC144));
	EXPECT_EQ(v.verdict, Verdict::Disagrees);
	EXPECT_EQ(notes(v), "UDP source port 49476, predicted 58177; ");
}

TEST(Audit, ConsumerFlowLabelUnderLinuxOnRxeIsNotJudged)
{
	// rxe sends no flow label under builtin: the address's is not shown
	const auto v = judge_one(rc("builtin", "address", 0, 0xE341));
	EXPECT_EQ(v.verdict, Verdict::Unjudged);
}

TEST(Audit, RdmaCmActiveSide)
{
	const std::vector<CmIdEntry> ids = {
	    cm_id("CONNECT", 0x12, {"10.1.0.2", 45313}, Endpoint{"10.2.0.2", 7174})};
	const auto v = judge_one(rc("rfc", "address", 0x33137, 0xF13B), ids);
	EXPECT_EQ(v.verdict, Verdict::Agrees) << notes(v);
	ASSERT_TRUE(v.cm);
	EXPECT_EQ(v.cm->side, "unknown");
	EXPECT_EQ(v.cm->sport, 45313);
	EXPECT_EQ(v.cm->dport, 7174);
	// the QPN pair would give 0x144: the CM ports are what counts
	EXPECT_EQ(judge_one(rc("rfc", "address", 0x144, 0xC144), ids).verdict, Verdict::Disagrees);
}

TEST(Audit, RdmaCmPassiveSideFromItsListener)
{
	const std::vector<CmIdEntry> ids = {
	    cm_id("LISTEN", std::nullopt, {"0.0.0.0", 7174}, std::nullopt),
	    cm_id("CONNECT", 0x12, {"10.2.0.2", 7174}, Endpoint{"10.1.0.2", 45313})};
	const auto v = judge_one(rc("builtin", "address", 0, 0xCB33), ids);
	EXPECT_EQ(v.verdict, Verdict::Agrees) << notes(v);
	ASSERT_TRUE(v.cm);
	EXPECT_EQ(v.cm->side, "passive");
	EXPECT_EQ(v.cm->sport, 45313);
	EXPECT_EQ(v.cm->dport, 7174);
	// builtin is not symmetric: the passive side's order is a disagreement
	EXPECT_EQ(judge_one(rc("builtin", "address", 0, 0xD5AB), ids).verdict, Verdict::Disagrees);
}

TEST(Audit, RdmaCmActiveSideFromTheListenerItConnectsTo)
{
	const std::vector<CmIdEntry> ids = {
	    cm_id("LISTEN", std::nullopt, {"10.2.0.2", 7174}, std::nullopt, "rxeb"),
	    cm_id("CONNECT", 0x12, {"10.1.0.2", 45313}, Endpoint{"10.2.0.2", 7174})};
	const auto v = judge_one(rc("builtin", "address", 0, 0xCB33), ids);
	EXPECT_EQ(v.verdict, Verdict::Agrees) << notes(v);
	EXPECT_EQ(v.cm->side, "active");
}

TEST(Audit, RdmaCmLinuxWithoutListenerTriesTheOtherOrder)
{
	// a passive side whose listener is gone: its ports read in the active
	// order give 0xd5ab, in the other 0xcb33
	const std::vector<CmIdEntry> ids = {
	    cm_id("CONNECT", 0x12, {"10.2.0.2", 7174}, Endpoint{"10.1.0.2", 45313})};
	const auto v = judge_one(rc("builtin", "address", 0, 0xCB33), ids);
	EXPECT_EQ(v.verdict, Verdict::Agrees) << notes(v);
	EXPECT_EQ(v.cm->sport, 45313);
	EXPECT_NE(v.cm->side.find("passive"), std::string::npos);
	EXPECT_EQ(judge_one(rc("builtin", "address", 0, 0xC000), ids).verdict, Verdict::Disagrees);
}

TEST(Audit, ApplicationFlowLabelOfAService)
{
	const std::vector<CmIdEntry> ids = {
	    cm_id("CONNECT", 0x12, {"fd01::2", 45313}, Endpoint{"fd02::2", 7471})};
	const auto q = rc("rfc", "address", 0x5A5A5, 0xE5B3);
	const auto without = judge_one(q, ids);
	EXPECT_EQ(without.verdict, Verdict::Disagrees);
	EXPECT_NE(notes(without).find("--port-flow-label 7471:0x5a5a5"), std::string::npos);
	AuditOptions opts;
	opts.port_flow_labels[7471] = 0x5A5A5;
	EXPECT_EQ(judge_one(q, ids, opts).verdict, Verdict::Agrees);
}

TEST(Audit, RxeUdUnderLinuxHasItsOwnPort)
{
	auto q = ud("builtin", "per-qp");
	q.flow_label = 0;
	q.udp_sport = 0xF806;
	EXPECT_EQ(judge_one(q).verdict, Verdict::Agrees);
	q.udp_sport = 0xC000;
	EXPECT_EQ(judge_one(q).verdict, Verdict::Disagrees);
	// QP1's: 55410
	auto gsi = ud("builtin", "per-qp", 1);
	gsi.flow_label = 0;
	gsi.udp_sport = 55410;
	EXPECT_EQ(judge_one(gsi).verdict, Verdict::Agrees);
}

TEST(Audit, UdRules)
{
	EXPECT_EQ(judge_one(ud("rfc", "per-send")).verdict, Verdict::Unjudged);
	EXPECT_EQ(judge_one(ud("mix", "per-ah", 1)).verdict, Verdict::Unjudged);
	EXPECT_EQ(judge_one(ud("off", "per-send")).verdict, Verdict::Disagrees);
	auto q = ud("rfc", "per-qp");
	q.flow_label = 0;
	q.udp_sport = 0xF806;
	EXPECT_EQ(judge_one(q).verdict, Verdict::Disagrees);
	EXPECT_EQ(judge_one(ud("rfc", "qpn")).verdict, Verdict::Disagrees);
}

TEST(Audit, RdmaCmUdShowsItsAhsFlowLabel)
{
	const std::vector<CmIdEntry> ids = {
	    cm_id("CONNECT", 0x12, {"10.1.0.2", 45313}, Endpoint{"10.2.0.2", 7174}, "rxea", "UDP")};
	const auto v = judge_one(ud("rfc", "per-send"), ids);
	EXPECT_EQ(v.verdict, Verdict::Unjudged);
	ASSERT_TRUE(v.expected);
	EXPECT_EQ(v.expected->cm_flow_label, 0x33137u);
}

TEST(Audit, WithoutAttributesNotJudged)
{
	QpEntry q = rc("rfc", "qpn", 0, 0);
	q.policy.reset();
	q.source.reset();
	q.flow_label.reset();
	q.udp_sport.reset();
	const auto v = judge_one(q);
	EXPECT_EQ(v.verdict, Verdict::Unjudged);
	EXPECT_NE(notes(v).find("no RoCE v2 entropy in the dump"), std::string::npos);
}

TEST(Audit, UnknownPolicyOrSourceIsNoPass)
{
	EXPECT_EQ(judge_one(rc("ecmp", "qpn", 0x144, 0xC144)).verdict, Verdict::Unjudged);
	EXPECT_EQ(judge_one(rc("rfc", "per-send", 0x144, 0xC144)).verdict, Verdict::Disagrees);
	auto q = rc("rfc", "qpn", 0x144, 0xC144);
	q.udp_sport.reset();
	EXPECT_EQ(judge_one(q).verdict, Verdict::Unjudged);
	q = rc("rfc", "qpn", 0x144, 0xC144);
	q.rqpn.reset();
	EXPECT_EQ(judge_one(q).verdict, Verdict::Unjudged);
}

// ---- rdma -j's JSON, malformed ----

TEST(AuditParse, AcceptsEveryNesting)
{
	const char *flat = R"([{"ifname":"rxea","lqpn":17,"type":"RC"}])";
	const char *nested =
	    R"([[{"ifname":"rxea","lqpn":17,"type":"RC"}]] [{"ifname":"rxeb","lqpn":18}])";
	EXPECT_EQ(parse_qps(flat, "qp").size(), 1u);
	const auto q = parse_qps(nested, "qp");
	ASSERT_EQ(q.size(), 2u);
	EXPECT_EQ(q[1].dev, "rxeb");
	EXPECT_EQ(q[1].lqpn, 18u);
	EXPECT_TRUE(parse_qps("", "qp").empty());
	EXPECT_TRUE(parse_qps("[]\n", "qp").empty());
}

TEST(AuditParse, Endpoints)
{
	const auto ids = parse_cm_ids(
	    R"([{"ifname":"rxea","state":"CONNECT","ps":"TCP","lqpn":17,"src-addr":"fd01::2:45313","dst-addr":"10.2.0.2:7174"}])",
	    "cm_id");
	ASSERT_EQ(ids.size(), 1u);
	ASSERT_TRUE(ids[0].src && ids[0].dst);
	EXPECT_EQ(ids[0].src->addr, "fd01::2");
	EXPECT_EQ(ids[0].src->port, 45313);
	EXPECT_EQ(ids[0].dst->addr, "10.2.0.2");
	EXPECT_EQ(ids[0].dst->port, 7174);
}

void expect_error(const char *text, const std::string &what, bool cm = false)
{
	try {
		if (cm)
			parse_cm_ids(text, "cm.json");
		else
			parse_qps(text, "qp.json");
		ADD_FAILURE() << "no error for " << text;
	} catch (const AuditInputError &e) {
		EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
	}
}

TEST(AuditParse, MalformedInputIsAnError)
{
	expect_error(R"([{"ifname":"rxea","lqpn":17)", "qp.json: not JSON");
	expect_error("link rxea/1 lqpn 17 type RC", "qp.json: not JSON");
	expect_error("17", "a list of objects expected, got number");
	expect_error(R"([{"lqpn":17}])", "qp.json: entry 1: \"ifname\" is missing");
	expect_error(R"([{"ifname":"rxea","lqpn":"17"}])", "\"lqpn\" is not an unsigned number");
	expect_error(R"([{"ifname":"rxea","lqpn":-1}])", "\"lqpn\" is not an unsigned number");
	expect_error(R"([{"ifname":"rxea","lqpn":16777216}])", "\"lqpn\" 16777216 is out of range");
	expect_error(
	    R"([{"ifname":"rxea","lqpn":1},{"ifname":"rxea","lqpn":2,"roce-udp-sport":65536}])",
	    "qp.json: entry 2: \"roce-udp-sport\" 65536 is out of range");
	expect_error(R"([{"ifname":"rxea","lqpn":2,"roce-flow-label":1048576}])",
	             "\"roce-flow-label\" 1048576 is out of range");
	expect_error(R"([{"ifname":"rxea","lqpn":2,"roce-entropy":3}])",
	             "\"roce-entropy\" is not a string");
	expect_error(R"([{"ifname":"rxea","state":"LISTEN","ps":"TCP","src-addr":"10.1.0.2"}])",
	             "\"src-addr\" '10.1.0.2' is not ADDRESS:PORT", true);
	expect_error(R"([{"ifname":"rxea","state":"LISTEN","ps":"TCP","src-addr":"10.1.0.2:"}])",
	             "\"src-addr\" '10.1.0.2:' does not end in a port number", true);
	expect_error(
	    R"([{"ifname":"rxea","state":"LISTEN","ps":"TCP","src-addr":"10.1.0.2:70000"}])",
	    "does not end in a port number", true);
	expect_error(R"([{"ifname":"rxea","state":"LISTEN","src-addr":"10.1.0.2:7174"}])",
	             "\"ps\" is missing", true);
}

} // namespace
} // namespace roce
