// Scenes as JSON ("format": "mha-scene", "version": 1; docs/scene-json.md): every setting, so
// a demo can be saved, shared and replayed. Loading never crashes: bad files give one-line
// messages.
#pragma once

#include "engine/scene.h"
#include "figures/colormap.h"

#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace core {

inline constexpr int kSceneJsonVersion = 1;

// The views of a trace a scene can open on, and the themes, with the names a scene file, --view
// and the window use (kViewTabNames: also the tab bar's order, and V's; kThemeNames: T's).
enum class ViewTab { Head, Mean, Difference, Lines, Statistics, Pipeline, Steps, Cost };
inline constexpr EnumName<ViewTab> kViewTabNames[] = {{ViewTab::Head, "head", "Head"},
                                                      {ViewTab::Mean, "mean", "Mean"},
                                                      {ViewTab::Difference, "difference",
                                                       "A\xE2\x88\x92"
                                                       "B"}, // A−B
                                                      {ViewTab::Lines, "lines", "Lines"},
                                                      {ViewTab::Statistics, "statistics", "Stats"},
                                                      {ViewTab::Pipeline, "pipeline", "Pipeline"},
                                                      {ViewTab::Steps, "steps", "Steps"},
                                                      {ViewTab::Cost, "cost", "Cost"}};
constexpr std::span<const EnumName<ViewTab>> enumNames(ViewTab) {
    return kViewTabNames;
}

enum class Theme { Dark, Light, HighContrast };
inline constexpr EnumName<Theme> kThemeNames[] = {
    {Theme::Dark, "dark", "dark"},
    {Theme::Light, "light", "light (projectors)"},
    {Theme::HighContrast, "high-contrast", "high contrast"}};
constexpr std::span<const EnumName<Theme>> enumNames(Theme) {
    return kThemeNames;
}

// How the window shows a scene ("view" in the file, optional): saved with it so a demo
// replays exactly. Not part of Scene: changing it never recomputes anything. The window keeps
// exactly this struct as its saved settings (Tracy's ViewData), so nothing is copied by field.
struct SceneView {
    ViewTab tab = ViewTab::Head;
    ColormapId colormap = ColormapId::Viridis;
    Theme theme = Theme::Dark;
    int selectedHead = 0; // 0-based; the file numbers heads from 1
    int compareHead = 1;  // the difference view's second head
    bool perHeadScale = false;
    bool operator==(const SceneView&) const = default;
};

// `view` (optional) is written as the "view" object.
std::string sceneToJson(const Scene& scene, const SceneView* view = nullptr);

// Throws std::invalid_argument with one line naming the problem (bad JSON, wrong type,
// out-of-range value, nesting deeper than 32, unknown format); the scene is validated.
// `view`, when given, receives the file's view settings (defaults where it has none;
// heads beyond H are clamped).
Scene sceneFromJson(std::string_view text, SceneView* view = nullptr);

// The demo scenes shipped in assets/scenes (embedded): file name without .json.
// The last two carry a "train" object (io/train_scene.h): they open the Train view and train.
inline constexpr const char* kDemoScenes[] = {
    "designed-heads",       "causal-mask",          "batch-with-padding",    "cross-attention",
    "pitfall-sqrt-d-model", "induction-heads-form", "subject-verb-agreement"};
// Throws std::invalid_argument for an unknown name.
Scene demoScene(std::string_view name, SceneView* view = nullptr);

// File versions: load reads at most 16 MB and throws std::invalid_argument for a bad file,
// std::runtime_error for one it cannot read, naming the path; save writes atomically and
// throws std::runtime_error (io/atomic_file.h).
Scene loadSceneFile(const std::string& path, SceneView* view = nullptr);
void saveSceneFile(const std::string& path, const Scene& scene, const SceneView* view = nullptr);

// A scene file's text (io/text_file.h's cap for scenes): std::runtime_error "cannot read scene
// 'PATH'", std::invalid_argument "scene 'PATH' is larger than 16 MB". loadSceneFile and the
// train settings of a scene file (train_scene.h) read it so.
std::string readSceneText(const std::string& path);

// The embedded demo scenes, by path under assets/ (generated at build time).
std::string_view sceneAsset(std::string_view name);

} // namespace core
