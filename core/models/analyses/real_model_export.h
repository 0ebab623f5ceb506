// `mha-viz --model DIR|NAME --export DIR` (docs/real-models.md, "Exporting"): everything a
// real model's trace shows, as files, without a display and without overwriting anything.
#pragma once

#include "io/figure_export.h"
#include "models/analyses/model_analysis.h"
#include "models/real_model.h"

#include <string>
#include <vector>

namespace core::models {

// Writes into `dir` (made if missing): per layer a folder layer-01, layer-02, ... with what
// exportFigures writes for that layer's trace (every head as PNG, SVG and CSV, the grid, the
// mean, the statistics, the layer's v1 trace JSON); then model-grid.png/svg (every head of
// every layer) and model-grid-value-weighted.png/svg, detectors-<name>.png/svg per detector and
// detectors.csv (headScoresCsv), rollout.png/svg/csv after the last layer, logit-lens.csv for the
// last token (top 5 per layer) and model-trace.json (the v2 trace). A name taken gets -2, -3, ...
// (freeStem), so a second export beside the first overwrites nothing. Every caption names the model
// (realModelCaption); `caption` off leaves the titles alone. `scale` 1..4 as exportFigures.
// `progress` gets (files done, files in all). Throws ExportError naming the problem, with the
// files written before it (they stay).
std::vector<std::string> exportRealModel(const RealModel& model, const RealTrace& trace,
                                         const std::vector<HeadDetectorScores>& detectors,
                                         const std::string& dir, int scale, ColormapId colormap,
                                         bool caption, const ExportProgress& progress = {});

// The token logit-lens.csv reads: the first mask token (an encoder's blank), else the last.
int lensPosition(const RealTrace& trace);

// How many files exportRealModel writes for this trace and these detectors.
int realModelExportFileCount(const RealTrace& trace,
                             const std::vector<HeadDetectorScores>& detectors);

} // namespace core::models
