// SPDX-License-Identifier: GPL-2.0
// libFuzzer target: the roce-entropy command line, through run_cli(), the
// entry point main() calls.
//
// The input is the arguments after the program name, one per line.  The
// output goes to string streams that are thrown away.  The target never
// reads or writes a file the input names, and never runs long:
//   - run_cli() runs in an empty directory of its own
//     ($TMPDIR/roce-cli-fuzz-*, removed at exit), and arguments with a '/',
//     "-" (libpcap's stdin) and ".." are refused, so that `pcap FILE` can
//     only fail to open FILE (a crash inside run_cli()
//     writes libFuzzer's crash file there unless -artifact_prefix is an
//     absolute path, as tools/buildlib/fuzz.sh gives);
//   - it refuses --svg and --output, the options that write files;
//   - `status` only reads: the host's /proc, /sys, /lib/modules and
//     /var/lib, or with --root the empty directory, or nothing;
//   - `policy` is refused unless it only reads (`show`): `set`,
//     `default POLICY` and `repath SETTING` would change the host's RDMA
//     settings over netlink;
//   - with `simulate`, it refuses --grid and every number between 65 and
//     0xFFFFFF (above that, every option refuses it too), so that a run
//     has at most 64 connections or 64 trials besides the defaults.
// A refused input returns -1: libFuzzer does not add it to the corpus.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <dirent.h>
#include <fcntl.h>
#include <sstream>
#include <string>
#include <string_view>
#include <unistd.h>
#include <vector>

#include "cli.h"

namespace
{

constexpr std::size_t kMaxArgs = 64;
constexpr std::uint64_t kMaxSimNumber = 64, kSimRefusesAbove = 0xFFFFFF;

std::string sandbox;
int start_dir = -1; // where the process started: the rest runs there

// The value of the number TEXT starts with (decimal or 0x hex, as
// parse_number() reads them), saturated; -1 if it starts with no digit.
std::int64_t leading_number(std::string_view text)
{
	unsigned base = 10;
	std::uint64_t v = 0;
	bool digits = false;

	if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
		base = 16;
		text.remove_prefix(2);
	}
	for (char c : text) {
		unsigned d;
		if (c >= '0' && c <= '9')
			d = static_cast<unsigned>(c - '0');
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = static_cast<unsigned>(c - 'a' + 10);
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = static_cast<unsigned>(c - 'A' + 10);
		else
			break;
		digits = true;
		v = v * base + d;
		if (v > kSimRefusesAbove)
			v = kSimRefusesAbove + 1;
	}
	return digits ? static_cast<std::int64_t>(v) : (base == 16 ? 0 : -1);
}

// Any value CLI11 hands to an option is part of an argument ("N",
// "--paths=N", "-nN"): the number at every position of every argument is
// checked, the longest one that starts there.
bool costly_simulation(const std::vector<std::string> &args)
{
	bool simulate = false;

	for (const auto &a : args)
		simulate = simulate || a == "simulate";
	if (!simulate)
		return false;
	for (const auto &a : args) {
		if (a.starts_with("--grid"))
			return true;
		for (std::size_t i = 0; i < a.size(); i++) {
			const std::int64_t v = leading_number(std::string_view(a).substr(i));
			if (v > std::int64_t{kMaxSimNumber} && v <= std::int64_t{kSimRefusesAbove})
				return true;
		}
	}
	return false;
}

bool touches_files(const std::vector<std::string> &args)
{
	for (const auto &a : args)
		if (a.find('/') != std::string::npos || a == "-" || a == ".." ||
		    a.starts_with("--svg") || a.starts_with("--output"))
			return true;
	return false;
}

// `policy` with anything that could set: only `policy`, `policy show` and
// their options and targets read.
bool sets_policy(const std::vector<std::string> &args)
{
	bool policy = false;
	for (const auto &a : args) {
		if (!policy) {
			policy = a == "policy";
			continue;
		}
		if (a == "set" || a == "default" || a == "repath")
			return true;
	}
	return false;
}

bool sandbox_is_empty()
{
	DIR *d = opendir(sandbox.c_str());
	bool empty = true;

	if (!d)
		return false;
	while (const dirent *e = readdir(d)) {
		const std::string_view name = e->d_name;
		if (name != "." && name != "..")
			empty = false;
	}
	closedir(d);
	return empty;
}

void remove_sandbox()
{
	rmdir(sandbox.c_str());
}

} // namespace

extern "C" int LLVMFuzzerInitialize(int *, char ***)
{
	const char *tmp = std::getenv("TMPDIR");
	std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/roce-cli-fuzz-XXXXXX";

	start_dir = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (start_dir < 0 || !mkdtemp(tmpl.data())) {
		std::perror("cli_fuzz: the sandbox directory");
		std::exit(1);
	}
	sandbox = tmpl;
	std::atexit(remove_sandbox);
	return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)
{
	std::vector<std::string> args{"roce-entropy"};
	const std::string_view text(reinterpret_cast<const char *>(data), size);

	for (std::size_t start = 0; start < text.size();) {
		std::size_t end = text.find('\n', start);
		if (end == std::string_view::npos)
			end = text.size();
		args.emplace_back(text.substr(start, end - start));
		start = end + 1;
	}
	if (args.size() > kMaxArgs || touches_files(args) || costly_simulation(args) ||
	    sets_policy(args))
		return -1;

	std::vector<const char *> argv;
	for (const auto &a : args)
		argv.push_back(a.c_str());
	std::ostringstream out, err;
	if (chdir(sandbox.c_str())) {
		std::perror("cli_fuzz: chdir to the sandbox");
		std::abort();
	}
	const int status = roce::run_cli(static_cast<int>(argv.size()), argv.data(), out, err);
	if (fchdir(start_dir)) {
		std::perror("cli_fuzz: chdir back");
		std::abort();
	}

	if (status < 0 || status > 2 || (status == 2 && err.str().empty())) {
		std::fprintf(stderr, "cli_fuzz: exit status %d with error output '%s'\n", status,
		             err.str().c_str());
		std::abort();
	}
	if (!sandbox_is_empty()) {
		std::fprintf(stderr, "cli_fuzz: a file appeared in %s\n", sandbox.c_str());
		std::abort();
	}
	return 0;
}
