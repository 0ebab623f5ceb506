// What the Train view writes besides a run folder (io/run_folder.h's writeRunFolder): the
// curves (SVG, PNG and the metrics CSV), the maps at one step (SVG, PNG), and the timeline as a
// numbered PNG series for slides. Each writes into a new "<stem>[-k]" folder under `dir`,
// returns that folder and counts the files in `done` (a progress bar); throws
// std::runtime_error naming the file that could not be written.
#pragma once

#include "figures/colormap.h"
#include "io/csv_table.h"
#include "train/probe_maps.h"
#include "train/trainer.h"

#include <atomic>
#include <string>
#include <vector>

namespace core {

// train-curves/: metrics.csv, loss.svg/.png (with the chance line ln V), accuracy.svg/.png
// (the task's accuracy column) and one figure per head score.
std::string exportCurves(const CsvTable& metrics, const train::TrainSettings& settings,
                         const std::string& dir, int scale, std::atomic<int>& done);
int curveFileCount(const train::TrainSettings& settings);

// train-maps-step-S/: maps.svg and maps.png, every head of every layer (trainMapsFigure).
std::string exportMaps(const train::ProbeMaps& maps, int step, const train::TrainSettings& settings,
                       const std::string& dir, int scale, std::atomic<int>& done,
                       ColormapId colormap = ColormapId::Viridis);

// train-timeline/: frame-0001.png, ... the maps of each snapshot, in step order.
std::string exportTimeline(const std::vector<train::TrainSnapshot>& snapshots,
                           const train::TrainSettings& settings, const std::string& dir, int scale,
                           std::atomic<int>& done, ColormapId colormap = ColormapId::Viridis);

} // namespace core
