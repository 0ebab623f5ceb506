#include "widgets/heatmap_widget.h"
#include "widgets/panel_frame.h"

#include "figures/palette.h"

#include "engine/attention_stats.h"
#include "figures/head_views.h"
#include "models/analyses/model_analysis.h"

#include "text/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace app {

namespace {

ImVec2 operator+(ImVec2 a, ImVec2 b) {
    return ImVec2(a.x + b.x, a.y + b.y);
}

// Text turned 90 degrees counter-clockwise, reading bottom to top, its start at `anchor`.
// ImGui has no rotated text: draw it flat at `flat` (a spot inside the widget, so the
// clip rectangle keeps every glyph), then rotate the vertices it added. Both on whole pixels,
// as ImGui puts flat text: the font atlas is read nearest (window.cpp).
void addVerticalText(ImDrawList* draw, ImVec2 anchor, ImVec2 flat, ImU32 color,
                     const std::string& text) {
    anchor = ImVec2(std::round(anchor.x), std::round(anchor.y));
    flat = ImVec2(std::floor(flat.x), std::floor(flat.y));
    const int first = draw->VtxBuffer.Size;
    draw->AddText(flat, color, text.c_str());
    for (int v = first; v < draw->VtxBuffer.Size; ++v) {
        ImVec2& p = draw->VtxBuffer[v].pos;
        p = ImVec2(anchor.x + (p.y - flat.y), anchor.y - (p.x - flat.x));
    }
}

float widestLabel(const std::vector<std::string>& labels) {
    float widest = 0;
    for (const std::string& label : labels)
        widest = std::max(widest, ImGui::CalcTextSize(label.c_str()).x);
    return widest;
}

void cellTooltip(const core::Trace& trace, const HeadMaps& maps, int batchIndex, int head, int i,
                 int j) {
    const core::AttentionMap& map = maps.heads[std::size_t(head)];
    const core::Attention& a = trace.attention;
    const float value = map.values[std::size_t(i) * std::size_t(map.cols) + std::size_t(j)];
    const float score = a.scores(a.headRow(batchIndex, head, i), j);
    ImGui::BeginTooltip();
    ImGui::TextDisabled("%s", trace.headNames[std::size_t(head)].c_str());
    ImGui::Text("query  %s  (#%d)", map.queryLabels[std::size_t(i)].c_str(), i + 1);
    ImGui::Text("key    %s  (#%d)", map.keyLabels[std::size_t(j)].c_str(), j + 1);
    if (value == core::kMaskedCell)
        ImGui::TextUnformatted("weight masked (\xE2\x88\x92\xE2\x88\x9E before softmax)");
    else if (maps.valueWeighted)
        ImGui::Text("value-weighted %.4f  (weight %.4f)", value,
                    a.attention(a.headRow(batchIndex, head, i), j));
    else
        ImGui::Text("weight %.4f", value);
    ImGui::Text("score  %.4f  (scaled q\xC2\xB7k, before the mask)", score);
    ImGui::EndTooltip();
}

} // namespace

ImU32 paletteColor(int index, float alpha) {
    const core::Rgb c = core::seriesColor(index);
    return IM_COL32(c.r, c.g, c.b, int(std::lround(std::clamp(alpha, 0.0f, 1.0f) * 255)));
}

ImU32 headColorU32(const core::Trace& trace, int head, float alpha) {
    return paletteColor(trace.headColorIndex(head), alpha);
}

namespace {

// The map's shown cells replaced by value-weighted attention, rows rescaled to sum to 1 as the
// model view draws it (masked and hidden cells stay marked).
void weighByValues(const core::Trace& trace, int head, core::AttentionMap& map) {
    const core::Mat weighted =
        core::models::normalizedRows(core::models::valueWeightedAttention(trace, head)); // N x N
    map.maxWeight = 0;
    for (int i = 0; i < map.rows; ++i)
        for (int j = 0; j < map.cols; ++j) {
            float& cell = map.values[std::size_t(i) * std::size_t(map.cols) + std::size_t(j)];
            if (cell == core::kMaskedCell) continue;
            cell = float(weighted(i, j));
            map.maxWeight = std::max(map.maxWeight, cell);
        }
}

} // namespace

void uploadHeadMaps(const core::Trace& trace, int batchIndex, core::PairView pairView,
                    GlHeatmaps& gl, bool valueWeighted) {
    HeadMaps& maps = gl.maps;
    maps.pairView = pairView; // the derived maps follow it
    maps.valueWeighted = valueWeighted && trace.isModelLayer() && trace.batch() == 1;
    maps.heads.resize(std::size_t(trace.attention.heads));
    for (int h = 0; h < trace.attention.heads; ++h) {
        maps.heads[std::size_t(h)] = core::attentionMap(trace, batchIndex, h, pairView);
        core::AttentionMap& map = maps.heads[std::size_t(h)];
        if (maps.valueWeighted) weighByValues(trace, h, map);
        gl.setValues(h, map.values.data(), map.rows, map.cols);
    }
    maps.meanEntropyBits = core::natsToBits(core::meanRowEntropy(trace.attention));
    ++maps.generation; // the derived maps follow when a tab shows them
    maps.batchIndex = batchIndex;
    gl.keepSlots(trace.attention.heads + kDerivedMaps); // free the textures of heads that are gone
}

