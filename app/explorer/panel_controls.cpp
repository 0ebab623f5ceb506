// Panel: model sizes, seed, masking, positional encoding, scale, and colouring.
#include "explorer/panels.h"

#include "engine/designed_heads.h"
#include "platform/appearance.h"
#include "widgets/enum_controls.h"

#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace app {

namespace {

// A message wrapped to the panel (never cut off), in the theme's warning colour by default.
void warningLine(const std::string& text, ImVec4 color = warningColor()) {
    ImGui::PushStyleColor(ImGuiCol_Text, color);
    ImGui::TextWrapped("%s", text.c_str());
    ImGui::PopStyleColor();
}

// What H_kv makes, short enough for the slider: "MHA", "GQA: 4 query heads each", "MQA".
std::string kvHeadsKind(const core::Scene& scene) {
    const int H = scene.heads, kv = scene.kvHeadCount();
    const std::string kind = core::attentionKindName(H, kv);
    if (kv == H || kv == 1) return kind;
    return kind + ": " + std::to_string(H / kv) + " query heads each";
}

// H_kv: only the divisors of H, named by what they make (MHA, GQA, MQA).
void kvHeadsSlider(core::Scene& scene) {
    const std::vector<int> counts = core::validKvHeadCounts(scene.heads);
    int index = 0;
    for (int k = 0; k < int(counts.size()); ++k)
        if (counts[std::size_t(k)] == scene.kvHeadCount()) index = k;
    char format[96];
    std::snprintf(format, sizeof format, "H_kv = %d   (%s)", scene.kvHeadCount(),
                  kvHeadsKind(scene).c_str());
    if (ImGui::SliderInt("K/V heads", &index, 0, int(counts.size()) - 1, format,
                         ImGuiSliderFlags_AlwaysClamp))
        core::setKvHeads(scene, counts[std::size_t(index)]);
    itemTooltip("Grouped-query attention (GQA): H_kv K/V heads, each read by H / H_kv query "
                "heads (query head h reads K/V head h / (H / H_kv)). H_kv = H is plain multi-head "
                "attention (MHA), 1 is multi-query (MQA). Only divisors of H. Shift+[ / Shift+] "
                "step it.");
}

// d_model (even only) and H (only the counts d_model allows), with d_head shown. The head count
// the user chose comes back when d_model returns to a size it divides (core::setDModel).
void sizeSliders(core::Scene& scene) {
    int d_model = scene.d_model;
    if (ImGui::SliderInt("d_model", &d_model, 8, 512, "%d", ImGuiSliderFlags_AlwaysClamp))
        core::setDModel(scene, d_model - d_model % 2); // even values only
    itemTooltip("Width of every token vector; d_head = d_model / heads.");

    const std::vector<int> counts = core::validHeadCounts(scene.d_model);
    int index = 0;
    for (int k = 0; k < int(counts.size()); ++k)
        if (counts[std::size_t(k)] == scene.heads) index = k;
    char format[64];
    std::snprintf(format, sizeof format, "H = %d   (d_head = %d)", scene.heads,
                  scene.d_model / scene.heads);
    if (ImGui::SliderInt("heads", &index, 0, int(counts.size()) - 1, format,
                         ImGuiSliderFlags_AlwaysClamp))
        core::setHeads(scene, counts[std::size_t(index)]);
    itemTooltip("Number of heads; only divisors of d_model, so every head gets d_head dimensions.");
    if (const std::string note = core::headCountNote(scene); !note.empty()) {
        warningLine(note);
        itemTooltip("Your head count comes back when d_model is a multiple of it again.");
    }
    kvHeadsSlider(scene);
}

// Seed, re-roll, and random or designed weights. The radio buttons show the weights in use:
// where the designs do not fit, random, with designed disabled and the reason under it; the
// user's choice (scene.weights) comes back when they fit again.
void weightControls(core::Scene& scene) {
    const std::uint64_t step = 1, fastStep = 10;
    ImGui::InputScalar("seed", ImGuiDataType_U64, &scene.seed, &step, &fastStep);
    itemTooltip(
        "The weights are a pure function of this seed: same seed, same maps, on any machine.");
    if (ImGui::Button("Re-roll weights")) scene.seed = std::random_device{}() % 1000000;
    itemTooltip("Draw new random weights W_Q, W_K, W_V, W_O.");

    const std::string misfit =
        core::designedHeadsMisfit(scene.d_model, scene.heads, scene.kvHeadCount());
    ImGui::TextUnformatted("weights");
    const core::WeightsKind inUse = core::weightsInUse(scene);
    ImGui::SameLine();
    if (ImGui::RadioButton("random##weights", inUse == core::WeightsKind::Random))
        scene.weights = core::WeightsKind::Random;
    itemTooltip("Seeded random W_Q, W_K, W_V, W_O: what an untrained layer looks like.");
    ImGui::SameLine();
    ImGui::BeginDisabled(!misfit.empty());
    if (ImGui::RadioButton("designed##weights", inUse == core::WeightsKind::Designed))
        scene.weights = core::WeightsKind::Designed;
    ImGui::EndDisabled();
    itemTooltip(misfit.empty() ? "Heads built to specialise (previous token, pronoun to noun, "
                                 "...); see the Head tab's legend."
                               : "Heads built to specialise; they need d_model >= 64 and "
                                 "d_head >= 8 for each query head sharing a K/V head.");
    if (misfit.empty()) return;
    if (scene.weights == core::WeightsKind::Designed) // chosen, not honoured: say so
        warningLine(misfit + ": using random weights until they fit");
    else
        warningLine(misfit, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled)); // why it is greyed
}

