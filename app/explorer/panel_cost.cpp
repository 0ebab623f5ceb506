// Tab: what this attention layer costs, and that the head count does not change it.
#include "engine/cost_model.h"
#include "explorer/model_presets.h"
#include "explorer/panels.h"

#include <cstdio>
#include <string>

namespace app {

namespace {

// 1234567 -> "1,234,567"
std::string grouped(double value) {
    char digits[64];
    std::snprintf(digits, sizeof digits, "%.0f", value);
    std::string text = digits, out;
    for (std::size_t k = 0; k < text.size(); ++k) {
        if (k > 0 && (text.size() - k) % 3 == 0) out += ',';
        out += text[k];
    }
    return out;
}

void costRow(const char* step, const char* formula, double oneHead, double current) {
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(step);
    ImGui::TableNextColumn();
    ImGui::TextDisabled("%s", formula);
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(grouped(oneHead).c_str());
    ImGui::TableNextColumn();
    ImGui::TextUnformatted(grouped(current).c_str());
}

void costRow(const core::ForwardCost& oneHead, const core::ForwardCost& current,
             core::CostStep step) {
    const core::StepCost& row = current[step];
    costRow(row.name, row.formula, oneHead[step].flops, row.flops);
}

// The FLOPs of every step that multiplies, for H = 1 and the current H, from core's model.
void flopsTable(const core::Scene& scene, const core::Attention& a) {
    core::CostShape shape = core::costShape(a);
    shape.outProjection = scene.outProjection; // as set now, like the parameter line above
    const core::ForwardCost current = core::forwardCost(shape);
    shape.heads = 1;
    const core::ForwardCost oneHead = core::forwardCost(shape);
    if (!ImGui::BeginTable("flops", 4,
                           ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                               ImGuiTableFlags_SizingFixedFit))
        return;
    ImGui::TableSetupColumn("step");
    ImGui::TableSetupColumn("formula");
    ImGui::TableSetupColumn("H = 1");
    ImGui::TableSetupColumn(("H = " + std::to_string(a.heads)).c_str());
    ImGui::TableHeadersRow();
    for (core::CostStep step : {core::CostStep::Projections, core::CostStep::Scores,
                                core::CostStep::WeightedValues, core::CostStep::OutProjection})
        costRow(oneHead, current, step);
    costRow("total", "", oneHead.flops, current.flops);
    costRow("attention weights kept", "B H N M values", oneHead.attentionWeights(),
            current.attentionWeights());
    ImGui::EndTable();
}

} // namespace

void drawCostView(const core::Scene& scene, const core::Trace& trace, PipelineTabState& pipeline,
                  core::ViewTab& tab) {
    const core::Attention& a = trace.attention;
    const bool biases = trace.weights && trace.weights->bQ.size() > 0; // a real checkpoint's
    ImGui::Text("Parameters: 4 x d_model^2 = 4 x %d^2 = %s%s", a.d_model,
                grouped(core::layerParameters(a.d_model)).c_str(),
                biases ? (" + " + grouped(4LL * a.d_model) + " biases").c_str() : "");
    ImGui::TextDisabled("W_Q, W_K, W_V and W_O, each d_model x d_model, %s.%s",
                        biases ? "each with a bias (this layer's attention only)" : "no biases",
                        scene.outProjection ? ""
                                            : " (W_O is switched off: 3 x d_model^2 are used.)");
    ImGui::Spacing();
    ImGui::Text("Multiply-adds x 2 (FLOPs) for this scene: B=%d, N=%d, M=%d", a.batch, a.queryLen,
                a.keyLen);
    flopsTable(scene, a);
    ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x + ImGui::GetCursorPosX());
    ImGui::TextDisabled(
        "H only decides how d_model is cut (H x d_head = d_model): the work is the same for any H. "
        "What grows with H is the number of attention maps kept, one N x M map per head.");
    ImGui::PopTextWrapPos();

    ImGui::Spacing();
    ImGui::TextUnformatted("Real models (one attention layer)");
    if (ImGui::BeginTable("models", 6,
                          ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                              ImGuiTableFlags_SizingFixedFit)) {
        for (const char* column : {"model", "d_model", "H", "d_head", "parameters", "pipeline"})
            ImGui::TableSetupColumn(column);
        ImGui::TableHeadersRow();
        for (int k = 0; k < int(std::size(kModelPresets)); ++k) {
            const ModelPreset& p = kModelPresets[k];
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(p.name);
            ImGui::TableNextColumn();
            ImGui::Text("%d", p.d_model);
            ImGui::TableNextColumn();
            ImGui::Text("%d", p.heads);
            ImGui::TableNextColumn();
            ImGui::Text("%d", p.d_head);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(grouped(core::layerParameters(p.d_model)).c_str());
            ImGui::TableNextColumn();
            ImGui::PushID(k);
            if (ImGui::SmallButton(pipeline.presetIndex == k ? "shown" : "show")) {
                pipeline.presetIndex = pipeline.presetIndex == k ? -1 : k;
                if (pipeline.presetIndex >= 0) tab = core::ViewTab::Pipeline; // the bar follows
            }
            itemTooltip("Draw the pipeline with this model's sizes (shape only; the maps stay the "
                        "toy model's).");
            ImGui::PopID();
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled(
        "Sizes from the models' papers; a Transformer has one such layer per block.");
}

} // namespace app
