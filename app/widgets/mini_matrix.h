// Small matrices drawn cell by cell (a row of q, a head's K, a softmax row), with the
// value of every cell on hover. For the step-through, where sizes are at most a few
// thousand cells; the big attention maps go through the GPU (gl_heatmaps.h).
#pragma once

#include "figures/colormap.h"

#include <imgui.h>

#include <functional>
#include <string>
#include <vector>

namespace app {

struct MiniMatrixStyle {
    float cell = 18.0f;              // cell side in pixels (shrunk to fit maxWidth)
    float maxWidth = 520.0f;         // wider matrices get smaller cells, then are cut
    int maxRows = 48, maxCols = 128; // the rest is summarised as "… of N"
    bool signedValues = true;        // blue-white-red around 0; else the heatmap colormap 0..1
    core::ColormapId colormap = core::ColormapId::Viridis;
    int highlightFromCol = -1, highlightToCol = -1; // columns framed in `highlightColor`
    ImU32 highlightColor = IM_COL32(255, 255, 255, 255);
    const std::vector<std::string>* rowLabels = nullptr;
    const std::vector<std::string>* colLabels = nullptr;
};

// value(r, c) -> the number; masked(r, c) -> drawn hatched, shown as −∞. Returns the
// hovered cell's column or -1.
int drawMiniMatrix(const char* id, int rows, int cols, const std::function<float(int, int)>& value,
                   const MiniMatrixStyle& style, const std::function<bool(int, int)>& masked = {});

} // namespace app
