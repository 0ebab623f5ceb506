// Panel (a real model), the analyses beside the raw weights: the textures of the model view
// (weights or value-weighted attention, and the rollout), the rollout's map, the logit lens's
// table, and what switching heads off did to the loss and the next token.
#include "explorer/panels.h"

#include "figures/attention_map.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace app {

namespace {

// `pattern`'s labels and masked cells with other values (rows x cols like it): a view of the
// same queries and keys.
core::AttentionMap mapWithValues(core::AttentionMap pattern, const core::Mat& values) {
    pattern.maxWeight = 0;
    for (int i = 0; i < pattern.rows; ++i)
        for (int j = 0; j < pattern.cols; ++j) {
            float& v = pattern.values[std::size_t(i) * std::size_t(pattern.cols) + std::size_t(j)];
            if (v == core::kMaskedCell) continue;
            v = values(i, j);
            pattern.maxWeight = std::max(pattern.maxWeight, v);
        }
    return pattern;
}

// The rollout after the shown layer, as a map of this sentence's tokens (labels and mask from
// layer 1, which a real trace always keeps).
core::AttentionMap rolloutMap(const ModelRunner& runner, int layer) {
    const std::vector<core::Mat>& rollout = runner.analyses().rollout;
    const auto& layers = runner.trace().layers;
    if (!runner.rolloutReady() || layers.empty() || !layers[0] || rollout.size() != layers.size())
        return {}; // an earlier trace's, or none yet
    layer = std::clamp(layer, 0, int(layers.size()) - 1);
    return mapWithValues(core::attentionMap(*layers[0], 0, 0), rollout[std::size_t(layer)]);
}

// A thumbnail (RealTrace::thumbnails: `step` tokens a cell each way) with a causal model's later
// keys masked (a pooled cell above the diagonal covers only masked cells) and the cells a pair
// view leaves out (each covering only left-out cells).
std::vector<float> thumbnailValues(const core::Mat& map, int tokens, const ModelView& model) {
    const int step =
        std::max(1, int((tokens + map.rows() - 1) / std::max<Eigen::Index>(map.rows(), 1)));
    std::vector<float> values(std::size_t(map.size()));
    for (Eigen::Index i = 0; i < map.rows(); ++i)
        for (Eigen::Index j = 0; j < map.cols(); ++j) {
            const int i0 = int(i) * step, j0 = int(j) * step;
            const bool hidden = core::hiddenByPairView(model.pairView, model.pairStart, i0, j0) &&
                                core::hiddenByPairView(model.pairView, model.pairStart,
                                                       i0 + step - 1, j0 + step - 1);
            values[std::size_t(i * map.cols() + j)] =
                (!model.encoder && j > i) || hidden ? core::kMaskedCell : map(i, j);
        }
    return values;
}

std::string percent(double p) {
    char text[16];
    std::snprintf(text, sizeof text, "%.1f%%", 100.0 * p);
    return text;
}

void explanation(const char* text) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", text);
    ImGui::PopStyleColor();
}

} // namespace

void uploadModelMaps(const ModelRunner& runner, const ModelView& model, GlHeatmaps& gl,
                     bool heads) {
    if (!runner.hasTrace()) return;
    // The model view draws every head small: each map pooled to at most 128 x 128
    // (RealTrace::thumbnails, an attention file's alike), as the value-weighted ones are.
    const bool weighted = model.valueWeighted && runner.valueWeightedReady();
    const std::vector<core::Mat>& maps =
        weighted ? runner.analyses().valueWeighted : runner.thumbnails(); // L x H
    int slot = 0; // layer l, head h in slot l * H + h; then the rollout
    for (; slot < int(maps.size()); ++slot) {
        if (!heads) continue; // only the rollout's layer changed
        const core::Mat& map = maps[std::size_t(slot)];
        const std::vector<float> values = thumbnailValues(map, runner.tokenCount(), model);
        gl.setValues(slot, values.data(), int(map.rows()), int(map.cols()));
    }
    const core::AttentionMap rollout = rolloutMap(runner, model.layer);
    if (rollout.rows > 0) gl.setValues(slot++, rollout.values.data(), rollout.rows, rollout.cols);
    gl.keepSlots(slot);
}

