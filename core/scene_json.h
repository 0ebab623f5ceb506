// Scenes as JSON ("format": "mha-scene", "version": 1): every setting, so a demo can be
// saved, shared and replayed. Loading never crashes: bad files give one-line messages.
#pragma once

#include "scene.h"

#include <string>
#include <string_view>

namespace core {

inline constexpr int kSceneJsonVersion = 1;

std::string sceneToJson(const Scene& scene);

// Throws std::invalid_argument with one line naming the problem (bad JSON, wrong type,
// out-of-range value, nesting deeper than 32, unknown format); the scene is validated.
Scene sceneFromJson(std::string_view text);

// The demo scenes shipped in assets/scenes (embedded): file name without .json.
inline constexpr const char* kDemoScenes[] = {"designed-heads", "causal-mask", "batch-with-padding",
                                              "cross-attention", "pitfall-sqrt-d-model"};
Scene demoScene(std::string_view name); // throws std::invalid_argument for an unknown name

// File versions: load reads at most 16 MB; save writes atomically. Empty string = success.
std::string loadSceneFile(const std::string& path, Scene& scene);
std::string saveSceneFile(const std::string& path, const Scene& scene);

} // namespace core
