// The window's panels: each a function of (Scene&, const Trace&, ViewState&), one per file.
#pragma once

#include "gl_heatmaps.h"
#include "scene.h"
#include "trace.h"
#include "view_state.h"

#include <imgui.h>

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
                        ViewState& view);

// Sizes, seed, mask, positional encoding, scale, and how the maps are coloured.
void drawControlsPanel(const PanelRect& rect, core::Scene& scene, const core::Trace& trace,
                       ViewState& view);

// Every head of the shown sentence, as a grid of small heatmaps.
void drawHeadsPanel(const PanelRect& rect, const core::Trace& trace, ViewState& view,
                    GlHeatmaps& gl);

// The right-hand panel: tabs Head, Pipeline, Step through, Cost.
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
void drawStepsView(const core::Trace& trace, ViewState& view);

// Tab: parameters and FLOPs, H = 1 against the current H, real model sizes.
void drawCostView(const core::Scene& scene, const core::Trace& trace, ViewState& view);

// Section of the controls: the classic pitfalls as switches, each with its explanation.
void drawPitfallsSection(core::Scene& scene, const core::Trace& trace, ViewState& view);

// Ctrl+O: the scene picker (demo scenes, a path); openSceneFile also serves dropped files.
void drawScenesPanel(core::Scene& scene, ViewState& view);
bool openSceneFile(core::Scene& scene, ViewState& view, const std::string& path);

// Tooltip for a designed head's name: what it looks for and, honestly, how it is built.
void designedHeadTooltip(const std::string& headName);

// A one-sentence tooltip on the last item (every control has one).
void itemTooltip(const char* text);

} // namespace app
