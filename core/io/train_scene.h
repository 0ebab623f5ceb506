// A scene may carry a training run: a "train" object beside the explorer's settings, with
// `mha-viz train`'s settings under their JSON names. The window opens such a scene in its Train
// view and starts the run ("induction heads form", "subject-verb agreement" in assets/scenes).
// The contract: docs/scene-json.md, "A training run".
#pragma once

#include "train/trainer.h"

#include <optional>
#include <string>
#include <string_view>

namespace core {

// {"task": "induction", "layers": 2, "d_model": 64, "heads": 4, "seq": 32, "batch": 32,
//  "steps": 2000, "lr": 0.001, "optimizer": "adam", "seed": 1, "eval_every": 20}; every key
// optional (the defaults of `mha-viz train`, eval_every 20).
// Nothing when the scene has no "train"; throws std::invalid_argument with one line naming the
// bad value (validated like `mha-viz train`'s flags) when it has a bad one.
std::optional<train::TrainSettings> sceneTrainSettings(std::string_view sceneText);

// The same for a scene file (after loadSceneFile accepted it); throws std::runtime_error
// naming the path when it cannot be read.
std::optional<train::TrainSettings> sceneFileTrainSettings(const std::string& path);

// The "train" object of `settings`, as sceneTrainSettings reads it.
std::string trainSettingsJson(const train::TrainSettings& settings);

} // namespace core
