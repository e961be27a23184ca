// SPDX-License-Identifier: GPL-2.0
// policy: show and set the RoCE v2 entropy policies over rdma netlink, a
// port's and the one devices start with when they register, and the
// re-path setting they start with; a port's policy is also its
// roce_entropy file (and the defaults, in the DKMS build, ib_core's
// roce_entropy and roce_repath parameters).
#include <charconv>

#include "args/args.h"
#include "commands.h"
#include "nl/rdma_nl.h"
#include "output/record.h"

namespace roce
{
namespace
{

using nlohmann::json;

struct Target {
	std::string dev;
	std::optional<std::uint32_t> port;
};

// "DEV" or "DEV/PORT"; UsageError for anything else.
Target target_arg(const std::string &text, bool need_port)
{
	Target t;
	const auto slash = text.find('/');
	t.dev = text.substr(0, slash);
	if (t.dev.empty())
		throw UsageError("'" + text + "' is not DEV or DEV/PORT");
	if (slash != std::string::npos)
		t.port = static_cast<std::uint32_t>(
		    number_arg(std::string_view(text).substr(slash + 1), 1, 0xFFFF, "port"));
	if (need_port && !t.port)
		throw UsageError("'" + text + "' names no port: DEV/PORT");
	return t;
}

std::string policy_text(const nl::PortPolicy &p)
{
	if (p.policy)
		return std::string(policy_name(*p.policy));
	if (p.raw)
		return "unknown (" + std::to_string(*p.raw) + ")";
	return "-";
}

json policy_json(const nl::PortPolicy &p)
{
	if (p.policy)
		return std::string(policy_name(*p.policy));
	if (p.raw)
		return *p.raw;
	return nullptr;
}

// What the port's driver programs of the policy: "sport", "flow_label",
// or both; null on a kernel that does not say.
json scope_json(const nl::PortPolicy &p)
{
	if (!p.scope)
		return nullptr;
	json j = json::array();
	if (*p.scope & nl::kScopeSport)
		j.push_back("sport");
	if (*p.scope & nl::kScopeFlowLabel)
		j.push_back("flow_label");
	return j;
}

// The text form: nothing when the driver programs both, as most do.
std::string scope_text(const nl::PortPolicy &p)
{
	if (!p.scope || (*p.scope & (nl::kScopeSport | nl::kScopeFlowLabel)) ==
	                    (nl::kScopeSport | nl::kScopeFlowLabel))
		return "";
	if (*p.scope & nl::kScopeSport)
		return " (UDP source port only)";
	if (*p.scope & nl::kScopeFlowLabel)
		return " (flow label only)";
	return " (neither port nor flow label)";
}

json default_json(std::optional<std::uint8_t> v)
{
	if (!v)
		return nullptr;
	if (const auto p = nl::policy_from_nl(*v))
		return std::string(policy_name(*p));
	return *v;
}

std::string default_text(std::optional<std::uint8_t> v)
{
	const json j = default_json(v);
	if (j.is_null())
		return "- (this kernel has no RoCE v2 entropy policy over rdma netlink)";
	return j.is_string() ? j.get<std::string>() : "unknown (" + j.dump() + ")";
}

// RDMA_NLDEV_SYS_ATTR_ROCE_REPATH: 0 off, 1 on.
json repath_json(std::optional<std::uint8_t> v)
{
	if (!v)
		return nullptr;
	if (*v <= 1)
		return *v ? "on" : "off";
	return *v;
}

std::string repath_text(std::optional<std::uint8_t> v)
{
	const json j = repath_json(v);
	if (j.is_null())
		return "- (this kernel has no re-path setting over rdma netlink)";
	return j.is_string() ? j.get<std::string>() : "unknown (" + j.dump() + ")";
}

bool repath_arg(const std::string &text)
{
	if (text == "on" || text == "off")
		return text == "on";
	throw UsageError("unknown re-path setting '" + text + "' (off or on)");
}

// The kernel must have the series' attributes: a stock kernel refuses
// them as unknown, which would read as a bad value.
void need_series(nl::Socket &sock)
{
	if (!sock.sys_defaults().policy)
		throw std::runtime_error("this kernel has no RoCE v2 entropy policy over rdma "
		                         "netlink: not a kernel with the series, or DKMS's "
		                         "modules are not loaded");
}

int show(const PolicyArgs &args, std::ostream &out)
{
	std::optional<Target> t;
	if (!args.target.empty())
		t = target_arg(args.target, false);
	nl::Socket sock;
	const nl::SysDefaults sys = sock.sys_defaults();
	std::vector<Record> rows;
	bool found = false;
	for (const auto &p : sock.ports()) {
		if (t && (p.dev_name != t->dev || (t->port && p.port != *t->port)))
			continue;
		found = true;
		Record r;
		r.add("device", p.dev_name,
		      format("%-12s", (p.dev_name + "/" + std::to_string(p.port)).c_str()));
		r.add("port", p.port, "");
		r.add("policy", policy_json(p), policy_text(p));
		r.add("scope", scope_json(p), scope_text(p));
		r.add("follows_default", p.follows ? json(*p.follows) : json(nullptr),
		      p.follows && *p.follows ? " (the default's)\n" : "\n");
		rows.push_back(std::move(r));
	}
	if (t && !found)
		throw UsageError("no RDMA port " + args.target);
	Record rec;
	rec.add("default", default_json(sys.policy),
	        format("%-12s", "default") + default_text(sys.policy) + "\n");
	rec.add("repath_default", repath_json(sys.repath),
	        format("%-12s", "re-path") + repath_text(sys.repath) + "\n");
	rec.add("ports", rows);
	print(rec, args.json, out);
	return kExitOk;
}

int set(const PolicyArgs &args, std::ostream &out)
{
	const Target t = target_arg(args.target, true);
	// "default": the port follows the default again
	std::optional<Policy> policy;
	if (args.policy != "default")
		policy = policy_arg(args.policy);
	nl::Socket sock;
	need_series(sock);
	std::optional<std::uint32_t> index;
	for (const auto &d : sock.devices())
		if (d.name == t.dev)
			index = d.index;
	if (!index)
		throw UsageError("no RDMA device " + t.dev);
	sock.set_port(*index, *t.port, policy);
	if (args.json)
		out << json{{"device", t.dev},
		            {"port", *t.port},
		            {"policy", policy ? std::string(policy_name(*policy)) : "default"}}
		           .dump()
		    << '\n';
	return kExitOk;
}

// "policy default" and "policy repath": show one of the system-wide
// defaults or, given a value, set it.
int sys_setting(const PolicyArgs &args, bool repath, std::ostream &out)
{
	const char *key = repath ? "repath" : "default";
	std::optional<Policy> policy;
	std::optional<bool> on;
	if (!args.policy.empty()) {
		if (repath)
			on = repath_arg(args.policy);
		else
			policy = policy_arg(args.policy);
	}
	nl::Socket sock;
	if (!policy && !on) {
		const nl::SysDefaults sys = sock.sys_defaults();
		if (args.json)
			out << json{{key,
			             repath ? repath_json(sys.repath) : default_json(sys.policy)}}
			           .dump()
			    << '\n';
		else
			out << (repath ? repath_text(sys.repath) : default_text(sys.policy))
			    << '\n';
		return kExitOk;
	}
	need_series(sock);
	sock.set_sys(policy, on);
	if (args.json)
		out << json{{key,
		             std::string(policy ? policy_name(*policy) : (*on ? "on" : "off"))}}
		           .dump()
		    << '\n';
	return kExitOk;
}

} // namespace

int policy_cmd(const PolicyArgs &args, std::ostream &out)
{
	refuse_stale_modules("/");
	if (args.action == "set")
		return set(args, out);
	if (args.action == "default" || args.action == "repath")
		return sys_setting(args, args.action == "repath", out);
	return show(args, out);
}

} // namespace roce
