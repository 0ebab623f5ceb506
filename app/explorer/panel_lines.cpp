// Tab: the line view, as in BertViz's head view: queries on the left, keys on the right, a
// line for each weight, as opaque as the weight. Hover a token to keep only its lines.
#include "explorer/panels.h"
#include "platform/appearance.h"
#include "widgets/heatmap_widget.h"

#include <algorithm>

namespace app {

namespace {

// Where the two token columns and their rows sit in the panel.
struct LinesLayout {
    ImVec2 origin;
    int rows = 0, cols = 0;
    float font = 0, rowH = 0, labelW = 0, xLeft = 0, xRight = 0;
    bool labels = false; // rows tall enough for their token
    float rowY(int k) const { return origin.y + rowH * (float(k) + 0.5f); }
    float height() const { return rowH * float(std::max(rows, cols)); }
};

LinesLayout linesLayout(const core::AttentionMap& first) {
    LinesLayout l;
    l.rows = first.rows, l.cols = first.cols;
    l.origin = ImGui::GetCursorScreenPos();
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    l.font = ImGui::GetFontSize();
    l.rowH = std::max(
        2.0f, std::min(l.font * 1.9f, (avail.y - l.font) / float(std::max(l.rows, l.cols))));
    l.labels = l.rowH >= l.font * 0.9f;
    for (const auto& label : first.queryLabels)
        l.labelW = std::max(l.labelW, ImGui::CalcTextSize(label.c_str()).x);
    for (const auto& label : first.keyLabels)
        l.labelW = std::max(l.labelW, ImGui::CalcTextSize(label.c_str()).x);
    l.labelW = l.labels ? std::min(l.labelW, avail.x * 0.25f) : 0.0f;
    const float gap = std::clamp(avail.x - 2 * l.labelW - 3 * l.font, l.font * 6, l.font * 22);
    l.xLeft = l.origin.x + l.labelW + l.font * 0.6f, l.xRight = l.xLeft + gap;
    return l;
}

// Which heads the lines show: the selected one, or every head.
struct LinesShown {
    int selectedHead = 0;
    bool allHeads = false;
};

struct ActiveToken {
    int query = -1, key = -1;
    bool inside = false; // the pointer is over the columns
};

// Which token is active: hovered here, else hovered in a heatmap, else the pinned row.
ActiveToken activeToken(const LinesLayout& l, Selection& selection) {
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    ActiveToken a;
    a.inside =
        ImGui::IsWindowHovered() && mouse.y >= l.origin.y && mouse.y < l.origin.y + l.height();
    if (a.inside && mouse.x < l.xLeft + l.font && mouse.x >= l.origin.x)
        a.query = std::clamp(int((mouse.y - l.origin.y) / l.rowH), 0, l.rows - 1);
    else if (a.inside && mouse.x > l.xRight - l.font && mouse.x < l.xRight + l.labelW + l.font * 2)
        a.key = std::clamp(int((mouse.y - l.origin.y) / l.rowH), 0, l.cols - 1);
    else if (selection.hover.query >= 0 && selection.hover.query < l.rows)
        a.query = selection.hover.query;
    else if (selection.pinnedQuery >= 0 && selection.pinnedQuery < l.rows)
        a.query = selection.pinnedQuery;
    if (a.query >= 0 && a.inside) selection.nextHover.query = a.query; // heatmaps light up too
    if (a.key >= 0) selection.nextHover.key = a.key;
    return a;
}

// A line per weight of the shown heads, as opaque as the weight; tiny ones are left out.
void drawLines(const LinesLayout& l, const ActiveToken& a, const core::Trace& trace,
               const LinesShown& view, const std::vector<core::AttentionMap>& maps,
               float minWeight) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const int heads = int(maps.size());
    const float thickness = std::clamp(l.rowH * 0.18f, 1.0f, 3.0f);
    for (int h = 0; h < heads; ++h) {
        if (!view.allHeads && h != view.selectedHead) continue;
        const core::AttentionMap& map = maps[std::size_t(h)];
        const ImVec4 color = ImGui::ColorConvertU32ToFloat4(headColorU32(trace, h));
        const float share = view.allHeads ? 0.85f : 1.0f;
        for (int i = 0; i < l.rows; ++i) {
            if (a.query >= 0 && i != a.query) continue;
            for (int j = 0; j < l.cols; ++j) {
                if (a.key >= 0 && j != a.key) continue;
                const float w = map.values[std::size_t(i) * std::size_t(l.cols) + std::size_t(j)];
                if (w < minWeight) continue; // masked cells are negative: no line
                draw->AddLine(ImVec2(l.xLeft, l.rowY(i)), ImVec2(l.xRight, l.rowY(j)),
                              ImGui::ColorConvertFloat4ToU32(
                                  ImVec4(color.x, color.y, color.z, std::min(1.0f, w) * share)),
                              thickness);
            }
        }
    }
}

// Token columns; with a query active, the keys are shaded by the weight it gives them.
void drawTokenColumns(const LinesLayout& l, const ActiveToken& a, const core::Trace& trace,
                      const LinesShown& view, const std::vector<core::AttentionMap>& maps) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float font = l.font;
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    const core::AttentionMap& first = maps.front();
    const core::AttentionMap& shown = maps[std::size_t(view.selectedHead)];
    for (int i = 0; l.labels && i < l.rows; ++i) {
        const std::string& label = first.queryLabels[std::size_t(i)];
        const float w = ImGui::CalcTextSize(label.c_str()).x;
        const ImVec2 at(l.xLeft - font * 0.4f - w, l.rowY(i) - font * 0.5f);
        if (i == a.query)
            draw->AddRectFilled(ImVec2(at.x - 3, at.y - 1), ImVec2(at.x + w + 3, at.y + font + 1),
                                headColorU32(trace, view.selectedHead, 0.45f), 3.0f);
        draw->AddText(at, label == core::kPadLabel ? dim : text, label.c_str());
    }
    for (int j = 0; l.labels && j < l.cols; ++j) {
        const std::string& label = first.keyLabels[std::size_t(j)];
        const float w = ImGui::CalcTextSize(label.c_str()).x;
        const ImVec2 at(l.xRight + font * 0.4f, l.rowY(j) - font * 0.5f);
        float shade = j == a.key ? 0.45f : 0.0f;
        if (a.query >= 0 && !view.allHeads)
            shade = std::max(
                        0.0f,
                        shown.values[std::size_t(a.query) * std::size_t(l.cols) + std::size_t(j)]) *
                    0.8f;
        if (shade > 0.02f)
            draw->AddRectFilled(ImVec2(at.x - 3, at.y - 1), ImVec2(at.x + w + 3, at.y + font + 1),
                                headColorU32(trace, view.selectedHead, shade), 3.0f);
        draw->AddText(at, label == core::kPadLabel ? dim : text, label.c_str());
    }
}

