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
    float fixedScale = 0; // > 0: the |value| drawn at full colour, to compare rows; else the
                          // largest |value| shown
    int decimals = 2;     // drawLabelledRow's printed values
    int highlightFromCol = -1, highlightToCol = -1; // columns framed in `highlightColor`
    ImU32 highlightColor = IM_COL32(255, 255, 255, 255);
    const std::vector<std::string>* rowLabels = nullptr;
    const std::vector<std::string>* colLabels = nullptr;
};

// value(r, c) -> the number; masked(r, c) -> drawn hatched, shown as −∞. Returns the
// hovered cell's column or -1.
int drawMiniMatrix(const char* id, int rows, int cols, const std::function<float(int, int)>& value,
                   const MiniMatrixStyle& style, const std::function<bool(int, int)>& masked = {});

// One value per labelled column (a score per key token) as cells that flow onto more lines,
// each with its label above and its value printed inside: two rows that differ by a factor
// differ visibly. Uses style's colours, fixedScale, decimals and maxCols; masked(c) -> hatched,
// "−∞". Returns the hovered cell or -1.
int drawLabelledRow(const char* id, int count, const std::function<float(int)>& value,
                    const std::vector<std::string>& labels, const MiniMatrixStyle& style,
                    const std::function<bool(int)>& masked = {});

} // namespace app