ModelMapsKey modelMapsKey(const ModelRunner& runner, const ModelView& model) {
    return {runner.generation(), model.valueWeighted && runner.valueWeightedReady(), model.layer,
            model.pairView, runner.rolloutReady()};
}

void drawRolloutView(const ModelRunner& runner, ModelView& model, core::SceneView& saved,
                     Selection& selection, GlHeatmaps& gl) {
    explanation(model.attentionOnly
                    ? "Attention rollout (Abnar & Zuidema 2020) of the file's maps: row i is how "
                      "much token i's stream after the layer draws from each input token, each "
                      "layer's mean attention mixed with the residual (0.5 A + 0.5 I) and the "
                      "layers multiplied."
                    : "Attention rollout (Abnar & Zuidema 2020): row i is how much token i's "
                      "stream after the layer draws from each input token, each layer's mean "
                      "attention mixed with the residual (0.5 A + 0.5 I) and the layers "
                      "multiplied. Heads switched off still count in the mean: it is of their "
                      "weights, not of what they send.");
    int shown = model.layer + 1;
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 12);
    if (ImGui::SliderInt("after layer (L / Shift+L)", &shown, 1, std::max(1, model.layers)))
        model.layer = shown - 1;
    const core::AttentionMap map = rolloutMap(runner, model.layer);
    if (map.rows == 0) {
        if (runner.computing()) ImGui::TextDisabled("computing the rollout of this text ...");
        if (model.attentionOnly) explanation(model.detectorsInput.c_str()); // cross-attention
        return;
    }
    MapStyle style;
    style.gl = &gl;
    style.slot = int(runner.trace().layers.size()) * runner.heads();
    style.colormap = saved.colormap;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float side = std::max(60.0f, std::min(avail.x, avail.y - ImGui::GetFrameHeight()));
    const MapHit hit = drawMap(map, style, &selection, ImVec2(side, side), LabelMode::Full);
    if (hit.row >= 0 && hit.col >= 0) {
        const float v =
            map.values[std::size_t(hit.row) * std::size_t(map.cols) + std::size_t(hit.col)];
        ImGui::SetTooltip("after layer %d, %s draws %s from %s", model.layer + 1,
                          map.queryLabels[std::size_t(hit.row)].c_str(),
                          v == core::kMaskedCell ? "nothing (a later token)" : percent(v).c_str(),
                          map.keyLabels[std::size_t(hit.col)].c_str());
    }
    drawColorBar(gl, saved.colormap, 0.0f, 1.0f, std::min(side, ImGui::GetFontSize() * 16));
}

namespace {

// The token the lens reads: a combo of "3 ␣mat", the last by default.
void lensTokenChoice(const core::Tokenized& tokens, ModelView& model) {
    const int n = int(tokens.tokens.size());
    const int shown = lensPositionShown(model, n);
    auto label = [&](int i) {
        return std::to_string(i + 1) + "  " + tokens.tokens[std::size_t(i)].text;
    };
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 14);
    if (n > 0 && ImGui::BeginCombo("token", label(shown).c_str())) {
        for (int i = 0; i < n; ++i)
            if (ImGui::Selectable(label(i).c_str(), i == shown)) model.lensPosition = i;
        ImGui::EndCombo();
    }
}

} // namespace

