// `mha-viz --export DIR`: every head as SVG, PNG and CSV, the all-heads grid as SVG and
// PNG, and the trace JSON, without a display and without overwriting anything.
#pragma once

#include "trace.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace core {

struct ExportResult {
    std::vector<std::string> files; // written, in order
    std::string error;              // empty on success; one line naming the problem
};

// `scale` (1..4) multiplies the PNG resolution. A name already taken gets -2, -3, ...
ExportResult exportFigures(const Trace& trace, const std::string& dir, int scale);

// "<dir>/<stem>", or "<dir>/<stem>-2", -3, ... : the first for which no "<that><ext>" exists
// for any of `exts` (a PNG and its JSON get the same free name).
std::string freeStem(const std::string& dir, const std::string& stem,
                     std::initializer_list<std::string> exts);

// freeStem for one extension, with the extension: "<dir>/<stem>[-k]<ext>".
std::string freePath(const std::string& dir, const std::string& stem, const std::string& ext);

} // namespace core
