// Panel (a real model): every head of every layer at once (the model view), or the head
// detectors' scores as a layers x heads grid. Hovering names the head; a click opens it in the
// Head tab beside the grid (its layer, its head), the grid staying for the next click.
#include "explorer/panels.h"

#include "figures/attention_map.h"
#include "figures/colormap.h"

#include <algorithm>
#include <cstdio>
#include <string>

namespace app {

void drawModelGridModes(ModelView& model) {
    const char* const labels[] = {"this layer", "every layer", "detectors", "rollout",
                                  model.seq2seq ? "alignment" : "logit lens"};
    const char* const tips[] = {
        "The heads of the layer chosen in Controls (L / Shift+L), with their titles.",
        "Every head of every layer on this sentence: rows are layers, columns heads. Click one "
        "to open it, right-click to switch it off.",
        "How much each head behaves like a known kind: TransformerLens's detectors on a random "
        "token sequence repeated twice (GPT-2), Clark et al.'s attention to the previous and next "
        "token, itself, [CLS] and [SEP] on this sentence (encoders). Click a cell to open that "
        "head.",
        "How much each token draws from each input token through the layers up to the one "
        "chosen (attention rollout).",
        "What the model would predict after each layer, for a token of the sentence (the logit "
        "lens)."};
    for (int m = 0; m < kModelGridModes; ++m) {
        const ImGuiStyle& style = ImGui::GetStyle();
        const float width =
            ImGui::GetFrameHeight() + style.ItemInnerSpacing.x + ImGui::CalcTextSize(labels[m]).x;
        if (m > 0 && ImGui::GetItemRectMax().x + style.ItemSpacing.x + width <=
                         ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
            ImGui::SameLine(); // else the next line: the panel is narrow
        // An attention file has no stream to read through the unembedding.
        const bool off = model.attentionOnly && ModelGridMode(m) == ModelGridMode::LogitLens;
        ImGui::BeginDisabled(off);
        if (ImGui::RadioButton(labels[m], int(model.grid) == m)) model.grid = ModelGridMode(m);
        ImGui::EndDisabled();
        const bool alignment = model.seq2seq && ModelGridMode(m) == ModelGridMode::Alignment;
        itemTooltip(off ? (std::string(labels[m]) + ": " + core::models::kNeedsTheModel).c_str()
                    : alignment ? "The target's tokens down, the source's across: how much the "
                                  "decoder's cross-attention read each source token as it wrote "
                                  "each target token (Bahdanau et al. 2015)."
                                : tips[m]);
    }
}

namespace {

// The centre of the item drawn last, for the state file: where a test clicks it.
void rememberCentre(float at[2]) {
    const ImVec2 min = ImGui::GetItemRectMin(), size = ImGui::GetItemRectSize();
    at[0] = min.x + size.x / 2, at[1] = min.y + size.y / 2;
}

} // namespace

ImU32 themeMix(float t, float alpha) {
    const ImVec4 bg = ImGui::GetStyleColorVec4(ImGuiCol_WindowBg);
    const ImVec4 fg = ImGui::GetStyleColorVec4(ImGuiCol_Text);
    return ImGui::GetColorU32(ImVec4(bg.x + (fg.x - bg.x) * t, bg.y + (fg.y - bg.y) * t,
                                     bg.z + (fg.z - bg.z) * t, alpha));
}

namespace {

// Cells of a layers x heads grid that fills the space left: the side of a cell and where the
// first one starts (after the row labels and the column header). Query heads that share a K/V
// head (GQA, MQA) stand together in a frame, a wider gap between two groups; MHA as before.
struct Grid {
    ImVec2 origin;
    float side = 0, gap = 0;
    int layers = 0, heads = 0;
    core::models::KvGroups groups;
    float pad = 0;      // a frame's distance from its cells (0: no frames)
    float groupGap = 0; // the extra space between two groups
    float groupShift(int h) const {
        if (groupGap == 0) return 0;
        return groupGap * float(std::min(groups.groupOf(h), groups.groups() - 1));
    }
    ImVec2 cell(int l, int h) const {
        return ImVec2(origin.x + float(h) * (side + gap) + groupShift(h),
                      origin.y + float(l) * (side + gap));
    }
    // Group k's frame: its heads' cells of every layer, `pad` around them.
    ImVec4 frame(int k) const {
        const ImVec2 first = cell(0, groups.firstHead(k));
        const ImVec2 last = cell(layers - 1, groups.firstHead(k) + groups.perGroup() - 1);
        return ImVec4(first.x - pad, first.y - pad, last.x + side + pad, last.y + side + pad);
    }
};

// "H3", "L12": built by appending (GCC 12 warns falsely on "H" + std::to_string(...)).
std::string numbered(char letter, int n) {
    std::string label(1, letter);
    label += std::to_string(n);
    return label;
}

// The column header: "K/V 1" over each group when heads share them, "H1".. over the columns.
void gridHeader(const Grid& g, ImVec2 start) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    float y = start.y;
    if (g.pad > 0) {
        for (int k = 0; k < g.groups.groups(); ++k) {
            const ImVec4 f = g.frame(k);
            const std::string label = "K/V " + std::to_string(k + 1);
            const float w = ImGui::CalcTextSize(label.c_str()).x;
            if (w <= f.z - f.x) draw->AddText(ImVec2((f.x + f.z - w) / 2, y), text, label.c_str());
        }
        y += ImGui::GetTextLineHeight();
    }
    const bool roomy = g.side + g.gap >= ImGui::CalcTextSize("H88").x;
    for (int h = 0; h < g.heads; ++h)
        if (roomy || h % 4 == 0)
            draw->AddText(ImVec2(g.cell(0, h).x, y), text, numbered('H', h + 1).c_str());
}

// Each group of query heads sharing a K/V head framed, every other one (the first too) tinted:
// under the cells, which cover all but the frame's margin.
void drawGroupFrames(const Grid& g, ModelView& model) {
    model.kvGroupRects.clear();
    if (g.pad == 0) return;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float rounding = g.pad;
    for (int k = 0; k < g.groups.groups(); ++k) {
        const ImVec4 f = g.frame(k);
        if (k % 2 == 0)
            draw->AddRectFilled(ImVec2(f.x, f.y), ImVec2(f.z, f.w), themeMix(0.12f), rounding);
        draw->AddRect(ImVec2(f.x, f.y), ImVec2(f.z, f.w), themeMix(0.45f), rounding, 0, 1.0f);
        model.kvGroupRects.push_back({f.x, f.y, f.z, f.w});
    }
}

Grid layoutGrid(int layers, int heads, float gap, ModelView& model, float below = 0) {
    Grid g;
    g.layers = layers, g.heads = heads, g.gap = gap;
    g.groups = model.kvGroups.heads == heads ? model.kvGroups : core::models::KvGroups{heads, 0};
    if (g.groups.shared()) {
        g.pad = std::max(3.0f, ImGui::GetFontSize() * 0.2f);
        if (g.groups.groups() > 1) g.groupGap = 2 * g.pad + std::max(4.0f, gap * 2);
    }
    const float label = ImGui::CalcTextSize("L88 ").x + g.pad;
    const float header = ImGui::GetTextLineHeight() * (g.pad > 0 ? 2 : 1) + 2 + g.pad;
    ImVec2 avail = ImGui::GetContentRegionAvail();
    avail.y -= below; // room kept under the grid (a colour bar)
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const float spare = float(g.groups.groups() - 1) * g.groupGap + g.pad;
    g.side = std::max(3.0f, std::min((avail.x - label - spare) / float(heads) - gap,
                                     (avail.y - header - g.pad) / float(layers) - gap));
    g.origin = ImVec2(start.x + label, start.y + header);
    const ImVec2 end = g.cell(layers, heads);
    const float rect[4] = {g.origin.x, g.origin.y, end.x - gap, end.y - gap};
    std::copy(rect, rect + 4, model.gridRect);
    model.headColumns.clear(), model.layerRows.clear();
    for (int h = 0; h < heads; ++h) model.headColumns.push_back(g.cell(0, h).x + g.side / 2);
    for (int l = 0; l < layers; ++l) model.layerRows.push_back(g.cell(l, 0).y + g.side / 2);
    gridHeader(g, start);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    for (int l = 0; l < layers; ++l)
        if (g.side + gap >= ImGui::GetTextLineHeight() || l % 4 == 0)
            draw->AddText(ImVec2(start.x, g.cell(l, 0).y), text, numbered('L', l + 1).c_str());
    drawGroupFrames(g, model);
    ImGui::Dummy(ImVec2(avail.x, header + float(layers) * (g.side + gap) + g.pad));
    return g;
}

// "layer 2, query head 3 · K/V head 2 of 2 (shared with heads 3–4)", or "layer 2, head 3".
std::string cellName(const Grid& g, int l, int h) {
    const std::string kv = core::models::kvGroupNote(g.groups, h);
    return "layer " + std::to_string(l + 1) + ", " +
           (kv.empty() ? "head " + std::to_string(h + 1) : kv);
}

// One colour bar for the whole grid (0 to 1: weights and scores alike), under its cells.
void gridColorBar(const Grid& g, GlHeatmaps& gl, core::ColormapId colormap) {
    const float width = g.cell(0, g.heads).x - g.origin.x - g.gap;
    ImGui::SetCursorScreenPos(ImVec2(g.origin.x, g.cell(g.layers, 0).y + 4));
    drawColorBar(gl, colormap, 0.0f, 1.0f, std::min(width, ImGui::GetFontSize() * 20));
}

// Hover outline, tooltip and click for cell (l, h): the click opens that head.
void cellInteraction(const Grid& g, int l, int h, const std::string& tip, ModelView& model,
                     core::SceneView& saved) {
    const ImVec2 min = g.cell(l, h), max(min.x + g.side, min.y + g.side);
    if (!ImGui::IsMouseHoveringRect(min, max) || !ImGui::IsWindowHovered()) return;
    ImGui::GetWindowDrawList()->AddRect(min, max, IM_COL32(255, 255, 255, 255), 0, 0, 2.0f);
    ImGui::SetTooltip("%s", tip.c_str());
    if (!ImGui::IsMouseClicked(ImGuiMouseButton_Left)) return;
    model.layer = l; // the grid stays: the Head view beside it shows the head clicked
    saved.selectedHead = h;
    saved.tab = core::ViewTab::Head;
}

// A sentence pair: where B starts, at `share` of the way along both axes of a cell.
void markPair(const Grid& g, int l, int h, float share) {
    const ImVec2 min = g.cell(l, h);
    const float at = g.side * share;
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddLine(ImVec2(min.x + at, min.y), ImVec2(min.x + at, min.y + g.side),
                  IM_COL32(255, 255, 255, 150));
    draw->AddLine(ImVec2(min.x, min.y + at), ImVec2(min.x + g.side, min.y + at),
                  IM_COL32(255, 255, 255, 150));
}

// A head switched off: greyed, with a red diagonal (as the pipeline marks one).
void markSwitchedOff(const Grid& g, int l, int h) {
    const ImVec2 min = g.cell(l, h), max(min.x + g.side, min.y + g.side);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(min, max, IM_COL32(40, 40, 44, 200));
    draw->AddLine(min, max, IM_COL32(255, 90, 80, 255), 2.0f);
}

// Whether cell (l, h) was right-clicked: that head switched off, or on again.
bool rightClicked(const Grid& g, int l, int h) {
    const ImVec2 min = g.cell(l, h), max(min.x + g.side, min.y + g.side);
    return ImGui::IsMouseHoveringRect(min, max) && ImGui::IsWindowHovered() &&
           ImGui::IsMouseClicked(ImGuiMouseButton_Right);
}

// A head's attention sink share over its cell: a bar along the bottom on a dark strip (so it
// reads on any colormap), the number in the top right corner (a decoder's masked keys, never
// the first token's column) when the cell has room for it.
void markSinkShare(const Grid& g, int l, int h, float share) {
    const ImVec2 min = g.cell(l, h), max(min.x + g.side, min.y + g.side);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float bar = std::max(3.0f, std::round(g.side * 0.1f));
    const float filled = g.side * std::clamp(share, 0.0f, 1.0f);
    draw->AddRectFilled(ImVec2(min.x, max.y - bar), max, IM_COL32(0, 0, 0, 190));
    draw->AddRectFilled(ImVec2(min.x, max.y - bar), ImVec2(min.x + filled, max.y),
                        IM_COL32(245, 245, 245, 255));
    char text[16];
    std::snprintf(text, sizeof text, "%.2f", double(share));
    const ImVec2 size = ImGui::CalcTextSize(text);
    if (g.side < size.x + 6 || g.side < size.y * 2 + bar) return;
    const ImVec2 at(max.x - size.x - 4, min.y + 2);
    draw->AddRectFilled(ImVec2(at.x - 1, at.y), ImVec2(at.x + size.x + 2, at.y + size.y),
                        IM_COL32(0, 0, 0, 170), 2.0f);
    draw->AddText(ImVec2(at.x + 1, at.y), IM_COL32(255, 255, 255, 255), text);
}

// The tooltip's line on the head's sink share, "" when the trace has none for it.
std::string sinkLine(const ModelView& model, int l, int h) {
    const core::Mat& sink = model.sinkShares;
    if (l >= sink.rows() || h >= sink.cols()) return {};
    char text[64]; // a small share keeps a decimal: 0.4%, not 0%
    const double percent = 100.0 * double(sink(l, h));
    std::snprintf(text, sizeof text, percent < 10 ? "%.1f%%" : "%.0f%%", percent);
    return std::string("\nattention sink: ") + text + " of its attention on the first token '" +
           model.firstToken + "' (mean over the later tokens)";
}

// The model view's switches: value-weighted (W) and the sink shares; the legends they need.
void everyLayerSwitches(const ModelRunner& runner, ModelView& model) {
    ImGui::BeginDisabled(model.attentionOnly); // the values and W_O are not in the file
    ImGui::Checkbox("value-weighted", &model.valueWeighted);
    ImGui::EndDisabled();
    itemTooltip(model.attentionOnly
                    ? (std::string("value-weighted: ") + core::models::kNeedsTheModel).c_str()
                    : "Kobayashi et al. 2020: each weight times the norm of what the key's value "
                      "sends through the head's rows of W_O, |alpha f(x)|, rows rescaled to sum "
                      "to 1. A large weight on a token that sends little fades.");
    sameLineIfFits(ImGui::CalcTextSize("sink share").x + ImGui::GetFrameHeight() * 2);
    ImGui::Checkbox("sink share", &model.showSinks);
    rememberCentre(model.sinkToggleAt);
    itemTooltip("Each head's share of attention on the first token of your sentence: the mean "
                "over the later tokens of its weight on token 1, as a bar under its map (1: "
                "every token looks only at the first). Trained decoders park attention there "
                "when nothing else matters: attention sinks (Xiao et al. 2023).");
    if (model.valueWeighted && !runner.valueWeightedReady()) {
        ImGui::SameLine();
        if (runner.valueWeightedError().empty())
            ImGui::TextDisabled("computing ...");
        else
            ImGui::TextColored(ImVec4(1, 0.45f, 0.4f, 1), "%s",
                               runner.valueWeightedError().c_str());
    }
    ImGui::SameLine();
    keysHint(model.attentionOnly ? "G: next view" : "W  \xC2\xB7  G: next view");
    if (!model.kvLegend.empty()) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        ImGui::TextWrapped("%s: a frame holds the query heads that read the same keys and values",
                           model.kvLegend.c_str());
        ImGui::PopStyleColor();
        itemTooltip("Grouped-query attention (Ainslie et al. 2023): the query heads of a frame "
                    "share one key and one value projection, so their maps differ only by their "
                    "queries. Hover a head for its K/V head.");
    }
}

ExplorerRequest drawEveryLayer(const ModelRunner& runner, ModelView& model, core::SceneView& saved,
                               GlHeatmaps& gl) {
    ExplorerRequest request;
    const int heads = runner.heads();
    if (model.layers == 0 || heads == 0) return request;
    everyLayerSwitches(runner, model);
    if (model.attentionOnly) // nothing to rerun without the weights
        ImGui::TextDisabled("switching heads off: %s", core::models::kNeedsTheModel);
    else
        request.allModelHeadsOn = drawAblationSummary(runner, model);
    const Grid g =
        layoutGrid(model.layers, heads, 2.0f, model, ImGui::GetFrameHeightWithSpacing() * 2);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const int tokens = runner.tokenCount();
    const std::string click =
        model.attentionOnly ? "\nclick to open" : "\nclick to open, right-click to switch ";
    const bool sinks = model.showSinks && model.sinkShares.rows() == model.layers &&
                       model.sinkShares.cols() == heads;
    for (int l = 0; l < model.layers; ++l)
        for (int h = 0; h < heads; ++h) {
            const ImVec2 min = g.cell(l, h);
            gl.draw(draw, l * heads + h, min, ImVec2(min.x + g.side, min.y + g.side),
                    saved.colormap, 0.0f, 1.0f);
            if (model.pairStart > 0 && tokens > 0)
                markPair(g, l, h, float(model.pairStart) / float(tokens));
            const bool off = std::size_t(l) < model.ablated.size() &&
                             core::containsHead(model.ablated[std::size_t(l)], h);
            if (off) markSwitchedOff(g, l, h);
            if (sinks) markSinkShare(g, l, h, model.sinkShares(l, h));
            cellInteraction(g, l, h,
                            cellName(g, l, h) + (off ? " (switched off)" : "") +
                                sinkLine(model, l, h) + click +
                                (model.attentionOnly ? ""
                                 : off               ? "on"
                                                     : "off"),
                            model, saved);
            if (!model.attentionOnly && rightClicked(g, l, h))
                request.switchModelHead = std::pair(l, h);
        }
    gridColorBar(g, gl, saved.colormap);
    return request;
}

ExplorerRequest drawDetectors(const std::vector<core::models::HeadDetectorScores>& detectors,
                              ModelView& model, core::SceneView& saved, GlHeatmaps& gl) {
    ExplorerRequest request;
    if (detectors.empty()) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextDisabled("%s", model.attentionOnly
                                      ? model.detectorsInput.c_str()
                                      : "The detectors run with the model's first trace ...");
        ImGui::PopTextWrapPos();
        return request;
    }
    model.detector = std::clamp(model.detector, 0, int(detectors.size()) - 1);
    const core::models::HeadDetectorScores& shown = detectors[std::size_t(model.detector)];
    ImGui::SetNextItemWidth(
        std::min(ImGui::CalcTextSize(shown.shownName().c_str()).x + ImGui::GetFrameHeight() * 2,
                 ImGui::GetContentRegionAvail().x * 0.6f));
    if (ImGui::BeginCombo("score", shown.shownName().c_str())) {
        for (std::size_t d = 0; d < detectors.size(); ++d)
            if (ImGui::Selectable(detectors[d].shownName().c_str(), int(d) == model.detector))
                model.detector = int(d);
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    if (ImGui::Button("Export CSV")) request.exportDetectors = true;
    rememberCentre(model.exportAt);
    itemTooltip("Every head's scores as a CSV file in the export folder: the detectors and the "
                "attention sink on your sentence.");
    ImGui::TextWrapped("%s", model.attentionOnly ? "Scored on the file's sentence, from its maps."
                             : shown.onSentence  ? "Scored on the sentence shown: it changes as "
                                                   "you type."
                                                 : model.detectorsInput.c_str());
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TextWrapped("%s", shown.explanation.c_str());
    ImGui::PopStyleColor();
    const Grid g = layoutGrid(int(shown.scores.rows()), int(shown.scores.cols()), 2.0f, model,
                              ImGui::GetFrameHeightWithSpacing() * 2); // the colour bar under it
    ImDrawList* draw = ImGui::GetWindowDrawList();
    for (int l = 0; l < g.layers; ++l)
        for (int h = 0; h < g.heads; ++h) {
            const float v = shown.scores(l, h);
            const core::Rgb c = core::sampleColormap(saved.colormap, v);
            const ImVec2 min = g.cell(l, h), max(min.x + g.side, min.y + g.side);
            draw->AddRectFilled(min, max, IM_COL32(c.r, c.g, c.b, 255));
            char text[16];
            std::snprintf(text, sizeof text, "%.2f", double(v));
            if (g.side >= ImGui::CalcTextSize(text).x + 4) {
                const ImU32 ink = (c.r * 299 + c.g * 587 + c.b * 114) / 1000 > 128
                                      ? IM_COL32(0, 0, 0, 255)
                                      : IM_COL32(255, 255, 255, 255);
                draw->AddText(ImVec2(min.x + 2, min.y + 2), ink, text);
            }
            cellInteraction(g, l, h,
                            shown.shownName() + ": " + text + "\n" + cellName(g, l, h) +
                                " (click to open)",
                            model, saved);
        }
    gridColorBar(g, gl, saved.colormap);
    return request;
}

// "Export all": every view of the model, each layer's figures and the trace, into a new folder.
bool exportAllButton(ModelView& model) {
    const char* label = "Export all...";
    const float width = ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2;
    sameLineIfFits(width);
    const bool clicked = ImGui::SmallButton(label);
    rememberCentre(model.exportAllAt);
    itemTooltip(model.attentionOnly
                    ? "Every view of the file's attention into a new folder of the export "
                      "folder: each layer's heads, grid, mean and statistics (PNG, SVG, CSV), "
                      "every head of every layer, the detectors, the rollout and the trace JSON. "
                      "Captions say the maps were saved elsewhere."
                    : "Every view of this model on this sentence into a new folder of the export "
                      "folder: each layer's heads, grid, mean and statistics (PNG, SVG, CSV), "
                      "every head of every layer (weights and value-weighted), the detectors, "
                      "the rollout, the logit lens and the trace JSON. Captions name the model.");
    return clicked;
}

} // namespace

