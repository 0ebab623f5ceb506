// Section of the controls while a trained model is open: which run and step, the layer every
// view shows, the architecture the model fixes (read-only), and the way back to the explorer.
#include "explorer/panels.h"

#include <algorithm>
#include <string>

namespace app {

namespace {

constexpr const char* kLayerTip =
    "Which layer's heads every view shows (L / Shift+L). Layer 1 reads the embeddings; each "
    "later layer reads the residual stream the ones before wrote into.";

// One radio button per layer, or a slider when they would not fit on a line (GPT-2's 12, its
// xl's 48); L / Shift+L step through them too.
void layerSelector(ModelView& model) {
    ImGui::TextUnformatted("layer");
    const float radios = float(model.layers) * (ImGui::GetFrameHeight() * 2.2f);
    if (radios > ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize("layer").x) {
        ImGui::SameLine();
        int shown = model.layer + 1;
        const std::string format = "%d of " + std::to_string(model.layers);
        ImGui::SetNextItemWidth(-1.0f);
        if (ImGui::SliderInt("##layer", &shown, 1, model.layers, format.c_str()))
            model.layer = shown - 1;
        itemTooltip(kLayerTip);
        return;
    }
    for (int l = 0; l < model.layers; ++l) {
        ImGui::SameLine();
        const std::string label = std::to_string(l + 1) + "##layer";
        if (ImGui::RadioButton(label.c_str(), model.layer == l)) model.layer = l;
        itemTooltip(kLayerTip);
    }
}

// The run's checkpoints: another step reloads the weights and keeps the sentences.
int stepSelector(const ModelView& model) {
    int requested = -1;
    const std::string current = "step " + std::to_string(model.step);
    ImGui::TextUnformatted("checkpoint"); // on the left: the label column is too narrow for it
    ImGui::SameLine();
    ImGui::SetNextItemWidth(-1.0f);
    if (ImGui::BeginCombo("##checkpoint", current.c_str())) {
        for (int step : model.steps)
            if (ImGui::Selectable(("step " + std::to_string(step)).c_str(), step == model.step))
                requested = step;
        ImGui::EndCombo();
    }
    itemTooltip("The weights as they were at this step of training (step 0: before any).");
    return requested;
}

// An encoder-decoder's attention file: which of its attentions every view shows.
void savedStackChoice(ModelView& model) {
    if (std::count_if(model.savedStacks.begin(), model.savedStacks.end(),
                      [](const std::string& label) { return !label.empty(); }) < 2)
        return;
    ImGui::TextUnformatted("attention");
    model.savedStackAt = {};
    for (std::size_t k = 0; k < model.savedStacks.size() && k < 3; ++k) {
        const std::string& label = model.savedStacks[k];
        if (label.empty()) continue;
        sameLineIfFits(ImGui::GetFrameHeight() * 1.5f + ImGui::CalcTextSize(label.c_str()).x);
        if (ImGui::RadioButton(label.c_str(), model.savedStack == int(k)))
            model.savedStack = int(k);
        const ImVec2 min = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
        model.savedStackAt[k] = {min.x + size.y / 2, min.y + size.y / 2}; // its circle
        itemTooltip(model.seq2seq
                        ? "Which attention every view shows: the encoder's self-attention over "
                          "the source, the decoder's causal self-attention over the target, or "
                          "cross-attention (the target's queries on the source's keys and values)."
                        : "Which of the file's attentions every view shows: layers.* (the "
                          "decoder's self-attention), encoder.* (over the source tokens) or "
                          "cross.* (the tokens' queries on the source tokens).");
    }
}

// A sentence pair: every cell, or only A's tokens attending to B's, or B's to A's.
void pairViewChoice(ModelView& model) {
    ImGui::TextUnformatted("pair");
    for (const core::EnumName<core::PairView>& entry : core::kPairViewNames) {
        ImGui::SameLine();
        const std::string label(entry.shown());
        if (ImGui::RadioButton(label.c_str(), model.pairView == entry.value))
            model.pairView = entry.value;
        itemTooltip("Which cells of the maps show: every one, sentence A's tokens attending to "
                    "B's, or B's to A's (the rest drawn as masked). The numbers stay the model's.");
    }
}

} // namespace

void drawRealModelShapes(const ModelView& model) {
    ImGui::Separator();
    flowText(model.shapes, true); // each kept whole when the panel is narrow (large type)
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", model.parameters.c_str());
    ImGui::PopStyleColor();
    itemTooltip(model.parameterTerms.c_str());
}

ExplorerRequest drawModelSection(ModelView& model) {
    ExplorerRequest request;
    ImGui::TextWrapped("%s: %s",
                       model.attentionOnly ? "Open"
                       : model.real        ? "Model"
                                           : "Trained model",
                       model.title.c_str());
    layerSelector(model);
    if (!model.steps.empty()) // a real checkpoint has no training steps
        if (const int step = stepSelector(model); step >= 0 && step != model.step)
            request.modelStep = step;
    if (model.real && model.pairStart > 0) pairViewChoice(model);
    if (model.attentionOnly || model.seq2seq) savedStackChoice(model);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", model.architecture.c_str());
    if (model.real) // from its config and its file (core/models/model_description.h)
        ImGui::TextWrapped("%s", model.fixedText.c_str());
    else
        ImGui::TextWrapped("Fixed by the model: causal mask, scale 1/sqrt(d_head), learned "
                           "positions, the trained weights. x of a layer is the residual stream "
                           "entering it.");
    ImGui::PopStyleColor();
    if (ImGui::Button(model.attentionOnly ? "Close file" : "Close model"))
        request.closeModel = true;
    itemTooltip("Back to the explorer's own scene, with its sliders and switches.");
    ImGui::SameLine();
    if (ImGui::Button("Open model...")) request.openModelDialog = true;
    itemTooltip("Another model: a folder, a recent one, one in the Hugging Face cache, or an "
                "attention file (Ctrl+Shift+O).");
    return request;
}

} // namespace app