void uploadDerivedMaps(const core::Trace& trace, int batchIndex, GlHeatmaps& gl) {
    HeadMaps& maps = gl.maps;
    if (maps.derivedGeneration == maps.generation) return;
    maps.mean = core::meanAttentionMap(trace, batchIndex, maps.pairView);
    gl.setValues(derivedSlot(maps, DerivedMap::Mean), maps.mean.values.data(), maps.mean.rows,
                 maps.mean.cols);
    core::EntropyMap entropy = core::entropyMap(trace, batchIndex);
    maps.entropy = std::move(entropy.map);
    maps.headStats = std::move(entropy.heads);
    gl.setValues(derivedSlot(maps, DerivedMap::Entropy), maps.entropy.values.data(),
                 maps.entropy.rows, maps.entropy.cols);
    maps.derivedGeneration = maps.generation;
}

void uploadDifferenceMap(const core::Trace& trace, int batchIndex, GlHeatmaps& gl, int headA,
                         int headB) {
    HeadMaps& maps = gl.maps;
    if (maps.differenceGeneration == maps.generation && maps.differenceOf[0] == headA &&
        maps.differenceOf[1] == headB && !maps.differenceAcross)
        return;
    maps.difference = core::headDifferenceMap(trace, batchIndex, headA, headB, maps.pairView);
    gl.setValues(derivedSlot(maps, DerivedMap::Difference), maps.difference.values.data(),
                 maps.difference.rows, maps.difference.cols);
    maps.differenceGeneration = maps.generation;
    maps.differenceOf[0] = headA, maps.differenceOf[1] = headB;
    maps.differenceAcross.reset();
}

void uploadModelDifferenceMap(const core::Trace& trace,
                              const std::shared_ptr<const core::Trace>& other, int batchIndex,
                              GlHeatmaps& gl, int head) {
    HeadMaps& maps = gl.maps;
    if (maps.differenceGeneration == maps.generation && maps.differenceOf[0] == head &&
        maps.differenceAcross == other)
        return;
    maps.difference = core::headDifferenceMap(trace, head, *other, head, batchIndex, maps.pairView);
    gl.setValues(derivedSlot(maps, DerivedMap::Difference), maps.difference.values.data(),
                 maps.difference.rows, maps.difference.cols);
    maps.differenceGeneration = maps.generation;
    maps.differenceOf[0] = head, maps.differenceOf[1] = head;
    maps.differenceAcross = other;
}

