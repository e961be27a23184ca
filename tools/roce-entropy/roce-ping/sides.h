// SPDX-License-Identifier: GPL-2.0
// roce-ping's two sides, each over lib/verbs: the connections' verbs
// resources in a Fabric, rdma_cm events on one channel.
#pragma once

#include <ostream>

#include "ping.h"

namespace roce
{

int run_client(const PingOptions &opts, std::ostream &out);
int run_server(const PingOptions &opts, std::ostream &out, std::ostream &err);

} // namespace roce
