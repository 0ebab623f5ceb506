// Tab: the line view, as in BertViz's head view: queries on the left, keys on the right, a
// line for each weight, as opaque as the weight. Hover a token to keep only its lines.
#include "widgets/heatmap_widget.h"
#include "panels/panels.h"

#include <algorithm>

namespace app {

void drawLinesView(const core::Trace& trace, ViewState& view) {
    const int heads = int(view.maps.size());
    if (heads == 0) return;
    viewHeader("Queries on the left, keys on the right; each line as strong as its weight. "
               "Hover a token to keep only its lines.",
               view, ExportChoice::Lines);
    ImGui::Checkbox("all heads", &view.linesAllHeads);
    itemTooltip("Every head at once, each in its colour (as BertViz overlays heads).");
    if (!view.linesAllHeads) {
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text,
                              ImGui::ColorConvertU32ToFloat4(headColor(view.selectedHead, heads)));
        ImGui::Text("%s", trace.headNames[std::size_t(view.selectedHead)].c_str());
        ImGui::PopStyleColor();
    }

    const core::AttentionMap& first = view.maps.front();
    const int rows = first.rows, cols = first.cols;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float font = ImGui::GetFontSize();
    const float rowH = std::max(2.0f, std::min(font * 1.9f, (avail.y - font) / float(std::max(rows, cols))));
    const bool labels = rowH >= font * 0.9f;
    float labelW = 0;
    for (const auto& l : first.queryLabels) labelW = std::max(labelW, ImGui::CalcTextSize(l.c_str()).x);
    for (const auto& l : first.keyLabels) labelW = std::max(labelW, ImGui::CalcTextSize(l.c_str()).x);
    labelW = labels ? std::min(labelW, avail.x * 0.25f) : 0.0f;
    const float gap = std::clamp(avail.x - 2 * labelW - 3 * font, font * 6, font * 22);
    const float xLeft = origin.x + labelW + font * 0.6f, xRight = xLeft + gap;
    auto rowY = [&](int k) { return origin.y + rowH * (float(k) + 0.5f); };

    // Which token is active: hovered here, else hovered in a heatmap, else the pinned row.
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    int activeQuery = -1, activeKey = -1;
    const bool inside = ImGui::IsWindowHovered() && mouse.y >= origin.y &&
                        mouse.y < origin.y + rowH * float(std::max(rows, cols));
    if (inside && mouse.x < xLeft + font && mouse.x >= origin.x)
        activeQuery = std::clamp(int((mouse.y - origin.y) / rowH), 0, rows - 1);
    else if (inside && mouse.x > xRight - font && mouse.x < xRight + labelW + font * 2)
        activeKey = std::clamp(int((mouse.y - origin.y) / rowH), 0, cols - 1);
    else if (view.hover.query >= 0 && view.hover.query < rows)
        activeQuery = view.hover.query;
    else if (view.pinnedQuery >= 0 && view.pinnedQuery < rows)
        activeQuery = view.pinnedQuery;
    if (activeQuery >= 0 && inside) view.nextHover.query = activeQuery; // heatmaps light up too
    if (activeKey >= 0) view.nextHover.key = activeKey;

    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float minWeight = std::max(rows, cols) > 64 ? 0.05f : 0.01f; // N x M lines otherwise
    const float thickness = std::clamp(rowH * 0.18f, 1.0f, 3.0f);
    for (int h = 0; h < heads; ++h) {
        if (!view.linesAllHeads && h != view.selectedHead) continue;
        const core::AttentionMap& map = view.maps[std::size_t(h)];
        const ImVec4 color = ImGui::ColorConvertU32ToFloat4(headColor(h, heads));
        const float share = view.linesAllHeads ? 0.85f : 1.0f;
        for (int i = 0; i < rows; ++i) {
            if (activeQuery >= 0 && i != activeQuery) continue;
            for (int j = 0; j < cols; ++j) {
                if (activeKey >= 0 && j != activeKey) continue;
                const float w = map.values[std::size_t(i) * std::size_t(cols) + std::size_t(j)];
                if (w < minWeight) continue; // masked cells are negative: no line
                draw->AddLine(ImVec2(xLeft, rowY(i)), ImVec2(xRight, rowY(j)),
                              ImGui::ColorConvertFloat4ToU32(
                                  ImVec4(color.x, color.y, color.z, std::min(1.0f, w) * share)),
                              thickness);
            }
        }
    }

    // Token columns; with a query active, the keys are shaded by the weight it gives them.
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text), dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const core::AttentionMap& shown = view.maps[std::size_t(view.selectedHead)];
    for (int i = 0; labels && i < rows; ++i) {
        const std::string& label = first.queryLabels[std::size_t(i)];
        const float w = ImGui::CalcTextSize(label.c_str()).x;
        const ImVec2 at(xLeft - font * 0.4f - w, rowY(i) - font * 0.5f);
        if (i == activeQuery)
            draw->AddRectFilled(ImVec2(at.x - 3, at.y - 1), ImVec2(at.x + w + 3, at.y + font + 1),
                                headColor(view.selectedHead, heads, 0.45f), 3.0f);
        draw->AddText(at, label == core::kPadLabel ? dim : text, label.c_str());
    }
    for (int j = 0; labels && j < cols; ++j) {
        const std::string& label = first.keyLabels[std::size_t(j)];
        const float w = ImGui::CalcTextSize(label.c_str()).x;
        const ImVec2 at(xRight + font * 0.4f, rowY(j) - font * 0.5f);
        float shade = j == activeKey ? 0.45f : 0.0f;
        if (activeQuery >= 0 && !view.linesAllHeads)
            shade = std::max(0.0f, shown.values[std::size_t(activeQuery) * std::size_t(cols) + std::size_t(j)]) * 0.8f;
        if (shade > 0.02f)
            draw->AddRectFilled(ImVec2(at.x - 3, at.y - 1), ImVec2(at.x + w + 3, at.y + font + 1),
                                headColor(view.selectedHead, heads, shade), 3.0f);
        draw->AddText(at, label == core::kPadLabel ? dim : text, label.c_str());
    }
    ImGui::Dummy(ImVec2(avail.x, rowH * float(std::max(rows, cols))));
    if (activeQuery >= 0 && inside)
        ImGui::SetTooltip("query %d: %s", activeQuery + 1, first.queryLabels[std::size_t(activeQuery)].c_str());
    else if (activeKey >= 0)
        ImGui::SetTooltip("key %d: %s", activeKey + 1, first.keyLabels[std::size_t(activeKey)].c_str());
    if (minWeight > 0.01f) ImGui::TextDisabled("lines under %.2f left out (%d tokens)", minWeight, std::max(rows, cols));
}

} // namespace app