namespace {

// Where a map's parts go on screen: labels left and above, then square cells.
struct MapGeometry {
    ImVec2 origin, mapMin, mapMax;
    float cell = 1, rowLabelWidth = 0, colLabelHeight = 0;
    bool showLabels = false;
};

constexpr float kLabelPad = 4.0f;

MapGeometry mapGeometry(const core::AttentionMap& map, ImVec2 size, LabelMode labels) {
    MapGeometry g;
    g.origin = ImGui::GetCursorScreenPos();
    // Labels only where a map is big enough to carry them; tooltips always name tokens.
    g.showLabels =
        labels != LabelMode::None && std::min(size.x, size.y) >= 7.0f * ImGui::GetFontSize();
    const float labelShare = labels == LabelMode::Full ? 0.30f : 0.24f;
    g.rowLabelWidth =
        g.showLabels ? std::min(widestLabel(map.queryLabels), size.x * labelShare) + kLabelPad : 0;
    g.colLabelHeight =
        g.showLabels ? std::min(widestLabel(map.keyLabels), size.y * labelShare) + kLabelPad : 0;
    g.cell = std::max(1e-3f, std::min( // cells may be sub-pixel: the shader samples them
                                 (size.x - g.rowLabelWidth) / float(map.cols),
                                 (size.y - g.colLabelHeight) / float(map.rows)));
    g.mapMin = g.origin + ImVec2(g.rowLabelWidth, g.colLabelHeight);
    g.mapMax = g.mapMin + ImVec2(g.cell * float(map.cols), g.cell * float(map.rows));
    return g;
}

constexpr ImU32 kPinnedColor = IM_COL32(255, 140, 0, 255);

// Query labels left of the rows, key labels above the columns (turned), every k-th when crowded.
void drawLabels(ImDrawList* draw, const core::AttentionMap& map, const MapGeometry& g,
                CellRef hover, int pinned) {
    const float fontSize = ImGui::GetFontSize();
    const ImU32 textColor = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dimColor = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const int step = std::max(1, int(std::ceil(fontSize * 0.95f / g.cell)));
    for (int i = 0; i < map.rows; i += step) {
        const std::string text =
            fitText(map.queryLabels[std::size_t(i)], g.rowLabelWidth - kLabelPad);
        const float width = ImGui::CalcTextSize(text.c_str()).x;
        const bool lit = i == hover.query || i == pinned;
        const bool isPad = map.queryLabels[std::size_t(i)] == core::kPadLabel;
        draw->AddText(ImVec2(g.mapMin.x - 4.0f - width,
                             g.mapMin.y + g.cell * (float(i) + 0.5f) - fontSize * 0.5f),
                      i == pinned ? kPinnedColor : (lit || !isPad ? textColor : dimColor),
                      text.c_str());
    }
    for (int j = 0; j < map.cols; j += step) {
        const std::string text =
            fitText(map.keyLabels[std::size_t(j)], g.colLabelHeight - kLabelPad);
        const bool isPad = map.keyLabels[std::size_t(j)] == core::kPadLabel;
        addVerticalText(
            draw,
            ImVec2(g.mapMin.x + g.cell * (float(j) + 0.5f) - fontSize * 0.5f, g.mapMin.y - 4.0f),
            g.origin, j == hover.key || !isPad ? textColor : dimColor, text);
    }
}

// The hovered row and column, the pinned row and the frame.
void drawHighlights(ImDrawList* draw, const MapGeometry& g, const core::AttentionMap& map,
                    const MapStyle& style, CellRef hover, int pinned) {
    const float cell = g.cell;
    if (hover.query >= 0 && hover.query < map.rows)
        draw->AddRect(ImVec2(g.mapMin.x, g.mapMin.y + cell * float(hover.query)),
                      ImVec2(g.mapMax.x, g.mapMin.y + cell * float(hover.query + 1)),
                      IM_COL32(255, 255, 255, 220), 0, 0, 1.5f);
    if (hover.key >= 0 && hover.key < map.cols)
        draw->AddRect(ImVec2(g.mapMin.x + cell * float(hover.key), g.mapMin.y),
                      ImVec2(g.mapMin.x + cell * float(hover.key + 1), g.mapMax.y),
                      IM_COL32(255, 255, 255, 170), 0, 0, 1.0f);
    if (pinned >= 0 && pinned < map.rows)
        draw->AddRect(ImVec2(g.mapMin.x - 1, g.mapMin.y + cell * float(pinned) - 1),
                      ImVec2(g.mapMax.x + 1, g.mapMin.y + cell * float(pinned + 1) + 1),
                      kPinnedColor, 0, 0, 2.5f);
    draw->AddRect(g.mapMin + ImVec2(-2, -2), g.mapMax + ImVec2(2, 2), style.frameColor, 0, 0,
                  style.frameThickness);
}

// The invisible button over the map: the cell (or label) under the mouse, clicks, pinning.
MapHit mapInput(const core::AttentionMap& map, const MapGeometry& g, const MapStyle& style,
                Selection* selection, ImVec2 size) {
    MapHit hit;
    ImGui::PushID(style.slot);
    ImGui::SetCursorScreenPos(g.origin);
    ImGui::InvisibleButton("map", ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
    hit.clicked = ImGui::IsItemClicked(ImGuiMouseButton_Left);
    if (ImGui::IsItemHovered()) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const int j = int(std::floor((mouse.x - g.mapMin.x) / g.cell));
        const int i = int(std::floor((mouse.y - g.mapMin.y) / g.cell));
        const bool inRows = i >= 0 && i < map.rows, inCols = j >= 0 && j < map.cols;
        if (inRows && inCols) {
            hit.row = i, hit.col = j;
            if (selection) selection->nextHover = {i, j};
            if (hit.clicked && selection)
                selection->pinnedQuery = selection->pinnedQuery == i ? -1 : i;
        } else if (inRows && mouse.x < g.mapMin.x) {
            if (selection) selection->nextHover.query = i;
            ImGui::SetTooltip("%s", map.queryLabels[std::size_t(i)].c_str());
        } else if (inCols && mouse.y < g.mapMin.y) {
            if (selection) selection->nextHover.key = j;
            ImGui::SetTooltip("%s", map.keyLabels[std::size_t(j)].c_str());
        }
    }
    ImGui::PopID();
    return hit;
}

} // namespace

