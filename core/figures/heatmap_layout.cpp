// Where a heatmap figure's parts go (scale-1 pixels), shared by the SVG and PNG writers: title,
// the column axis title, column labels turned upwards, the row axis title and row labels left of
// the grid, the grid of cells, the colour bar with ticks and what it means, the caption.
#include "figures/heatmap_layout.h"

#include "text/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace core::heatmaps {

namespace {

int ceilPx(float v) {
    return int(std::ceil(v - 1e-4f));
}

// At most maxCodePoints, the last one becoming an ellipsis.
std::string cutToCodePoints(const std::string& utf8, int maxCodePoints) {
    const std::u32string text = decodeUtf8(utf8);
    std::string out;
    const bool cut = int(text.size()) > maxCodePoints && maxCodePoints > 0;
    const std::size_t keep = cut ? std::size_t(maxCodePoints - 1) : text.size();
    for (std::size_t i = 0; i < keep; ++i) appendUtf8(out, text[i]);
    return cut ? out + "\u2026" : out;
}

PlacedText placed(const TextMetrics& m, std::string text, float px) {
    PlacedText t;
    t.text = std::move(text);
    t.width = t.text.empty() ? 0.0f : m.width(t.text, px);
    return t;
}

void checkFigure(const HeatmapFigure& f) {
    if (f.rows <= 0 || f.cols <= 0) throw std::invalid_argument("figure has no cells");
    if (f.values.size() != std::size_t(f.rows) * std::size_t(f.cols))
        throw std::invalid_argument("figure values do not match rows x cols");
}

// Token labels, one every `step` rows / columns when cells are smaller than the font, cut to
// the figure's code points; positions follow once the grid is placed.
void measureLabels(PanelLayout& L, const HeatmapFigure& f, const TextMetrics& m) {
    const int step = L.cell >= int(kLabelPx) ? 1 : ceilPx(kLabelPx / float(L.cell));
    for (int r = 0; r < f.rows; ++r) {
        const bool shown = r % step == 0 && r < int(f.rowLabels.size());
        L.rowLabels.push_back(
            placed(m, shown ? cutToCodePoints(f.rowLabels[std::size_t(r)], f.rowLabelChars) : "",
                   kLabelPx));
    }
    for (int c = 0; c < f.cols; ++c) {
        const bool shown = c % step == 0 && c < int(f.colLabels.size());
        L.colLabels.push_back(
            placed(m, shown ? cutToCodePoints(f.colLabels[std::size_t(c)], f.colLabelChars) : "",
                   kLabelPx));
    }
}

float widest(const std::vector<PlacedText>& texts) {
    float w = 0;
    for (const PlacedText& t : texts) w = std::max(w, t.width);
    return w;
}

// Title, axis titles and labels around the grid; sets gridLeft and gridTop.
void placeAroundGrid(PanelLayout& L, const HeatmapFigure& f, const TextMetrics& m) {
    L.title = placed(m, m.cut(f.title, kTitlePx, float(kMaxGrid + 200)), kTitlePx);
    L.title.x = kMargin, L.title.y = kMargin;
    const int titleH = ceilPx(m.lineHeight(kTitlePx));
    L.keyTop = kMargin + titleH + 1;
    L.keyW = std::max(ceilPx(L.title.width), 24);

    const int axisLine = ceilPx(m.lineHeight(kAxisTitlePx));
    L.colAxis = placed(m, f.colAxis.empty() ? "" : f.colAxis + " \xE2\x86\x92", kAxisTitlePx);
    L.rowAxis = placed(m, f.rowAxis.empty() ? "" : f.rowAxis + " \xE2\x86\x93", kAxisTitlePx);
    L.colAxis.y = float(kMargin + titleH + kTitleGap);
    const int labelsTop =
        int(L.colAxis.y) + (L.colAxis.text.empty() ? 0 : axisLine + kAxisTitleGap);
    const int header = std::max(ceilPx(widest(L.colLabels)), L.rowAxis.text.empty() ? 0 : axisLine);
    L.gridTop = labelsTop + (header > 0 ? header + kLabelGap : 0);

    const int leftText = ceilPx(std::max(widest(L.rowLabels), L.rowAxis.width));
    const int firstTick = L.tickLabels.empty() ? 0 : ceilPx(L.tickLabels.front().width) / 2 + 1;
    L.gridLeft = kMargin + std::max(leftText > 0 ? leftText + kLabelGap : 0, firstTick);
    L.colAxis.x = float(L.gridLeft);
    L.rowAxis.x = float(L.gridLeft - kLabelGap);
    L.rowAxis.y = float(L.gridTop - kLabelGap - axisLine);

    const float labelLine = m.lineHeight(kLabelPx);
    for (int r = 0; r < int(L.rowLabels.size()); ++r) {
        L.rowLabels[std::size_t(r)].x = float(L.gridLeft - kLabelGap);
        L.rowLabels[std::size_t(r)].y =
            float(L.gridTop + r * L.cell) + float(L.cell) / 2 - labelLine / 2;
    }
    for (int c = 0; c < int(L.colLabels.size()); ++c) {
        L.colLabels[std::size_t(c)].x =
            float(L.gridLeft + c * L.cell) + float(L.cell) / 2 - labelLine / 2;
        L.colLabels[std::size_t(c)].y = float(L.gridTop - kLabelGap);
    }
}

void measureTicks(PanelLayout& L, const HeatmapFigure& f, const TextMetrics& m) {
    for (int k = 0; k <= 4; ++k) L.tickLabels.push_back(placed(m, tickText(f, k), kTickPx));
}

// The colour bar at (left, top), `width` wide, its ticks and labels, and what the colours mean;
// L.bottom becomes the end of its last line.
void placeColorBar(PanelLayout& L, const HeatmapFigure& f, const TextMetrics& m, int left, int top,
                   int width) {
    L.barLeft = left;
    L.barTop = top;
    L.barW = width;
    const int tickTop = L.barTop + kBarHeight + kTickLength + 1;
    for (int k = 0; k <= 4; ++k) {
        L.tickX.push_back(float(L.barLeft + std::min(L.barW - 1, L.barW * k / 4)) + 0.5f);
        L.tickLabels[std::size_t(k)].x = L.tickX.back();
        L.tickLabels[std::size_t(k)].y = float(tickTop);
    }
    L.bottom = tickTop + ceilPx(m.lineHeight(kTickPx));
    L.barLabel = placed(m, f.valueLabel, kBarLabelPx);
    if (!L.barLabel.text.empty()) {
        // Centred on the bar, unless that would pass the left margin.
        L.barLabel.x =
            std::max(float(L.barLeft) + float(L.barW) / 2, float(kMargin) + L.barLabel.width / 2);
        L.barLabel.y = float(L.bottom + kBarLabelGap);
        L.bottom += kBarLabelGap + ceilPx(m.lineHeight(kBarLabelPx));
    }
}

// A panel; without its colour bar when `bar` is false (a grid's shared one stands for it).
PanelLayout layoutPanel(const HeatmapFigure& f, const TextMetrics& m, bool bar = true) {
    checkFigure(f);
    PanelLayout L;
    L.rows = f.rows, L.cols = f.cols;
    const int maxCell = f.maxCell > 0 ? std::clamp(f.maxCell, kMinCell, kMaxCell) : kMaxCell;
    L.cell = std::clamp(kMaxGrid / std::max(f.rows, f.cols), kMinCell, maxCell);
    L.seam = L.cell >= kSeamMinCell ? 1 : 0;
    L.gridW = L.cell * f.cols, L.gridH = L.cell * f.rows;
    measureLabels(L, f, m);
    if (bar) measureTicks(L, f, m);
    placeAroundGrid(L, f, m);
    L.bottom = L.gridTop + L.gridH;
    if (bar)
        placeColorBar(L, f, m, L.gridLeft, L.bottom + kBarGap, std::max(L.gridW, kMinBarWidth));
    const float lastTick =
        L.tickLabels.empty() ? 0 : L.tickLabels.back().x + L.tickLabels.back().width / 2 + 1;
    const float right =
        std::max({float(L.gridLeft + L.gridW), lastTick, L.title.x + L.title.width,
                  L.colAxis.x + L.colAxis.width, L.barLabel.x + L.barLabel.width / 2});
    L.width = ceilPx(right) + kMargin;
    L.height = L.bottom + kMargin;
    return L;
}

// Caption lines under `top`, wrapped at spaces to fit `width` (the figure's); may widen a
// narrow figure first.
std::vector<PlacedText> layoutCaption(const std::vector<std::string>& lines, const TextMetrics& m,
                                      int top, int& width) {
    int widestLine = 0;
    for (const std::string& line : lines)
        widestLine = std::max(widestLine, ceilPx(m.width(line, kCaptionPx)));
    if (widestLine + 2 * kMargin > width)
        width = std::max(width, std::min(widestLine + 2 * kMargin, kCaptionMinWidth));
    std::vector<PlacedText> caption;
    const int step = ceilPx(m.lineHeight(kCaptionPx)) + kCaptionLineGap;
    for (const std::string& line : lines)
        for (std::string& part : wrapWords(line, m, kCaptionPx, float(width - 2 * kMargin))) {
            PlacedText t = placed(m, std::move(part), kCaptionPx);
            t.x = kMargin;
            t.y = float(top + kCaptionGap + int(caption.size()) * step);
            caption.push_back(std::move(t));
        }
    return caption;
}

int captionHeight(const std::vector<PlacedText>& caption, const TextMetrics& m) {
    if (caption.empty()) return 0;
    return kCaptionGap + int(caption.size()) * (ceilPx(m.lineHeight(kCaptionPx)) + kCaptionLineGap);
}

} // namespace

