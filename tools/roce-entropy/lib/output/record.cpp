// SPDX-License-Identifier: GPL-2.0
#include "output/record.h"

#include <algorithm>
#include <cstdarg>
#include <cstdio>

namespace roce
{

Record &Record::add(std::string name, nlohmann::json value, std::string text)
{
	fields_.push_back({std::move(name), std::move(value), std::move(text)});
	return *this;
}

Record &Record::add_json(std::string name, nlohmann::json value)
{
	fields_.push_back({std::move(name), std::move(value), std::nullopt});
	return *this;
}

Record &Record::add_text(std::string text)
{
	fields_.push_back({"", nullptr, std::move(text)});
	return *this;
}

Record &Record::add(std::string name, const Record &child)
{
	return add(std::move(name), child.json(), child.text());
}

Record &Record::add(std::string name, const std::vector<Record> &items)
{
	nlohmann::json list = nlohmann::json::array();
	std::string text;

	for (const auto &item : items) {
		list.push_back(item.json());
		text += item.text();
	}
	return add(std::move(name), std::move(list), std::move(text));
}

nlohmann::json Record::json() const
{
	nlohmann::json j = nlohmann::json::object();

	for (const auto &f : fields_)
		if (!f.name.empty())
			j[f.name] = f.value;
	return j;
}

std::string Record::text() const
{
	std::string s;
	std::size_t width = 0;

	if (layout_ == Layout::KeyValue)
		for (const auto &f : fields_)
			if (f.text && !f.name.empty())
				width = std::max(width, f.name.size() + 1);
	for (const auto &f : fields_) {
		if (!f.text)
			continue;
		if (layout_ == Layout::Inline || f.name.empty()) {
			s += *f.text;
			continue;
		}
		s += f.name + std::string(width - f.name.size(), ' ') + *f.text + '\n';
	}
	return s;
}

void print(const Record &r, bool as_json, std::ostream &out)
{
	if (as_json)
		out << r.json() << '\n';
	else
		out << r.text();
}

std::string format(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	const int n = std::vsnprintf(nullptr, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return {};
	std::string s(static_cast<std::size_t>(n) + 1, '\0');
	va_start(ap, fmt);
	std::vsnprintf(s.data(), s.size(), fmt, ap);
	va_end(ap);
	s.resize(static_cast<std::size_t>(n));
	return s;
}

std::string hex(std::uint32_t value, int width)
{
	return format("0x%0*x", width, value);
}

std::string hex_dec(std::uint32_t value, int width)
{
	return hex(value, width) + " (" + std::to_string(value) + ")";
}

} // namespace roce
