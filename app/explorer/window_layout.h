// Where the four panels go for a given window size: sentences and controls on the
// left, the grid of heads in the middle, the selected head large on the right. A real model
// moves space where its content is: the sentences panel holds its guesses, a pair and the
// blanks filled (its Controls are few), and the model view's L x H grid takes more width so its
// cells grow with the window and the UI scale instead of leaving the bottom third empty.
#pragma once

#include "widgets/panel_frame.h"

#include <algorithm>

namespace app {

struct WindowLayout {
    PanelRect sentences, controls, heads, head;
};

enum class LayoutKind {
    Explorer,  // the toy explorer, a trained model
    RealModel, // a real model, its layer's heads in the middle
    ModelGrid  // a real model's every-layer grid, detectors, rollout or logit lens
};

inline WindowLayout layoutFor(float width, float height, float uiScale,
                              LayoutKind kind = LayoutKind::Explorer) {
    const float left = std::clamp(width * 0.27f, 330.0f * uiScale, 470.0f * uiScale);
    const float share = kind == LayoutKind::Explorer ? 0.27f : 0.42f;
    const float sentencesHeight = std::max(height * share, 200.0f * uiScale);
    const float rest = width - left;
    const float grid = rest * (kind == LayoutKind::ModelGrid ? 0.58f : 0.45f);
    WindowLayout l;
    l.sentences = {ImVec2(0, 0), ImVec2(left, sentencesHeight)};
    l.controls = {ImVec2(0, sentencesHeight), ImVec2(left, height - sentencesHeight)};
    l.heads = {ImVec2(left, 0), ImVec2(grid, height)};
    l.head = {ImVec2(left + grid, 0), ImVec2(rest - grid, height)};
    return l;
}

} // namespace app
