// SPDX-License-Identifier: GPL-2.0
// The package's health on a Debian host, read from a root directory ("/",
// or a fake tree in the tests), never written: the running kernel, the
// loaded ib_core (ours or the distribution's), the RoCE ports' policies,
// each installed 6.12 kernel with its headers, our modules under
// updates/dkms and the package's build record (/var/lib/roce-entropy/
// RELEASE), and Secure Boot with the DKMS signing key; then what is wrong.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roce
{

// /var/lib/roce-entropy/RELEASE: what the package's build did for a kernel.
struct BuildRecord {
	std::string state;    // installed, refused or skipped
	std::string source;   // the upstream version of the sources built
	std::string kabi;     // "held" when the kernel's kABI is the one built for
	std::string package;  // the package's version
	std::string reason;   // why refused or skipped
	std::string build_id; // the GNU build ID of the ib_core installed (hex)
};

// key=value lines; lines without '=' and unknown keys are ignored, and so
// are the spaces around keys and values.
BuildRecord parse_build_record(std::string_view text);

// "6.12.117" of "6.12.117+deb12-amd64": up to the first '+' or '-'.
std::string upstream_version(std::string_view release);

// Whether RELEASE is a 6.12 kernel's ("6.12." and more).
bool is_612(std::string_view release);

// Secure Boot's EFI variable: 4 bytes of attributes, then 1 when on;
// nullopt when it is too short to say.
std::optional<bool> secure_boot_enabled(std::string_view variable);

// Whether the DER certificate KEY is in MOK_LIST (the EFI signature lists
// of MokListRT, which hold each certificate as it is).
bool key_enrolled(std::string_view key, std::string_view mok_list);

struct IbCoreStatus {
	bool loaded = false;
	bool ours = false; // it has the roce_entropy parameter
	// The module parameters (when ours): the defaults, which every port
	// not set on its own follows.
	std::optional<std::string> roce_entropy, roce_repath;
	// The GNU build ID of the loaded module (hex), from its notes.
	std::optional<std::string> build_id;
};

// The build ID (hex) in the bytes of an ELF note section as the kernel
// shows it (/sys/module/M/notes/.note.gnu.build-id): the first note of
// type 3 (NT_GNU_BUILD_ID) and name "GNU".
std::optional<std::string> note_build_id(std::string_view bytes);

// A RoCE (Ethernet) port of an RDMA device.
struct PortStatus {
	std::string dev;
	unsigned port = 0;
	std::string policy;                // "stock" without the roce_entropy knob
	std::optional<std::string> repath; // none without the roce_repath knob
};

// An installed 6.12 kernel: /lib/modules/RELEASE with modules.dep.
struct KernelStatus {
	std::string release;
	bool running = false;
	bool headers = false;   // build/Makefile
	bool installed = false; // our ib_core.ko* in updates/dkms
	// When it was written (seconds since the epoch): DKMS copies it in.
	std::optional<long long> installed_at;
	std::optional<BuildRecord> record;
};

enum class KeyState { Enrolled, NotEnrolled, NoKey, Unknown };

// "enrolled", "not enrolled", "no key", "unknown"
const char *key_state_name(KeyState k);

struct SecureBootStatus {
	bool efi = false;      // /sys/firmware/efi
	bool variable = false; // the SecureBoot variable exists
	std::optional<bool> enabled;
	KeyState key = KeyState::Unknown;
	std::string key_note; // why unknown, or which key is missing
	// The certificate DKMS signs with: mok_certificate of
	// /etc/dkms/framework.conf and framework.conf.d/*.conf (the last one
	// set wins, as dkms reads them), else /var/lib/dkms/mok.pub.
	std::string key_path;
};

struct HostStatus {
	std::optional<std::string> running; // the running kernel's release
	IbCoreStatus ib_core;
	std::vector<PortStatus> ports;     // by device, then port
	std::vector<KernelStatus> kernels; // by version
	SecureBootStatus secure_boot;
	bool package = false;               // /usr/sbin/roce-entropy-dkms
	std::optional<std::string> opt_in;  // roce_entropy= of "options ib_core" (modprobe.d)
	std::optional<long long> boot_time; // btime of /proc/stat
	bool stock_hatch = false;           // roce_entropy.stock=1 in /proc/cmdline
};

// Whether a kernel command line TEXT (/proc/cmdline) holds the escape
// hatch, the word roce_entropy.stock=1: modprobe then loads the
// distribution's RDMA modules instead of ours (modprobe-stock).
bool cmdline_stock_hatch(std::string_view text);

// The value of mok_certificate= in a DKMS framework.conf's TEXT (shell
// assignments; quotes taken off), if it sets one.
std::optional<std::string> framework_certificate(std::string_view text);

// The roce_entropy= value of "options ib_core" lines in a modprobe.d
// file's TEXT (the last one wins), if any.
std::optional<std::string> modprobe_opt_in(std::string_view text);

// The host under ROOT, read only.  Files that are missing or cannot be read
// are facts too (a module not loaded, no record): nothing throws.
HostStatus read_host_status(const std::string &root);

// What keeps the package from working on the host S describes, one line
// each; none when it works (or no 6.12 kernel is installed), or when the
// only thing missing is a reboot (status_pending).
std::vector<std::string> status_problems(const HostStatus &s);

// What works now but would stop: our modules signed by a key the MOK list
// does not hold while Secure Boot is off (a golden image built in a chroot,
// Secure Boot switched on later, a MOK reset), one line each.
std::vector<std::string> status_warnings(const HostStatus &s);

// Why ours will run after a reboot and does not now (installed for the
// running kernel after it booted, while the stock ib_core was loaded; or
// ours loaded, but not the build installed since, stale_modules()), if
// so.
std::optional<std::string> status_pending(const HostStatus &s);

// Ours loaded, but another build installed for the running kernel since
// the boot (the package upgraded): the loaded modules' rdma netlink may
// not be the tools' own, and a reboot makes them one.  The record's build
// ID against the loaded ib_core's; nothing when either is unknown.
std::optional<std::string> stale_modules(const HostStatus &s);

// Why the RDMA modules loaded on the host under ROOT may not speak the
// rdma netlink of tools of version TOOLS, if so: ours is loaded and the
// running kernel's record says its build was not installed (refused: the
// loaded ones are an older build), or names another package version, or
// stale_modules().  Nothing when ours is not loaded or there is no record
// (no package: a build of one's own).
std::optional<std::string> mismatched_modules_at(const std::string &root, std::string_view tools);

} // namespace roce
