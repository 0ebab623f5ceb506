// A trained model read back from a run folder of `mha-viz train` for the explorer (`mha-viz
// --model DIR [--step S]`, the Train view's "Open in explorer"): model.json and one checkpoint.
#pragma once

#include "io/run_folder.h"
#include "train/model_trace.h"

#include <string>
#include <vector>

namespace core {

inline constexpr int kLastCheckpoint = -1; // the step to ask for the run's last checkpoint

struct TrainedRun {
    std::string dir;
    int step = 0;           // the checkpoint read
    std::vector<int> steps; // every checkpoint in the folder
    train::TaskKind task = train::TaskKind::Induction;
    train::TrainedModel model;
    std::vector<std::string> warnings; // non-finite weights, each tensor with its count
};

// Reads model.json and the checkpoint at `step` (kLastCheckpoint: the last one). Throws
// std::invalid_argument with one line naming the problem: no such folder, not a run folder (no
// or a bad model.json), no checkpoint at that step (with the steps there are), a bad checkpoint.
TrainedRun loadTrainedRun(const std::string& dir, int step = kLastCheckpoint);

} // namespace core
