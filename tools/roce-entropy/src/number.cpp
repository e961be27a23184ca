// SPDX-License-Identifier: GPL-2.0
#include "number.h"

#include <charconv>

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
		throw NumberError(std::string(what) + " '" + std::string(text) +
		                  "' is not a number (decimal or 0x hex)");
	if (ec == std::errc::result_out_of_range || value > max)
		throw NumberError(std::string(what) + " " + std::string(text) +
		                  " is out of range (max " + std::to_string(max) + ")");
	return value;
}

} // namespace roce
