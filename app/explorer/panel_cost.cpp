// Tab: what this attention layer costs, that the head count does not change it, and what the
// K/V head count does change: the parameters of W_K and W_V, and a decoder's KV cache.
#include "engine/cost_model.h"
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

void wrapped(const std::string& text) {
    ImGui::PushTextWrapPos(ImGui::GetContentRegionAvail().x + ImGui::GetCursorPosX());
    ImGui::TextDisabled("%s", text.c_str());
    ImGui::PopTextWrapPos();
}

// "4x less than MHA" for a model whose H_kv < H, else "MHA".
std::string versusMha(double heads, double kvHeads) {
    if (kvHeads >= heads) return heads > 1 ? "MHA" : "one head";
    char text[64];
    std::snprintf(text, sizeof text, "%gx less than MHA", heads / kvHeads);
    return text;
}

// The FLOPs of every step that multiplies, from core's model: for H = 1 against the current H,
// or, with grouped-query attention, the current H as MHA against the current H_kv (five
// columns do not fit the tab).
void flopsTable(const core::Scene& scene, const core::Attention& a) {
    core::CostShape shape = core::costShape(a);
    shape.outProjection = scene.outProjection; // as set now, like the parameter line above
    const bool isGrouped = shape.kvHeadCount() < shape.heads;
    const core::ForwardCost current = core::forwardCost(shape);
    shape.kvHeads = 0; // H_kv = H
    const core::ForwardCost mha = core::forwardCost(shape);
    shape.heads = 1, shape.d_head = shape.d_head * a.heads;
    const core::ForwardCost oneHead = core::forwardCost(shape);
    const std::string heads = "H = " + std::to_string(a.heads) + (isGrouped ? " (MHA)" : "");
    const std::string last = isGrouped ? "H_kv = " + std::to_string(a.kvHeads) : heads;
    if (!beginNumberTable("flops",
                          {"step", "formula", isGrouped ? heads.c_str() : "H = 1", last.c_str()}))
        return;
    auto row = [&](const char* step, const char* formula, auto value) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(step);
        ImGui::TableNextColumn();
        ImGui::TextDisabled("%s", formula);
        for (const core::ForwardCost* cost : {&oneHead, &mha, &current}) {
            if (cost == (isGrouped ? &oneHead : &current)) continue;
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(grouped(value(*cost)).c_str());
        }
    };
    for (core::CostStep step : {core::CostStep::Projections, core::CostStep::Scores,
                                core::CostStep::WeightedValues, core::CostStep::OutProjection})
        row(current[step].name, current[step].formula,
            [step](const core::ForwardCost& c) { return c[step].flops; });
    row("total", "", [](const core::ForwardCost& c) { return c.flops; });
    row("attention weights kept", "B H N M values",
        [](const core::ForwardCost& c) { return c.attentionWeights(); });
    ImGui::EndTable();
}

// The scene's parameters: 4 d^2, or fewer with grouped-query attention's narrower W_K and W_V.
void parameterLines(const core::Scene& scene, const core::Trace& trace) {
    const core::Attention& a = trace.attention;
    const bool biases = trace.weights && trace.weights->bQ.size() > 0; // a real checkpoint's
    const std::string biasText = biases ? " + " + grouped(4LL * a.d_model) + " biases" : "";
    if (a.kvHeads < a.heads) {
        ImGui::TextWrapped(
            "Parameters: 2 x d_model x d_head x (H + H_kv) = 2 x %d x %d x (%d + %d) = %s%s",
            a.d_model, a.d_head, a.heads, a.kvHeads,
            grouped(core::layerParameters(a.d_model, a.heads, a.kvHeads, a.d_head)).c_str(),
            biasText.c_str());
        wrapped("W_Q and W_O d_model x (H d_head), W_K and W_V only d_model x (H_kv d_head): MHA "
                "would have " +
                grouped(core::layerParameters(a.d_model, a.heads, a.heads, a.d_head)) + ".");
    } else {
        ImGui::Text("Parameters: 4 x d_model^2 = 4 x %d^2 = %s%s", a.d_model,
                    grouped(core::layerParameters(a.d_model)).c_str(), biasText.c_str());
        ImGui::TextDisabled("W_Q, W_K, W_V and W_O, each d_model x d_model, %s.",
                            biases ? "each with a bias (this layer's attention only)"
                                   : "no biases");
    }
    if (!scene.outProjection) ImGui::TextDisabled("(W_O is switched off: its weights go unused.)");
}

