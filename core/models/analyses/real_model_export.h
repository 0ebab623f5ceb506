// `mha-viz --model DIR|NAME --export DIR` and the window's "Export all" (docs/real-models.md,
// "Exporting"): everything a real model's trace shows, as files, without a display and without
// overwriting anything.
#pragma once

#include "base/enum_names.h"
#include "io/figure_export.h"
#include "models/analyses/model_analysis.h"
#include "models/real_model.h"

#include <span>
#include <string>
#include <vector>

namespace core::models {

// Which traces go beside the figures: a full trace of GPT-2 small is tens of megabytes a layer
// (its weights), the attention alone kilobytes.
enum class ExportTraces { None, Attention, Full };
inline constexpr EnumName<ExportTraces> kExportTracesNames[] = {
    {ExportTraces::None, "none", "figures only"},
    {ExportTraces::Attention, "attention", "figures + attention-only JSON"},
    {ExportTraces::Full, "full", "figures + full traces"}};
constexpr std::span<const EnumName<ExportTraces>> enumNames(ExportTraces) {
    return kExportTracesNames;
}

struct RealExportOptions {
    int scale = 1; // PNG resolution multiplier, 1..4
    ColormapId colormap = ColormapId::Viridis;
    bool caption = true; // off: each figure's title alone
    // None: figures only. Attention: model-trace.json with the attention alone. Full: each
    // layer's v1 trace (mha-viz-trace.json) and the whole v2 model-trace.json.
    ExportTraces traces = ExportTraces::None;
    bool fullResolution = false; // grids past kSlidePixels at `scale` (else their cells shrink)
};

// Writes into `dir` (made if missing): per layer a folder layer-01, layer-02, ... with what
// exportFigures writes for that layer's trace (every head as PNG, SVG and CSV named for the model,
// layer and head, "mha-viz-gpt2-L1-H3.png"; the grid, the mean, the statistics; the layer's v1
// trace JSON with full traces); then model-grid.png/svg (every head of every layer, one colour
// bar) and model-grid-value-weighted.png/svg, detectors-<name>.png/svg per detector and
// detectors.csv (headScoresCsv), rollout.png/svg/csv after the last layer, logit-lens.csv for the
// last token (top 5 per layer) and, unless figures only, model-trace.json (the v2 trace). A name
// taken gets -2, -3, ... (freeStem), so a second export beside the first overwrites nothing.
// Every caption names the model (realModelCaption). `progress` gets (files done, files in all).
// Throws ExportError naming the problem, with the files written before it (they stay).
std::vector<std::string> exportRealModel(const RealModel& model, const RealTrace& trace,
                                         const std::vector<HeadDetectorScores>& detectors,
                                         const std::string& dir, const RealExportOptions& options,
                                         const ExportProgress& progress = {});

// The token logit-lens.csv reads: the first mask token (an encoder's blank), else the last.
int lensPosition(const RealTrace& trace);

// How many files exportRealModel writes for this trace, these detectors and options.
int realModelExportFileCount(const RealTrace& trace,
                             const std::vector<HeadDetectorScores>& detectors,
                             const RealExportOptions& options);

} // namespace core::models
