// What the Train view writes: the curves (SVG, PNG, CSV), the maps at the shown step (SVG,
// PNG), the timeline as a numbered PNG series for slides, and the run as a folder that
// `mha-viz train` could have written (model.json, metrics.csv, a checkpoint per snapshot), so
// `mha-viz plot`, `mha-viz --model` and the Train view's Load all read it. Each takes copies
// of what it writes: they run on a worker while training goes on.
#pragma once

#include "figures/figure.h"
#include "train_view/train_run.h"

#include <atomic>
#include <string>
#include <vector>

namespace app {

// The maps of every head as one figure: a row per layer, a column per head.
core::GridFigure trainMapsFigure(const ProbeMaps& maps, const std::vector<std::string>& caption,
                                 core::ColormapId colormap = core::ColormapId::Viridis);
// "induction, 2 layers, d_model 64, 4 heads, seq 32, seed 1": how the run was made.
std::vector<std::string> runCaption(const core::train::TrainSettings& settings);

// Each returns the folder it wrote into (a new "<stem>[-k]" folder under `dir`) and counts
// the files in `done`. Throws std::runtime_error naming the file that could not be written.
std::string exportCurves(const core::CsvTable& metrics, const core::train::TrainSettings& settings,
                         const std::string& dir, int scale, std::atomic<int>& done);
std::string exportMaps(const ProbeMaps& maps, int step, const core::train::TrainSettings& settings,
                       const std::string& dir, int scale, std::atomic<int>& done);
std::string exportTimeline(const std::vector<TrainSnapshot>& snapshots,
                           const core::train::TrainSettings& settings, const std::string& dir,
                           int scale, std::atomic<int>& done);
// The files of the timeline and curves exports, to size a progress bar.
inline int curveFileCount(const core::train::TrainSettings& s) {
    return 3 + 2 * int(core::train::headScoreNames(s.task).size());
}

// The run into `dir`, which must be new or empty (core::prepareRunFolder's message otherwise).
void saveRunFolder(const core::CsvTable& metrics, const std::vector<TrainSnapshot>& snapshots,
                   const RunSetup& setup, const std::string& dir, std::atomic<int>& done);

} // namespace app
