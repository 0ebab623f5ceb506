// Panel: all heads of the shown sentence as a grid of heatmaps.
#include "engine/designed_heads.h"
#include "explorer/panels.h"
#include "widgets/heatmap_widget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace app {

std::string computingNote(const RunStatus& status) {
    if (!status.computing) return {};
    static const char* const kSpinner[] = {"|", "/", "-", "\\"};
    const double seconds = ImGui::GetTime() - status.computingSince;
    char text[96];
    std::snprintf(text, sizeof text, "   %s computing new maps, %.1f s (showing the last)",
                  kSpinner[int(seconds * 8) % 4], seconds);
    return text;
}

void drawHeadsPanel(const PanelRect& rect, const core::Trace& trace, const RunStatus& status,
                    ModelView& model, const MapsView& maps) {
    const GlHeatmaps& gl = maps.gl;
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    // A large scene on the worker is said in the title bar: always in view, over nothing.
    const std::string title = (model.open ? "Heads of layer " + std::to_string(model.layer + 1) +
                                                " of " + std::to_string(model.layers)
                                          : std::string("Heads")) +
                              computingNote(status) + "###Heads";
    ImGui::Begin(title.c_str(), nullptr, kPanelFlags);
    if (model.real) drawModelGridModes(model); // this layer / every layer / detectors
    if (gl.maps.valueWeighted)
        ImGui::TextDisabled("value-weighted |alpha f(x)|, rows rescaled (W)");
    const int heads = int(gl.maps.heads.size());
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    // The column count that makes the maps largest. Titles only while a map is wide enough
    // to carry one; tiny maps (hundreds of heads) are named by their tooltip and colour.
    auto layout = [&](float titleHeight, float gap, int& columns) {
        float best = 0;
        for (int c = 1; c <= std::max(1, heads); ++c) {
            const int rowsOfMaps = (heads + c - 1) / c;
            const float w = (avail.x - gap * float(c - 1)) / float(c);
            const float h = (avail.y - float(rowsOfMaps) * (titleHeight + gap)) / float(rowsOfMaps);
            if (std::min(w, h) > best) best = std::min(w, h), columns = c;
        }
        return best;
    };
    float titleHeight = ImGui::GetTextLineHeightWithSpacing();
    float gap = ImGui::GetStyle().ItemSpacing.x * 2;
    int columns = 1;
    float side = layout(titleHeight, gap, columns);
    if (side < ImGui::CalcTextSize("head 888").x) {
        titleHeight = 0, gap = 3.0f;
        side = layout(titleHeight, gap, columns);
    }
    side = std::max(side, 4.0f);

    const ImVec2 start = ImGui::GetCursorScreenPos();
    for (int h = 0; h < heads; ++h) {
        const float x = start.x + float(h % columns) * (side + gap);
        const float y = start.y + float(h / columns) * (side + titleHeight + gap);
        if (titleHeight > 0) {
            ImGui::SetCursorScreenPos(ImVec2(x, y));
            ImGui::PushStyleColor(ImGuiCol_Text,
                                  ImGui::ColorConvertU32ToFloat4(headColorU32(trace, h)));
            // Clipped to its map's width: long preset names must not run into the next title.
            ImGui::PushClipRect(ImVec2(x, y), ImVec2(x + side, y + titleHeight), true);
            ImGui::TextUnformatted(trace.headNames[std::size_t(h)].c_str());
            ImGui::PopClipRect();
            ImGui::PopStyleColor();
            if (ImGui::IsItemHovered()) designedHeadTooltip(trace.headNames[std::size_t(h)]);
        }
        ImGui::SetCursorScreenPos(ImVec2(x, y + titleHeight));
        drawHeatmap(trace, maps, h, ImVec2(side, side), LabelMode::Compact);
    }
    ImGui::End();
}

} // namespace app
