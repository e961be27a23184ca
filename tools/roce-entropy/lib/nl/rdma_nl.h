// SPDX-License-Identifier: GPL-2.0
// The RoCE v2 entropy policies over rdma netlink (NETLINK_RDMA, nldev), as
// the series' patch "RDMA/nldev: Set and show the RoCE v2 entropy policy"
// defines them: a port's policy in PORT_GET and SET, the policy devices
// start with in SYS_GET and SYS_SET.  Messages are built and read with
// libmnl; building and reading are apart from the socket, for the tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "entropy/entropy.h"

struct nlmsghdr;
struct mnl_socket;

namespace roce::nl
{

// The series' additions to <rdma/rdma_netlink.h>: appended to Linux
// 6.12's enum rdma_nldev_attr, and its enum rdma_nl_roce_entropy.  The
// system's header (rdma-core's) predates them; tools/buildlib/series-check.sh
// compares these with the patched kernel header.
// A QP's entry in the resource dump: u8, u32, u16.
inline constexpr std::uint16_t kAttrResRoceEntropy = 104;
inline constexpr std::uint16_t kAttrResRoceFlowLabel = 105;
inline constexpr std::uint16_t kAttrResRoceUdpSport = 106;
inline constexpr std::uint16_t kAttrPortRoceEntropy = 107;
inline constexpr std::uint16_t kSysAttrRoceEntropy = 108;
// u8, bits of enum rdma_nl_roce_entropy_scope: what the port's driver
// programs of the policy.
inline constexpr std::uint16_t kAttrPortRoceEntropyScope = 109;
inline constexpr std::uint8_t kScopeSport = 1 << 0;
inline constexpr std::uint8_t kScopeFlowLabel = 1 << 1;
// u8: in a port's message, 1 when it follows the default, 0 when set on
// its own; 1 in a SET makes it follow the default again
inline constexpr std::uint16_t kAttrPortRoceEntropyDefault = 110;
// u8: 0 off, 1 on
inline constexpr std::uint16_t kSysAttrRoceRepath = 111;

// RDMA_NLDEV_ATTR_DRIVER_DETAILS (u8) of Linux 6.12, which the system's
// header predates too: the drivers' own QPs in a resource dump.
inline constexpr std::uint16_t kAttrDriverDetails = 97;

// Where a QP's flow label comes from: a string of the QP entry's driver
// table (RDMA_NLDEV_ATTR_DRIVER), under this name, a driver's detail
// rather than a uAPI value ("address", "qpn", "none", "per-send",
// "per-ah", "per-qp" on rxe and mlx5).
inline constexpr std::string_view kDriverFlSource = "roce_fl_source";

// enum rdma_nl_roce_entropy, in its order: BUILTIN, OFF, RFC, MIX.
inline constexpr Policy kNlPolicies[] = {Policy::Builtin, Policy::Off, Policy::Rfc, Policy::Mix};

// enum rdma_nl_roce_entropy -> Policy; nullopt for a value the tool does
// not know.
constexpr std::optional<Policy> policy_from_nl(std::uint8_t value)
{
	if (value >= std::size(kNlPolicies))
		return std::nullopt;
	return kNlPolicies[value];
}

// Policy -> enum rdma_nl_roce_entropy.
constexpr std::uint8_t policy_to_nl(Policy policy)
{
	std::uint8_t i = 0;
	while (i < std::size(kNlPolicies) && kNlPolicies[i] != policy)
		i++;
	return i;
}

// One port of a PORT_GET reply; policy is empty on ports without one
// (not RoCE v2, or a driver that does not follow it, or a kernel without
// the series).
struct PortPolicy {
	std::uint32_t dev_index = 0;
	std::string dev_name;
	std::uint32_t port = 0;
	std::optional<Policy> policy;
	std::optional<std::uint8_t> raw;   // the value, when the tool does not know it
	std::optional<std::uint8_t> scope; // kScopeSport | kScopeFlowLabel
	std::optional<bool> follows;       // follows the default, or set on its own
};

// One QP of a RES_QP_GET dump, as the kernel sent it.  The entropy is
// there for QPs of a driver that follows the policy, once the QP has it.
struct ResQp {
	std::uint32_t dev_index = 0;
	std::string dev_name;
	std::uint32_t port = 0; // 0: none yet
	std::uint32_t lqpn = 0;
	std::optional<std::uint32_t> rqpn, pid;
	std::optional<std::uint8_t> type, state; // enum ib_qp_type, ib_qp_state
	std::string kern_name;                   // the owner of a kernel QP
	std::optional<std::uint8_t> policy;      // enum rdma_nl_roce_entropy
	std::optional<std::string> source;       // the driver table's roce_fl_source
	std::optional<std::uint32_t> flow_label;
	std::optional<std::uint16_t> udp_sport;
};

// The system-wide defaults, as the kernel sent them: the policy and the
// re-path setting (0 off, 1 on); nullopt where the kernel has no such
// attribute.
struct SysDefaults {
	std::optional<std::uint8_t> policy;
	std::optional<std::uint8_t> repath;
};

// An error the kernel returned: errno and its extended ack message.
struct NlError : std::runtime_error {
	NlError(int err, const std::string &what) : std::runtime_error(what), error(err)
	{
	}
	int error;
};

// A device of a GET dump.
struct Device {
	std::uint32_t index = 0;
	std::string name;
};

// The size of a message buffer: MNL_SOCKET_BUFFER_SIZE.
std::size_t buffer_size();

// Requests, written into BUF (at least buffer_size() bytes):
// each returns the message.  The kernel dumps the ports of one device.
nlmsghdr *dev_dump_request(std::span<std::byte> buf, std::uint32_t seq);
nlmsghdr *port_dump_request(std::span<std::byte> buf, std::uint32_t seq, std::uint32_t dev_index);
// A port's policy; nullopt: the port follows the default again.
nlmsghdr *port_set_request(std::span<std::byte> buf, std::uint32_t seq, std::uint32_t dev_index,
                           std::uint32_t port, std::optional<Policy> policy);
// Every QP of one device; with DETAILS, the driver's own QPs too (rdma's -dd).
nlmsghdr *qp_dump_request(std::span<std::byte> buf, std::uint32_t seq, std::uint32_t dev_index,
                          bool details);
nlmsghdr *sys_get_request(std::span<std::byte> buf, std::uint32_t seq);
// A SYS_SET of the defaults given: the policy, the re-path setting, or both.
nlmsghdr *sys_set_request(std::span<std::byte> buf, std::uint32_t seq, std::optional<Policy> policy,
                          std::optional<bool> repath);

// Replies.  Each throws std::runtime_error for a message that lacks what
// it must have.
Device parse_dev(const nlmsghdr *nlh);
PortPolicy parse_port(const nlmsghdr *nlh);
// The QPs of one message of a RES_QP_GET dump.
std::vector<ResQp> parse_qps(const nlmsghdr *nlh);
// The defaults of a SYS_GET reply.
SysDefaults parse_sys(const nlmsghdr *nlh);
// The NLMSG_DONE that ends a dump: 0, or the errno of a dump that failed.
int parse_done(const nlmsghdr *nlh);
// An NLMSG_ERROR message: 0 for an acknowledgment, else NlError's errno,
// with the kernel's message (NLMSGERR_ATTR_MSG) when there is one.
std::pair<int, std::string> parse_error(const nlmsghdr *nlh);

// A NETLINK_RDMA socket with extended acks; throws NlError when it cannot
// be opened.
class Socket
{
public:
	Socket();
	~Socket();
	Socket(const Socket &) = delete;
	Socket &operator=(const Socket &) = delete;

	std::vector<Device> devices();
	// Every port of every device, in the kernel's order.
	std::vector<PortPolicy> ports();
	// Every QP of every device, the drivers' own included.
	std::vector<ResQp> qps();
	SysDefaults sys_defaults();
	// Throw NlError with the kernel's errno and message when it refuses.
	void set_port(std::uint32_t dev_index, std::uint32_t port, std::optional<Policy> policy);
	void set_sys(std::optional<Policy> policy, std::optional<bool> repath);

private:
	// Send REQ and read its replies, calling ON_MSG for each data message;
	// throws NlError for an error reply.
	template <typename F> void transact(nlmsghdr *req, F on_msg);
	std::vector<std::byte> buf_;
	::mnl_socket *sock_ = nullptr;
	std::uint32_t portid_ = 0, seq_ = 0;
};

} // namespace roce::nl
