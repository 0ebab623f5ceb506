// Panel: the right-hand side, one tab per way of looking at the same trace.
#include "explorer/panels.h"

namespace app {

namespace {

bool tab(const char* label, ViewState& view, bool requested, ViewState::Tab which,
         const char* tooltip) {
    const bool select = requested && view.saved.tab == which;
    const bool open =
        ImGui::BeginTabItem(label, nullptr, select ? ImGuiTabItemFlags_SetSelected : 0);
    itemTooltip(tooltip);
    if (open && !requested) view.saved.tab = which;
    return open;
}

} // namespace

void drawViewsPanel(const PanelRect& rect, core::Scene& scene, const core::Trace& trace,
                    ViewState& view, GlHeatmaps& gl) {
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    ImGui::Begin("Views", nullptr, kPanelFlags | ImGuiWindowFlags_NoTitleBar);
    // Taken now: a tab's content may ask for another tab, for the next frame.
    const bool requested = view.ui.tabRequested;
    view.ui.tabRequested = false;
    if (ImGui::BeginTabBar("views")) {
        if (tab("Head", view, requested, ViewState::Tab::Head,
                "The selected head's attention map, large.")) {
            drawHeadView(scene, trace, view, gl);
            ImGui::EndTabItem();
        }
        if (tab("Mean", view, requested, ViewState::Tab::Mean,
                "The mean over heads: where the layer looks on average.")) {
            drawMeanView(trace, view, gl);
            ImGui::EndTabItem();
        }
        if (tab("A\xE2\x88\x92"
                "B",
                view, requested, ViewState::Tab::Difference,
                "The difference of two heads, on a diverging colour map.")) {
            drawDifferenceView(trace, view, gl);
            ImGui::EndTabItem();
        }
        if (tab("Lines", view, requested, ViewState::Tab::Lines,
                "Tokens in two columns joined by lines weighted by attention (BertViz's head "
                "view).")) {
            drawLinesView(trace, gl.maps, view);
            ImGui::EndTabItem();
        }
        if (tab("Stats", view, requested, ViewState::Tab::Statistics,
                "Per head: row entropy and where the maximum sits.")) {
            drawStatisticsView(trace, view, gl);
            ImGui::EndTabItem();
        }
        if (tab("Pipeline", view, requested, ViewState::Tab::Pipeline,
                "Every step from X to the output with its real shape, each head's slice in its "
                "colour.")) {
            drawPipelineView(scene, trace, view, gl);
            ImGui::EndTabItem();
        }
        if (tab("Steps", view, requested, ViewState::Tab::Steps,
                "Follow one query token through the selected head, number by number.")) {
            drawStepsView(trace, gl.maps, view);
            ImGui::EndTabItem();
        }
        if (tab("Cost", view, requested, ViewState::Tab::Cost,
                "Parameters and FLOPs of this layer, and why the head count does not change "
                "them.")) {
            drawCostView(scene, trace, view);
            ImGui::EndTabItem();
        }
        ImGui::EndTabBar();
    }
    ImGui::End();
}

} // namespace app
