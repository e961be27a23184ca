// SPDX-License-Identifier: GPL-2.0
// The audit of a live host: the QPs of the rdma netlink resource dump (what
// `roce-entropy qp --json` prints: rdma -j's keys and the series' entropy
// as roce-entropy, roce-fl-source, roce-flow-label, roce-udp-sport) and
// the rdma_cm IDs of `rdma -j res show cm_id`, each QP with the entropy
// its driver says it programmed judged against what its policy predicts:
// rdma_cm connections from their CM ports, the others from their QP
// numbers.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "entropy/entropy.h"

namespace roce
{

// Input that is not what `rdma -j` or `roce-entropy qp --json` prints: the
// message says what and where.
struct AuditInputError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// One QP of the resource dump.
struct QpEntry {
	std::string dev;
	unsigned port = 0; // 0: none yet
	std::uint32_t lqpn = 0;
	std::optional<std::uint32_t> rqpn;
	std::string type, state, comm;
	std::optional<std::uint32_t> pid;
	// The series' attributes; none on a QP without entropy yet, of
	// another driver, or of a kernel without the series.
	std::optional<std::string> policy, source;
	std::optional<std::uint32_t> flow_label, udp_sport;
};

// "10.1.0.2:7174", "fd02::2:7174"
struct Endpoint {
	std::string addr;
	std::uint16_t port = 0;
};

// One rdma_cm ID of `rdma -j res show cm_id`.
struct CmIdEntry {
	std::string dev;
	std::optional<std::uint32_t> lqpn;
	std::string qp_type, state, ps, comm;
	std::optional<Endpoint> src, dst;
};

// Parse what `rdma -j ...` or `roce-entropy qp --json` printed (one JSON array, arrays of arrays or
// several arrays one after the other: every object counts); WHAT names the
// input in errors.  Throw AuditInputError.
std::vector<QpEntry> parse_qps(std::string_view text, std::string_view what);
std::vector<CmIdEntry> parse_cm_ids(std::string_view text, std::string_view what);

// "agrees", "disagrees", "not judged" (pcap's words are verdict_name()'s).
std::string_view audit_verdict_name(Verdict v);

// The rdma_cm connection of a QP: its ports in the order of the flow label
// hash (the active side's port first), and which side this QP is.
struct CmConnection {
	Endpoint local, remote;
	std::string ps;
	std::uint16_t sport = 0, dport = 0;
	std::string side; // "active", "passive", or "unknown" (no listener seen)
};

// What a QP's policy predicts for it.
struct Expected {
	std::string source;
	std::optional<std::uint32_t> flow_label; // none: not predicted
	std::uint16_t udp_sport = 0;
	std::optional<std::uint32_t> cm_flow_label; // rdma_cm UD: its AHs' flow label
};

struct QpVerdict {
	QpEntry qp;
	std::optional<CmConnection> cm;
	std::optional<Expected> expected;
	Verdict verdict = Verdict::Unjudged;
	std::vector<std::string> notes; // why it disagrees, or was not judged
};

struct AuditOptions {
	// --port-flow-label: the flow label the application of the rdma_cm
	// service on PORT set (IPv6 sin6_flowinfo); it wins over the CM hash.
	std::map<std::uint16_t, std::uint32_t> port_flow_labels;
	// The devices' port without entropy ("off"); rxe's is 0xC000.
	std::uint16_t base_sport = kSportBase;
};

struct AuditResult {
	std::vector<QpVerdict> qps;
	unsigned agree = 0, disagree = 0, unjudged = 0;
};

AuditResult audit(const std::vector<QpEntry> &qps, const std::vector<CmIdEntry> &cm_ids,
                  const AuditOptions &opts);

} // namespace roce
