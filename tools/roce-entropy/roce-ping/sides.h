// SPDX-License-Identifier: GPL-2.0
// roce-ping's two sides, each over lib/verbs: the connections' verbs
// resources in a Fabric, rdma_cm events on one channel.
#pragma once

#include <ostream>
#include <rdma/rdma_cma.h>

#include "ping.h"

namespace roce
{

// --qp-timeout: the ACK timeout of ID's QP, set before it connects.
void set_qp_timeout(rdma_cm_id *id, const PingOptions &opts);

int run_client(const PingOptions &opts, std::ostream &out);
int run_server(const PingOptions &opts, std::ostream &out, std::ostream &err);

} // namespace roce
