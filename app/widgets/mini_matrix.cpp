#include "widgets/mini_matrix.h"

#include "platform/appearance.h" // contrastRatio

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace app {

namespace {

ImU32 cellColor(float v, float scale, const MiniMatrixStyle& style) {
    if (style.signedValues) {
        const float t = 0.5f + 0.5f * std::clamp(v / scale, -1.0f, 1.0f);
        const core::Rgb c = core::sampleColormap(core::ColormapId::RdBu, t);
        return IM_COL32(c.r, c.g, c.b, 255);
    }
    const core::Rgb c = core::sampleColormap(style.colormap, std::clamp(v, 0.0f, 1.0f));
    return IM_COL32(c.r, c.g, c.b, 255);
}

// Black or white, whichever reads better on `fill` (the themes' contrast rule, appearance.h).
ImU32 textOn(ImU32 fill) {
    const ImVec4 c = ImGui::ColorConvertU32ToFloat4(fill);
    const bool black = contrastRatio(c, ImVec4(0, 0, 0, 1)) >= contrastRatio(c, ImVec4(1, 1, 1, 1));
    return black ? IM_COL32(0, 0, 0, 255) : IM_COL32(255, 255, 255, 255);
}

// One cell of drawLabelledRow: the label clipped to the cell above, the value inside.
struct LabelledCell {
    ImVec2 at;           // top left of the label
    float width, height; // of the coloured box
    const char* label;
};

void drawLabelledCell(const LabelledCell& cell, float v, bool isMasked, float scale,
                      const MiniMatrixStyle& style) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float font = ImGui::GetFontSize();
    const ImVec2 boxMin(cell.at.x, cell.at.y + font + 1),
        boxMax(boxMin.x + cell.width, boxMin.y + cell.height);
    draw->PushClipRect(cell.at, ImVec2(boxMax.x, boxMin.y), true);
    draw->AddText(cell.at, ImGui::GetColorU32(ImGuiCol_TextDisabled), cell.label);
    draw->PopClipRect();
    char text[32];
    ImU32 fill = 0;
    if (isMasked) {
        fill = IM_COL32(200, 200, 205, 255);
        std::snprintf(text, sizeof text, "\xE2\x88\x92\xE2\x88\x9E"); // −∞
    } else {
        fill = cellColor(v, scale, style);
        std::snprintf(text, sizeof text, "%.*f", style.decimals, double(v));
    }
    draw->AddRectFilled(boxMin, boxMax, fill);
    const float w = ImGui::CalcTextSize(text).x;
    draw->AddText(
        ImVec2(boxMin.x + (cell.width - w) * 0.5f, boxMin.y + (cell.height - font) * 0.5f),
        textOn(fill), text);
}

} // namespace

int drawLabelledRow(const char* id, int count, const std::function<float(int)>& value,
                    const std::vector<std::string>& labels, const MiniMatrixStyle& style,
                    const std::function<bool(int)>& masked) {
    const int shown = std::min(count, style.maxCols);
    const float font = ImGui::GetFontSize(), pad = ImGui::GetStyle().FramePadding.x;
    float labelWidth = 0, scale = style.fixedScale;
    for (int c = 0; c < shown; ++c) {
        if (c < int(labels.size()))
            labelWidth =
                std::max(labelWidth, ImGui::CalcTextSize(labels[std::size_t(c)].c_str()).x);
        if (style.fixedScale <= 0 && (!masked || !masked(c)))
            scale = std::max(scale, std::abs(value(c)));
    }
    char widest[32];
    std::snprintf(widest, sizeof widest, "-%.*f", style.decimals, 88.0);
    const float width =
        std::max(ImGui::CalcTextSize(widest).x, std::min(labelWidth, font * 5)) + pad * 2;
    const float height = font + pad * 2, gap = 3.0f, lineHeight = font + 1 + height + gap * 2;
    const float avail = std::min(ImGui::GetContentRegionAvail().x, style.maxWidth + width);
    const int perLine = std::max(1, int((avail + gap) / (width + gap)));
    const int lines = (shown + perLine - 1) / perLine;
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    for (int c = 0; c < shown; ++c) {
        const ImVec2 at(origin.x + float(c % perLine) * (width + gap),
                        origin.y + float(c / perLine) * lineHeight);
        const char* label = c < int(labels.size()) ? labels[std::size_t(c)].c_str() : "";
        drawLabelledCell({at, width, height, label}, value(c), masked && masked(c),
                         std::max(scale, 1e-6f), style);
    }
    ImGui::PushID(id);
    ImGui::InvisibleButton("cells",
                           ImVec2(std::max(float(std::min(shown, perLine)) * (width + gap), 1.0f),
                                  std::max(float(lines) * lineHeight, 1.0f)));
    int hovered = -1;
    if (ImGui::IsItemHovered()) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const int col = int((mouse.x - origin.x) / (width + gap)),
                  line = int((mouse.y - origin.y) / lineHeight);
        if (col < perLine && line * perLine + col < shown) hovered = line * perLine + col;
    }
    if (hovered >= 0) {
        ImGui::BeginTooltip();
        ImGui::Text("key %d: %s", hovered + 1,
                    hovered < int(labels.size()) ? labels[std::size_t(hovered)].c_str() : "");
        if (masked && masked(hovered))
            ImGui::TextUnformatted("masked: \xE2\x88\x92\xE2\x88\x9E");
        else
            ImGui::Text("value %.4f", value(hovered));
        ImGui::EndTooltip();
    }
    ImGui::PopID();
    if (shown < count) ImGui::TextDisabled("showing %d of %d keys", shown, count);
    return hovered;
}

