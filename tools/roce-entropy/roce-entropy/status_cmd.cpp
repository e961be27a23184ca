// SPDX-License-Identifier: GPL-2.0
// status: an operator's one-screen health check of the package on a
// Debian host, read under --root and never written; exit 1 when something
// keeps our modules from running (each problem printed), 3 when only a
// reboot is missing, 0 otherwise.
#include <algorithm>
#include <filesystem>

#include "args/args.h"
#include "commands.h"
#include "output/record.h"
#include "status/status.h"

namespace roce
{
namespace
{

using nlohmann::json;

constexpr int kSectionWidth = 13; // "secure boot: "

json opt_json(const auto &v)
{
	return v ? json(*v) : json(nullptr);
}

// LINES under the heading NAME, aligned after it.
std::string section(const std::string &name, const std::vector<std::string> &lines)
{
	std::string s;
	for (std::size_t i = 0; i < lines.size(); i++)
		s += format("%-*s%s\n", kSectionWidth, i ? "" : (name + ":").c_str(),
		            lines[i].c_str());
	return s;
}

void add_running(Record &r, const std::optional<std::string> &running)
{
	const std::string line = running
	                             ? *running + " (upstream " + upstream_version(*running) + ")"
	                             : "unknown (cannot read /proc/sys/kernel/osrelease)";
	r.add("running", opt_json(running), section("kernel", {line}));
}

std::string ib_core_text(const IbCoreStatus &m)
{
	if (!m.loaded)
		return "not loaded";
	if (!m.ours)
		return "stock (no roce_entropy parameter)";
	return "ours, default: policy " + m.roce_entropy.value_or("?") + ", re-path " +
	       m.roce_repath.value_or("-");
}

void add_ib_core(Record &r, const IbCoreStatus &m)
{
	const json j = {{"loaded", m.loaded},
	                {"ours", m.ours},
	                {"roce_entropy", opt_json(m.roce_entropy)},
	                {"roce_repath", opt_json(m.roce_repath)},
	                {"build_id", opt_json(m.build_id)}};
	r.add("ib_core", j, section("ib_core", {ib_core_text(m)}));
}

// "rxe0/1  mix    re-path off", the devices' names aligned.
void add_ports(Record &r, const std::vector<PortStatus> &ports)
{
	json j = json::array();
	std::vector<std::string> lines;
	std::size_t width = 0;

	for (const auto &p : ports)
		width = std::max(width, p.dev.size() + 1 + std::to_string(p.port).size());
	for (const auto &p : ports) {
		j.push_back({{"dev", p.dev},
		             {"port", p.port},
		             {"policy", p.policy},
		             {"repath", opt_json(p.repath)}});
		std::string l =
		    format("%-*s  %-5s", static_cast<int>(width),
		           (p.dev + '/' + std::to_string(p.port)).c_str(), p.policy.c_str());
		if (p.repath)
			l += "  re-path " + *p.repath;
		lines.push_back(l.substr(0, l.find_last_not_of(' ') + 1));
	}
	if (lines.empty())
		lines.push_back("no RoCE port");
	r.add("ports", j, section("ports", lines));
}

json build_record_json(const std::optional<BuildRecord> &rec)
{
	if (!rec)
		return nullptr;
	return {{"state", rec->state},     {"source", rec->source}, {"kabi", rec->kabi},
	        {"package", rec->package}, {"reason", rec->reason}, {"build_id", rec->build_id}};
}

std::string or_dash(const std::string &s)
{
	return s.empty() ? "-" : s;
}

// "record: installed from 6.12.117, kABI held, package 0.2.0", "record:
// refused: WHY"
std::string build_record_text(const std::optional<BuildRecord> &rec)
{
	if (!rec)
		return "record: none";
	if (rec->state == "installed")
		return "record: installed from " + or_dash(rec->source) + ", kABI " +
		       or_dash(rec->kabi) + ", package " + or_dash(rec->package);
	const std::string s = "record: " + or_dash(rec->state);
	return rec->reason.empty() ? s : s + ": " + rec->reason;
}

// The kernel's line, and its build record's below it.
std::vector<std::string> kernel_lines(const KernelStatus &k)
{
	return {k.release + (k.running ? " (running)" : "") + ": " +
	            (k.headers ? "headers" : "no headers") + ", " +
	            (k.installed ? "our modules" : "no modules of ours"),
	        "  " + build_record_text(k.record)};
}

void add_kernels(Record &r, const std::vector<KernelStatus> &kernels)
{
	json j = json::array();
	std::vector<std::string> lines;

	for (const auto &k : kernels) {
		j.push_back({{"release", k.release},
		             {"running", k.running},
		             {"headers", k.headers},
		             {"installed", k.installed},
		             {"record", build_record_json(k.record)}});
		for (auto &l : kernel_lines(k))
			lines.push_back(std::move(l));
	}
	if (lines.empty())
		lines.push_back("no 6.12 kernel installed: nothing to do on this host");
	r.add("kernels", j, section("kernels", lines));
}

std::string secure_boot_text(const SecureBootStatus &sb)
{
	std::string s;
	if (!sb.variable)
		s = "off (no EFI variable)";
	else if (!sb.enabled)
		s = "unknown (SecureBoot variable too short)";
	else
		s = *sb.enabled ? "on" : "off";
	if (!sb.efi)
		s += ", not an EFI system";
	s += "; DKMS key: " + std::string(key_state_name(sb.key));
	return sb.key_note.empty() ? s : s + " (" + sb.key_note + ")";
}

void add_secure_boot(Record &r, const SecureBootStatus &sb)
{
	const json j = {{"efi", sb.efi},
	                {"enabled", opt_json(sb.enabled)},
	                {"key", key_state_name(sb.key)},
	                {"key_path", sb.key_path}};
	r.add("secure_boot", j, section("secure boot", {secure_boot_text(sb)}));
}

std::string verdict_line(const std::vector<std::string> &problems,
                         const std::optional<std::string> &pending)
{
	if (problems.empty())
		return pending ? "status: reboot pending\n  " + *pending + '\n' : "status: ok\n";
	std::string s = "status: off\n";
	for (const auto &p : problems)
		s += "  " + p + '\n';
	return s;
}

std::string verdict_text(const std::vector<std::string> &problems,
                         const std::optional<std::string> &pending,
                         const std::vector<std::string> &warnings)
{
	std::string w;
	for (const auto &l : warnings)
		w += "warning: " + l + '\n';
	return w + verdict_line(problems, pending);
}

} // namespace

void refuse_stale_modules(const std::string &root)
{
	if (const auto why = mismatched_modules_at(root, version()))
		throw UsageError(*why + "; until then these tools (" + std::string(version()) +
		                 ") may not read the loaded modules' rdma netlink right");
}

int status_cmd(const StatusArgs &args, std::ostream &out)
{
	std::error_code ec;
	if (!std::filesystem::is_directory(args.root, ec))
		throw UsageError("--root " + args.root + ": not a directory");
	const HostStatus s = read_host_status(args.root);
	const std::vector<std::string> problems = status_problems(s);
	const std::optional<std::string> pending = status_pending(s);
	const std::vector<std::string> warnings = status_warnings(s);

	Record r;
	add_running(r, s.running);
	add_ib_core(r, s.ib_core);
	add_ports(r, s.ports);
	add_kernels(r, s.kernels);
	add_secure_boot(r, s.secure_boot);
	r.add_json("opt_in", opt_json(s.opt_in));
	r.add_json("stock_hatch", s.stock_hatch);
	r.add_json("warnings", warnings);
	r.add("problems", problems, verdict_text(problems, pending, warnings))
	    .add_json("reboot_pending", opt_json(pending))
	    .add_json("ok", problems.empty() && !pending);
	print(r, args.json, out);
	if (!problems.empty())
		return kExitDisagrees;
	return pending ? kExitUnjudged : kExitOk;
}

} // namespace roce
