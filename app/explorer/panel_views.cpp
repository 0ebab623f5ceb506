// Panel: the right-hand side, one tab per way of looking at the same trace. The bar shows
// saved.tab (TabBarState); explorer_tabs.cpp draws each tab's content.
#include "explorer/panels.h"

namespace app {

namespace {

const char* const kTabTooltips[] = {
    "The selected head's attention map, large.",
    "The mean over heads: where the layer looks on average.",
    "The difference of two heads, on a diverging colour map.",
    "Tokens in two columns joined by lines weighted by attention (BertViz's head view).",
    "Per head: row entropy and where the maximum sits.",
    "Every step from X to the output with its real shape, each head's slice in its colour.",
    "Follow one query token through the selected head, number by number.",
    "Parameters and FLOPs of this layer, and why the head count does not change them.",
};
static_assert(std::size(kTabTooltips) == std::size(core::kViewTabNames));

} // namespace

ExplorerRequest drawViewsPanel(const PanelRect& rect, core::ViewTab& tab, TabBarState& bar,
                               const std::function<ExplorerRequest(core::ViewTab)>& drawTab) {
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    ImGui::Begin("Views", nullptr, kPanelFlags | ImGuiWindowFlags_NoTitleBar);
    // ImGui shows a tab selected here from the next frame on: until then the bar keeps showing
    // the old one, whose content must not take the selection back.
    const bool following = bar.shown != tab;
    ExplorerRequest request;
    // Scroll rather than shrink: squeezed to the panel's width (800 px windows, zoomed type)
    // the labels would be cut to "H M A... L...".
    if (ImGui::BeginTabBar("views", ImGuiTabBarFlags_FittingPolicyScroll)) {
        std::size_t i = 0;
        for (const core::EnumName<core::ViewTab>& entry : core::kViewTabNames) {
            const bool select = following && entry.value == tab;
            const std::string label(entry.shown());
            const bool open = ImGui::BeginTabItem(label.c_str(), nullptr,
                                                  select ? ImGuiTabItemFlags_SetSelected : 0);
            itemTooltip(kTabTooltips[i++]);
            if (!open) continue;
            bar.shown = entry.value;
            if (!following) tab = entry.value; // the user clicked it
            request |= drawTab(entry.value);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    ImGui::End();
    return request;
}

namespace {

float exportButtonWidth() {
    return ImGui::CalcTextSize("Export\xE2\x80\xA6").x + ImGui::GetStyle().FramePadding.x * 2;
}

} // namespace

ExplorerRequest exportButton(ExportChoice what) {
    ExplorerRequest request;
    // At the right edge: beside the last item when it ends before there, else (a narrow panel,
    // a large UI scale) on a line of its own rather than over it.
    const float x = ImGui::GetContentRegionMax().x - exportButtonWidth();
    const float lastEnd =
        ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x + ImGui::GetStyle().ItemSpacing.x;
    if (lastEnd <= x)
        ImGui::SameLine(x);
    else
        ImGui::SetCursorPosX(x);
    if (ImGui::Button("Export\xE2\x80\xA6")) request.openExport = what;
    itemTooltip("Save this view as PNG, SVG or CSV (Ctrl+Shift+E).");
    return request;
}

ExplorerRequest viewHeader(const char* text, ExportChoice what) {
    ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x - exportButtonWidth() -
                           ImGui::GetFontSize());
    ImGui::TextDisabled("%s", text);
    ImGui::PopTextWrapPos();
    return exportButton(what);
}

} // namespace app