int drawMiniMatrix(const char* id, int rows, int cols, const std::function<float(int, int)>& value,
                   const MiniMatrixStyle& style, const std::function<bool(int, int)>& masked) {
    const int shownRows = std::min(rows, style.maxRows), shownCols = std::min(cols, style.maxCols);
    const float labelWidth =
        style.rowLabels ? std::min(90.0f, ImGui::CalcTextSize("wwwwwww").x) : 0.0f;
    const float cell =
        std::clamp((style.maxWidth - labelWidth) / float(std::max(shownCols, 1)), 2.0f, style.cell);
    // One colour scale for the matrix: the largest |value| shown, unless one is given.
    float scale = style.fixedScale > 0 ? style.fixedScale : 1e-6f;
    for (int r = 0; r < shownRows; ++r)
        for (int c = 0; c < shownCols; ++c)
            if (style.fixedScale <= 0 && (!masked || !masked(r, c)))
                scale = std::max(scale, std::abs(value(r, c)));

    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec2 gridMin(origin.x + labelWidth, origin.y);
    const float fontSize = ImGui::GetFontSize();
    for (int r = 0; r < shownRows; ++r) {
        if (style.rowLabels && r < int(style.rowLabels->size()) &&
            cell >= fontSize * 0.95f) // else rows would overlap; the tooltip still names them
            draw->AddText(ImVec2(origin.x, gridMin.y + cell * float(r) + (cell - fontSize) * 0.5f),
                          ImGui::GetColorU32(ImGuiCol_TextDisabled),
                          (*style.rowLabels)[std::size_t(r)].c_str());
        for (int c = 0; c < shownCols; ++c) {
            const ImVec2 a(gridMin.x + cell * float(c), gridMin.y + cell * float(r));
            const ImVec2 b(a.x + cell, a.y + cell);
            if (masked && masked(r, c)) {
                draw->AddRectFilled(a, b, IM_COL32(200, 200, 205, 255));
                draw->AddLine(ImVec2(a.x, b.y), ImVec2(b.x, a.y), IM_COL32(130, 130, 135, 255));
            } else {
                draw->AddRectFilled(a, b, cellColor(value(r, c), scale, style));
            }
        }
    }
    const ImVec2 gridMax(gridMin.x + cell * float(shownCols), gridMin.y + cell * float(shownRows));
    if (style.highlightFromCol >= 0 && style.highlightFromCol < shownCols)
        draw->AddRect(
            ImVec2(gridMin.x + cell * float(style.highlightFromCol) - 1, gridMin.y - 1),
            ImVec2(gridMin.x + cell * float(std::min(style.highlightToCol, shownCols)) + 1,
                   gridMax.y + 1),
            style.highlightColor, 0, 0, 2.0f);

    ImGui::PushID(id);
    ImGui::SetCursorScreenPos(gridMin);
    ImGui::InvisibleButton("cells", ImVec2(std::max(gridMax.x - gridMin.x, 1.0f),
                                           std::max(gridMax.y - gridMin.y, 1.0f)));
    int hoveredCol = -1;
    if (ImGui::IsItemHovered()) {
        const ImVec2 mouse = ImGui::GetIO().MousePos;
        const int c = std::clamp(int((mouse.x - gridMin.x) / cell), 0, shownCols - 1);
        const int r = std::clamp(int((mouse.y - gridMin.y) / cell), 0, shownRows - 1);
        hoveredCol = c;
        ImGui::BeginTooltip();
        if (style.rowLabels && r < int(style.rowLabels->size()))
            ImGui::Text("row %d: %s", r + 1, (*style.rowLabels)[std::size_t(r)].c_str());
        else if (rows > 1)
            ImGui::Text("row %d", r + 1);
        if (style.colLabels && c < int(style.colLabels->size()))
            ImGui::Text("column %d: %s", c + 1, (*style.colLabels)[std::size_t(c)].c_str());
        else
            ImGui::Text("column %d", c + 1);
        if (masked && masked(r, c))
            ImGui::TextUnformatted("masked: \xE2\x88\x92\xE2\x88\x9E");
        else
            ImGui::Text("value %.4f", value(r, c));
        ImGui::EndTooltip();
    }
    ImGui::PopID();
    if (shownRows < rows || shownCols < cols)
        ImGui::TextDisabled("showing %d of %d rows, %d of %d columns", shownRows, rows, shownCols,
                            cols);
    return hoveredCol;
}

} // namespace app
