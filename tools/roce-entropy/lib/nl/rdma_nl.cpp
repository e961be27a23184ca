// SPDX-License-Identifier: GPL-2.0
#include "nl/rdma_nl.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/socket.h>
#include <unistd.h>

namespace roce::nl
{
namespace
{

nlmsghdr *request(std::span<std::byte> buf, std::uint32_t seq, int op, std::uint16_t flags)
{
	nlmsghdr *nlh = mnl_nlmsg_put_header(buf.data());
	nlh->nlmsg_type = static_cast<std::uint16_t>(RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, op));
	nlh->nlmsg_flags = static_cast<std::uint16_t>(NLM_F_REQUEST | flags);
	nlh->nlmsg_seq = seq;
	return nlh;
}

// The attributes of an nldev message or nest, by type; the last of a type
// wins.  Every type read here is below the table's size.
using Attrs = std::array<const nlattr *, 128>;
static_assert(kSysAttrRoceRepath < std::tuple_size_v<Attrs>);
static_assert(kAttrPortRoceEntropyDefault < std::tuple_size_v<Attrs>);

int collect(const nlattr *attr, void *data)
{
	auto &a = *static_cast<Attrs *>(data);
	if (mnl_attr_get_type(attr) < a.size())
		a[mnl_attr_get_type(attr)] = attr;
	return MNL_CB_OK;
}

Attrs attrs_of(const nlmsghdr *nlh)
{
	Attrs a{};
	if (mnl_attr_parse(nlh, 0, collect, &a) != MNL_CB_OK)
		throw std::runtime_error("rdma netlink: a malformed message");
	return a;
}

Attrs attrs_of(const nlattr *nest, const char *what)
{
	Attrs a{};
	if (mnl_attr_validate(nest, MNL_TYPE_NESTED) < 0 ||
	    mnl_attr_parse_nested(nest, collect, &a) != MNL_CB_OK)
		throw std::runtime_error(std::string("rdma netlink: a malformed ") + what);
	return a;
}

// The entries of the resource dump's QP table, which are all of one type.
int collect_entry(const nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == RDMA_NLDEV_ATTR_RES_QP_ENTRY)
		static_cast<std::vector<const nlattr *> *>(data)->push_back(attr);
	return MNL_CB_OK;
}

// The attributes of a nest, in their order.
int collect_all(const nlattr *attr, void *data)
{
	static_cast<std::vector<const nlattr *> *>(data)->push_back(attr);
	return MNL_CB_OK;
}

// The string NAME of a driver table: the value after the key NAME (key and
// value each an RDMA_NLDEV_ATTR_DRIVER_STRING, a print type between them
// allowed), if there is one.
std::optional<std::string> driver_string(const nlattr *table, std::string_view name)
{
	std::vector<const nlattr *> a;

	if (!table)
		return std::nullopt;
	if (mnl_attr_validate(table, MNL_TYPE_NESTED) < 0 ||
	    mnl_attr_parse_nested(table, collect_all, &a) != MNL_CB_OK)
		throw std::runtime_error("rdma netlink: a malformed driver table");
	for (std::size_t i = 0; i + 1 < a.size(); i++) {
		if (mnl_attr_get_type(a[i]) != RDMA_NLDEV_ATTR_DRIVER_STRING ||
		    mnl_attr_validate(a[i], MNL_TYPE_NUL_STRING) < 0 ||
		    mnl_attr_get_str(a[i]) != name)
			continue;
		std::size_t v = i + 1;
		if (mnl_attr_get_type(a[v]) == RDMA_NLDEV_ATTR_DRIVER_PRINT_TYPE &&
		    v + 1 < a.size())
			v++;
		if (mnl_attr_get_type(a[v]) != RDMA_NLDEV_ATTR_DRIVER_STRING ||
		    mnl_attr_validate(a[v], MNL_TYPE_NUL_STRING) < 0)
			throw std::runtime_error("rdma netlink: the driver table's " +
			                         std::string(name) + " is not a string");
		return mnl_attr_get_str(a[v]);
	}
	return std::nullopt;
}

// An unsigned attribute of T's size, if there is one; one of another size
// is an error.
template <typename T> std::optional<T> opt_of(const nlattr *attr, const char *what)
{
	constexpr mnl_attr_data_type type = sizeof(T) == 1   ? MNL_TYPE_U8
	                                    : sizeof(T) == 2 ? MNL_TYPE_U16
	                                                     : MNL_TYPE_U32;
	if (!attr)
		return std::nullopt;
	if (mnl_attr_validate(attr, type) < 0)
		throw std::runtime_error(std::string("rdma netlink: a ") + what +
		                         " that is not a u" + std::to_string(8 * sizeof(T)));
	T v;
	std::memcpy(&v, mnl_attr_get_payload(attr), sizeof(v));
	return v;
}