void drawLogitLensView(const ModelRunner& runner, ModelView& model) {
    if (model.attentionOnly) { // no stream to read: the file holds the weights alone
        explanation((std::string("Logit lens: ") + core::models::kNeedsTheModel + ".").c_str());
        return;
    }
    if (model.encoder)
        explanation("Logit lens (nostalgebraist 2020) of an encoder: the hidden state after each "
                    "layer read through the MLM head as if it were the last layer: what the model "
                    "would fill in at this token there. The last row is its own prediction.");
    else
        explanation("Logit lens (nostalgebraist 2020): the stream after each layer read through "
                    "the final LayerNorm and the unembedding as if it were the last layer: what "
                    "the model would predict next there. The last row is the model's own "
                    "prediction.");
    if (model.encoder && !model.hasHead) {
        explanation("This checkpoint has no MLM head to read the hidden states through.");
        return;
    }
    if (!runner.hasTrace()) return;
    lensTokenChoice(runner.trace().sentences.front().tokens, model);
    const LensRows& lens = runner.lens();
    if (!lens.error.empty())
        ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s", lens.error.c_str());
    if (lens.generation != runner.generation() || runner.lensComputing())
        ImGui::TextDisabled("computing the lens ...");
    if (lens.layers.empty()) return;
    const ImGuiTableFlags flags = ImGuiTableFlags_RowBg | ImGuiTableFlags_BordersInnerV |
                                  ImGuiTableFlags_ScrollY | ImGuiTableFlags_SizingStretchSame;
    if (!ImGui::BeginTable("lens", 6, flags)) return;
    ImGui::TableSetupScrollFreeze(0, 1);
    ImGui::TableSetupColumn("after", ImGuiTableColumnFlags_WidthFixed,
                            ImGui::CalcTextSize("layer 88").x);
    for (const char* rank : {"1st", "2nd", "3rd", "4th", "5th"}) ImGui::TableSetupColumn(rank);
    ImGui::TableHeadersRow();
    for (std::size_t l = 0; l < lens.layers.size(); ++l) {
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::Text("layer %d", int(l) + 1);
        for (const core::models::TokenChoice& choice : lens.layers[l]) {
            ImGui::TableNextColumn(); // the token, its probability under it: both stay whole
            fittedText(choice.token);
            ImGui::TextDisabled("%s", percent(choice.probability).c_str());
        }
    }
    ImGui::EndTable();
}

bool drawAblationSummary(const ModelRunner& runner, const ModelView& model) {
    int off = 0;
    for (const std::vector<int>& heads : model.ablated) off += int(heads.size());
    if (off == 0) {
        const std::string hint = "Right-click a head to switch it off (its output zeroed before " +
                                 model.outProjection +
                                 (model.encoder ? "): what fills the first mask follows."
                                                : "): the loss and the next token follow.");
        explanation(hint.c_str());
        return false;
    }
    const RealOutcomeSummary &now = runner.outcome(), &all = runner.baseline();
    ImGui::Text("%d head%s off", off, off == 1 ? "" : "s");
    ImGui::SameLine();
    const bool allOn = ImGui::SmallButton("All heads on");
    if (runner.computing()) {
        ImGui::SameLine();
        ImGui::TextDisabled(" computing ...");
        return allOn; // the numbers shown would be of the switches before
    }
    if (!now.valid || !all.valid) return allOn;
    std::vector<std::string> pieces; // each kept whole: a number never leaves its words
    if (std::isfinite(now.loss)) {
        char loss[96];
        std::snprintf(loss, sizeof loss, "loss %.3f nats", now.loss);
        pieces.push_back(loss);
        std::snprintf(loss, sizeof loss, "(all heads on: %.3f)", all.loss);
        pieces.push_back(loss);
        flowText(pieces);
        pieces.clear();
    }
    pieces.push_back(model.encoder ? model.maskText + ":" : "next:");
    if (model.encoder && now.next.empty()) pieces.push_back("(type one to see it move)");
    for (std::size_t k = 0; k < now.next.size() && k < 3; ++k) {
        const core::models::TokenChoice& c = now.next[k];
        const auto was = std::find_if(all.next.begin(), all.next.end(),
                                      [&](const auto& b) { return b.id == c.id; });
        pieces.push_back(
            c.token + " " + percent(c.probability) +
            (was == all.next.end() ? " (new)" : " (was " + percent(was->probability) + ")"));
    }
    flowText(pieces);
    return allOn;
}

} // namespace app
