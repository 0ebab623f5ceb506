// The window's panels: each a function of (Scene&, const Trace&, ViewState&), one per file.
#pragma once

#include "engine/scene.h"
#include "engine/trace.h"
#include "explorer/scene_runner.h"
#include "explorer/view_state.h"
#include "session/shortcuts.h"
#include "train_view/train_view.h"
#include "widgets/gl_heatmaps.h"

#include <imgui.h>

#include <memory>
#include <string>

namespace app {

// Fixed panels. NoBackground: the frame is cleared to the window colour once instead of
// blending four full-size rectangles, which llvmpipe (software GL) pays for per pixel.
inline constexpr ImGuiWindowFlags kPanelFlags =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
    ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoBringToFrontOnFocus;

struct PanelRect {
    ImVec2 pos, size;
};

// Sentence(s), batch and cross-attention source; token chips that light up rows.
void drawSentencesPanel(const PanelRect& rect, core::Scene& scene, const core::Trace& trace,
                        const RunStatus& status, ViewState& view);

// Sizes, seed, mask, positional encoding, scale, and how the maps are coloured.
void drawControlsPanel(const PanelRect& rect, core::Scene& scene, const core::Trace& trace,
                       const HeadMaps& shown, ViewState& view);

// Every head of the shown sentence, as a grid of small heatmaps.
void drawHeadsPanel(const PanelRect& rect, const core::Trace& trace, const RunStatus& status,
                    ViewState& view, GlHeatmaps& gl);

// The right-hand panel: tabs Head, Mean, A-B, Lines, Stats, Pipeline, Steps, Cost.
void drawViewsPanel(const PanelRect& rect, core::Scene& scene, const core::Trace& trace,
                    ViewState& view, GlHeatmaps& gl);

// Tab: the selected head, large, with full labels and a colour bar.
void drawHeadView(core::Scene& scene, const core::Trace& trace, ViewState& view, GlHeatmaps& gl);

// Tab: the whole pipeline as blocks with live shapes; each head's slice in its colour.
void drawPipelineView(const core::Scene& scene, const core::Trace& trace, ViewState& view,
                      GlHeatmaps& gl);

// Starts the pipeline's regroup animation after the scene's H changed.
void noteHeadCountChange(ViewState& view, int previousHeads);

// Tab: one query token through the selected head, step by step, with the real numbers.
void drawStepsView(const core::Trace& trace, const HeadMaps& shown, ViewState& view);

// Tab: parameters and FLOPs, H = 1 against the current H, real model sizes.
void drawCostView(const core::Scene& scene, const core::Trace& trace, ViewState& view);

// Section of the controls while a trained model is open (replaces sizes, weights, mask, scale and
// the pitfalls, which the model fixes): run, step, layer, architecture, "Close model".
void drawModelSection(ViewState& view);

// Section of the controls: the classic pitfalls as switches, each with its explanation.
void drawPitfallsSection(core::Scene& scene, const core::Trace& trace, const HeadMaps& shown,
                         ViewState& view);

// Ctrl+O: the scene picker (demo scenes, a path); openSceneFile also serves dropped files.
void drawScenesPanel(core::Scene& scene, ViewState& view);
bool openSceneFile(core::Scene& scene, ViewState& view, const std::string& path);
void openDemoScene(core::Scene& scene, ViewState& view, const char* name); // a kDemoScenes name

// Ctrl+Shift+E: the export panel; the export runs on a worker that shares the trace.
void drawExportPanel(const std::shared_ptr<const core::Trace>& trace, ViewState& view,
                     const std::string& defaultFolder);
void openExportPanel(ViewState& view, ExportChoice what);
// The whole-window choice is captured by the frame loop; this reports what it wrote.
void finishWindowCapture(ViewState& view, const std::string& path, const std::string& error);

// Tabs beside the grid: the mean over heads, the difference of two heads (diverging
// colours), the line view (BertViz's head view), per-head statistics.
// A tab's one-line explanation with an "Export..." button at its right (opens the panel).
void viewHeader(const char* text, ViewState& view, ExportChoice what);
void drawMeanView(const core::Trace& trace, ViewState& view, GlHeatmaps& gl);
void drawDifferenceView(const core::Trace& trace, ViewState& view, GlHeatmaps& gl);
void drawLinesView(const core::Trace& trace, const HeadMaps& shown, ViewState& view);
void drawStatisticsView(const core::Trace& trace, ViewState& view, GlHeatmaps& gl);

// Tooltip for a designed head's name: what it looks for and, honestly, how it is built.
void designedHeadTooltip(const std::string& headName);

// A one-sentence tooltip on the last item (every control has one).
void itemTooltip(const char* text);

// A section's title with a rule under it (ImGui 1.86 has no SeparatorText).
void sectionTitle(const char* text);

// Train mode (Ctrl+T): the whole window. Steps the run's frame, playback and the Train keys,
// then the four panels below. `gl` holds the Train maps' textures (not the explorer's); `keys`
// are the frame's plain key presses (ShortcutActions::plainKeys).
void drawTrainView(TrainView& train, ViewState& view, GlHeatmaps& gl, const std::string& exportDir,
                   float uiScale, const std::vector<KeyPress>& keys);
void drawTrainControls(const PanelRect& rect, TrainView& train, ViewState& view,
                       const std::string& exportDir);
void drawTrainCharts(const PanelRect& rect, TrainView& train, ViewState& view);
void drawTrainMaps(const PanelRect& rect, TrainView& train, ViewState& view, GlHeatmaps& gl);
void drawTrainTimeline(const PanelRect& rect, TrainView& train);
void drawTrainAblation(TrainView& train, const ViewState& view);
void drawTrainFiles(TrainView& train, ViewState& view, const std::string& exportDir);
// The Train view's actions, shared by buttons and keys.
void toggleRunning(TrainView& train);
void stepRun(TrainView& train);
void toggleTimelinePlay(TrainView& train);
void saveRun(TrainView& train, const std::string& folder, bool openAfter);
void exportCurvesNow(TrainView& train, const std::string& dir); // into a new folder in dir
void exportMapsNow(TrainView& train, const std::string& dir);
void loadRun(TrainView& train, ViewState& view, const std::string& folder);
void openInExplorer(TrainView& train, const std::string& exportDir);

} // namespace app
