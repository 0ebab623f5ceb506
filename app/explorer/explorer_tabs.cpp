#include "explorer/explorer_tabs.h"

#include "explorer/panels.h"

namespace app {

namespace {

// A tab that reads what an attention file does not hold (x, W_Q ... W_O, the scores, the
// sizes): its one line why, in place of an empty or broken view.
bool needsTheModel(core::ViewTab tab, const ModelView& model) {
    if (!model.attentionOnly) return false;
    const char* what = tab == core::ViewTab::Pipeline ? "The pipeline (x, Q, K, V, W_O)"
                       : tab == core::ViewTab::Steps  ? "The steps (q . k, the scale, the softmax)"
                       : tab == core::ViewTab::Cost   ? "The cost (d_model, the projections)"
                                                      : nullptr;
    if (!what) return false;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s: %s.", what, core::models::kNeedsTheModel);
    ImGui::Spacing();
    ImGui::TextWrapped("The file holds each head's softmax weights, not the inputs and "
                       "projections that made them. Head, Mean, A-B, Lines and Stats show "
                       "them; open the model (Ctrl+Shift+O) for this tab.");
    ImGui::PopStyleColor();
    return true;
}

} // namespace

ExplorerRequest drawExplorerTab(core::ViewTab tab, core::Scene& scene, const core::Trace& trace,
                                ExplorerState& explorer, GlHeatmaps& gl) {
    const MapsView maps{explorer.saved, explorer.selection, gl};
    if (needsTheModel(tab, explorer.model)) return {};
    switch (tab) {
    case core::ViewTab::Head:
        return drawHeadView(scene, trace, explorer.model, maps);
    case core::ViewTab::Mean:
        return drawMeanView(trace, maps);
    case core::ViewTab::Difference:
        return drawDifferenceView(trace, maps, explorer.model, explorer.comparison);
    case core::ViewTab::Lines:
        return drawLinesView(trace, maps, explorer.lines);
    case core::ViewTab::Statistics:
        return drawStatisticsView(trace, maps);
    case core::ViewTab::Pipeline:
        drawPipelineView(scene, trace, maps, explorer.pipeline, explorer.model);
        return {};
    case core::ViewTab::Steps:
        drawStepsView(trace, maps, explorer.steps,
                      explorer.model.real ? explorer.model.attentionInput : std::string());
        return {};
    case core::ViewTab::Cost:
        drawCostView(scene, trace, explorer.pipeline, explorer.saved.tab);
        return {};
    }
    return {};
}

ExplorerRequest& ExplorerRequest::operator|=(const ExplorerRequest& other) {
    if (!other.openDemo.empty()) openDemo = other.openDemo;
    if (!other.openFile.empty()) openFile = other.openFile;
    openScenePicker = openScenePicker || other.openScenePicker;
    openTrain = openTrain || other.openTrain;
    if (other.modelStep >= 0) modelStep = other.modelStep;
    closeModel = closeModel || other.closeModel;
    if (other.openExport) openExport = other.openExport;
    exportDetectors = exportDetectors || other.exportDetectors;
    exportModel = exportModel || other.exportModel;
    if (!other.openModel.empty()) openModel = other.openModel;
    openModelDialog = openModelDialog || other.openModelDialog;
    if (other.switchModelHead) switchModelHead = other.switchModelHead;
    allModelHeadsOn = allModelHeadsOn || other.allModelHeadsOn;
    chooseModelB = chooseModelB || other.chooseModelB;
    if (!other.compareWith.empty()) compareWith = other.compareWith;
    stopComparing = stopComparing || other.stopComparing;
    exportComparison = exportComparison || other.exportComparison;
    generate = generate || other.generate;
    if (other.showWritten >= 0) showWritten = other.showWritten;
    exportAlignment = exportAlignment || other.exportAlignment;
    return *this;
}

} // namespace app