// A pinned row keeps only its query's lines (activeToken). It may have been pinned on another
// tab (the Steps tab's token), so say so here, with the way back to every line.
void pinnedQueryLine(const core::AttentionMap& first, Selection& selection) {
    const int query = selection.pinnedQuery;
    if (query < 0 || query >= first.rows) return;
    if (ImGui::SmallButton("Unpin")) selection.pinnedQuery = -1;
    itemTooltip("Show every query's lines again (Esc does it too).");
    ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, warningColor());
    ImGui::TextWrapped("showing only query %d \xE2\x80\x9C%s\xE2\x80\x9D: its row is pinned "
                       "(in Steps, or by a click on a token or a map)",
                       query + 1, first.queryLabels[std::size_t(query)].c_str());
    ImGui::PopStyleColor();
}

} // namespace

ExplorerRequest drawLinesView(const core::Trace& trace, const MapsView& shown,
                              LinesTabState& lines) {
    const std::vector<core::AttentionMap>& maps = shown.gl.maps.heads;
    const int heads = int(maps.size());
    if (heads == 0) return {};
    const ExplorerRequest request =
        viewHeader("Queries on the left, keys on the right; each line as strong as its weight. "
                   "Hover a token to keep only its lines.",
                   ExportChoice::Lines);
    ImGui::Checkbox("all heads", &lines.allHeads);
    itemTooltip("Every head at once, each in its colour (as BertViz overlays heads).");
    const LinesShown view{shown.saved.selectedHead, lines.allHeads};
    if (!view.allHeads) {
        ImGui::SameLine();
        ImGui::PushStyleColor(
            ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(headColorU32(trace, view.selectedHead)));
        ImGui::Text("%s", trace.headNames[std::size_t(view.selectedHead)].c_str());
        ImGui::PopStyleColor();
    }

    const core::AttentionMap& first = maps.front();
    pinnedQueryLine(first, shown.selection);
    const LinesLayout layout = linesLayout(first);
    const ActiveToken active = activeToken(layout, shown.selection);
    const int most = std::max(layout.rows, layout.cols);
    const float minWeight = most > 64 ? 0.05f : 0.01f; // N x M lines otherwise
    drawLines(layout, active, trace, view, maps, minWeight);
    drawTokenColumns(layout, active, trace, view, maps);
    ImGui::Dummy(ImVec2(ImGui::GetContentRegionAvail().x, layout.height()));
    if (active.query >= 0 && active.inside)
        ImGui::SetTooltip("query %d: %s", active.query + 1,
                          first.queryLabels[std::size_t(active.query)].c_str());
    else if (active.key >= 0)
        ImGui::SetTooltip("key %d: %s", active.key + 1,
                          first.keyLabels[std::size_t(active.key)].c_str());
    if (minWeight > 0.01f)
        ImGui::TextDisabled("lines under %.2f left out (%d tokens)", minWeight, most);
    return request;
}

} // namespace app
