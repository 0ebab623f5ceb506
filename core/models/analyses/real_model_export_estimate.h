// What "Export all" (exportRealModel) will write, before it writes: the number of files and
// about how many bytes, so the window can ask before it fills a disk (issue 36: 14 tokens of
// GPT-2 small with every trace were 700 MB).
#pragma once

#include "models/analyses/real_model_export.h"

#include <cstdint>
#include <string>

namespace core::models {

struct ExportEstimate {
    int files = 0;           // exactly realModelExportFileCount
    std::uint64_t bytes = 0; // about: layer 1's files drawn and counted, the rest scaled
};

// Draws and counts the first layer's figures and JSON (nothing is written), then scales them to
// every layer; PNGs of the other views are estimated from their pixel size at the first head's
// bytes per pixel. Within a quarter of the bytes written (tests/real_model_figures_test.cpp).
ExportEstimate estimateRealModelExport(const RealModel& model, const RealTrace& trace,
                                       const std::vector<HeadDetectorScores>& detectors,
                                       const RealExportOptions& options);

// "about 12.3 MB", "about 640 kB": the size as the window's question says it.
std::string aboutBytes(std::uint64_t bytes);

} // namespace core::models
