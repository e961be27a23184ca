// SPDX-License-Identifier: GPL-2.0
// The verbs layer's one error, and addresses as text.
#pragma once

#include <cerrno>
#include <cstdint>
#include <infiniband/verbs.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>

namespace roce
{

// A failed ibverbs or rdma_cm call, or a completion or event that went wrong.
struct VerbsError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Throw VerbsError "WHAT: strerror(ERR)".
[[noreturn]] void fail(const std::string &what, int err = errno);

// An IPv4 or IPv6 socket address's address, "?" for another family.
std::string addr_text(const sockaddr *sa);

// A GID (16 bytes) in IPv6 notation.
std::string gid_text(const std::uint8_t *raw);
inline std::string gid_text(const ibv_gid &gid)
{
	return gid_text(gid.raw);
}

} // namespace roce
