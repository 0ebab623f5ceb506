// Tab: the selected head, large, with full token labels and a colour bar.
#include "heatmap_widget.h"
#include "panels.h"

#include <algorithm>

namespace app {

void drawHeadView(const core::Trace& trace, ViewState& view, GlHeatmaps& gl) {
    const int heads = int(view.maps.size());
    if (heads == 0) return;
    view.selectedHead = std::clamp(view.selectedHead, 0, heads - 1);
    const int h = view.selectedHead;
    const bool ablated =
        h < int(trace.attention.headAblated.size()) && trace.attention.headAblated[std::size_t(h)];
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(headColor(h, heads)));
    ImGui::Text("%s%s%s", trace.headNames[std::size_t(h)].c_str(),
                trace.batch() > 1
                    ? ("  \xC2\xB7  sentence " + std::to_string(view.batchIndex + 1)).c_str()
                    : "",
                ablated ? "  (switched off: its output is zeroed before W_O)" : "");
    ImGui::PopStyleColor();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float barHeight = ImGui::GetFontSize() * 2.6f;
    const float side = std::max(32.0f, std::min(avail.x, avail.y - barHeight));
    drawHeatmap(trace, view, gl, h, ImVec2(side, side), LabelMode::Full);
    ImGui::Spacing();
    const float valueMax =
        view.perHeadScale ? std::max(view.maps[std::size_t(h)].maxWeight, 1e-6f) : 1.0f;
    drawColorBar(gl, view.colormap, valueMax, std::min(side, 360.0f));
    ImGui::SameLine();
    ImGui::TextDisabled("weight%s  \xC2\xB7  hatched = masked",
                        view.perHeadScale ? " (this head's range)" : "");
}

} // namespace app
