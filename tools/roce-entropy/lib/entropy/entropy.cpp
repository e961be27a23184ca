// SPDX-License-Identifier: GPL-2.0
#include "entropy/entropy.h"

namespace roce
{

std::optional<Policy> parse_policy(std::string_view name)
{
	if (name == "off")
		return Policy::Off;
	if (name == "rfc")
		return Policy::Rfc;
	if (name == "mix")
		return Policy::Mix;
	// "linux": the name before 0.4.0, which an ib_core loaded before the
	// upgrade still shows
	if (name == "builtin" || name == "linux")
		return Policy::Builtin;
	return std::nullopt;
}

std::string_view policy_name(Policy policy)
{
	switch (policy) {
	case Policy::Off:
		return "off";
	case Policy::Rfc:
		return "rfc";
	case Policy::Mix:
		return "mix";
	case Policy::Builtin:
		return "builtin";
	}
	return "unknown";
}

} // namespace roce