ExplorerRequest drawModelGridPanel(const PanelRect& rect, const ModelRunner& runner,
                                   ModelView& model, core::SceneView& saved, Selection& selection,
                                   GlHeatmaps& gl) {
    ImGui::SetNextWindowPos(rect.pos);
    ImGui::SetNextWindowSize(rect.size);
    static const char* const titles[] = {"", "Every head of every layer", "Head detectors",
                                         "Attention rollout", "Logit lens"};
    const std::string title =
        (model.seq2seq && model.grid == ModelGridMode::Alignment ? "Alignment"
                                                                 : titles[int(model.grid)]) +
        computingNote(runner.status()) + "###Heads";
    ImGui::Begin(title.c_str(), nullptr, kPanelFlags);
    drawModelGridModes(model);
    ExplorerRequest request;
    request.exportModel = exportAllButton(model);
    switch (model.grid) {
    case ModelGridMode::Detectors:
        request |= drawDetectors(runner.detectorsShown(), model, saved, gl);
        break;
    case ModelGridMode::Rollout:
        drawRolloutView(runner, model, saved, selection, gl);
        break;
    case ModelGridMode::LogitLens: // ModelGridMode::Alignment for an encoder-decoder
        if (model.seq2seq)
            request |= drawAlignmentView(runner, model, saved);
        else
            drawLogitLensView(runner, model);
        break;
    default:
        request |= drawEveryLayer(runner, model, saved, gl);
    }
    ImGui::End();
    return request;
}

} // namespace app