std::vector<std::string> wrapWords(const std::string& text, const TextMetrics& m, float px,
                                   float maxWidth) {
    std::vector<std::string> lines;
    std::string line;
    for (std::size_t pos = 0; pos <= text.size();) {
        const std::size_t end = std::min(text.find(' ', pos), text.size());
        const std::string word = text.substr(pos, end - pos);
        std::string longer = line.empty() ? word : line + " " + word;
        if (line.empty() || m.width(longer, px) <= maxWidth) {
            line = std::move(longer);
        } else {
            lines.push_back(std::move(line));
            line = word;
        }
        pos = end + 1;
    }
    lines.push_back(std::move(line));
    for (std::string& l : lines) // a word that fits on no line: cut, as a token label is
        if (m.width(l, px) > maxWidth) l = m.cut(l, px, maxWidth);
    return lines;
}

std::string tickText(const HeatmapFigure& f, int k) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.*f", std::clamp(f.tickDecimals, 0, 6),
                  double(tickValue(f, k)));
    return buffer;
}

CellBox cellBox(const PanelLayout& L, int row, int col) {
    return {L.gridLeft + col * L.cell + (col > 0 ? L.seam : 0),
            L.gridTop + row * L.cell + (row > 0 ? L.seam : 0), L.gridLeft + (col + 1) * L.cell,
            L.gridTop + (row + 1) * L.cell};
}

