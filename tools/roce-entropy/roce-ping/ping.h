// SPDX-License-Identifier: GPL-2.0
// roce-ping: an rdma_cm RC ping-pong client and server whose client can set
// its own IPv6 flow label and report each connection's CM ports and QPNs,
// or time connect, ping, disconnect cycles.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <sys/socket.h>
#include <vector>

namespace roce
{

struct PingOptions {
	bool server = false;
	sockaddr_storage bind{};   // local address; the server's port
	sockaddr_storage remote{}; // client: the server's address and port
	unsigned connections = 1;  // client: opened at once; server: served, 0 = until killed
	unsigned messages = 10;    // client: round trips per connection
	unsigned size = 64;        // bytes per message
	std::uint32_t flow_label = 0;
	std::uint16_t sport_base = 0; // client: connection i binds port base + i; 0: rdma_cm's
	std::string until;            // client: after MESSAGES, keep pinging until this file exists
	unsigned timeout = 20;        // seconds for each connection step
	// client: 0 = connect, ping, print the connections, disconnect, once;
	// N = connect, ping, disconnect N times in a row and print the rate
	unsigned cycles = 0;
	// both: after MESSAGES round trips (the client: the moment its last
	// echo is in; the server: once its echo of the last message has
	// completed), rdma_disconnect(), rdma_destroy_id() and destroy the QP
	// at once, without waiting for DISCONNECTED: when both ends do, their
	// DREQs may cross and arrive after the other's ID is gone
	bool close_at_once = false;
	// client: succeed only if every connection is rejected (a port nobody
	// listens on), with RDMA_CM_EVENT_REJECTED
	bool expect_reject = false;
	bool json = false;
	// both: the QP's local ACK timeout, 4.096 us * 2^N (rdma_set_option()
	// RDMA_OPTION_ID_ACK_TIMEOUT); none: rdma_cm's (packet life time + 1)
	std::optional<std::uint8_t> qp_timeout;
	// both: the transport retry count given to rdma_connect()/rdma_accept()
	// (0-7; rxe in 6.12 takes 7 as "retry forever")
	unsigned retry_count = 7;
	// client: milliseconds between round trips once MESSAGES are done and
	// --until holds the connections
	unsigned interval_ms = 100;
	// both: a connection that fails (an error completion; the client: no
	// echo for TIMEOUT s) is reported and the others go on
	bool keep_going = false;
	// client: gaps between two completed round trips at least this long
	// are listed per connection (the longest is always reported)
	unsigned stall_min_ms = 250;
	// both: the server echoes nothing; a round trip is a send and its ACK
	// (the client's send completes), so the server's QP only responds
	bool one_way = false;
};

// Parse ARGV into OPTS.  Returns nothing when the options are good, or the
// exit status (0 for --help, 2 for a usage error, with a message on ERR).
std::optional<int> parse_ping_args(int argc, const char *const *argv, PingOptions &opts,
                                   std::ostream &out, std::ostream &err);

// The client's wait for a completion, in milliseconds: at most MAX_MS, and
// not past the earliest of DUE, the times until the held connections' next
// sends (rounded up; one already due: 0).
int ping_wait_ms(const std::vector<std::chrono::steady_clock::duration> &due, int max_ms);

// Run the client or server.  Returns the exit status: 0 when every
// connection completed its messages (with --expect-reject: was rejected),
// 1 otherwise.
int run_ping(const PingOptions &opts, std::ostream &out, std::ostream &err);

} // namespace roce