std::uint32_t u32_of(const nlattr *attr, const char *what)
{
	const auto v = opt_of<std::uint32_t>(attr, what);
	if (!v)
		throw std::runtime_error(std::string("rdma netlink: no ") + what + " in the reply");
	return *v;
}

// A string attribute; empty without one.
std::string str_of(const nlattr *attr)
{
	if (!attr || mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
		return {};
	return mnl_attr_get_str(attr);
}

// The extended ack's message, if any.
int ack_msg(const nlattr *attr, void *data)
{
	if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
	    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
		*static_cast<std::string *>(data) = mnl_attr_get_str(attr);
	return MNL_CB_OK;
}

} // namespace

std::size_t buffer_size()
{
	return static_cast<std::size_t>(MNL_SOCKET_BUFFER_SIZE);
}

nlmsghdr *dev_dump_request(std::span<std::byte> buf, std::uint32_t seq)
{
	return request(buf, seq, RDMA_NLDEV_CMD_GET, NLM_F_DUMP);
}

nlmsghdr *port_dump_request(std::span<std::byte> buf, std::uint32_t seq, std::uint32_t dev_index)
{
	nlmsghdr *nlh = request(buf, seq, RDMA_NLDEV_CMD_PORT_GET, NLM_F_DUMP);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	return nlh;
}

nlmsghdr *port_set_request(std::span<std::byte> buf, std::uint32_t seq, std::uint32_t dev_index,
                           std::uint32_t port, std::optional<Policy> policy)
{
	nlmsghdr *nlh = request(buf, seq, RDMA_NLDEV_CMD_SET, NLM_F_ACK);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	if (policy)
		mnl_attr_put_u8(nlh, kAttrPortRoceEntropy, policy_to_nl(*policy));
	else
		mnl_attr_put_u8(nlh, kAttrPortRoceEntropyDefault, 1);
	return nlh;
}

nlmsghdr *qp_dump_request(std::span<std::byte> buf, std::uint32_t seq, std::uint32_t dev_index,
                          bool details)
{
	nlmsghdr *nlh = request(buf, seq, RDMA_NLDEV_CMD_RES_QP_GET, NLM_F_DUMP);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, dev_index);
	if (details)
		mnl_attr_put_u8(nlh, kAttrDriverDetails, 1);
	return nlh;
}

nlmsghdr *sys_get_request(std::span<std::byte> buf, std::uint32_t seq)
{
	return request(buf, seq, RDMA_NLDEV_CMD_SYS_GET, 0);
}

nlmsghdr *sys_set_request(std::span<std::byte> buf, std::uint32_t seq, std::optional<Policy> policy,
                          std::optional<bool> repath)
{
	nlmsghdr *nlh = request(buf, seq, RDMA_NLDEV_CMD_SYS_SET, NLM_F_ACK);
	if (policy)
		mnl_attr_put_u8(nlh, kSysAttrRoceEntropy, policy_to_nl(*policy));
	if (repath)
		mnl_attr_put_u8(nlh, kSysAttrRoceRepath, *repath ? 1 : 0);
	return nlh;
}

Device parse_dev(const nlmsghdr *nlh)
{
	const Attrs a = attrs_of(nlh);
	Device d;
	d.index = u32_of(a[RDMA_NLDEV_ATTR_DEV_INDEX], "device index");
	d.name = str_of(a[RDMA_NLDEV_ATTR_DEV_NAME]);
	if (d.name.empty())
		throw std::runtime_error("rdma netlink: no device name in the reply");
	return d;
}

PortPolicy parse_port(const nlmsghdr *nlh)
{
	const Attrs a = attrs_of(nlh);
	PortPolicy p;
	p.dev_index = u32_of(a[RDMA_NLDEV_ATTR_DEV_INDEX], "device index");
	p.dev_name = str_of(a[RDMA_NLDEV_ATTR_DEV_NAME]);
	p.port = u32_of(a[RDMA_NLDEV_ATTR_PORT_INDEX], "port index");
	if (const auto v =
	        opt_of<std::uint8_t>(a[kAttrPortRoceEntropy], "RoCE v2 entropy policy")) {
		p.policy = policy_from_nl(*v);
		if (!p.policy)
			p.raw = *v;
	}
	p.scope = opt_of<std::uint8_t>(a[kAttrPortRoceEntropyScope], "RoCE v2 entropy scope");
	if (const auto v = opt_of<std::uint8_t>(a[kAttrPortRoceEntropyDefault],
	                                        "RoCE v2 entropy default flag"))
		p.follows = *v != 0;
	return p;
}

