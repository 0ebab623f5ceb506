// Where the four panels go for a given window size: sentences and controls on the
// left, the grid of heads in the middle, the selected head large on the right.
#pragma once

#include "widgets/panel_frame.h"

#include <algorithm>

namespace app {

struct WindowLayout {
    PanelRect sentences, controls, heads, head;
};

inline WindowLayout layoutFor(float width, float height, float uiScale) {
    const float left = std::clamp(width * 0.27f, 330.0f * uiScale, 470.0f * uiScale);
    const float sentencesHeight = std::max(height * 0.27f, 200.0f * uiScale);
    const float rest = width - left;
    const float grid = rest * 0.45f;
    WindowLayout l;
    l.sentences = {ImVec2(0, 0), ImVec2(left, sentencesHeight)};
    l.controls = {ImVec2(0, sentencesHeight), ImVec2(left, height - sentencesHeight)};
    l.heads = {ImVec2(left, 0), ImVec2(grid, height)};
    l.head = {ImVec2(left + grid, 0), ImVec2(rest - grid, height)};
    return l;
}

} // namespace app
