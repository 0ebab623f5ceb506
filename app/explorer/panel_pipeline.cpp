// Tab: the whole multi-head attention pipeline as blocks with the scene's real shapes.
// Each head's d_head-wide slice has its colour everywhere: Q/K/V, the per-head blocks,
// the concat, the rows of W_O it multiplies and its heatmap's frame.
#include "engine/cost_model.h"
#include "explorer/panels.h"
#include "platform/appearance.h"
#include "widgets/heatmap_widget.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

namespace app {

namespace {

constexpr double kRegroupSeconds = 0.6;

struct Dims {
    int B, N, M, d_model, H, d_head;
    bool live;            // false: a real model's sizes, shape only
    int Hkv = 0;          // K/V heads (grouped-query attention); H for plain MHA
    bool rotated = false; // q and k were turned by rotary positions (a scene's or a layer's)

    bool grouped() const { return Hkv < H; }
    int group() const { return H / Hkv; } // query heads per K/V head
};

std::string shapeText(std::initializer_list<std::pair<const char*, int>> dims) {
    std::string text = "(";
    for (const auto& [name, value] : dims) {
        if (text.size() > 1) text += ", ";
        text += std::string(name) + "=" + std::to_string(value);
    }
    return text + ")";
}

// Draws the stages top to bottom; shares the geometry and the highlight state.
class PipelineDrawer {
  public:
    PipelineDrawer(const Dims& d, const core::Trace& trace, const MapsView& maps,
                   const PipelineTabState& tab)
        : d_(d), trace_(trace), maps_(maps), tab_(tab), gl_(maps.gl),
          draw_(ImGui::GetWindowDrawList()) {
        const float avail = ImGui::GetContentRegionAvail().x;
        // The blocks give way to the longest shape line (K and V's with GQA or cross-attention),
        // so at 1440 px no line is cut off at the panel's edge.
        float text = 0.0f;
        for (const std::string& line :
             {"K, V " + shapeText({{"B", d.B}, {"M", d.M}, {"H_kv*d_head", d.Hkv * d.d_head}}),
              "K, V " + shapeText({{"B", d.B}, {"M", d.M}, {"H_kv", d.Hkv}, {"d_head", d.d_head}}),
              "K, V as " + shapeText({{"B", d.B}, {"H", d.H}, {"M", d.M}, {"d_head", d.d_head}})})
            text = std::max(text, ImGui::CalcTextSize(line.c_str()).x + 16.0f);
        blockWidth_ = std::clamp(std::min(avail * 0.55f, avail - text), 120.0f, 420.0f);
        rowHeight_ = ImGui::GetFontSize() * 1.3f;
        const double age = ImGui::GetTime() - tab.animStart;
        regroup_ = tab.animateSplit && tab.animStart >= 0 && age < kRegroupSeconds && d.live
                       ? float(age / kRegroupSeconds)
                       : 1.0f;
    }

    // One stage: its drawing on the left, name and shape on the right, explanation on hover.
    void stage(const char* name, const std::string& shape, const char* why, float height,
               const std::function<void(ImVec2, ImVec2)>& body) {
        const ImVec2 top = ImGui::GetCursorScreenPos();
        const ImVec2 min(top.x, top.y), max(top.x + blockWidth_, top.y + height);
        body(min, max);
        const float textX = max.x + 12.0f;
        draw_->AddText(ImVec2(textX, top.y), ImGui::GetColorU32(ImGuiCol_Text), name);
        draw_->AddText(ImVec2(textX, top.y + ImGui::GetFontSize() + 1.0f),
                       ImGui::GetColorU32(ImGuiCol_TextDisabled), shape.c_str());
        ImGui::SetCursorScreenPos(top);
        ImGui::PushID(name);
        ImGui::InvisibleButton(
            "stage", ImVec2(ImGui::GetContentRegionAvail().x, std::max(height, rowHeight_ * 1.6f)));
        if (ImGui::IsItemHovered()) {
            const int head = headAt(min, max);
            if (head >= 0) maps_.selection.nextHoverHead = head;
            ImGui::BeginTooltip();
            ImGui::Text("%s  %s", name, shape.c_str());
            ImGui::PushTextWrapPos(ImGui::GetFontSize() * 28.0f);
            ImGui::TextUnformatted(why);
            if (head >= 0)
                ImGui::Text("head %d: columns %d..%d of d_model", head + 1, head * d_.d_head,
                            (head + 1) * d_.d_head - 1);
            ImGui::PopTextWrapPos();
            ImGui::EndTooltip();
        }
        ImGui::PopID();
        arrow();
    }

