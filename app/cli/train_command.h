// `mha-viz train`: trains a tiny attention-only transformer headless and writes the run folder
// of docs/run-folder.md (model.json, metrics.csv, checkpoints, batches, ablation.csv).
#pragma once

#include "train/trainer.h"

#include <atomic>
#include <optional>
#include <ostream>
#include <string>

namespace app {

struct TrainOptions {
    core::train::TrainSettings settings;
    std::string outDir;    // --out DIR: new or empty
    bool ablation = false; // --ablation: also ablation.csv after the last step
};

// Parses the arguments after `mha-viz` (argv[0] is "train"). Like parseCli: --help prints usage
// and sets exitCode 0; bad input prints one line and sets exitCode 2; options only when the
// run should go on. Settings are validated here, so nothing is written for a bad value.
std::optional<TrainOptions> parseTrainCli(int argc, char** argv, int& exitCode);

// Trains into options.outDir and returns the exit code. `stop` is read after every update:
// when set (Ctrl+C), the run ends there, writing that step's metrics row and checkpoint.
// Progress lines go to `log` at most twice a second (one updated line when it is a terminal).
int runTraining(const TrainOptions& options, const std::atomic<bool>& stop, std::ostream& log,
                bool logIsTerminal);

// parseTrainCli, Ctrl+C and SIGTERM handlers, runTraining on stderr.
int runTrainCommand(int argc, char** argv);

} // namespace app
