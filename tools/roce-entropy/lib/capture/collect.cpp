// SPDX-License-Identifier: GPL-2.0
// CaptureJudge: each packet summed into its stream as it comes; at the end
// the streams grouped into connections and judged.
#include <set>

#include "capture/state.h"

namespace roce
{

using namespace capture_detail;

struct CaptureJudge::State {
	JudgeConfig cfg;
	std::uint64_t seq = 0;
	Sessions sessions;
	std::unordered_map<StreamKey, Stream, KeyHash> streams;
	bool finished = false;
};

Policy JudgeConfig::policy_of(const IpAddr &host) const
{
	auto it = hosts.find(host);
	return it == hosts.end() ? policy : it->second;
}

std::string_view verdict_name(Verdict v)
{
	switch (v) {
	case Verdict::Agrees:
		return "ok";
	case Verdict::Disagrees:
		return "disagrees";
	case Verdict::Unjudged:
		break;
	}
	return "unjudged";
}

CaptureJudge::CaptureJudge(JudgeConfig cfg) : s_(std::make_unique<State>())
{
	s_->cfg = std::move(cfg);
}

CaptureJudge::~CaptureJudge() = default;

void CaptureJudge::add(const RocePacket &pkt)
{
	State &s = *s_;
	const std::uint64_t seq = ++s.seq;
	const std::uint32_t owner =
	    pkt.cm ? cm_session(s.sessions, pkt, seq) : data_owner(s.sessions, pkt);
	const StreamKey key{pkt.src, pkt.dst, pkt.dest_qp, pkt.src_qp.value_or(kNoQpn), owner};

	auto [it, fresh] = s.streams.try_emplace(key);
	Stream &st = it->second;
	if (fresh) {
		st.key = key;
		st.first = seq;
	}
	st.tally[{pkt.udp_sport, pkt.ipv6() ? pkt.flow_label : 0,
	          pkt.cm ? std::uint32_t{pkt.cm->attr} : kDataAttr}]++;
	if (pkt.ifindex)
		st.interfaces[*pkt.ifindex]++;
}

CaptureSummary CaptureJudge::finish()
{
	State &s = *s_;
	CaptureSummary sum;
	std::set<std::uint16_t> all_sports;

	if (s.finished)
		throw std::logic_error("CaptureJudge::finish() twice");
	s.finished = true;
	for (auto &g : make_groups(s.sessions, s.streams)) {
		Connection &c = g.conn;
		judge_group(g, s.cfg);
		sum.agree += c.verdict == Verdict::Agrees;
		sum.inconsistent += c.verdict == Verdict::Disagrees;
		sum.unjudged += c.verdict == Verdict::Unjudged;
		sum.packets += c.packets;
		all_sports.insert(c.udp_sports.begin(), c.udp_sports.end());
		sum.connections.push_back(std::move(c));
	}
	sum.distinct_udp_sports = static_cast<unsigned>(all_sports.size());
	return sum;
}

CaptureSummary judge_capture(const std::vector<RocePacket> &packets, const JudgeConfig &cfg)
{
	CaptureJudge judge(cfg);

	for (const auto &p : packets)
		judge.add(p);
	return judge.finish();
}

CaptureSummary judge_capture(const std::vector<RocePacket> &packets, Policy policy,
                             std::uint32_t app_fl,
                             const std::map<std::uint16_t, std::uint32_t> &port_fl)
{
	JudgeConfig cfg;

	cfg.policy = policy;
	cfg.app_fl = app_fl;
	cfg.port_fl = port_fl;
	return judge_capture(packets, cfg);
}

} // namespace roce
