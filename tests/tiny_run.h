// A run folder as `mha-viz train` writes it (model.json, metrics.csv, checkpoints at step 0 and
// the last, through the same RunFolderWriter), made in-process in a few milliseconds: a tiny
// model trained for a few updates.
#pragma once

#include "io/atomic_file.h"
#include "io/run_folder.h"
#include "train/trainer.h"

#include <filesystem>
#include <string>
#include <unistd.h>

namespace testing_support {

// 2 layers (or `layers`), d_model 16, 4 heads, seq 16 (24 for agreement), 6 updates.
inline core::train::TrainSettings
tinyRunSettings(core::train::TaskKind task = core::train::TaskKind::Induction, int layers = 2) {
    core::train::TrainSettings s;
    s.task = task;
    s.model.d_model = 16;
    s.model.heads = 4;
    s.model.layers = layers;
    s.model.seq = task == core::train::TaskKind::Agreement ? 24 : 16;
    s.batch = 4;
    s.steps = 6;
    s.learningRate = 1e-2;
    return s;
}

// The Train view's tests: 2 layers, d_model 16, 2 heads, seq 8, batch 4; a row every `evalEvery`.
inline core::train::TrainSettings tinyWindowSettings(int steps, int evalEvery) {
    core::train::TrainSettings s;
    s.model.d_model = 16;
    s.model.heads = 2;
    s.model.layers = 2;
    s.model.seq = 8;
    s.batch = 4;
    s.steps = steps;
    s.evalEvery = evalEvery;
    return s;
}

// A fresh folder under the temp directory, named for the test and the process.
inline std::string freshRunDir(const std::string& name) {
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("mha-model-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    return dir.string();
}

// Trains `settings` in-process and writes its run folder at `dir`: model.json, the checkpoints
// at step 0 and at the last step. Returns the trainer with the last step's weights.
inline core::train::Trainer writeTinyRun(const std::string& dir,
                                         const core::train::TrainSettings& settings) {
    core::train::Trainer trainer(settings);
    core::RunFolderWriter run(dir, trainer.settings(), trainer.task().vocab(),
                              trainer.probeColumns());
    auto row = [&] {
        const double loss = trainer.takeTrainLoss();
        run.metricsRow(trainer.step(), loss, trainer.probeMetrics());
        run.checkpoint(trainer.step(), trainer.params());
    };
    row(); // step 0, and the last step: as mha-viz train writes them without --checkpoint-every
    while (!trainer.done()) trainer.update();
    row();
    return trainer;
}

} // namespace testing_support