std::vector<DividerBox> pairDividers(const PanelLayout& L, int pairStart) {
    std::vector<DividerBox> boxes;
    const int half = kDividerWidth / 2;
    if (pairStart > 0 && pairStart < L.cols) {
        const int x = L.gridLeft + pairStart * L.cell;
        boxes.push_back({x - half, L.gridTop - kDividerOverhang, x - half + kDividerWidth,
                         L.gridTop + L.gridH + kDividerOverhang});
    }
    if (pairStart > 0 && pairStart < L.rows) {
        const int y = L.gridTop + pairStart * L.cell;
        boxes.push_back({L.gridLeft - kDividerOverhang, y - half,
                         L.gridLeft + L.gridW + kDividerOverhang, y - half + kDividerWidth});
    }
    return boxes;
}

std::vector<Segment> hatchSegments(const CellBox& box, int dx, int dy) {
    std::vector<Segment> segments;
    const int x0 = box.x0 + dx, y0 = box.y0 + dy, x1 = box.x1 + dx, y1 = box.y1 + dy;
    // Lines x + y = c with c = k * period that cross the box: x0 + y0 < c < x1 + y1.
    for (int k = (x0 + y0) / kHatchPeriod; k * kHatchPeriod < x1 + y1; ++k) {
        const float c = float(k * kHatchPeriod);
        const float xa = std::max(float(x0), c - float(y1)),
                    xb = std::min(float(x1), c - float(y0));
        if (xb - xa <= 0) continue;
        segments.push_back(
            {xa - float(dx), c - xa - float(dy), xb - float(dx), c - xb - float(dy)});
    }
    return segments;
}

