// What a model attends to on one probe sequence, every head of every layer: the maps the
// Train view draws (a row per layer, BertViz's model view), scrubs through and exports. Each
// map is the attention of the model's own forward (forwardPass), as trained.
#pragma once

#include "train/model.h"
#include "train/tasks.h"
#include "train/trainer.h"

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace core::train {

// Attention of every head on one probe sequence.
struct ProbeMaps {
    int layers = 0, heads = 0, length = 0;
    std::vector<std::string> labels; // length: the sequence's tokens, in the task's vocabulary
    std::vector<float> weights;      // layers x heads x length x length, row-major; causal: the
                                     // cells after the query are 0

    const float* map(int layer, int head) const {
        return weights.data() + (std::size_t(layer) * heads + head) * length * length;
    }
};

// The sequence the maps show: for agreement the first probe sentence (the subject pattern),
// else the first repeated random sequence, where the previous-token and induction patterns each
// have one answer per position (the stripes a student looks for).
Batch mapSequence(const ProbeSet& probe);

// The maps of `params` on `sequence`, with the heads in `ablated` switched off.
ProbeMaps probeMaps(const ModelConfig& config, const Params& params, const Batch& sequence,
                    const std::vector<std::string>& vocab, const HeadLists& ablated = {});

// What a run computes from its settings before any update: the task, its probe set (the one
// the Trainer measures on), the map sequence and the metrics columns. Shared (never changed):
// a run's worker and its files read it at once.
struct RunSetup {
    TrainSettings settings; // model.vocab filled in
    Task task;
    ProbeSet probe;
    Batch mapSequence;
    std::vector<std::string> columns; // metrics.csv's: step, train_loss, then probeColumns
};
// Validates the settings (std::invalid_argument naming the flag, as the Trainer does).
std::shared_ptr<const RunSetup> makeRunSetup(TrainSettings settings);

// The model at one step and its maps: a point of the Train view's timeline.
struct TrainSnapshot {
    int step = 0;
    std::shared_ptr<const Params> params; // shared: never changed once made
    ProbeMaps maps;
};

// The trainer's model now, with its maps on the setup's sequence.
TrainSnapshot snapshotOf(const Trainer& trainer, const RunSetup& setup);
// `params` at `step` (a checkpoint read back, the initial weights), likewise.
TrainSnapshot snapshotOf(int step, std::shared_ptr<const Params> params, const RunSetup& setup);

} // namespace core::train