std::vector<ResQp> parse_qps(const nlmsghdr *nlh)
{
	const Attrs a = attrs_of(nlh);
	std::vector<ResQp> qps;
	if (!a[RDMA_NLDEV_ATTR_RES_QP])
		return qps; // a device without QPs
	ResQp dev;
	dev.dev_index = u32_of(a[RDMA_NLDEV_ATTR_DEV_INDEX], "device index");
	dev.dev_name = str_of(a[RDMA_NLDEV_ATTR_DEV_NAME]);
	std::vector<const nlattr *> entries;
	if (mnl_attr_validate(a[RDMA_NLDEV_ATTR_RES_QP], MNL_TYPE_NESTED) < 0 ||
	    mnl_attr_parse_nested(a[RDMA_NLDEV_ATTR_RES_QP], collect_entry, &entries) != MNL_CB_OK)
		throw std::runtime_error("rdma netlink: a malformed QP table");
	for (const nlattr *entry : entries) {
		const Attrs q = attrs_of(entry, "QP entry");
		ResQp r = dev;
		r.lqpn = u32_of(q[RDMA_NLDEV_ATTR_RES_LQPN], "QP number");
		r.port =
		    opt_of<std::uint32_t>(q[RDMA_NLDEV_ATTR_PORT_INDEX], "port index").value_or(0);
		r.rqpn = opt_of<std::uint32_t>(q[RDMA_NLDEV_ATTR_RES_RQPN], "remote QP number");
		r.pid = opt_of<std::uint32_t>(q[RDMA_NLDEV_ATTR_RES_PID], "pid");
		r.type = opt_of<std::uint8_t>(q[RDMA_NLDEV_ATTR_RES_TYPE], "QP type");
		r.state = opt_of<std::uint8_t>(q[RDMA_NLDEV_ATTR_RES_STATE], "QP state");
		r.kern_name = str_of(q[RDMA_NLDEV_ATTR_RES_KERN_NAME]);
		r.policy = opt_of<std::uint8_t>(q[kAttrResRoceEntropy], "RoCE v2 entropy policy");
		r.source = driver_string(q[RDMA_NLDEV_ATTR_DRIVER], kDriverFlSource);
		r.flow_label = opt_of<std::uint32_t>(q[kAttrResRoceFlowLabel], "flow label");
		r.udp_sport = opt_of<std::uint16_t>(q[kAttrResRoceUdpSport], "UDP source port");
		qps.push_back(std::move(r));
	}
	return qps;
}

SysDefaults parse_sys(const nlmsghdr *nlh)
{
	const Attrs a = attrs_of(nlh);
	return {opt_of<std::uint8_t>(a[kSysAttrRoceEntropy], "RoCE v2 entropy policy"),
	        opt_of<std::uint8_t>(a[kSysAttrRoceRepath], "re-path setting")};
}

int parse_done(const nlmsghdr *nlh)
{
	int err = 0;
	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(err))
		std::memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(err));
	return err < 0 ? -err : 0;
}

std::pair<int, std::string> parse_error(const nlmsghdr *nlh)
{
	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(nlmsgerr))
		throw std::runtime_error("rdma netlink: a truncated error message");
	const auto *err = static_cast<const nlmsgerr *>(mnl_nlmsg_get_payload(nlh));
	std::string msg;
	if (err->error && (nlh->nlmsg_flags & NLM_F_ACK_TLVS)) {
		// The TLVs follow the request the error echoes, unless capped.
		std::size_t off = sizeof(*err);
		if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
			off += err->msg.nlmsg_len - sizeof(nlmsghdr);
		if (off <= mnl_nlmsg_get_payload_len(nlh))
			mnl_attr_parse(nlh, static_cast<unsigned>(off), ack_msg, &msg);
	}
	return {-err->error, msg};
}

