// SPDX-License-Identifier: GPL-2.0
// Command-line numbers: decimal or 0x-prefixed hexadecimal, range-checked.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace roce
{

struct NumberError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Parse TEXT as an unsigned number no greater than MAX; WHAT names it in
// the error ("QPN", "port", ...).
std::uint64_t parse_number(std::string_view text, std::uint64_t max, std::string_view what);

} // namespace roce
