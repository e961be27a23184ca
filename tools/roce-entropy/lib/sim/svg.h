// SPDX-License-Identifier: GPL-2.0
// Bar charts of load per path, as SVG: one panel per policy (and family),
// with a shaded band for what uniformly random ports give.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace roce
{

struct BarPanel {
	std::string title;               // above the panel
	std::vector<double> bars;        // load per path over the mean load
	double band_lo = 0, band_hi = 0; // shaded: random ports' range of the busiest path
	std::string colour;
};

// V with one decimal, for an SVG attribute or text.
std::string svg_number(double v);

// The colour of a policy's bars.
std::string policy_colour(const std::string &policy);

// PANELS in rows of COLUMNS under TITLE and SUBTITLE; a dashed line marks
// an even spread (1.0).
void write_bar_panels(std::ostream &out, const std::string &title, const std::string &subtitle,
                      const std::vector<BarPanel> &panels, int columns);

} // namespace roce
