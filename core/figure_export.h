// `mha-viz --export DIR`: every head as SVG, PNG and CSV, the all-heads grid as SVG and
// PNG, and the trace JSON, without a display and without overwriting anything.
#pragma once

#include "trace.h"

#include <string>
#include <vector>

namespace core {

struct ExportResult {
    std::vector<std::string> files; // written, in order
    std::string error;              // empty on success; one line naming the problem
};

// `scale` (1..4) multiplies the PNG resolution. A name already taken gets -2, -3, ...
ExportResult exportFigures(const Trace& trace, const std::string& dir, int scale);

// "<dir>/<stem><ext>", or with -2, -3, ... before <ext> when that file exists.
std::string freePath(const std::string& dir, const std::string& stem, const std::string& ext);

} // namespace core
