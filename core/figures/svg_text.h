// Text and colours as SVG writes them, shared by the figure writers (heatmaps, line views,
// curves): one escaping rule, so a token or series name can never break the XML.
#pragma once

#include "figures/colormap.h"

#include <string>

namespace core::svg {

// XML-escaped (& < > " '), control characters that XML 1.0 forbids dropped.
std::string xmlEscape(const std::string& text);

// "#rrggbb".
std::string hex(Rgb c);

} // namespace core::svg
