// SPDX-License-Identifier: GPL-2.0
#include "status/status.h"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>
#include <system_error>
#include <tuple>

namespace roce
{
namespace
{

namespace fs = std::filesystem;

constexpr std::string_view kSpaces = " \t\r\n";
constexpr const char *kSecureBootVar =
    "/sys/firmware/efi/efivars/SecureBoot-8be4df61-93ca-11d2-aa0d-00e098032b8c";
constexpr const char *kDkmsKey = "/var/lib/dkms/mok.pub";
constexpr const char *kMokList = "/sys/firmware/efi/mok-variables/MokListRT";
const std::string kRecords = "/var/lib/roce-entropy/";           // the build records
constexpr const char *kDkmsTool = "/usr/sbin/roce-entropy-dkms"; // the dkms package's

std::string_view trim(std::string_view s)
{
	const auto first = s.find_first_not_of(kSpaces);
	if (first == std::string_view::npos)
		return {};
	return s.substr(first, s.find_last_not_of(kSpaces) - first + 1);
}

// PATH, an absolute path on the host, under ROOT.
fs::path at(const fs::path &root, std::string_view path)
{
	return root / path.substr(path.find_first_not_of('/'));
}

bool present(const fs::path &p)
{
	std::error_code ec;
	return fs::exists(p, ec);
}

bool is_dir(const fs::path &p)
{
	std::error_code ec;
	return fs::is_directory(p, ec);
}

// The bytes of the file P; nullopt when it cannot be read.
std::optional<std::string> read_bytes(const fs::path &p)
{
	std::ifstream in(p, std::ios::binary);
	if (!in || is_dir(p))
		return std::nullopt;
	std::ostringstream s;
	s << in.rdbuf();
	return s.str();
}

// The file P's text without the spaces and newline around it.
std::optional<std::string> read_value(const fs::path &p)
{
	const auto text = read_bytes(p);
	if (!text)
		return std::nullopt;
	return std::string(trim(*text));
}

// The names in the folder DIR; none when it cannot be read.
std::vector<std::string> names_in(const fs::path &dir)
{
	std::vector<std::string> names;
	std::error_code ec;
	for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
		names.push_back(it->path().filename().string());
	return names;
}

std::optional<unsigned> port_number(const std::string &name)
{
	unsigned n = 0;
	const char *end = name.data() + name.size();
	const auto [ptr, ec] = std::from_chars(name.data(), end, n);
	if (name.empty() || ec != std::errc() || ptr != end)
		return std::nullopt;
	return n;
}

IbCoreStatus read_ib_core(const fs::path &root)
{
	const fs::path mod = at(root, "/sys/module/ib_core");
	IbCoreStatus s;

	s.loaded = is_dir(mod);
	s.ours = s.loaded && present(mod / "parameters/roce_entropy");
	if (s.ours) {
		s.roce_entropy = read_value(mod / "parameters/roce_entropy");
		s.roce_repath = read_value(mod / "parameters/roce_repath");
		if (const auto note = read_bytes(mod / "notes/.note.gnu.build-id"))
			s.build_id = note_build_id(*note);
	}
	return s;
}

std::vector<PortStatus> read_ports(const fs::path &root)
{
	const fs::path class_dir = at(root, "/sys/class/infiniband");
	std::vector<PortStatus> ports;

	for (const auto &dev : names_in(class_dir)) {
		for (const auto &name : names_in(class_dir / dev / "ports")) {
			const fs::path port = class_dir / dev / "ports" / name;
			const auto n = port_number(name);
			if (!n || read_value(port / "link_layer") != "Ethernet")
				continue;
			ports.push_back({dev, *n,
			                 read_value(port / "roce_entropy").value_or("stock"),
			                 read_value(port / "roce_repath")});
		}
	}
	std::sort(ports.begin(), ports.end(), [](const PortStatus &a, const PortStatus &b) {
		return std::tie(a.dev, a.port) < std::tie(b.dev, b.port);
	});
	return ports;
}

// Our ib_core under the kernel's folder DIR, in any of its compressions.
std::optional<fs::path> our_module(const fs::path &dir)
{
	for (const char *ext : {"", ".xz", ".zst", ".gz"}) {
		const fs::path p = dir / ("updates/dkms/ib_core.ko" + std::string(ext));
		if (present(p))
			return p;
	}
	return std::nullopt;
}

// When P was last written, in seconds since the epoch.
std::optional<long long> mtime(const fs::path &p)
{
	struct stat st;

	if (stat(p.c_str(), &st) != 0)
		return std::nullopt;
	return st.st_mtime;
}

// The names of the files in DIR that end in .conf, sorted.
std::vector<std::string> conf_files(const fs::path &dir)
{
	std::vector<std::string> names;
	for (auto &n : names_in(dir))
		if (n.ends_with(".conf"))
			names.push_back(std::move(n));
	std::sort(names.begin(), names.end());
	return names;
}

std::vector<KernelStatus> read_kernels(const fs::path &root,
                                       const std::optional<std::string> &running)
{
	const fs::path modules = at(root, "/lib/modules");
	std::vector<KernelStatus> kernels;

	for (const auto &release : names_in(modules)) {
		const fs::path dir = modules / release;
		if (!is_612(release) || !present(dir / "modules.dep"))
			continue;
		KernelStatus k;
		k.release = release;
		k.running = release == running;
		k.headers = present(dir / "build/Makefile");
		if (const auto m = our_module(dir)) {
			k.installed = true;
			k.installed_at = mtime(*m);
		}
		if (const auto text = read_bytes(at(root, kRecords + release)))
			k.record = parse_build_record(*text);
		kernels.push_back(std::move(k));
	}
	std::sort(kernels.begin(), kernels.end(), [](const KernelStatus &a, const KernelStatus &b) {
		return strverscmp(a.release.c_str(), b.release.c_str()) < 0;
	});
	return kernels;
}

// The certificate DKMS signs with, as dkms reads its configuration.
std::string dkms_certificate(const fs::path &root)
{
	std::string cert = kDkmsKey;
	std::vector<fs::path> files{at(root, "/etc/dkms/framework.conf")};

	for (const auto &n : conf_files(at(root, "/etc/dkms/framework.conf.d")))
		files.push_back(at(root, "/etc/dkms/framework.conf.d") / n);
	for (const auto &f : files)
		if (const auto text = read_bytes(f))
			if (auto c = framework_certificate(*text))
				cert = std::move(*c);
	return cert;
}

// The DKMS key against MokListRT, the kernel's copy of the MOK list.
void read_key(const fs::path &root, SecureBootStatus &s)
{
	s.key_path = dkms_certificate(root);
	const fs::path key_path = at(root, s.key_path), list_path = at(root, kMokList);

	if (!present(key_path)) {
		s.key = KeyState::NoKey;
		s.key_note = s.key_path;
		return;
	}
	const auto key = read_bytes(key_path);
	if (!key || key->empty()) {
		s.key_note = key ? s.key_path + " is empty" : "cannot read " + s.key_path;
		return;
	}
	if (!present(list_path)) {
		s.key_note = "no MokListRT";
		return;
	}
	const auto list = read_bytes(list_path);
	if (!list) {
		s.key_note = "cannot read MokListRT (root only)";
		return;
	}
	s.key = key_enrolled(*key, *list) ? KeyState::Enrolled : KeyState::NotEnrolled;
	if (s.key_path != kDkmsKey)
		s.key_note = s.key_path;
}

// The opt-in: roce_entropy= in /etc/modprobe.d/*.conf, the last one read.
std::optional<std::string> read_opt_in(const fs::path &root)
{
	const fs::path dir = at(root, "/etc/modprobe.d");
	std::optional<std::string> opt;

	for (const auto &n : conf_files(dir))
		if (const auto text = read_bytes(dir / n))
			if (auto v = modprobe_opt_in(*text))
				opt = std::move(v);
	return opt;
}

std::optional<long long> read_boot_time(const fs::path &root)
{
	const auto text = read_bytes(at(root, "/proc/stat"));
	std::istringstream in(text.value_or(""));

	for (std::string line; std::getline(in, line);) {
		long long t = 0;
		if (line.starts_with("btime ") &&
		    std::from_chars(line.data() + 6, line.data() + line.size(), t).ec ==
		        std::errc())
			return t;
	}
	return std::nullopt;
}

// Whether the running kernel K has ours installed after the boot, while the
// stock ib_core is loaded: a reboot takes ours.
bool installed_since_boot(const HostStatus &s, const KernelStatus &k)
{
	return k.running && k.record && k.record->state == "installed" && k.installed &&
	       s.ib_core.loaded && !s.ib_core.ours && !s.stock_hatch && s.boot_time &&
	       k.installed_at && *k.installed_at > *s.boot_time;
}

SecureBootStatus read_secure_boot(const fs::path &root)
{
	SecureBootStatus s;

	s.efi = is_dir(at(root, "/sys/firmware/efi"));
	const auto var = read_bytes(at(root, kSecureBootVar));
	s.variable = var.has_value();
	s.enabled = var ? secure_boot_enabled(*var) : std::optional<bool>(false);
	read_key(root, s);
	return s;
}

// The problems of one installed kernel's build record REC.
void record_problems(const KernelStatus &k, const BuildRecord &rec, std::vector<std::string> &out)
{
	const std::string &r = k.release;
	const std::string upstream = upstream_version(r),
	                  dkms = "/lib/modules/" + r + "/updates/dkms";
	const bool installed = rec.state == "installed";

	if (installed && !k.installed)
		out.push_back(
		    r + ": the build record says installed, but there is no ib_core.ko in " + dkms);
	if (!installed && k.headers) {
		if (rec.state == "refused" || rec.state == "skipped")
			out.push_back(r + ": build " + rec.state + ": " +
			              (rec.reason.empty() ? "no reason given" : rec.reason));
		else
			out.push_back(r + ": build record with state '" + rec.state + "'");
	}
	if ((installed || !rec.source.empty()) && rec.source != upstream)
		out.push_back(r + ": built from " +
		              (rec.source.empty() ? "an unrecorded source" : rec.source) +
		              ", not its upstream " + upstream);
	if ((installed || !rec.kabi.empty()) && rec.kabi != "held")
		out.push_back(r + ": kABI " +
		              (rec.kabi.empty() ? "not recorded" : "'" + rec.kabi + "'") +
		              ", not held");
}

} // namespace

BuildRecord parse_build_record(std::string_view text)
{
	BuildRecord rec;
	std::istringstream in{std::string(text)};

	for (std::string line; std::getline(in, line);) {
		const auto eq = line.find('=');
		if (eq == std::string::npos)
			continue;
		const std::string_view key = trim(std::string_view(line).substr(0, eq));
		std::string value(trim(std::string_view(line).substr(eq + 1)));
		if (key == "state")
			rec.state = std::move(value);
		else if (key == "source")
			rec.source = std::move(value);
		else if (key == "kabi")
			rec.kabi = std::move(value);
		else if (key == "package")
			rec.package = std::move(value);
		else if (key == "reason")
			rec.reason = std::move(value);
		else if (key == "build_id")
			rec.build_id = std::move(value);
	}
	return rec;
}

std::string upstream_version(std::string_view release)
{
	return std::string(release.substr(0, release.find_first_of("+-")));
}

bool is_612(std::string_view release)
{
	return release.starts_with("6.12.") && release.size() > 5;
}

std::optional<bool> secure_boot_enabled(std::string_view variable)
{
	if (variable.size() < 5)
		return std::nullopt;
	return variable[4] == 1;
}

bool key_enrolled(std::string_view key, std::string_view mok_list)
{
	return !key.empty() && mok_list.find(key) != std::string_view::npos;
}

const char *key_state_name(KeyState k)
{
	switch (k) {
	case KeyState::Enrolled:
		return "enrolled";
	case KeyState::NotEnrolled:
		return "not enrolled";
	case KeyState::NoKey:
		return "no key";
	case KeyState::Unknown:
		break;
	}
	return "unknown";
}

HostStatus read_host_status(const std::string &root)
{
	const fs::path r(root);
	HostStatus s;

	s.running = read_value(at(r, "/proc/sys/kernel/osrelease"));
	s.ib_core = read_ib_core(r);
	s.ports = read_ports(r);
	s.kernels = read_kernels(r, s.running);
	s.secure_boot = read_secure_boot(r);
	s.package = present(at(r, kDkmsTool));
	s.opt_in = read_opt_in(r);
	s.boot_time = read_boot_time(r);
	s.stock_hatch = cmdline_stock_hatch(read_bytes(at(r, "/proc/cmdline")).value_or(""));
	return s;
}

std::optional<std::string> framework_certificate(std::string_view text)
{
	std::optional<std::string> cert;
	std::istringstream in{std::string(text)};

	for (std::string line; std::getline(in, line);) {
		std::string_view l = trim(line);
		constexpr std::string_view name = "mok_certificate=";
		if (!l.starts_with(name))
			continue;
		l = trim(l.substr(name.size()));
		if (l.size() >= 2 && (l.front() == '"' || l.front() == '\'') &&
		    l.back() == l.front())
			l = l.substr(1, l.size() - 2);
		if (!l.empty())
			cert = std::string(l);
	}
	return cert;
}

bool cmdline_stock_hatch(std::string_view text)
{
	std::istringstream in{std::string(text)};

	for (std::string word; in >> word;)
		if (word == "roce_entropy.stock=1")
			return true;
	return false;
}

std::optional<std::string> modprobe_opt_in(std::string_view text)
{
	std::optional<std::string> opt;
	std::istringstream in{std::string(text)};

	for (std::string line; std::getline(in, line);) {
		std::istringstream words(line);
		std::string verb, module, word;
		if (!(words >> verb >> module) || verb != "options" || module != "ib_core")
			continue;
		while (words >> word)
			if (word.starts_with("roce_entropy="))
				opt = word.substr(13);
	}
	return opt;
}

std::vector<std::string> status_problems(const HostStatus &s)
{
	std::vector<std::string> out;
	bool ours_anywhere = false;

	for (const auto &k : s.kernels) {
		const auto &rec = k.record;
		ours_anywhere = ours_anywhere || k.installed || rec;
		// The escape hatch: the operator chose the distribution's stack.
		if (k.running && k.installed && s.stock_hatch)
			out.push_back(
			    k.release + " (running): roce_entropy.stock=1 on the kernel " +
			    "command line loads the distribution's RDMA modules instead of " +
			    "ours (the escape hatch): remove it and reboot for ours");
		else if (k.running && rec && rec->state == "installed" && s.ib_core.loaded &&
		         !s.ib_core.ours && !installed_since_boot(s, k))
			out.push_back(k.release +
			              " (running): the loaded ib_core is the stock one, " +
			              "although ours is installed for it");
		// Booted into a 6.12 kernel DKMS could not build for: stock
		// modules, whatever the opt-in says.
		if (k.running && s.package && !k.headers && !k.installed)
			out.push_back(
			    k.release + " (running): no headers, so ours is not built for it " +
			    "and the distribution's ib_core runs" +
			    (s.opt_in ? " (the opt-in roce_entropy=" + *s.opt_in + " has no effect)"
			              : std::string()) +
			    ": apt install linux-headers-" + k.release + ", then reboot");
		if (k.headers && !rec)
			out.push_back(k.release +
			              ": its headers are installed but it has no build " +
			              "record (" + kRecords + k.release + ")");
		if (rec)
			record_problems(k, *rec, out);
	}
	const auto &sb = s.secure_boot;
	const std::string key = sb.key_path.empty() ? kDkmsKey : sb.key_path;
	if (ours_anywhere && sb.enabled == true && sb.key == KeyState::NotEnrolled)
		out.push_back("Secure Boot is on and the DKMS signing key is not enrolled " +
		              ("(mokutil --import " + key + ", then reboot)"));
	if (ours_anywhere && sb.enabled == true && sb.key == KeyState::NoKey)
		out.push_back("Secure Boot is on and there is no DKMS signing key (" + key + ")");
	return out;
}

std::vector<std::string> status_warnings(const HostStatus &s)
{
	const auto &sb = s.secure_boot;
	const bool ours_anywhere = std::any_of(s.kernels.begin(), s.kernels.end(),
	                                       [](const KernelStatus &k) { return k.installed; });

	if (!ours_anywhere || sb.enabled == true || sb.key != KeyState::NotEnrolled)
		return {};
	return {"the DKMS signing key (" + sb.key_path +
	        ") is not enrolled: with Secure Boot turned on, the kernel would refuse our "
	        "modules (mokutil --import " +
	        sb.key_path + ", then reboot)"};
}

std::optional<std::string> note_build_id(std::string_view bytes)
{
	// Elf_Nhdr: namesz, descsz, type (4 bytes each, host order), then the
	// name and the descriptor, each padded to 4 bytes.
	const auto word = [&](std::size_t at) {
		std::uint32_t w;
		std::memcpy(&w, bytes.data() + at, sizeof(w));
		return std::size_t{w};
	};
	const auto pad = [](std::size_t n) { return (n + 3) & ~std::size_t{3}; };

	for (std::size_t at = 0; bytes.size() >= 12 && at <= bytes.size() - 12;) {
		const std::size_t namesz = word(at), descsz = word(at + 4), type = word(at + 8);
		const std::size_t name = at + 12;
		if (namesz > bytes.size() - name || pad(namesz) > bytes.size() - name)
			return std::nullopt;
		const std::size_t desc = name + pad(namesz);
		if (descsz > bytes.size() - desc)
			return std::nullopt;
		if (type == 3 && bytes.substr(name, namesz) == std::string_view("GNU\0", 4) &&
		    descsz) {
			static const char hex[] = "0123456789abcdef";
			std::string id;
			for (const char ch : bytes.substr(desc, descsz)) {
				const auto c = static_cast<unsigned char>(ch);
				id += hex[c >> 4];
				id += hex[c & 0xF];
			}
			return id;
		}
		if (pad(descsz) > bytes.size() - desc)
			return std::nullopt;
		at = desc + pad(descsz);
	}
	return std::nullopt;
}

std::optional<std::string> stale_modules(const HostStatus &s)
{
	for (const auto &k : s.kernels)
		if (k.running && k.record && !k.record->build_id.empty() && s.ib_core.ours &&
		    s.ib_core.build_id && *s.ib_core.build_id != k.record->build_id)
			return k.release +
			       " (running): the loaded RDMA modules are ours, but not " +
			       "the build installed for it since (package " +
			       (k.record->package.empty() ? "unknown" : k.record->package) +
			       "): reboot (or unload the RDMA modules and load them again)";
	return std::nullopt;
}

std::optional<std::string> mismatched_modules_at(const std::string &root, std::string_view tools)
{
	const HostStatus s = read_host_status(root);

	for (const auto &k : s.kernels) {
		if (!k.running || !k.record || !s.ib_core.ours)
			continue;
		if (k.record->state != "installed")
			return k.release + " (running): ours is loaded, but package " +
			       k.record->package + " did not install its build for it (" +
			       k.record->state + ": " + k.record->reason +
			       "): the loaded modules are an older build";
		if (k.record->package != tools)
			return k.release + " (running): the modules are package " +
			       k.record->package + "'s: install roce-entropy-tools of that " +
			       "version, or roce-entropy-dkms of this one and reboot";
	}
	return stale_modules(s);
}

std::optional<std::string> status_pending(const HostStatus &s)
{
	for (const auto &k : s.kernels)
		if (installed_since_boot(s, k))
			return k.release +
			       " (running): ours was installed after this boot, while the " +
			       "distribution's ib_core was loaded: reboot (or unload the RDMA "
			       "modules " +
			       "and load them again)";
	return stale_modules(s);
}

} // namespace roce
