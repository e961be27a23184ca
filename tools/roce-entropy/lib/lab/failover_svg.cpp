// SPDX-License-Identifier: GPL-2.0
// The failover act's timeline (write_failover_svg()).
#include <algorithm>

#include "lab/failover.h"
#include "sim/svg.h"

namespace roce
{
namespace
{

constexpr int kWidth = 900, kPad = 40, kRow = 3, kHead = 80, kTitle = 22, kFoot = 26;

const char *band_colour(const std::string &phase)
{
	if (phase == "ab")
		return "#fde0dc";
	if (phase == "ba")
		return "#fff3cd";
	return "#e8dff5";
}

const char *band_label(const std::string &phase)
{
	if (phase == "ab")
		return "A to B lost";
	if (phase == "ba")
		return "B to A lost";
	return "both lost";
}

// A failed connection ends with its last gap, which its failure closed.
double end_of(const FailoverConn &c, double last)
{
	if (c.status == "ok" || c.stalls.empty())
		return last;
	return c.stalls.back().second;
}

void run_panel(std::ostream &out, const FailoverRun &run, int y0, double span_ms)
{
	const int h = std::max<int>(1, static_cast<int>(run.conns.size())) * kRow;
	const int x0 = kPad, w = kWidth - 2 * kPad;
	auto x_of = [&](double ms) { return x0 + std::clamp(ms / span_ms, 0.0, 1.0) * w; };
	std::vector<FailoverConn> conns = run.conns;
	const double last = run.phases.empty() ? span_ms : run.phases.back().end_ms;
	unsigned completed = 0;

	for (const auto &c : conns)
		completed += c.status == "ok";
	std::sort(conns.begin(), conns.end(),
	          [](const FailoverConn &a, const FailoverConn &b) { return a.sport < b.sport; });
	out << "<g>\n<text x=\"" << x0 << "\" y=\"" << y0 - 6 << "\">"
	    << (run.policy == "builtin" ? std::string("builtin (stock)") : run.policy)
	    << ", re-path " << (run.repath ? "on" : "off") << ": " << completed << " of "
	    << conns.size() << " completed, link " << run.link << " black-holed</text>\n";
	for (const auto &p : run.phases) {
		if (p.name == "quiet")
			continue;
		out << "<rect x=\"" << svg_number(x_of(p.start_ms)) << "\" y=\"" << y0
		    << "\" width=\"" << svg_number(x_of(p.end_ms) - x_of(p.start_ms))
		    << "\" height=\"" << h << "\" fill=\"" << band_colour(p.name)
		    << "\"/>\n<text x=\"" << svg_number(x_of(p.start_ms) + 3) << "\" y=\""
		    << y0 + h + 12 << "\" fill=\"#555\" font-size=\"10\">" << band_label(p.name)
		    << "</text>\n";
	}
	for (std::size_t i = 0; i < conns.size(); i++) {
		const FailoverConn &c = conns[i];
		const double y = y0 + static_cast<double>(i) * kRow + kRow / 2.0;
		const double end = end_of(c, last);
		out << "<line x1=\"" << x0 << "\" x2=\"" << svg_number(x_of(end)) << "\" y1=\""
		    << svg_number(y) << "\" y2=\"" << svg_number(y) << "\" stroke=\""
		    << policy_colour(run.policy) << "\" stroke-width=\"1\"/>\n";
		for (const auto &[from, to] : c.stalls)
			out << "<line x1=\"" << svg_number(x_of(from)) << "\" x2=\""
			    << svg_number(std::max(x_of(to), x_of(from) + 1)) << "\" y1=\""
			    << svg_number(y) << "\" y2=\"" << svg_number(y)
			    << "\" stroke=\"#d62728\" stroke-width=\"" << kRow << "\"/>\n";
		if (c.status != "ok")
			out << "<text x=\"" << svg_number(x_of(end) + 2) << "\" y=\""
			    << svg_number(y + 3) << "\" font-size=\"8\" fill=\"#d62728\">x "
			    << c.sport << "</text>\n";
	}
	out << "<rect x=\"" << x0 << "\" y=\"" << y0 << "\" width=\"" << w << "\" height=\"" << h
	    << "\" fill=\"none\" stroke=\"#888\"/>\n</g>\n";
}

} // namespace

void write_failover_svg(const FailoverAct &act, std::ostream &out)
{
	double span = 0;
	int height = kHead;

	for (const auto &run : act.runs) {
		for (const auto &p : run.phases)
			span = std::max(span, p.end_ms);
		height +=
		    kTitle + std::max<int>(1, static_cast<int>(run.conns.size())) * kRow + kFoot;
	}
	span = std::max(span + 500, 1000.0);
	out << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << kWidth << "\" height=\""
	    << height + 20 << "\" font-family=\"sans-serif\" font-size=\"12\">\n"
	    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
	    << "<text x=\"" << kPad << "\" y=\"24\" font-size=\"16\">RoCE v2 through a black-holed "
	    << "ECMP link: " << act.connections << " rdma_cm RC connections per run</text>\n"
	    << "<text x=\"" << kPad << "\" y=\"42\" fill=\"#555\">a row per connection over "
	    << svg_number(span / 1000) << " s; red: no acknowledged message for "
	    << act.stall_min_ms
	    << " ms or more (a column across every row: the whole guest paused)</text>\n"
	    << "<text x=\"" << kPad << "\" y=\"58\" fill=\"#555\">a message every "
	    << act.interval_ms << " ms per connection; QP timeout " << act.qp_timeout << " ("
	    << svg_number(act.rto_ms()) << " ms), retry count " << act.retry_count
	    << "; shaded: the link dropping that way; x: failed</text>\n";
	int y = kHead;
	for (const auto &run : act.runs) {
		run_panel(out, run, y + kTitle, span);
		y += kTitle + std::max<int>(1, static_cast<int>(run.conns.size())) * kRow + kFoot;
	}
	out << "</svg>\n";
}

} // namespace roce
