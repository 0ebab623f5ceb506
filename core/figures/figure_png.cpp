// PNG rasteriser for attention-map figures: cells, token labels, colour bar and caption drawn
// into an RGBA8 image with stb_truetype (implementation in libstb), no OpenGL, no display.
//
// Every layout dimension is computed once in scale-1 pixels (text measured at the scale-1
// font sizes) and then multiplied by `scale`, so a scale-2 image is exactly twice as wide and
// tall as the scale-1 one; only the glyphs are rendered at the larger size.
#include "figures/figure.h"

#include "figures/attention_map.h"
#include "figures/figure_raster.h"
#include "text/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace core {

namespace {

using namespace raster;

// ---- layout (scale-1 pixels) -----------------------------------------------------------------

constexpr int kMargin = 16;
constexpr float kTitlePx = 15, kLabelPx = 12, kTickPx = 11, kCaptionPx = 12;
constexpr int kTitleGap = 6;  // title -> column labels
constexpr int kKeyHeight = 3; // the head's colour bar, inside the title gap
constexpr int kLabelGap = 5;  // labels -> grid
constexpr int kBarGap = 14;   // grid -> colour bar
constexpr int kBarHeight = 12;
constexpr int kTickLength = 3;
constexpr int kCaptionGap = 10; // tick labels -> caption
constexpr int kMinBarWidth = 180;
constexpr int kMaxGrid = 640, kMaxCell = 22, kMinCell = 2;
constexpr int kSeamMinCell = 10;
constexpr int kHatchPeriod = 6;
constexpr int kCaptionMinWidth = 520; // captions may widen a narrow figure up to this width

const Rgb kTitleColor{40, 40, 45}, kLabelColor{50, 50, 55}, kTickColor{70, 70, 75},
    kCaptionColor{105, 105, 110}, kSeamColor{250, 250, 252}, kMaskedColor{205, 205, 208},
    kHatchColor{140, 140, 145}, kBarBorder{150, 150, 155};

struct Label {
    std::u32string text;
    int width = 0; // scale-1 px
};

struct PanelLayout {
    int width = 0, height = 0; // without captions: up to the tick labels + bottom margin
    std::u32string title;
    int cell = 0, rowStep = 1, colStep = 1;
    int titleTop = 0, gridLeft = 0, gridTop = 0, gridW = 0, gridH = 0;
    int keyTop = 0, keyW = 0; // the head's colour bar under the title (in the title gap)
    int barTop = 0, barW = 0, tickTop = 0, bottom = 0; // bottom: end of tick labels
    int labelLine = 0, tickLine = 0;
    std::vector<Label> rowLabels, colLabels, tickLabels;
    std::vector<int> colMaskWidths; // device px at the drawing scale: rows a column label spans
};

int cellSize(int rows, int cols) {
    const int n = std::max(1, std::max(rows, cols));
    return std::clamp(kMaxGrid / n, kMinCell, kMaxCell);
}

PanelLayout layoutPanel(const Font& font, const HeatmapFigure& f, int scale) {
    PanelLayout L;
    L.cell = cellSize(f.rows, f.cols);
    L.gridW = L.cell * f.cols;
    L.gridH = L.cell * f.rows;
    L.labelLine = ceilInt(lineHeight(font, kLabelPx));
    L.tickLine = ceilInt(lineHeight(font, kTickPx));
    // One label every k rows/columns when cells are smaller than the font.
    const int step = L.cell >= int(kLabelPx) ? 1 : ceilInt(kLabelPx / float(L.cell));
    L.rowStep = L.colStep = step;

    int rowLabelW = 0, colLabelH = 0;
    for (int r = 0; r < f.rows; ++r) {
        Label label;
        if (r % L.rowStep == 0 && r < int(f.rowLabels.size())) {
            label.text = cutToCodePoints(f.rowLabels[std::size_t(r)], std::size_t(f.rowLabelChars));
            label.width = ceilInt(textWidth(font, label.text, kLabelPx));
        }
        rowLabelW = std::max(rowLabelW, label.width);
        L.rowLabels.push_back(std::move(label));
    }
    for (int c = 0; c < f.cols; ++c) {
        Label label;
        if (c % L.colStep == 0 && c < int(f.colLabels.size())) {
            label.text = cutToCodePoints(f.colLabels[std::size_t(c)], std::size_t(f.colLabelChars));
            label.width = ceilInt(textWidth(font, label.text, kLabelPx));
        }
        colLabelH = std::max(colLabelH, label.width);
        L.colMaskWidths.push_back(
            label.text.empty() ? 0 : textMaskWidth(font, label.text, kLabelPx * float(scale)));
        L.colLabels.push_back(std::move(label));
    }
    for (int i = 0; i <= 4; ++i) {
        char buffer[32];
        std::snprintf(buffer, sizeof buffer, "%.*f", std::clamp(f.tickDecimals, 0, 6),
                      double(tickValue(f, i)));
        Label label{decodeUtf8(buffer), 0};
        label.width = ceilInt(textWidth(font, label.text, kTickPx));
        L.tickLabels.push_back(std::move(label));
    }

    L.title = cutToWidth(font, f.title, kTitlePx, float(kMaxGrid + 200));
    const int titleW = ceilInt(textWidth(font, L.title, kTitlePx));
    const int titleH = ceilInt(lineHeight(font, kTitlePx));

    L.titleTop = kMargin;
    L.keyTop = L.titleTop + titleH + 1;
    L.keyW = std::max(titleW, 24);
    const int labelsLeftRoom = rowLabelW > 0 ? rowLabelW + kLabelGap : 0;
    L.gridLeft = kMargin + std::max(labelsLeftRoom, L.tickLabels.front().width / 2 + 1);
    L.gridTop = L.titleTop + titleH + kTitleGap + (colLabelH > 0 ? colLabelH + kLabelGap : 0);
    L.barTop = L.gridTop + L.gridH + kBarGap;
    L.barW = std::max(L.gridW, kMinBarWidth);
    L.tickTop = L.barTop + kBarHeight + kTickLength + 1;
    L.bottom = L.tickTop + L.tickLine;

    const int right =
        std::max({L.gridLeft + L.gridW, L.gridLeft + L.barW + L.tickLabels.back().width / 2 + 1,
                  kMargin + titleW});
    L.width = right + kMargin;
    L.height = L.bottom + kMargin;
    return L;
}

// Caption lines cut to fit `width` (scale-1 figure width); may widen a narrow figure first.
std::vector<std::u32string> layoutCaption(const Font& font, const std::vector<std::string>& lines,
                                          int& width) {
    int widest = 0;
    for (const std::string& line : lines)
        widest = std::max(widest, ceilInt(textWidth(font, line, kCaptionPx)));
    if (widest + 2 * kMargin > width)
        width = std::max(width, std::min(widest + 2 * kMargin, kCaptionMinWidth));
    std::vector<std::u32string> cut;
    for (const std::string& line : lines)
        cut.push_back(cutToWidth(font, line, kCaptionPx, float(width - 2 * kMargin)));
    return cut;
}

int captionHeight(const Font& font, std::size_t lineCount) {
    if (lineCount == 0) return 0;
    return kCaptionGap + int(lineCount) * (ceilInt(lineHeight(font, kCaptionPx)) + 2);
}

// ---- drawing ---------------------------------------------------------------------------------
// Everything is drawn into a Canvas that may hold only a band of the image's rows: text is
// rendered only where it meets the band (glyphs are the costly part), cells row by row.

// Text with its mask's top-left corner at (x, y), device px.
void drawText(Canvas& canvas, const Font& font, const std::u32string& text, float px, int x, int y,
              Rgb color) {
    if (canvas.touchesRows(y, textMaskHeight(font, px)))
        canvas.drawMask(renderText(font, text, px), x, y, color);
}

// The cells, from the grid's top-left corner (device px).
void drawCells(Canvas& canvas, const HeatmapFigure& f, const PanelLayout& L, int left, int top) {
    const int s = canvas.scale;
    const int cellPx = L.cell * s;
    const int seam = L.cell >= kSeamMinCell ? s : 0;
    const int period = kHatchPeriod * s;
    if (seam) canvas.fill(left, top, L.gridW * s, L.gridH * s, kSeamColor);
    for (int r = 0; r < f.rows; ++r) {
        const int y0 = top + r * cellPx + (r > 0 ? seam : 0);
        const int y1 = top + (r + 1) * cellPx;
        if (!canvas.touchesRows(y0, y1 - y0)) continue;
        for (int c = 0; c < f.cols; ++c) {
            const float v = f.values[std::size_t(r) * f.cols + c];
            const int x0 = left + c * cellPx + (c > 0 ? seam : 0);
            const int x1 = left + (c + 1) * cellPx;
            if (v == kMaskedCell) { // masked: grey with diagonal hatching, continuous across cells
                for (int y = y0; y < y1; ++y)
                    for (int x = x0; x < x1; ++x)
                        canvas.put(x, y,
                                   (x + y) % period < std::max(1, s) ? kHatchColor : kMaskedColor);
            } else {
                canvas.fill(x0, y0, x1 - x0, y1 - y0,
                            sampleColormap(f.colormap, colorPosition(f, v)));
            }
        }
    }
}

// Row labels right-aligned and centred on their row; column labels rotated, reading bottom to
// top, starting just above the grid. (left, top): the grid's corner, device px.
void drawLabels(Canvas& canvas, const Font& font, const PanelLayout& L, int left, int top) {
    const int s = canvas.scale;
    const float px = kLabelPx * float(s);
    const int cellPx = L.cell * s;
    const int labelLinePx = ceilInt(lineHeight(font, px));
    const int maskHeight = textMaskHeight(font, px);
    for (int r = 0; r < int(L.rowLabels.size()); ++r) {
        const Label& label = L.rowLabels[std::size_t(r)];
        const int y = top + r * cellPx + cellPx / 2 - labelLinePx / 2;
        if (label.text.empty() || !canvas.touchesRows(y, maskHeight)) continue;
        const TextMask mask = renderText(font, label.text, px);
        const int w = ceilInt(textWidth(font, label.text, px));
        canvas.drawMask(mask, left - kLabelGap * s - w - mask.pad, y, kLabelColor);
    }
    const int bottom = top - kLabelGap * s; // text start (mask x = pad) lands here
    for (int c = 0; c < int(L.colLabels.size()); ++c) {
        const Label& label = L.colLabels[std::size_t(c)];
        const int maskWidth = L.colMaskWidths[std::size_t(c)], pad = TextMask{}.pad;
        const int y = bottom - (maskWidth - 1 - pad);
        if (label.text.empty() || !canvas.touchesRows(y, maskWidth)) continue;
        const int centre = left + c * cellPx + cellPx / 2;
        canvas.drawMaskRotated(renderText(font, label.text, px), centre - labelLinePx / 2, y,
                               kLabelColor);
    }
}

// The colour bar with a thin border from (bx, by), its ticks and their labels at tickTop.
void drawColorBar(Canvas& canvas, const Font& font, const HeatmapFigure& f, const PanelLayout& L,
                  int bx, int by, int tickTop) {
    const int s = canvas.scale;
    const int bw = L.barW * s, bh = kBarHeight * s;
    if (canvas.touchesRows(by - s, bh + 2 * s)) {
        canvas.fill(bx - s, by - s, bw + 2 * s, bh + 2 * s, kBarBorder);
        for (int x = 0; x < bw; ++x) {
            const float t = bw > 1 ? float(x) / float(bw - 1) : 0.0f;
            canvas.fill(bx + x, by, 1, bh, sampleColormap(f.colormap, t));
        }
    }
    const float px = kTickPx * float(s);
    for (int i = 0; i <= 4; ++i) {
        const int tx = bx + std::min(bw - 1, (bw * i) / 4);
        canvas.fill(tx - (s - 1) / 2, by + bh + s, s, kTickLength * s, kTickColor);
        const Label& label = L.tickLabels[std::size_t(i)];
        if (!canvas.touchesRows(tickTop, textMaskHeight(font, px))) continue;
        const TextMask mask = renderText(font, label.text, px);
        const int w = ceilInt(textWidth(font, label.text, px));
        canvas.drawMask(mask, tx - w / 2 - mask.pad, tickTop, kTickColor);
    }
}

void drawPanel(Canvas& canvas, const Font& font, const HeatmapFigure& f, const PanelLayout& L,
               int originX, int originY) {
    const int s = canvas.scale;
    const auto X = [&](int v) { return (originX + v) * s; };
    const auto Y = [&](int v) { return (originY + v) * s; };
    drawText(canvas, font, L.title, kTitlePx * float(s), X(kMargin) - s, Y(L.titleTop),
             kTitleColor);
    if (f.keyColor) canvas.fill(X(kMargin), Y(L.keyTop), L.keyW * s, kKeyHeight * s, *f.keyColor);
    drawCells(canvas, f, L, X(L.gridLeft), Y(L.gridTop));
    drawLabels(canvas, font, L, X(L.gridLeft), Y(L.gridTop));
    drawColorBar(canvas, font, f, L, X(L.gridLeft), Y(L.barTop), Y(L.tickTop));
}

void drawCaption(Canvas& canvas, const Font& font, const std::vector<std::u32string>& lines,
                 int top) {
    const int s = canvas.scale;
    const int line = ceilInt(lineHeight(font, kCaptionPx)) + 2;
    int y = top + kCaptionGap;
    for (const std::u32string& text : lines) {
        drawText(canvas, font, text, kCaptionPx * float(s), kMargin * s - s, y * s, kCaptionColor);
        y += line;
    }
}

void checkFigure(const HeatmapFigure& f) {
    if (f.rows <= 0 || f.cols <= 0) throw std::invalid_argument("figure has no cells");
    if (f.values.size() != std::size_t(f.rows) * std::size_t(f.cols))
        throw std::invalid_argument("figure values do not match rows x cols");
}

// What a heatmap figure's drawing needs, laid out once for every band.
struct HeatmapPlan {
    std::shared_ptr<const Font> font;
    PanelLayout layout;
    std::vector<std::u32string> caption;
    int width = 0, height = 0; // scale-1 px
};

HeatmapPlan planHeatmap(const HeatmapFigure& figure, int scale) {
    checkScale(scale);
    checkFigure(figure);
    HeatmapPlan plan{figureFont(), {}, {}, 0, 0};
    plan.layout = layoutPanel(*plan.font, figure, scale);
    plan.width = plan.layout.width;
    plan.caption = layoutCaption(*plan.font, figure.captionLines, plan.width);
    plan.height = plan.layout.bottom + captionHeight(*plan.font, plan.caption.size()) + kMargin;
    return plan;
}

void drawHeatmap(Canvas& canvas, const HeatmapFigure& figure, const HeatmapPlan& plan) {
    drawPanel(canvas, *plan.font, figure, plan.layout, 0, 0);
    drawCaption(canvas, *plan.font, plan.caption, plan.layout.bottom);
}

struct GridPlan {
    std::shared_ptr<const Font> font;
    std::vector<PanelLayout> layouts;
    int panelW = 0, panelH = 0, columns = 1, gridBottom = 0;
    std::vector<std::u32string> caption;
    int width = 0, height = 0; // scale-1 px
};

GridPlan planGrid(const GridFigure& figure, int scale) {
    checkScale(scale);
    if (figure.panels.empty()) throw std::invalid_argument("grid figure has no panels");
    for (const HeatmapFigure& panel : figure.panels) checkFigure(panel);
    GridPlan plan;
    plan.font = figureFont();
    for (const HeatmapFigure& panel : figure.panels) {
        plan.layouts.push_back(layoutPanel(*plan.font, panel, scale));
        plan.panelW = std::max(plan.panelW, plan.layouts.back().width);
        plan.panelH = std::max(plan.panelH, plan.layouts.back().height);
    }
    const int count = int(figure.panels.size());
    plan.columns = std::clamp(figure.columns, 1, count);
    const int rows = (count + plan.columns - 1) / plan.columns;
    plan.width = plan.columns * plan.panelW;
    plan.gridBottom = rows * plan.panelH - kMargin; // last panel's margin doubles as caption's
    plan.caption = layoutCaption(*plan.font, figure.captionLines, plan.width);
    plan.height = plan.gridBottom + captionHeight(*plan.font, plan.caption.size()) + kMargin;
    return plan;
}

void drawGrid(Canvas& canvas, const GridFigure& figure, const GridPlan& plan) {
    for (std::size_t i = 0; i < figure.panels.size(); ++i)
        drawPanel(canvas, *plan.font, figure.panels[i], plan.layouts[i],
                  int(i) % plan.columns * plan.panelW, int(i) / plan.columns * plan.panelH);
    drawCaption(canvas, *plan.font, plan.caption, plan.gridBottom);
}

// Draws the image band by band, each band encoded before the next is drawn. RGB: a Canvas
// draws opaque pixels only.
template <class Draw>
std::vector<std::uint8_t> encodeInBands(int width, int height, int scale, std::size_t bandBytes,
                                        const Draw& draw) {
    std::vector<std::uint8_t> png;
    PngEncoder encoder(width * scale, height * scale, false,
                       [&png](const std::uint8_t* bytes, std::size_t size) {
                           png.insert(png.end(), bytes, bytes + size);
                       });
    const std::size_t rowBytes = std::size_t(width) * std::size_t(scale) * 4;
    const int bandRows = int(std::clamp<std::size_t>(bandBytes / rowBytes, 1, 1 << 30));
    Canvas canvas(width, height, scale, bandRows);
    for (int top = 0; top < canvas.fullHeight; top += bandRows) {
        canvas.setBand(top);
        draw(canvas);
        encoder.addRows(canvas.image.rgba.data(), canvas.image.height);
    }
    encoder.finish();
    return png;
}

} // namespace

