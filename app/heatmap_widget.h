// One attention heatmap with token labels, hover highlights, tooltip and clicks.
#pragma once

#include "gl_heatmaps.h"
#include "trace.h"
#include "view_state.h"

#include <imgui.h>

namespace app {

// Rebuilds view.maps for the shown sentence and uploads them (call after a recompute).
void uploadHeadMaps(const core::Trace& trace, ViewState& view, GlHeatmaps& gl);

enum class LabelMode { Compact, Full };

// Draws head `head` into the rectangle at the cursor, `size` pixels, labels included.
// Returns true when the map was clicked.
bool drawHeatmap(const core::Trace& trace, ViewState& view, GlHeatmaps& gl, int head, ImVec2 size,
                 LabelMode labels);

// Horizontal colour bar `width` wide with labelled ends and middle.
void drawColorBar(GlHeatmaps& gl, core::ColormapId colormap, float valueMax, float width);

// Colour of head h's frame and slice (the same hue everywhere it appears).
ImU32 headColor(int head, int heads, float alpha = 1.0f);

} // namespace app
