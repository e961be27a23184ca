// SPDX-License-Identifier: GPL-2.0
// A command's result, described once: named fields, each a JSON value and
// how it reads as text, rendered either as one JSON object or as text.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace roce
{

class Record
{
public:
	// How the text of the fields is laid out: Inline writes each field's
	// text as it is (it carries its own spaces and newlines); KeyValue
	// writes one line per field, its name padded to the longest name.
	enum class Layout { Inline, KeyValue };

	explicit Record(Layout layout = Layout::Inline) : layout_(layout)
	{
	}

	// A field in both renderings.
	Record &add(std::string name, nlohmann::json value, std::string text);
	// A field in the JSON only.
	Record &add_json(std::string name, nlohmann::json value);
	// Text between the fields, not in the JSON.
	Record &add_text(std::string text);
	// A nested record: an object in the JSON, its text in place.
	Record &add(std::string name, const Record &child);
	// A list of records: an array of objects, their texts one after the other.
	Record &add(std::string name, const std::vector<Record> &items);

	nlohmann::json json() const;
	std::string text() const;

private:
	struct Field {
		std::string name; // empty: text only
		nlohmann::json value;
		std::optional<std::string> text; // none: JSON only
	};

	Layout layout_;
	std::vector<Field> fields_;
};

// Print R as one line of JSON or as its text.
void print(const Record &r, bool as_json, std::ostream &out);

// printf into a std::string.
std::string format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

// "0x" and VALUE in WIDTH hexadecimal digits, zero-padded.
std::string hex(std::uint32_t value, int width);

// "0x00c144 (49476)": hex(VALUE, WIDTH) and the decimal value.
std::string hex_dec(std::uint32_t value, int width);

} // namespace roce