    // A (tokens x d_model) block cut into H slices; gaps show the reshape's view.
    void slices(ImVec2 min, ImVec2 max, float gap, bool afterHeads) {
        const float width = max.x - min.x;
        for (int h = 0; h < d_.H; ++h) {
            const float x0 = min.x + edge(h) * width + (h > 0 ? gap * 0.5f : 0.0f);
            const float x1 = min.x + edge(h + 1) * width - (h + 1 < d_.H ? gap * 0.5f : 0.0f);
            fillHead(ImVec2(x0, min.y), ImVec2(std::max(x1, x0 + 1.0f), max.y), h, afterHeads);
        }
        if (regroup_ < 1.0f) // the previous head boundaries fade out while the new ones settle
            for (int k = 1; k < tab_.animFromHeads; ++k) {
                const float x = min.x + width * float(k) / float(tab_.animFromHeads);
                draw_->AddLine(ImVec2(x, min.y), ImVec2(x, max.y),
                               IM_COL32(255, 255, 255, int(200 * (1 - regroup_))), 1.5f);
            }
    }

    // K/V head g's block, striped with the colours of the H / H_kv query heads that read it;
    // framed while one of them is hovered.
    void kvHead(ImVec2 a, ImVec2 b, int g) {
        const int per = d_.group();
        const float stripe = std::max(b.x - a.x, 1.0f) / float(per);
        for (int r = 0; r < per; ++r) {
            const int h = g * per + r;
            draw_->AddRectFilled(ImVec2(a.x + stripe * float(r), a.y),
                                 ImVec2(a.x + stripe * float(r + 1), b.y), color(h, alpha(h)));
        }
        const int hovered = maps_.selection.hoverHead;
        if (hovered >= 0 && hovered / per == g)
            draw_->AddRect(a, b, IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
    }

    // A (tokens x H_kv*d_head) block cut into H_kv slices (K or V of grouped-query attention).
    void kvSlices(ImVec2 min, ImVec2 max, float gap) {
        const float width = max.x - min.x;
        for (int g = 0; g < d_.Hkv; ++g) {
            const float x0 = min.x + width * float(g) / float(d_.Hkv) + (g > 0 ? gap * 0.5f : 0);
            const float x1 =
                min.x + width * float(g + 1) / float(d_.Hkv) - (g + 1 < d_.Hkv ? gap * 0.5f : 0);
            kvHead(ImVec2(x0, min.y), ImVec2(std::max(x1, x0 + 1.0f), max.y), g);
        }
    }

    // The repeat of grouped-query attention: H_kv K/V heads on top, H query heads below, a line
    // from each K/V head to every query head that reads it (h / (H / H_kv) = g).
    void repeat(ImVec2 min, ImVec2 max) {
        const float width = max.x - min.x, band = (max.y - min.y) * 0.3f;
        const int G = d_.Hkv, H = d_.H;
        const float gapKv = G <= 32 ? 4.0f : 0.0f, gapQ = H <= 32 ? 4.0f : 0.0f;
        const float wKv = std::max((width - gapKv * float(G - 1)) / float(G), 1.0f);
        const float wQ = std::max((width - gapQ * float(H - 1)) / float(H), 1.0f);
        for (int g = 0; g < G; ++g) {
            const float x = min.x + float(g) * (wKv + gapKv);
            kvHead(ImVec2(x, min.y), ImVec2(x + wKv, min.y + band), g);
        }
        for (int h = 0; h < H; ++h) {
            const ImVec2 a(min.x + float(h) * (wQ + gapQ), max.y - band), b(a.x + wQ, max.y);
            fillHead(a, b, h, false);
            const float fromX = min.x + float(h / d_.group()) * (wKv + gapKv) + wKv * 0.5f;
            draw_->AddLine(ImVec2(fromX, min.y + band), ImVec2(a.x + wQ * 0.5f, a.y),
                           color(h, 0.9f), h == maps_.selection.hoverHead ? 3.0f : 1.5f);
        }
    }

    // H separate blocks side by side: the per-head tensors after the transpose.
    void headBlocks(ImVec2 min, ImVec2 max, bool afterAttention) {
        const float gap = d_.H <= 32 ? 4.0f : 0.0f;
        const float w = (max.x - min.x - gap * float(d_.H - 1)) / float(d_.H);
        for (int h = 0; h < d_.H; ++h) {
            const float x = min.x + float(h) * (w + gap);
            fillHead(ImVec2(x, min.y), ImVec2(x + std::max(w, 1.0f), max.y), h, afterAttention);
        }
    }

    // H small attention maps: the real ones (GPU) when the sizes are live.
    void headMaps(ImVec2 min, ImVec2 max, bool realMaps) {
        const float gap = d_.H <= 32 ? 4.0f : 0.0f;
        const float side =
            std::min(max.y - min.y, (max.x - min.x - gap * float(d_.H - 1)) / float(d_.H));
        for (int h = 0; h < d_.H; ++h) {
            const ImVec2 a(min.x + float(h) * (side + gap), min.y), b(a.x + side, a.y + side);
            if (realMaps && h < int(gl_.maps.heads.size()))
                gl_.draw(draw_, h, a, b, maps_.saved.colormap, 0.0f, 1.0f);
            else
                draw_->AddRectFilled(a, b, color(h, 0.35f));
            draw_->AddRect(a, b, color(h, 1.0f), 0, 0,
                           h == maps_.selection.hoverHead ? 3.0f : 1.0f);
        }
    }

    // W_O: row band h (rows h*d_head..) multiplies head h's slice of the concat.
    void outputProjection(ImVec2 min, ImVec2 max, bool on) {
        const float side = max.y - min.y;
        const ImVec2 a(min.x, min.y), b(min.x + side, max.y);
        for (int h = 0; h < d_.H; ++h) {
            const float y0 = a.y + side * float(h) / float(d_.H),
                        y1 = a.y + side * float(h + 1) / float(d_.H);
            draw_->AddRectFilled(ImVec2(a.x, y0), ImVec2(b.x, y1),
                                 color(h, h == maps_.selection.hoverHead ? 0.9f : 0.45f));
        }
        draw_->AddRect(a, b, IM_COL32(220, 220, 220, 255));
        if (!on) {
            draw_->AddLine(a, b, IM_COL32(255, 90, 80, 255), 3.0f);
            draw_->AddLine(ImVec2(a.x, b.y), ImVec2(b.x, a.y), IM_COL32(255, 90, 80, 255), 3.0f);
        }
        // Below the stage's name and shape, in the text column (beside the square it overlapped
        // them).
        const float line = ImGui::GetFontSize() + 1.0f;
        draw_->AddText(ImVec2(min.x + blockWidth_ + 12.0f, a.y + 2.0f * line + 2.0f),
                       ImGui::GetColorU32(ImGuiCol_TextDisabled),
                       on ? "heads mix here: each output\ndimension sums every head"
                          : "switched off: output =\nconcat, heads never mix");
    }

    // The output row: every column is a blend of all heads (thin stripes of every colour).
    void mixed(ImVec2 min, ImVec2 max) {
        const float width = max.x - min.x;
        const int stripes = std::max(1, int(width / 3.0f));
        for (int s = 0; s < stripes; ++s) {
            const float x0 = min.x + width * float(s) / float(stripes),
                        x1 = min.x + width * float(s + 1) / float(stripes);
            draw_->AddRectFilled(ImVec2(x0, min.y), ImVec2(x1, max.y), color(s % d_.H, 0.8f));
        }
    }

    // Which (token, dimension) cells of Q each head reads (core::splitBlocks, the engine's own
    // split): the reshape bug made visible.
    void readsGrid(ImVec2 min, ImVec2 max, bool bug) {
        const float cellH = (max.y - min.y) / float(d_.N),
                    cellW = (max.x - min.x) / float(d_.d_model);
        for (int h = 0; h < d_.H; ++h)
            for (const core::SplitBlock& b : core::splitBlocks(h, d_.N, d_.d_model, d_.H, bug))
                draw_->AddRectFilled(
                    ImVec2(min.x + cellW * float(b.dimBegin), min.y + cellH * float(b.tokenBegin)),
                    ImVec2(min.x + cellW * float(b.dimEnd), min.y + cellH * float(b.tokenEnd)),
                    color(h, alpha(h)));
        draw_->AddRect(min, max, IM_COL32(220, 220, 220, 255));
    }

    float blockWidth() const { return blockWidth_; }
    float rowHeight() const { return rowHeight_; }

  private:
    // A live head in its colour; a real model's shapes (the Cost tab) by head number.
    ImU32 color(int h, float alpha) const {
        return d_.live ? headColorU32(trace_, h, alpha) : paletteColor(h, alpha);
    }

    float alpha(int h) const {
        return maps_.selection.hoverHead < 0 || maps_.selection.hoverHead == h ? 0.85f : 0.35f;
    }

    // Left edge of slice k, 0..1. While regrouping after a change of H, each new edge
    // slides from the nearest old edge to its place.
    float edge(int k) const {
        const float target = float(k) / float(d_.H);
        if (regroup_ >= 1.0f || tab_.animFromHeads <= 0) return target;
        const float from =
            std::round(target * float(tab_.animFromHeads)) / float(tab_.animFromHeads);
        const float t = 1.0f - (1.0f - regroup_) * (1.0f - regroup_); // ease out
        return from + (target - from) * t;
    }

    void fillHead(ImVec2 a, ImVec2 b, int h, bool ablatable) {
        const bool ablated = ablatable && d_.live && h < int(trace_.attention.headAblated.size()) &&
                             trace_.attention.headAblated[std::size_t(h)];
        draw_->AddRectFilled(a, b, ablated ? IM_COL32(60, 60, 64, 255) : color(h, alpha(h)));
        if (ablated) draw_->AddLine(a, b, IM_COL32(255, 90, 80, 255), 2.0f);
        if (h == maps_.selection.hoverHead)
            draw_->AddRect(a, b, IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
    }

    int headAt(ImVec2 min, ImVec2 max) const {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        if (mouse.x < min.x || mouse.x >= max.x || mouse.y < min.y || mouse.y >= max.y) return -1;
        return std::clamp(int((mouse.x - min.x) / (max.x - min.x) * float(d_.H)), 0, d_.H - 1);
    }

    void arrow() {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        const float x = p.x + blockWidth_ * 0.5f;
        draw_->AddTriangleFilled(ImVec2(x - 5, p.y), ImVec2(x + 5, p.y), ImVec2(x, p.y + 6),
                                 ImGui::GetColorU32(ImGuiCol_TextDisabled));
        ImGui::Dummy(ImVec2(1, 8));
    }

    const Dims& d_;
    const core::Trace& trace_;
    const MapsView& maps_;
    const PipelineTabState& tab_;
    GlHeatmaps& gl_;
    ImDrawList* draw_;
    float blockWidth_ = 300, rowHeight_ = 20, regroup_ = 1;
};

// The sizes drawn (live, or a real model's from the Cost tab) and the controls above the blocks.
Dims pipelineHeader(const core::Trace& trace, PipelineTabState& tab) {
    const core::Attention& a = trace.attention;
    Dims d{a.batch, a.queryLen, a.keyLen, a.d_model, a.heads, a.d_head, true};
    d.Hkv = a.kvHeads > 0 ? a.kvHeads : a.heads, d.rotated = a.rotated;
    if (tab.presetIndex >= 0) {
        const core::ModelConfig& p = core::kModelConfigs[tab.presetIndex];
        d.d_model = p.d_model, d.H = p.heads, d.d_head = p.d_head, d.live = false;
        d.Hkv = p.kvHeads, d.rotated = false;
        if (ImGui::SmallButton("back to live")) tab.presetIndex = -1;
        itemTooltip("Draw the current scene's own sizes again.");
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, warningColor());
        ImGui::TextWrapped("Shapes of %s: shape only, the maps are computed for the toy sizes.",
                           p.name);
        ImGui::PopStyleColor();
    }
    ImGui::Checkbox("animate when H changes", &tab.animateSplit);
    itemTooltip("Slices regroup over half a second when the head count changes; off for still "
                "screenshots.");
    const char* hint = "hover a block or a head's slice";
    if (ImGui::GetContentRegionAvail().x - ImGui::GetItemRectSize().x >
        ImGui::CalcTextSize(hint).x + 2.0f * ImGui::GetStyle().ItemSpacing.x)
        ImGui::SameLine(); // else on a line of its own
    ImGui::TextDisabled("%s", hint);

    return d;
}

// The first stage's title and tip: what X is for this scene or model layer.
struct InputStage {
    std::string title, tip;
};

InputStage inputStage(const ModelView& model, const core::Scene& scene) {
    if (model.real && model.encoder)
        return {"X  (the hidden state)",
                "One d_model-wide row per token: " + model.attentionInput + ", what layer " +
                    std::to_string(model.layer + 1) +
                    "'s attention reads (layer 1: the "
                    "embeddings' LayerNorm of token + position + token type)."};
    if (model.real) // the family's own words: GPT-2's ln_1, Llama's input_layernorm (RMSNorm)
        return {"X  (what the layer reads)",
                "One d_model-wide row per token: layer " + std::to_string(model.layer + 1) + "'s " +
                    model.attentionInput + ", what its attention reads."};
    if (model.open)
        return {"X  (the residual stream)",
                "One d_model-wide row per token: what layer " + std::to_string(model.layer + 1) +
                    " reads (layer 1: the token embedding plus the position)."};
    if (core::positionalInUse(scene) == core::PositionalKind::Rotary)
        return {"X  (embedding; RoPE on q, k)",
                "One d_model-wide row per token: the toy embedding alone; rotary positions turn "
                "q and k after their projections."};
    if (core::positionalInUse(scene) == core::PositionalKind::None)
        return {"X  (embedding, no positions)",
                "One d_model-wide row per token: the toy embedding alone, so attention cannot "
                "tell word order."};
    return {"X  (embedding + position)",
            "One d_model-wide row per token: the toy embedding plus the sinusoidal position."};
}

// Q's shape and, when K's and V's differ (cross-attention, fewer K/V heads), theirs on a line
// of its own.
std::string qkvShapes(const Dims& d, const std::string& q, const std::string& kv) {
    if (!d.grouped() && d.M == d.N) return q;
    return "Q " + q + "\nK, V " + kv;
}

// Q over the whole width cut into H slices; K and V H_kv / H as wide, cut into H_kv.
void drawProjections(PipelineDrawer& p, const Dims& d, ImVec2 a0, ImVec2 a1, float gap) {
    const int bands = d.grouped() ? 3 : 1;
    const float third = (a1.y - a0.y) / float(bands == 3 ? 3 : 1);
    p.slices(ImVec2(a0.x, a0.y + 1), ImVec2(a1.x, a0.y + third - 1), gap, false);
    if (bands == 1) return;
    const float kvRight = a0.x + (a1.x - a0.x) * float(d.Hkv) / float(d.H);
    for (int k = 1; k < 3; ++k)
        p.kvSlices(ImVec2(a0.x, a0.y + third * float(k) + 1),
                   ImVec2(kvRight, a0.y + third * float(k + 1) - 1), gap);
}

// X -> Q, K, V (-> RoPE) -> reshape: the projections and the cut into heads.
void drawProjectionStages(PipelineDrawer& p, const Dims& d, bool bug, const InputStage& input) {
    const float row = p.rowHeight(), tall = d.grouped() || d.M != d.N ? 2.4f : 1.6f;
    const std::string nd = shapeText({{"B", d.B}, {"N", d.N}, {"d_model", d.d_model}});
    p.stage(input.title.c_str(), nd, input.tip.c_str(), row, [&](ImVec2 a0, ImVec2 a1) {
        ImGui::GetWindowDrawList()->AddRectFilled(a0, a1, IM_COL32(150, 150, 160, 255));
    });
    const int qWidth = d.H * d.d_head, kvWidth = d.Hkv * d.d_head;
    p.stage("Q, K, V = X W_Q, X W_K, X W_V",
            qkvShapes(d,
                      shapeText({{"B", d.B},
                                 {"N", d.N},
                                 {qWidth == d.d_model ? "d_model" : "H*d_head", qWidth}}),
                      shapeText({{"B", d.B},
                                 {"M", d.M},
                                 {kvWidth == d.d_model ? "d_model"
                                  : d.grouped()        ? "H_kv*d_head"
                                                       : "H*d_head",
                                  kvWidth}})),
            d.grouped() ? "Three learned projections of every token. W_K and W_V are only "
                          "H_kv x d_head wide: each K/V head (striped with the colours of the "
                          "query heads that read it) serves H / H_kv query heads."
                        : "Three learned projections of every token. Each head will use only its "
                          "own d_head-wide slice of them.",
            row * tall, [&](ImVec2 a0, ImVec2 a1) {
                if (d.grouped()) return drawProjections(p, d, a0, a1, 0.0f);
                const float third = (a1.y - a0.y) / 3.0f;
                for (int k = 0; k < 3; ++k)
                    p.slices(ImVec2(a0.x, a0.y + third * float(k) + 1),
                             ImVec2(a1.x, a0.y + third * float(k + 1) - 1), 0.0f, false);
            });
    if (d.live && d.rotated)
        p.stage("turn q and k (RoPE)", "shapes unchanged",
                "Rotary positions: in every head, pair j of q and of k is turned by the angle "
                "position x theta_j. q.k then depends on how far apart the tokens are, not where "
                "they are (the Steps tab shows it for one query and key). V is not turned.",
                row * tall, [&](ImVec2 a0, ImVec2 a1) { drawProjections(p, d, a0, a1, 0.0f); });
    p.stage(bug ? "reshape  (BUG: no transpose)" : "reshape",
            qkvShapes(d, shapeText({{"B", d.B}, {"N", d.N}, {"H", d.H}, {"d_head", d.d_head}}),
                      shapeText({{"B", d.B}, {"M", d.M}, {"H_kv", d.Hkv}, {"d_head", d.d_head}})),
            d.grouped() ? "The width is cut into heads of d_head values: H for Q, H_kv for K and "
                          "V. Nothing moves in memory yet."
                        : "The d_model axis is cut into H slices of d_head values. Nothing moves "
                          "in memory yet.",
            d.grouped() ? row * 2.4f : row,
            [&](ImVec2 a0, ImVec2 a1) { drawProjections(p, d, a0, a1, 3.0f); });
}

// Which cells each head reads -> transpose (-> the K/V heads repeated): the split into heads.
void drawSplitStages(PipelineDrawer& p, const Dims& d, bool bug) {
    const float row = p.rowHeight();
    const char* readsWhy =
        bug ? "With the bug, (B,N,d_model) is viewed directly as (B,H,N,d_head): each 'head' gets "
              "d_head-wide "
              "chunks of a few tokens' whole vectors, so tokens and features are scrambled."
            : "Correct split: head h reads its own d_head dimensions of every token.";
    p.stage("cells of Q each head reads", "tokens (rows) x d_model (columns)", readsWhy,
            std::clamp(float(d.N) * 4.0f, row * 2.0f, row * 4.5f),
            [&](ImVec2 a0, ImVec2 a1) { p.readsGrid(a0, a1, bug); });
    p.stage(bug ? "(no transpose)" : "transpose",
            qkvShapes(d, shapeText({{"B", d.B}, {"H", d.H}, {"N", d.N}, {"d_head", d.d_head}}),
                      shapeText({{"B", d.B}, {"H_kv", d.Hkv}, {"M", d.M}, {"d_head", d.d_head}})),
            "Heads become a batch axis: each head now holds all N tokens of its own slice.",
            row * (d.grouped() || d.M != d.N ? 2.4f : 1.6f),
            [&](ImVec2 a0, ImVec2 a1) { p.headBlocks(a0, a1, false); });
    if (!d.grouped()) return;
    const std::string title =
        std::string("repeat K, V  (") + core::attentionKindName(d.H, d.Hkv) + ")";
    p.stage(title.c_str(),
            "each K/V head serves " + std::to_string(d.group()) + " query heads\nK, V as " +
                shapeText({{"B", d.B}, {"H", d.H}, {"M", d.M}, {"d_head", d.d_head}}),
            "Grouped-query attention: each K/V head serves H / H_kv query heads, query head h "
            "reading K/V head h / (H / H_kv). PyTorch's "
            "repeat_kv copies each K/V head H / H_kv times (enable_gqa does it without the copy); "
            "this engine reads the shared head in place. The cache keeps only H_kv heads.",
            row * 3.0f, [&](ImVec2 a0, ImVec2 a1) { p.repeat(a0, a1); });
}

// Per head: scores, softmax with the mask, weights V.
void drawAttentionStages(PipelineDrawer& p, const core::Scene& scene, const Dims& d) {
    const float row = p.rowHeight();
    char scoreName[64];
    std::snprintf(scoreName, sizeof scoreName, "scores  Q K^T %s",
                  scene.scale == core::ScaleKind::SqrtDHead    ? "/ sqrt(d_head)"
                  : scene.scale == core::ScaleKind::SqrtDModel ? "/ sqrt(d_model)"
                                                               : "(unscaled)");
    const std::string hnm = shapeText({{"B", d.B}, {"H", d.H}, {"N", d.N}, {"M", d.M}});
    p.stage(scoreName, hnm, "Every query's dot product with every key, per head, then scaled.",
            row * 1.4f, [&](ImVec2 a0, ImVec2 a1) { p.headMaps(a0, a1, false); });
    p.stage("softmax (+ mask)", hnm,
            "Each row becomes weights that sum to 1; masked keys (-inf) get exactly 0. These are "
            "the maps.",
            row * 2.2f, [&](ImVec2 a0, ImVec2 a1) { p.headMaps(a0, a1, d.live); });
    p.stage("weights V", shapeText({{"B", d.B}, {"H", d.H}, {"N", d.N}, {"d_head", d.d_head}}),
            "Each query's weighted average of the value vectors, per head. Switched-off heads are "
            "zeroed here.",
            row * 1.6f, [&](ImVec2 a0, ImVec2 a1) { p.headBlocks(a0, a1, true); });
}

// Transpose back -> concat -> W_O -> output: the merge.
void drawMergeStages(PipelineDrawer& p, const core::Scene& scene, const Dims& d, bool bug) {
    const float row = p.rowHeight();
    const std::string nd = shapeText({{"B", d.B}, {"N", d.N}, {"d_model", d.d_model}});
    p.stage(bug ? "(no transpose back)" : "transpose back",
            shapeText({{"B", d.B}, {"N", d.N}, {"H", d.H}, {"d_head", d.d_head}}),
            "Heads go back beside each other for every token.", row,
            [&](ImVec2 a0, ImVec2 a1) { p.slices(a0, a1, 3.0f, true); });
    p.stage(
        "concat", nd,
        "The H slices side by side again: head h fills columns h*d_head... Nothing is mixed yet.",
        row, [&](ImVec2 a0, ImVec2 a1) { p.slices(a0, a1, 0.0f, true); });
    p.stage(
        "x W_O", shapeText({{"d_model", d.d_model}, {"d_model", d.d_model}}),
        "The only step that mixes heads: each output dimension is a weighted sum over every "
        "head's slice, through "
        "the rows of W_O.",
        std::max(std::min(row * 4.0f, p.blockWidth() * 0.4f), row * 3.3f),
        [&](ImVec2 a0, ImVec2 a1) { p.outputProjection(a0, a1, scene.outProjection || !d.live); });
    p.stage(
        "output", nd,
        "One d_model-wide row per token, a blend of all heads (or, without W_O, just the concat).",
        row, [&](ImVec2 a0, ImVec2 a1) {
            if (scene.outProjection || !d.live)
                p.mixed(a0, a1);
            else
                p.slices(a0, a1, 0.0f, true);
        });
}

} // namespace

void drawPipelineView(const core::Scene& scene, const core::Trace& trace, const MapsView& maps,
                      PipelineTabState& pipeline, const ModelView& model) {
    const Dims d = pipelineHeader(trace, pipeline);
    PipelineDrawer p(d, trace, maps, pipeline);
    const bool bug = scene.reshapeBug && d.live;
    drawProjectionStages(p, d, bug, inputStage(model, scene));
    drawSplitStages(p, d, bug);
    drawAttentionStages(p, scene, d);
    drawMergeStages(p, scene, d, bug);
}

// Called when the scene's H changed: the pipeline animates from the old grouping.
void noteHeadCountChange(PipelineTabState& pipeline, int previousHeads, double now) {
    pipeline.animFromHeads = previousHeads;
    pipeline.animStart = now;
}

} // namespace app
