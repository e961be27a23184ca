// SPDX-License-Identifier: GPL-2.0
// The demo report's names and the order of its tables, for its reading
// (ecmp_parse.cpp) and its judging and writing (ecmp_report.cpp).
#pragma once

#include <string>

#include "lab/ecmp_report.h"

namespace roce
{

// The kinds of demo connection (DemoConnection.kind).
inline const std::string kCmRc = "rdma_cm RC", kRc = "RC", kUd = "UD";

inline std::string family_title(const std::string &family)
{
	return family == "ipv6" ? "IPv6" : "IPv4";
}

inline std::string mix_title(const std::string &mix)
{
	return mix == "users" ? "users' mix" : "rdma_cm";
}

// The order of the tables: the routers' links for rdma_cm, the host's next
// hops, the users' mix; IPv4 before IPv6.
inline int group_rank(const EcmpRun &r)
{
	const int act = r.act == "host" ? 1 : r.mix == "users" ? 2 : 0;
	return act * 2 + (r.family == "ipv6");
}

} // namespace roce
