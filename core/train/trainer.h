// One training run of "Watch heads learn" (docs/run-folder.md): the task, the model, the
// optimizer and the held-out probe set, stepped one update at a time. Files, progress and signals
// are the caller's (`mha-viz train`: app/cli/train_command.cpp; the Train view:
// app/train_view/train_run.cpp): a Trainer only computes, so every caller sees the same numbers
// for the same settings.
//
// Everything random comes from the seed, each use from its own stream: the initial weights
// (initParams), the training batches (seed ^ fnv1a64("batches")) and the probe set
// (probeSeed). The same settings give the same metrics bit for bit on one machine.
#pragma once

#include "train/head_scores.h"
#include "train/model.h"
#include "train/optimizer.h"
#include "train/tasks.h"

#include <cstdint>
#include <vector>

namespace core::train {

struct TrainSettings {
    TaskKind task = TaskKind::Induction;
    ModelConfig model;          // vocab is the task's (filled in by the Trainer)
    int batch = 32;             // B, sequences per update
    int steps = 3000;           // updates
    double learningRate = 1e-3; // lr
    OptimizerKind optimizer = OptimizerKind::Adam;
    std::uint64_t seed = 1;
    int evalEvery = 100;     // E: a metrics row at step 0, every E steps and at the last
    int checkpointEvery = 0; // C: also a checkpoint every C steps (0: only first and last)
    bool recordBatches = false;
};

// The limits `mha-viz train` accepts; beyond them a run would not fit in memory or time on the
// machines the lesson runs on.
inline constexpr int kMaxTrainLayers = 8;
inline constexpr int kMaxTrainDModel = 1024;
inline constexpr int kMaxTrainSeq = 1024;
inline constexpr int kMaxTrainBatch = 1024;
// Checkpoint and batch file names hold the step in 6 digits (docs/run-folder.md, "Files"), so
// they sort in order.
inline constexpr int kMaxTrainSteps = 999999;
// A model file's vocabulary: far beyond the tasks' (64 tokens at most), small enough that its
// embedding (vocab x d_model) stays within memory at the widest d_model.
inline constexpr int kMaxTrainVocab = 65536;
// Probe sequences per held-out measurement: enough that the held-out loss and scores move by
// less than their changes during the drop, few enough that a row costs a few updates' time.
inline constexpr int kProbeSequences = 64;

// Throws std::invalid_argument naming the first bad value, with the flag's name as the CLI
// spells it ("--layers 0 must be 1 to 8").
void validate(const TrainSettings& settings);

// How a run was made, in one line for captions and logs: "induction, 2 layers, d_model 64,
// 4 heads, seq 32, batch 32, adam lr 0.001, seed 1".
std::string describeSettings(const TrainSettings& settings);

class Trainer {
  public:
    // Validates, then sets up the initial weights (step 0), the optimizer and the probe set.
    explicit Trainer(TrainSettings settings);

    const TrainSettings& settings() const { return settings_; }
    const ModelConfig& config() const { return settings_.model; }
    const Task& task() const { return task_; }
    const Params& params() const { return params_; }
    const ProbeSet& probe() const { return probe_; }
    int step() const { return step_; } // updates done so far
    bool done() const { return step_ >= settings_.steps; }

    // The batch the next update will use; the same until update() consumes it.
    const Batch& nextBatch();
    // One update on nextBatch(): returns its loss, measured before the update.
    double update();

    // Whether metrics.csv has a row at `step`: 0, every E, and the last step.
    bool isEvalStep(int step) const;
    bool isCheckpointStep(int step) const;

    // metrics.csv's columns after step and train_loss (probeMetrics' names), and their values for
    // the current weights.
    std::vector<std::string> probeColumns() const;
    std::vector<Metric> probeMetrics() const;

    // Mean loss of the updates since the last call (or, before any update, of the first batch at
    // the initial weights): the train_loss of a metrics row, smoothed over the rows' interval.
    double takeTrainLoss();

  private:
    TrainSettings settings_;
    Task task_;
    Params params_;
    Optimizer optimizer_;
    StepBuffers buffers_; // reused by every update: a step allocates nothing after the first
    ProbeSet probe_;
    SplitMix64 batchStream_;
    Batch next_;
    bool haveNext_ = false;
    int step_ = 0;
    double lossSum_ = 0;
    int lossCount_ = 0;
};

} // namespace core::train
