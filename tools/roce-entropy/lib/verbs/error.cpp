// SPDX-License-Identifier: GPL-2.0
#include "verbs/error.h"

#include <arpa/inet.h>
#include <cstring>
#include <netinet/in.h>

namespace roce
{

void fail(const std::string &what, int err)
{
	throw VerbsError(what + ": " + std::strerror(err));
}

std::string addr_text(const sockaddr *sa)
{
	char buf[INET6_ADDRSTRLEN] = "?";

	if (sa->sa_family == AF_INET)
		inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in *>(sa)->sin_addr, buf,
		          sizeof(buf));
	else if (sa->sa_family == AF_INET6)
		inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6 *>(sa)->sin6_addr, buf,
		          sizeof(buf));
	return buf;
}

std::string gid_text(const std::uint8_t *raw)
{
	char buf[INET6_ADDRSTRLEN] = "?";

	inet_ntop(AF_INET6, raw, buf, sizeof(buf));
	return buf;
}

} // namespace roce