// Sinusoidal added to x, none, or rotary on q and k with its theta; why rotary is not used
// where it cannot be (cross-attention, d_head 1); what designed heads make of it.
void positionControls(core::Scene& scene) {
    enumCombo("positions", scene.positional);
    itemTooltip("Sinusoidal: a position signal added to every token's x (Vaswani et al.). Rotary "
                "(RoPE, as Llama): q and k of every head turned pair by pair by position x "
                "theta_j, so q.k depends only on how far apart two tokens are. None: attention "
                "cannot tell word order.");
    if (scene.positional == core::PositionalKind::Rotary) {
        ImGuiStorage& storage = *ImGui::GetStateStorage();
        const ImGuiID rejected = ImGui::GetID("theta rejected"); // a typed theta out of range
        double theta = scene.ropeTheta;
        if (ImGui::InputDouble("theta", &theta, 0, 0, "%.0f")) {
            const bool fits = theta >= core::kMinRopeTheta && theta <= core::kMaxRopeTheta;
            if (fits) scene.ropeTheta = theta; // else the previous theta stays, and we say so
            storage.SetBool(rejected, !fits);
        }
        itemTooltip("Pair j of a head turns by position x theta^(-2j/d_head) radians: pair 0 one "
                    "radian per token, the last ones slowest. 10000 as in RoFormer and Llama 2 "
                    "(1 to 1e9).");
        if (storage.GetBool(rejected))
            warningLine("theta must be from 1 to 1e9: keeping " +
                        std::to_string(static_cast<long long>(scene.ropeTheta)));
    }
    if (const std::string warning = core::positionalFallbackWarning(scene); !warning.empty())
        warningLine(warning);
    else if (scene.positional == core::PositionalKind::Rotary &&
             core::weightsInUse(scene) == core::WeightsKind::Designed)
        warningLine("The designed heads read positions added to x: with rotary ones their "
                    "position terms see none, and the rotation turns their feature matches.",
                    ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
}

// Mask, positional encoding and the score scale.
void attentionControls(core::Scene& scene) {
    static const char* const kMaskTips[] = {
        "Every token may attend to every token (padding keys are always masked).",
        "A token may only attend to itself and earlier tokens, as in a decoder."};
    enumRadios("mask", scene.mask, kMaskTips);

    positionControls(scene);

    enumCombo("scale", scene.scale);
    itemTooltip("What the scores q.k are divided by before the softmax; sqrt(d_head) is the "
                "Transformer's.");
}

// Colormap, shared or per-head colour scale, theme.
void colourControls(core::SceneView& saved) {
    enumCombo("colours", saved.colormap,
              std::span<const core::ColormapId>(core::kSequentialColormaps));
    itemTooltip(
        "Colormap of the heatmaps; all four are readable in grey and by colour-blind viewers.");
    int perHead = saved.perHeadScale ? 1 : 0;
    if (ImGui::RadioButton("0..1 for all heads", &perHead, 0)) saved.perHeadScale = false;
    itemTooltip("One colour scale for every head, so heads can be compared.");
    ImGui::SameLine();
    if (ImGui::RadioButton("per head", &perHead, 1)) saved.perHeadScale = true;
    itemTooltip("Stretch each head's colours from 0 to its own largest weight.");
    enumCombo("theme", saved.theme);
    itemTooltip(
        "Light for projectors, high contrast for the back row (T cycles; Ctrl+plus zooms).");
}

// The last line: Ctrl+E, and what the arrows and Esc do (a text field takes them while typing).
void keysFooter() {
    // Ctrl+E works while typing; the arrows move the caret then, and Esc leaves the field.
    if (ImGui::GetIO().WantTextInput)
        ImGui::TextDisabled("Ctrl+E export  \xC2\xB7  Esc leaves the text field");
    else
        ImGui::TextDisabled(
            "Ctrl+E export  \xC2\xB7  \xE2\x86\x90/\xE2\x86\x92 heads  \xC2\xB7  Esc unpin");
}

} // namespace

