// What every panel of both modes shares: where it sits, how its window is set up, a tooltip on
// the last item, a section title.
#pragma once

#include <imgui.h>

namespace app {

// Fixed panels. NoBackground: the frame is cleared to the window colour once instead of
// blending four full-size rectangles, which llvmpipe (software GL) pays for per pixel.
inline constexpr ImGuiWindowFlags kPanelFlags =
    ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize | ImGuiWindowFlags_NoCollapse |
    ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoBringToFrontOnFocus;

struct PanelRect {
    ImVec2 pos, size;
};

// A one-sentence tooltip on the last item (every control has one), also when it is disabled.
void itemTooltip(const char* text);

// A section's title with a rule under it (ImGui 1.86 has no SeparatorText).
void sectionTitle(const char* text);

} // namespace app