// The scene as a decoder would keep it: K and V of every token, in the engine's float (FP32).
void sceneKvCache(const core::Attention& a) {
    const double perToken =
        core::kvCacheBytesPerToken(1, a.kvHeads, a.d_head, double(sizeof(core::Scalar)));
    const double mha =
        core::kvCacheBytesPerToken(1, a.heads, a.d_head, double(sizeof(core::Scalar)));
    ImGui::TextWrapped("KV cache of this scene: 2 x 1 layer x H_kv %d x d_head %d x 4 bytes (FP32) "
                       "= %s per token, %s for its %d tokens",
                       a.kvHeads, a.d_head, core::binaryBytes(perToken).c_str(),
                       core::binaryBytes(perToken * a.keyLen).c_str(), a.keyLen);
    wrapped("A decoder generating text keeps K and V of every token it has seen, per layer: " +
            (a.kvHeads < a.heads ? versusMha(a.heads, a.kvHeads) + " (" + core::binaryBytes(mha) +
                                       " per token): the reason grouped-query attention exists."
                                 : std::string("with H_kv K/V heads instead of H it would shrink "
                                               "by H / H_kv (K/V heads slider).")));
}

// Sizes and one layer's parameters of the seed's models; "show" draws one in the Pipeline tab.
void modelSizesTable(PipelineTabState& pipeline, core::ViewTab& tab) {
    if (!beginNumberTable("models", {"model", "layers", "d_model", "H", "H_kv", "d_head",
                                     "parameters", "pipeline"}))
        return;
    for (int k = 0; k < int(std::size(core::kModelConfigs)); ++k) {
        const core::ModelConfig& p = core::kModelConfigs[k];
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(p.name);
        for (int value : {p.layers, p.d_model, p.heads, p.kvHeads, p.d_head}) {
            ImGui::TableNextColumn();
            ImGui::Text("%d", value);
        }
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(
            grouped(core::layerParameters(p.d_model, p.heads, p.kvHeads, p.d_head)).c_str());
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

// Their KV cache in BF16, per token and at the context length they were trained for.
void modelKvCacheTable() {
    if (!beginNumberTable("kv cache",
                          {"model", "context", "per token", "at context", "against MHA"}))
        return;
    for (const core::ModelConfig& p : core::kModelConfigs) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(p.name);
        ImGui::TableNextColumn();
        ImGui::Text("%d", p.context);
        if (!p.decoder) { // reads its whole input at once: nothing to cache
            ImGui::TableNextColumn();
            ImGui::TextDisabled("encoder: none");
            continue;
        }
        const double perToken = p.kvCacheBytesPerToken();
        const double mha =
            core::kvCacheBytesPerToken(p.layers, p.heads, p.d_head, core::kBf16Bytes);
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(core::binaryBytes(perToken).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(core::binaryBytes(perToken * p.context).c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(versusMha(p.heads, p.kvHeads).c_str());
        if (p.kvHeads < p.heads && ImGui::IsItemHovered())
            ImGui::SetTooltip("With H_kv = H = %d it would keep %s per token, %s at %d tokens.",
                              p.heads, core::binaryBytes(mha).c_str(),
                              core::binaryBytes(mha * p.context).c_str(), p.context);
    }
    ImGui::EndTable();
}

} // namespace

void drawCostView(const core::Scene& scene, const core::Trace& trace, PipelineTabState& pipeline,
                  core::ViewTab& tab) {
    const core::Attention& a = trace.attention;
    parameterLines(scene, trace);
    ImGui::Spacing();
    ImGui::Text("Multiply-adds x 2 (FLOPs) for this scene: B=%d, N=%d, M=%d", a.batch, a.queryLen,
                a.keyLen);
    flopsTable(scene, a);
    wrapped("H only decides how d_model is cut (H x d_head = d_model): the work is the same for "
            "any H. What grows with H is the number of attention maps kept, one N x M map per "
            "head. Fewer K/V heads save only the K and V projections' share: every query head "
            "still scores every key.");
    ImGui::Spacing();
    sceneKvCache(a);

    ImGui::Spacing();
    ImGui::TextUnformatted("Real models (one attention layer)");
    modelSizesTable(pipeline, tab);
    ImGui::Spacing();
    ImGui::TextUnformatted("Their KV cache: 2 (K and V) x layers x H_kv x d_head x 2 bytes (BF16)");
    modelKvCacheTable();
    wrapped("Sizes from the models' papers and configs; a Transformer has one such layer per "
            "block. Llama 3 keeps 8 K/V heads for 32 query heads, Gemma 2B one for 8: that is "
            "what lets a long context fit in memory.");
}

} // namespace app
