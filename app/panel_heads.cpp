// Panel: all heads of the shown sentence as a grid of heatmaps.
#include "heatmap_widget.h"
#include "panels.h"

#include <cmath>

namespace app {

void drawHeadsPanel(const PanelRect& rect, const core::Trace& trace, ViewState& view,
                    GlHeatmaps& gl) {
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    ImGui::Begin("Heads", nullptr, kPanelFlags);
    const int heads = int(view.maps.size());
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float titleHeight = ImGui::GetTextLineHeightWithSpacing();
    const float gap = ImGui::GetStyle().ItemSpacing.x * 2;

    // The column count that makes the maps largest.
    int columns = 1;
    float side = 0;
    for (int c = 1; c <= std::max(1, heads); ++c) {
        const int rowsOfMaps = (heads + c - 1) / c;
        const float w = (avail.x - gap * float(c - 1)) / float(c);
        const float h = (avail.y - float(rowsOfMaps) * (titleHeight + gap)) / float(rowsOfMaps);
        if (std::min(w, h) > side) side = std::min(w, h), columns = c;
    }
    side = std::max(side, 24.0f);

    const ImVec2 start = ImGui::GetCursorScreenPos();
    for (int h = 0; h < heads; ++h) {
        const float x = start.x + float(h % columns) * (side + gap);
        const float y = start.y + float(h / columns) * (side + titleHeight + gap);
        ImGui::SetCursorScreenPos(ImVec2(x, y));
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(headColor(h, heads)));
        ImGui::TextUnformatted(trace.headNames[std::size_t(h)].c_str());
        ImGui::PopStyleColor();
        ImGui::SetCursorScreenPos(ImVec2(x, y + titleHeight));
        drawHeatmap(trace, view, gl, h, ImVec2(side, side), LabelMode::Compact);
    }
    ImGui::End();
}

} // namespace app