ExplorerRequest drawControlsPanel(const PanelRect& rect, core::Scene& scene,
                                  const core::Trace& trace, const HeadMaps& shown,
                                  core::SceneView& saved, ModelView& model, Selection& selection) {
    ExplorerRequest request;
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    ImGui::Begin("Controls", nullptr, kPanelFlags);
    ImGui::PushItemWidth(-ImGui::CalcTextSize("positional ").x);

    if (model.open) { // a trained model fixes the architecture: its own section instead
        request = drawModelSection(model);
    } else {
        sizeSliders(scene);
        weightControls(scene);
        ImGui::Separator();
        attentionControls(scene);
    }
    ImGui::Separator();
    colourControls(saved);
    ImGui::PopItemWidth();

    if (!model.open) {
        ImGui::Separator();
        drawPitfallsSection(scene, trace, shown, selection);
    }
    if (model.real) { // the checkpoint's shapes and parameters, from its config (panel_model.cpp)
        drawRealModelShapes(model);
        keysFooter();
        ImGui::End();
        return request;
    }

    ImGui::Separator();
    const core::Attention& a = trace.attention;
    flowText({"B=" + std::to_string(a.batch), "N=" + std::to_string(a.queryLen),
              "M=" + std::to_string(a.keyLen), "d_model=" + std::to_string(a.d_model),
              "H=" + std::to_string(a.heads), "H_kv=" + std::to_string(a.kvHeads),
              "d_head=" + std::to_string(a.d_head)},
             true); // each kept whole when the panel is narrow (large type)
    const bool biases = trace.weights && trace.weights->bQ.size() > 0; // a real checkpoint's
    ImGui::TextDisabled("%lld parameters (%s%s)",
                        trace.weights ? trace.weights->parameterCount() : 0LL,
                        a.kvHeads < a.heads ? "2 x d_model x d_head x (H + H_kv)" : "4 x d_model^2",
                        biases ? " + biases" : "");
    keysFooter();
    ImGui::End();
    return request;
}

} // namespace app
