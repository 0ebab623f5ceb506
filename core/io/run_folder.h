// The files of a training run (docs/run-folder.md, "Files"): model.json, metrics.csv,
// checkpoint-SSSSSS.safetensors, batches-SSSSSS.json and ablation.csv. What `mha-viz train`
// writes, and what the window and `--model DIR` read back.
#pragma once

#include "io/csv_table.h"
#include "train/ablation.h"
#include "train/head_scores.h"
#include "train/model.h"
#include "train/probe_maps.h"
#include "train/trainer.h"

#include <atomic>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

namespace core {

// Creates dir (and its parents) when it does not exist. Throws std::invalid_argument when dir
// is a file or a folder that is not empty (a run never mixes with other files), and
// std::runtime_error when it cannot be created.
void prepareRunFolder(const std::string& dir);

std::string checkpointFileName(int step); // "checkpoint-000300.safetensors"
std::string batchesFileName(int update);  // "batches-000001.json"
// The steps of the folder's checkpoint files, ascending; throws std::runtime_error naming the
// folder when it cannot be read.
std::vector<int> checkpointSteps(const std::string& dir);

// model.json: {"format": "mha-model", "version": 1, "task", "vocab", "d_model", "heads",
// "layers", "seq", "seed"}.
std::string modelJson(const train::TrainSettings& settings, const std::vector<std::string>& vocab);

// What model.json says about a run.
struct ModelInfo {
    train::TaskKind task = train::TaskKind::Induction;
    std::vector<std::string> vocab;
    train::ModelConfig config; // vocab = vocab.size()
    std::uint64_t seed = 0;
};
// Throws std::invalid_argument naming the field that is missing or wrong.
ModelInfo parseModelJson(const std::string& text);

// model.json and metrics.csv (which must have a step column) of a run folder. Throw
// std::invalid_argument naming the file when it cannot be read ("is it a run folder of mha-viz
// train?") or what is wrong in it.
ModelInfo readModelInfo(const std::string& dir);
CsvTable readMetrics(const std::string& dir);

// The params as a checkpoint: their safetensors names and shapes, metadata {"format":
// "mha-model", "step": S}. Writes atomically; throws std::runtime_error naming the path.
void writeCheckpoint(const std::string& path, const train::Params& params, int step);
// A checkpoint of a model of this config; throws std::invalid_argument naming a missing
// tensor or a wrong shape, std::runtime_error when the file cannot be read.
train::Params readCheckpoint(const std::string& path, const train::ModelConfig& config);

// {"tokens": [B][N] ints, "loss_mask": [B][N] bools}.
std::string batchesJson(const train::Batch& batch);

// metrics.csv, streamed: the header when opened, then one row per append, flushed at once so
// a stopped run keeps every row it computed and memory does not grow with the run.
class MetricsCsv {
  public:
    // Throws std::runtime_error naming the path when it cannot be created.
    MetricsCsv(const std::string& path, const std::vector<std::string>& probeColumns);
    // step,train_loss, then the metrics in probeColumns' order. Throws std::runtime_error on a
    // write error (a full disk).
    void append(int step, double trainLoss, const std::vector<train::Metric>& metrics);

  private:
    std::string path_;
    std::ofstream out_;
};

// A run folder being written a file at a time, as `mha-viz train` does: made (new or empty, as
// prepareRunFolder says) with model.json and metrics.csv's header; then each row, checkpoint,
// batch and the ablation as they come. Every writer of a run folder goes through here or
// writeRunFolder, beside the readers above. Each call throws std::runtime_error naming the file
// it could not write.
class RunFolderWriter {
  public:
    RunFolderWriter(const std::string& dir, const train::TrainSettings& settings,
                    const std::vector<std::string>& vocab,
                    const std::vector<std::string>& probeColumns);
    void metricsRow(int step, double trainLoss, const std::vector<train::Metric>& metrics);
    void checkpoint(int step, const train::Params& params);
    void batch(int update, const train::Batch& batch);  // batches-SSSSSS.json
    void ablation(const train::AblationReport& report); // ablation.csv
    std::string path(const std::string& name) const { return dir_ + "/" + name; }

  private:
    std::string dir_;
    train::TaskKind task_;
    MetricsCsv metrics_;
};

// A whole run at once (the Train view's Save run): model.json, metrics.csv from the table
// (step, train_loss and the probe columns), and a checkpoint per snapshot; `done` counts the
// metrics and the checkpoints as they are written.
void writeRunFolder(const std::string& dir, const train::RunSetup& setup, const CsvTable& metrics,
                    const std::vector<train::TrainSnapshot>& snapshots, std::atomic<int>& done);

// ablation.csv: kind,heads_removed,fraction_pruned,layer,head,heldout_loss,loss_increase,<accuracy>
// with a "baseline" row, one "single" row per head (only that head off) and one "pruning" row per
// step of the pruning curve (the head removed at that step; the others stay removed).
std::string ablationCsv(const train::AblationReport& report, train::TaskKind task);

} // namespace core
