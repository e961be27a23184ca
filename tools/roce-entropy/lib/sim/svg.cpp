// SPDX-License-Identifier: GPL-2.0
#include "sim/svg.h"

#include <algorithm>
#include <cstdio>

namespace roce
{
namespace
{

void panel(std::ostream &out, const BarPanel &p, int x0, int y0, int w, int h)
{
	const double top = std::max(
	    {2.5, p.band_hi * 1.1,
	     p.bars.empty() ? 0.0 : *std::max_element(p.bars.begin(), p.bars.end()) * 1.1});
	auto y_of = [&](double v) { return y0 + h - v / top * h; };
	const double bar_w =
	    p.bars.empty() ? 0 : static_cast<double>(w) / static_cast<double>(p.bars.size());

	out << "<g>\n<text x=\"" << x0 << "\" y=\"" << y0 - 6 << "\">" << p.title << "</text>\n";
	if (p.band_hi > 0)
		out << "<rect x=\"" << x0 << "\" y=\"" << svg_number(y_of(p.band_hi))
		    << "\" width=\"" << w << "\" height=\""
		    << svg_number(y_of(p.band_lo) - y_of(p.band_hi)) << "\" fill=\"#fff3cd\"/>\n";
	for (std::size_t i = 0; i < p.bars.size(); i++)
		out << "<rect x=\"" << svg_number(x0 + static_cast<double>(i) * bar_w + 1)
		    << "\" y=\"" << svg_number(y_of(p.bars[i])) << "\" width=\""
		    << svg_number(std::max(bar_w - 2, 1.0)) << "\" height=\""
		    << svg_number(y0 + h - y_of(p.bars[i])) << "\" fill=\"" << p.colour << "\"/>\n";
	out << "<line x1=\"" << x0 << "\" x2=\"" << x0 + w << "\" y1=\"" << svg_number(y_of(1.0))
	    << "\" y2=\"" << svg_number(y_of(1.0))
	    << "\" stroke=\"black\" stroke-dasharray=\"4 3\"/>\n"
	    << "<rect x=\"" << x0 << "\" y=\"" << y0 << "\" width=\"" << w << "\" height=\"" << h
	    << "\" fill=\"none\" stroke=\"#888\"/>\n"
	    << "<text x=\"" << x0 << "\" y=\"" << y0 + h + 14 << "\" fill=\"#555\">"
	    << p.bars.size() << " paths; y: load / mean, up to " << svg_number(top)
	    << "</text>\n</g>\n";
}

} // namespace

std::string svg_number(double v)
{
	char buf[32];
	std::snprintf(buf, sizeof(buf), "%.1f", v);
	return buf;
}

std::string policy_colour(const std::string &policy)
{
	if (policy == "rfc")
		return "#1f77b4";
	if (policy == "mix")
		return "#2ca02c";
	if (policy == "builtin")
		return "#ff7f0e";
	if (policy == "rxe-legacy")
		return "#9467bd";
	return "#9e9e9e";
}

void write_bar_panels(std::ostream &out, const std::string &title, const std::string &subtitle,
                      const std::vector<BarPanel> &panels, int columns)
{
	const int w = 300, h = 200, pad = 40, head = 70;
	const int n = static_cast<int>(panels.size());
	const int cols = std::max(1, std::min(columns, n));
	const int rows = (n + cols - 1) / cols;

	out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << pad + cols * (w + pad)
	    << "\" height=\"" << head + rows * (h + pad) + 10
	    << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
	    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
	    << "<text x=\"" << pad << "\" y=\"24\" font-size=\"16\">" << title << "</text>\n"
	    << "<text x=\"" << pad << "\" y=\"42\" fill=\"#555\">" << subtitle << "</text>\n";
	for (int i = 0; i < n; i++)
		panel(out, panels[static_cast<std::size_t>(i)], pad + (i % cols) * (w + pad),
		      head + (i / cols) * (h + pad), w, h);
	out << "</svg>\n";
}

} // namespace roce