Socket::Socket() : buf_(buffer_size())
{
	sock_ = mnl_socket_open(NETLINK_RDMA);
	if (!sock_)
		throw NlError(errno, std::string("cannot open an rdma netlink socket: ") +
		                         std::strerror(errno));
	int one = 1;
	// Messages with the refusals; capped acks: no echo of the request.
	mnl_socket_setsockopt(sock_, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(sock_, NETLINK_CAP_ACK, &one, sizeof(one));
	if (mnl_socket_bind(sock_, 0, MNL_SOCKET_AUTOPID) < 0) {
		const int e = errno;
		mnl_socket_close(sock_);
		throw NlError(e, std::string("cannot bind an rdma netlink socket: ") +
		                     std::strerror(e));
	}
	portid_ = mnl_socket_get_portid(sock_);
	seq_ = static_cast<std::uint32_t>(std::time(nullptr));
}

Socket::~Socket()
{
	mnl_socket_close(sock_);
}

template <typename F> void Socket::transact(nlmsghdr *req, F on_msg)
{
	if (mnl_socket_sendto(sock_, req, req->nlmsg_len) < 0)
		throw NlError(errno, std::string("rdma netlink: send: ") + std::strerror(errno));
	const std::uint32_t seq = req->nlmsg_seq;
	for (;;) {
		const ssize_t n = mnl_socket_recvfrom(sock_, buf_.data(), buf_.size());
		if (n < 0)
			throw NlError(errno, std::string("rdma netlink: receive: ") +
			                         std::strerror(errno));
		auto left = static_cast<int>(n);
		for (auto *nlh = reinterpret_cast<const nlmsghdr *>(buf_.data());
		     mnl_nlmsg_ok(nlh, left); nlh = mnl_nlmsg_next(nlh, &left)) {
			if (nlh->nlmsg_seq != seq || nlh->nlmsg_pid != portid_)
				continue;
			if (nlh->nlmsg_type == NLMSG_DONE) {
				// A dump that failed on the way ends with its error.
				const int e = parse_done(nlh);
				if (e)
					throw NlError(
					    e, std::string("rdma netlink: the dump failed: ") +
					           std::strerror(e));
				return;
			}
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				const auto [e, msg] = parse_error(nlh);
				if (e)
					throw NlError(e, msg.empty()
					                     ? std::strerror(e)
					                     : msg + " (" + std::strerror(e) + ")");
				return; // the acknowledgment
			}
			on_msg(nlh);
			if (!(nlh->nlmsg_flags & NLM_F_MULTI))
				return;
		}
	}
}

std::vector<Device> Socket::devices()
{
	std::vector<std::byte> req(buffer_size());
	std::vector<Device> devs;
	transact(dev_dump_request(req, ++seq_),
	         [&](const nlmsghdr *nlh) { devs.push_back(parse_dev(nlh)); });
	return devs;
}

std::vector<PortPolicy> Socket::ports()
{
	std::vector<std::byte> req(buffer_size());
	std::vector<PortPolicy> ports;
	for (const Device &d : devices())
		transact(port_dump_request(req, ++seq_, d.index), [&](const nlmsghdr *nlh) {
			ports.push_back(parse_port(nlh));
			if (ports.back().dev_name.empty())
				ports.back().dev_name = d.name;
		});
	return ports;
}

std::vector<ResQp> Socket::qps()
{
	std::vector<std::byte> req(buffer_size());
	std::vector<ResQp> qps;
	for (const Device &d : devices())
		transact(qp_dump_request(req, ++seq_, d.index, true), [&](const nlmsghdr *nlh) {
			for (auto &q : parse_qps(nlh)) {
				if (q.dev_name.empty())
					q.dev_name = d.name;
				qps.push_back(std::move(q));
			}
		});
	return qps;
}

SysDefaults Socket::sys_defaults()
{
	std::vector<std::byte> req(buffer_size());
	SysDefaults v;
	transact(sys_get_request(req, ++seq_), [&](const nlmsghdr *nlh) { v = parse_sys(nlh); });
	return v;
}

void Socket::set_port(std::uint32_t dev_index, std::uint32_t port, std::optional<Policy> policy)
{
	std::vector<std::byte> req(buffer_size());
	transact(port_set_request(req, ++seq_, dev_index, port, policy), [](const nlmsghdr *) {});
}

void Socket::set_sys(std::optional<Policy> policy, std::optional<bool> repath)
{
	std::vector<std::byte> req(buffer_size());
	transact(sys_set_request(req, ++seq_, policy, repath), [](const nlmsghdr *) {});
}

} // namespace roce::nl
