// Text and colours as SVG writes them, shared by the figure writers (heatmaps, line views,
// curves): one escaping rule, so a token or series name can never break the XML.
#pragma once

#include "figures/colormap.h"
#include "figures/text_metrics.h"

#include <ostream>
#include <string>

namespace core::svg {

// XML-escaped (& < > " '), control characters that XML 1.0 forbids dropped.
std::string xmlEscape(const std::string& text);

// "#rrggbb".
std::string hex(Rgb c);

// A coordinate with two decimals at most: "12" rather than "12.00".
std::string num(double v);

// A <text> element whose line box starts at t.y (SVG places the baseline, so the font's ascent
// is added); `anchor` as SVG's text-anchor, null for the start. Nothing for empty text.
void text(std::ostream& out, const PlacedText& t, float px, Rgb color, const char* anchor,
          const TextMetrics& m);

} // namespace core::svg
