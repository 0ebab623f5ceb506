// Panel: the selected head, large, with full token labels and a colour bar.
#include "heatmap_widget.h"
#include "panels.h"

#include <algorithm>

namespace app {

void drawHeadPanel(const PanelRect& rect, const core::Trace& trace, ViewState& view,
                   GlHeatmaps& gl) {
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    const int heads = int(view.maps.size());
    view.selectedHead = std::clamp(view.selectedHead, 0, std::max(0, heads - 1));
    // "###" keeps one window identity while the title changes with the head.
    const std::string title =
        (heads > 0 ? trace.headNames[std::size_t(view.selectedHead)] : std::string("Head")) +
        (trace.batch() > 1 ? "  \xC2\xB7  sentence " + std::to_string(view.batchIndex + 1) : "") +
        "###Selected head";
    ImGui::Begin(title.c_str(), nullptr, kPanelFlags);
    if (heads > 0) {
        const ImVec2 avail = ImGui::GetContentRegionAvail();
        const float barHeight = ImGui::GetFontSize() * 2.6f;
        const float side = std::max(32.0f, std::min(avail.x, avail.y - barHeight));
        drawHeatmap(trace, view, gl, view.selectedHead, ImVec2(side, side), LabelMode::Full);
        ImGui::Spacing();
        const float valueMax =
            view.perHeadScale ? std::max(view.maps[std::size_t(view.selectedHead)].maxWeight, 1e-6f)
                              : 1.0f;
        drawColorBar(gl, view.colormap, valueMax, std::min(side, 360.0f));
        ImGui::SameLine();
        ImGui::TextDisabled("weight%s  \xC2\xB7  hatched = masked",
                            view.perHeadScale ? " (this head's range)" : "");
    }
    ImGui::End();
}

} // namespace app