Image heatmapPng(const HeatmapFigure& figure, int scale) {
    const HeatmapPlan plan = planHeatmap(figure, scale);
    Canvas canvas(plan.width, plan.height, scale);
    drawHeatmap(canvas, figure, plan);
    return std::move(canvas.image);
}

Image gridPng(const GridFigure& figure, int scale) {
    const GridPlan plan = planGrid(figure, scale);
    Canvas canvas(plan.width, plan.height, scale);
    drawGrid(canvas, figure, plan);
    return std::move(canvas.image);
}

PixelSize gridPngSize(const GridFigure& figure, int scale) {
    const GridPlan plan = planGrid(figure, scale);
    return {plan.width * scale, plan.height * scale};
}

int fittingGridScale(const GridFigure& figure, int scale) {
    for (; scale > 1; --scale) {
        const PixelSize size = gridPngSize(figure, scale);
        if (size.width <= kMaxPngSide && size.height <= kMaxPngSide) break;
    }
    return std::max(scale, 1);
}

std::vector<std::uint8_t> encodeHeatmapPng(const HeatmapFigure& figure, int scale,
                                           std::size_t bandBytes) {
    const HeatmapPlan plan = planHeatmap(figure, scale);
    return encodeInBands(plan.width, plan.height, scale, bandBytes,
                         [&](Canvas& canvas) { drawHeatmap(canvas, figure, plan); });
}

std::vector<std::uint8_t> encodeGridPng(const GridFigure& figure, int scale,
                                        std::size_t bandBytes) {
    const GridPlan plan = planGrid(figure, scale);
    return encodeInBands(plan.width, plan.height, scale, bandBytes,
                         [&](Canvas& canvas) { drawGrid(canvas, figure, plan); });
}

} // namespace core