HeatmapLayout layoutHeatmap(const HeatmapFigure& figure, const TextMetrics& metrics) {
    HeatmapLayout L;
    L.panel = layoutPanel(figure, metrics);
    L.width = L.panel.width;
    L.caption = layoutCaption(figure.captionLines, metrics, L.panel.bottom, L.width);
    L.height = L.panel.bottom + captionHeight(L.caption, metrics) + kMargin;
    return L;
}

GridLayout layoutGrid(const GridFigure& figure, const TextMetrics& metrics) {
    if (figure.panels.empty()) throw std::invalid_argument("grid figure has no panels");
    GridLayout L;
    const bool shared = figure.sharedColorBar;
    for (const HeatmapFigure& panel : figure.panels) {
        L.panels.push_back(layoutPanel(panel, metrics, !shared));
        L.panelW = std::max(L.panelW, L.panels.back().width);
        L.panelH = std::max(L.panelH, L.panels.back().height);
    }
    if (!figure.title.empty()) { // above the panels, in the first panel's margin
        L.title = placed(metrics, figure.title, kTitlePx);
        L.title.x = kMargin, L.title.y = kMargin;
        L.top = ceilPx(metrics.lineHeight(kTitlePx)) + kTitleGap;
    }
    const int count = int(figure.panels.size());
    L.columns = std::clamp(figure.columns, 1, count);
    const int rows = (count + L.columns - 1) / L.columns;
    L.width = std::max(L.columns * L.panelW, ceilPx(L.title.width) + 2 * kMargin);
    int bottom = L.top + rows * L.panelH - kMargin; // the last panel's margin is the caption's
    if (shared) { // under the first column's grids, as wide as two of them
        const PanelLayout& first = L.panels.front();
        measureTicks(L.bar, figure.panels.front(), metrics);
        placeColorBar(
            L.bar, figure.panels.front(), metrics, first.gridLeft, bottom + kBarGap,
            std::max(std::min(2 * first.gridW, L.width - first.gridLeft - kMargin), kMinBarWidth));
        bottom = L.bar.bottom;
        L.width = std::max(L.width, ceilPx(L.bar.barLabel.x + L.bar.barLabel.width / 2) + kMargin);
    }
    L.caption = layoutCaption(figure.captionLines, metrics, bottom, L.width);
    L.height = bottom + captionHeight(L.caption, metrics) + kMargin;
    return L;
}

Origin panelOrigin(const GridLayout& L, std::size_t i) {
    return {int(i) % L.columns * L.panelW, L.top + int(i) / L.columns * L.panelH};
}

std::vector<GroupFrame> groupFrames(const GridLayout& L, const std::vector<int>& groups) {
    std::vector<GroupFrame> frames;
    const std::size_t count = std::min(groups.size(), L.panels.size());
    for (std::size_t i = 0; i < count;) {
        std::size_t j = i; // the run of group groups[i] in this row: panels [i, j]
        while (j + 1 < count && groups[j + 1] == groups[i] &&
               int(j + 1) / L.columns == int(i) / L.columns)
            ++j;
        if (groups[i] >= 0) {
            const Origin first = panelOrigin(L, i), last = panelOrigin(L, j);
            frames.push_back({first.x + kGroupInset, first.y + kGroupInsetTop,
                              last.x + L.panelW - kGroupInset, last.y + L.panelH - kGroupInset,
                              groups[i] % 2 == 0});
        }
        i = j + 1;
    }
    return frames;
}

} // namespace core::heatmaps
