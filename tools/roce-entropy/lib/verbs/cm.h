// SPDX-License-Identifier: GPL-2.0
// rdma_cm's event channel, and waiting for the next event.
#pragma once

#include <rdma/rdma_cma.h>

#include "verbs/error.h"

namespace roce
{

// An rdma_cm event channel, destroyed with its owner.
struct EventChannel {
	rdma_event_channel *ch = rdma_create_event_channel();

	EventChannel()
	{
		if (!ch)
			fail("rdma_create_event_channel");
	}
	~EventChannel()
	{
		rdma_destroy_event_channel(ch);
	}
	EventChannel(const EventChannel &) = delete;
	EventChannel &operator=(const EventChannel &) = delete;
};

// Wait up to TIMEOUT seconds for the next CM event on CH, which should be
// WANT.  Returns the event, to be acked by the caller.
rdma_cm_event *next_event(rdma_event_channel *ch, rdma_cm_event_type want, unsigned timeout);

// As next_event(), but the event must be WANT.
rdma_cm_event *expect_event(rdma_event_channel *ch, rdma_cm_event_type want, unsigned timeout);

} // namespace roce
