// SPDX-License-Identifier: GPL-2.0
#include "verbs/cm.h"

#include <poll.h>
#include <string>

namespace roce
{

rdma_cm_event *next_event(rdma_event_channel *ch, rdma_cm_event_type want, unsigned timeout)
{
	pollfd pfd{ch->fd, POLLIN, 0};
	rdma_cm_event *ev;

	int n = poll(&pfd, 1, static_cast<int>(timeout * 1000));
	if (n < 0)
		fail("poll");
	if (n == 0)
		throw VerbsError(std::string("timed out waiting for ") + rdma_event_str(want));
	if (rdma_get_cm_event(ch, &ev))
		fail("rdma_get_cm_event");
	return ev;
}

rdma_cm_event *expect_event(rdma_event_channel *ch, rdma_cm_event_type want, unsigned timeout)
{
	rdma_cm_event *ev = next_event(ch, want, timeout);

	if (ev->event != want) {
		std::string got = rdma_event_str(ev->event);
		int status = ev->status;
		rdma_ack_cm_event(ev);
		throw VerbsError(std::string("expected ") + rdma_event_str(want) + ", got " + got +
		                 " (status " + std::to_string(status) + ")");
	}
	return ev;
}

} // namespace roce
