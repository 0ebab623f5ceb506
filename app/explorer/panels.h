// The explorer's panels and tabs, one per file. Each takes the parts of the state it reads or
// sets, never the whole ExplorerState, and returns what it asks of the session
// (ExplorerRequest), which the session applies in the same frame. explorer_tabs.cpp maps each
// tab to its function.
#pragma once

#include "engine/scene.h"
#include "engine/trace.h"
#include "explorer/explorer_state.h"
#include "explorer/scene_runner.h"
#include "widgets/gl_heatmaps.h"
#include "widgets/heatmap_widget.h"
#include "widgets/notice.h"
#include "widgets/panel_frame.h"

#include <functional>
#include <memory>
#include <string>

namespace app {

// Sentence(s), batch and cross-attention source; token chips that light up rows; the demos.
ExplorerRequest drawSentencesPanel(const PanelRect& rect, core::Scene& scene,
                                   const core::Trace& trace, const RunStatus& status,
                                   ModelView& model, Selection& selection);

// Sizes, seed, mask, positional encoding, scale, how the maps are coloured, the pitfalls; a
// trained model's section instead of what the model fixes.
ExplorerRequest drawControlsPanel(const PanelRect& rect, core::Scene& scene,
                                  const core::Trace& trace, const HeadMaps& shown,
                                  core::SceneView& saved, ModelView& model, Selection& selection);
// Its sections: a trained model's run, step, layer and "Close model"; the pitfalls.
ExplorerRequest drawModelSection(ModelView& model);
// A real model's shapes on the text shown (B, N, M, d_model, H, H_kv, d_head) and its
// attention's parameter count with the formula, from its config (panel_model.cpp).
void drawRealModelShapes(const ModelView& model);
void drawPitfallsSection(core::Scene& scene, const core::Trace& trace, const HeadMaps& shown,
                         Selection& selection);

// Every head of the shown sentence, as a grid of small heatmaps.
void drawHeadsPanel(const PanelRect& rect, const core::Trace& trace, const RunStatus& status,
                    ModelView& model, const MapsView& maps);

// The middle panel of a real model (panel_model_grid.cpp): every head of every layer (weights
// or value-weighted; a right-click switches a head off), the head detectors' scores, the
// rollout or the logit lens; a click opens a head. drawModelGridModes is its mode line, which
// the heads panel shows too.
// "  / computing new maps, 2.0 s (showing the last)" while a worker runs, else "": appended
// to the middle panel's title, where it stays in view and covers nothing.
std::string computingNote(const RunStatus& status);

// `t` of the way from the window's background to its text: the frames and tints of the query
// heads sharing a K/V head, which read in every theme without a colour of their own.
ImU32 themeMix(float t, float alpha = 1.0f);

ExplorerRequest drawModelGridPanel(const PanelRect& rect, const ModelRunner& runner,
                                   ModelView& model, core::SceneView& saved, Selection& selection,
                                   GlHeatmaps& gl);
void drawModelGridModes(ModelView& model);

// The analyses' parts of that panel (panel_model_analyses.cpp). uploadModelMaps puts layer l's
// head h in slot l * H + h of `gl` (its weights, or value-weighted), then the rollout after
// the shown layer; again whenever modelMapsKey changes (model_runner.h), the heads'
// maps only when the trace or the value-weighted switch did (`heads`).
ModelMapsKey modelMapsKey(const ModelRunner& runner, const ModelView& model);
void uploadModelMaps(const ModelRunner& runner, const ModelView& model, GlHeatmaps& gl,
                     bool heads = true);
void drawRolloutView(const ModelRunner& runner, ModelView& model, core::SceneView& saved,
                     Selection& selection, GlHeatmaps& gl);
void drawLogitLensView(const ModelRunner& runner, ModelView& model);
// An encoder-decoder's alignment view (panel_alignment.cpp), in the logit lens's place.
ExplorerRequest drawAlignmentView(const ModelRunner& runner, ModelView& model,
                                  const core::SceneView& saved);
// "3 heads off [All heads on]  loss 4.2 (all heads on: 4.0)" and the next tokens then and now;
// true when All heads on was clicked.
bool drawAblationSummary(const ModelRunner& runner, const ModelView& model);

// The right-hand panel: the tab bar, showing `tab`; `drawTab` draws a tab's content.
ExplorerRequest drawViewsPanel(const PanelRect& rect, core::ViewTab& tab, TabBarState& bar,
                               const std::function<ExplorerRequest(core::ViewTab)>& drawTab);
// A tab's one-line explanation with an "Export..." button at its right: its request opens the
// export panel on `what`.
ExplorerRequest viewHeader(const char* text, ExportChoice what);
// Just the button, at the right end of the line drawn last.
ExplorerRequest exportButton(ExportChoice what);

// The tabs.
ExplorerRequest drawHeadView(core::Scene& scene, const core::Trace& trace, const ModelView& model,
                             const MapsView& maps);
ExplorerRequest drawMeanView(const core::Trace& trace, const MapsView& maps);
// With a real model open, B may be the same head in another model (drawModelDifference).
ExplorerRequest drawDifferenceView(const core::Trace& trace, const MapsView& maps, ModelView& model,
                                   ComparisonTabState& across);
// The A-B tab across two models (panel_model_difference.cpp): the shown head of the open model
// minus the same head of model B on the same text, and the heads that moved most (a click
// shows one). `trace` is the open model's shown layer.
ExplorerRequest drawModelDifference(const core::Trace& trace, const MapsView& maps,
                                    ModelView& model, ComparisonTabState& across);
// "B is ( ) another head of this layer ( ) this head in another model", with a real model open.
void drawDifferenceSource(ComparisonTabState& across);
ExplorerRequest drawLinesView(const core::Trace& trace, const MapsView& maps, LinesTabState& lines);
ExplorerRequest drawStatisticsView(const core::Trace& trace, const MapsView& maps);
// With a model open, X is what its chosen layer reads (`model`), not the toy embedding.
void drawPipelineView(const core::Scene& scene, const core::Trace& trace, const MapsView& maps,
                      PipelineTabState& pipeline, const ModelView& model);
// layerInput: a real model's name for what a layer's attention reads ("" for the toy scene).
void drawStepsView(const core::Trace& trace, const MapsView& maps, StepsTabState& steps,
                   const std::string& layerInput);
// The Cost tab's "show" draws a real model's shapes in the Pipeline tab (and switches to it).
void drawCostView(const core::Scene& scene, const core::Trace& trace, PipelineTabState& pipeline,
                  core::ViewTab& tab);

// Starts the pipeline's regroup animation after the scene's H changed.
void noteHeadCountChange(PipelineTabState& pipeline, int previousHeads, double now);

// Tooltip for a designed head's name: what it looks for and, honestly, how it is built.
void designedHeadTooltip(const std::string& headName);

// Ctrl+O: the scene picker (the demo scenes, a path); asks to open the one chosen.
ExplorerRequest drawScenesPanel(ScenePickerState& picker);

// Ctrl+Shift+O (panel_open_model.cpp): the "Open model" window, a path field, the recent
// models and the Hugging Face cache's; asks to open the one chosen (ExplorerRequest::openModel).
ExplorerRequest drawOpenModelPanel(OpenModelState& dialog);

// Ctrl+Shift+E: the export panel; the export runs on a worker that shares the trace. `target`
// says which sentence and heads the choices take.
struct ExportTarget {
    int batchIndex = 0, head = 0, headB = 1;
    core::ColormapId colormap = core::ColormapId::Viridis;
    // A real model's layer: the caption that names the checkpoint, not the scene's seed.
    std::vector<std::string> captionLines;
    core::PairView pairView = core::PairView::All; // a sentence pair's cells shown
    // A real model's name (modelDisplayName): file names and titles say model, layer and head.
    std::string modelName;
};
void drawExportPanel(const std::shared_ptr<const core::Trace>& trace, ExportPanel& panel,
                     const ExportTarget& target, Notice& notice, const std::string& defaultFolder);
void openExportPanel(ExportPanel& panel, ExportChoice what);
// The whole-window choice is captured by the frame loop; this reports what it wrote.
void finishWindowCapture(ExportPanel& panel, Notice& notice, const std::string& path,
                         const std::string& error);

// A real model's "Export all" (panel_export_all.cpp): asks first, in a modal, what it will write
// (the folder, the files and about how many bytes; figures only, with attention-only JSON or
// full traces; the PNG scale), then starts it as the export panel's job. Enter writes, Esc or
// Cancel leaves it. Opened by openExportAll; drawn every frame.
void openExportAll(ExportPanel& panel, ExportAllDialog dialog);
void drawExportAllDialog(ExportPanel& panel, Notice& notice);

} // namespace app
