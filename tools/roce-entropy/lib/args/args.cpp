// SPDX-License-Identifier: GPL-2.0
#include "args/args.h"

#include <CLI/CLI.hpp>
#include <charconv>

#include "roce_version.h"

namespace roce
{

std::uint64_t parse_number(std::string_view text, std::uint64_t max, std::string_view what)
{
	int base = 10;
	std::string_view digits = text;

	if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
		base = 16;
		digits.remove_prefix(2);
	}
	std::uint64_t value = 0;
	const char *end = digits.data() + digits.size();
	auto [ptr, ec] = std::from_chars(digits.data(), end, value, base);
	if (digits.empty() || ec == std::errc::invalid_argument || ptr != end)
		throw UsageError(std::string(what) + " '" + std::string(text) +
		                 "' is not a number (decimal or 0x hex)");
	if (ec == std::errc::result_out_of_range || value > max)
		throw UsageError(std::string(what) + " " + std::string(text) +
		                 " is out of range (max " + std::to_string(max) + ")");
	return value;
}

unsigned number_arg(std::string_view text, std::uint64_t min, std::uint64_t max,
                    std::string_view what)
{
	const auto value = parse_number(text, max, what);
	if (value < min)
		throw UsageError(std::string(what) + " " + std::string(text) + " is below " +
		                 std::to_string(min));
	return static_cast<unsigned>(value);
}

CLI::Option *number_option(CLI::Option *opt, const std::string &shown)
{
	opt->type_name("UINT");
	if (opt->get_required())
		return opt;
	if (!shown.empty())
		return opt->default_str(shown);
	opt->capture_default_str();
	if (opt->get_default_str() == "[]") // an empty list
		opt->default_str("");
	return opt;
}

DevicePair device_pair_arg(const std::string &a, const std::string &b, std::string_view gid_a,
                           std::string_view gid_b)
{
	if (a.empty() || b.empty())
		throw UsageError("device names must not be empty");
	return {a, b, number_arg(gid_a, 0, 255, "GID index"),
	        number_arg(gid_b, 0, 255, "GID index")};
}

Policy policy_arg(const std::string &name)
{
	auto policy = parse_policy(name);
	if (!policy)
		throw UsageError("unknown policy '" + name + "' (off, rfc, mix or builtin)");
	return *policy;
}

std::map<std::uint16_t, std::uint32_t> port_flow_label_args(const std::vector<std::string> &args)
{
	std::map<std::uint16_t, std::uint32_t> m;

	for (const auto &a : args) {
		const auto colon = a.find(':');
		if (colon == std::string::npos)
			throw UsageError("--port-flow-label " + a + ": PORT:FL expected");
		const auto port = static_cast<std::uint16_t>(
		    parse_number(std::string_view(a).substr(0, colon), 0xFFFF, "service port"));
		m[port] = static_cast<std::uint32_t>(parse_number(
		    std::string_view(a).substr(colon + 1), kFlowLabelMask, "flow label"));
	}
	return m;
}

std::string_view version()
{
	return kRoceVersion;
}

namespace
{

// An app with subcommands, whose first argument names none of them.
void check_subcommand(const CLI::App &app, int argc, const char *const *argv)
{
	const auto subs = app.get_subcommands([](const CLI::App *) { return true; });
	if (subs.empty() || argc < 2 || argv[1][0] == '-')
		return;
	std::string known;
	for (const auto *sub : subs) {
		if (sub->get_name() == argv[1])
			return;
		known += (known.empty() ? "" : ", ") + sub->get_name();
	}
	throw UsageError("unknown command '" + std::string(argv[1]) + "' (" + known + ")");
}

} // namespace

int run_app(CLI::App &app, int argc, const char *const *argv, std::ostream &out, std::ostream &err,
            const std::function<int()> &body)
{
	const std::string name_version = app.get_name() + " " + std::string(version());
	// Every subcommand, nested ones too (roce-entropy policy set).
	const std::function<void(CLI::App &)> add_version = [&](CLI::App &a) {
		a.set_version_flag("--version", name_version);
		for (auto *sub : a.get_subcommands([](const CLI::App *) { return true; }))
			add_version(*sub);
	};
	add_version(app);
	try {
		check_subcommand(app, argc, argv);
		app.parse(argc, argv);
		return body();
	} catch (const CLI::ParseError &e) {
		const int status = app.exit(e, out, err);
		return status ? 2 : 0;
	} catch (const std::exception &e) {
		err << app.get_name() << ": error: " << e.what() << '\n';
		return 2;
	}
}

std::optional<int> parse_app(CLI::App &app, int argc, const char *const *argv, std::ostream &out,
                             std::ostream &err, const std::function<void()> &fill)
{
	constexpr int parsed = -1; // not an exit status

	const int status = run_app(app, argc, argv, out, err, [&] {
		fill();
		return parsed;
	});
	if (status == parsed)
		return std::nullopt;
	return status;
}

} // namespace roce