namespace {

// A sentence pair: a line before sentence B's first query and first key.
void drawPairDivider(ImDrawList* draw, const core::AttentionMap& map, const MapGeometry& g) {
    if (map.pairStart <= 0 || map.pairStart >= map.rows || map.pairStart >= map.cols) return;
    const float cellW = (g.mapMax.x - g.mapMin.x) / float(map.cols);
    const float cellH = (g.mapMax.y - g.mapMin.y) / float(map.rows);
    const float x = g.mapMin.x + cellW * float(map.pairStart);
    const float y = g.mapMin.y + cellH * float(map.pairStart);
    const ImU32 color = IM_COL32(255, 255, 255, 200);
    const float thickness = std::clamp(std::min(cellW, cellH) * 0.15f, 1.0f, 2.5f);
    draw->AddLine(ImVec2(x, g.mapMin.y), ImVec2(x, g.mapMax.y), color, thickness);
    draw->AddLine(ImVec2(g.mapMin.x, y), ImVec2(g.mapMax.x, y), color, thickness);
}

} // namespace

MapHit drawMap(const core::AttentionMap& map, const MapStyle& style, Selection* selection,
               ImVec2 size, LabelMode labels) {
    if (!style.shareHover) selection = nullptr; // rows here are not this sentence's queries
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const MapGeometry g = mapGeometry(map, size, labels);
    // Seams between cells once they are big enough to read as a grid.
    style.gl->draw(draw, style.slot, g.mapMin, g.mapMax, style.colormap, style.valueMin,
                   style.valueMax, g.cell >= 10.0f);
    drawPairDivider(draw, map, g);
    // Maps of this sentence's queries x keys light up together; others (heads x queries) not.
    // From the previous frame's hover, so every head lights up together.
    const CellRef hover = selection ? selection->hover : CellRef{};
    const int pinned = selection ? selection->pinnedQuery : -1;
    if (g.showLabels) drawLabels(draw, map, g, hover, pinned);
    drawHighlights(draw, g, map, style, hover, pinned);
    return mapInput(map, g, style, selection, size);
}

bool drawHeatmap(const core::Trace& trace, const MapsView& maps, int head, ImVec2 size,
                 LabelMode labels) {
    const core::AttentionMap& map = maps.gl.maps.heads[std::size_t(head)];
    MapStyle style;
    style.gl = &maps.gl;
    style.slot = head;
    style.valueMax = maps.saved.perHeadScale ? std::max(map.maxWeight, 1e-6f) : 1.0f;
    style.colormap = maps.saved.colormap;
    style.frameColor = headColorU32(trace, head);
    style.frameThickness = head == maps.saved.selectedHead ? 3.0f : 1.5f;
    const MapHit hit = drawMap(map, style, &maps.selection, size, labels);
    if (ImGui::IsItemHovered())
        maps.selection.nextHoverHead = head; // its slice lights up in the pipeline
    if (hit.row >= 0)
        cellTooltip(trace, maps.gl.maps, maps.selection.batchIndex, head, hit.row, hit.col);
    if (hit.clicked) maps.saved.selectedHead = head;
    return hit.clicked;
}

void drawColorBar(GlHeatmaps& gl, core::ColormapId colormap, float valueMin, float valueMax,
                  float width) {
    const float height = ImGui::GetFontSize() * 0.8f;
    ImGui::Image(
        reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(gl.colormapTexture(colormap))),
        ImVec2(width, height));
    const ImVec2 barMin = ImGui::GetItemRectMin();
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImU32 color = ImGui::GetColorU32(ImGuiCol_Text);
    const float y = barMin.y + height + 2.0f;
    const float span = valueMax - valueMin;
    const char* format = span >= 0.995f ? "%.2f" : "%.3f";
    // Quarters, halves or just the ends: as many ticks as labels fit (large type, narrow bar).
    char widest[32];
    std::snprintf(widest, sizeof widest, format, -std::max(std::abs(valueMin), std::abs(valueMax)));
    // The end labels sit inside the bar, so the first two are 1.5 labels apart at least.
    const float labelGap = ImGui::CalcTextSize(widest).x * 1.5f + ImGui::GetFontSize() * 0.5f;
    int intervals = 4;
    while (intervals > 1 && width / float(intervals) < labelGap) intervals /= 2;
    for (int k = 0; k <= intervals; ++k) {
        char label[32];
        std::snprintf(label, sizeof label, format, valueMin + span * float(k) / float(intervals));
        const float textWidth = ImGui::CalcTextSize(label).x;
        const float x = barMin.x + width * float(k) / float(intervals);
        draw->AddLine(ImVec2(x, barMin.y + height), ImVec2(x, barMin.y + height + 3.0f), color);
        draw->AddText(
            ImVec2(std::clamp(x - textWidth * 0.5f, barMin.x, barMin.x + width - textWidth),
                   y + 2.0f),
            color, label);
    }
    ImGui::Dummy(ImVec2(width, ImGui::GetFontSize() + 6.0f));
}

} // namespace app
