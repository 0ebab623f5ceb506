// PNG rasteriser for attention-map figures: cells, token labels, colour bar and caption drawn
// into an RGBA8 image with stb_truetype (implementation in libstb), no OpenGL, no display.
//
// Every layout dimension is computed once in scale-1 pixels by heatmap_layout (text measured at
// the scale-1 font sizes), as for the SVG, and then multiplied by `scale`, so a scale-2 image is
// exactly twice as wide and tall as the scale-1 one; only the glyphs are rendered at the larger
// size.
#include "figures/figure.h"

#include "figures/attention_map.h"
#include "figures/figure_raster.h"
#include "figures/heatmap_layout.h"
#include "text/utf8.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace core {

namespace {

using namespace heatmaps;
using namespace raster;

// Everything is drawn into a Canvas that may hold only a band of the image's rows: text is
// rendered only where it meets the band (glyphs are the costly part), cells row by row.

// A placed text moved by a panel's origin (scale-1 px).
PlacedText at(PlacedText t, Origin o) {
    t.x += float(o.x), t.y += float(o.y);
    return t;
}

// The cells, the white gaps between them (the seam colour under them all) and the masked
// cells' hatching.
void drawCells(Canvas& canvas, const HeatmapFigure& f, const PanelLayout& L, Origin o) {
    const int s = canvas.scale;
    if (L.seam)
        canvas.fill((o.x + L.gridLeft) * s, (o.y + L.gridTop) * s, L.gridW * s, L.gridH * s,
                    kSeamColor);
    for (int r = 0; r < f.rows; ++r) {
        const CellBox row = cellBox(L, r, 0);
        const int y0 = (o.y + row.y0) * s, y1 = (o.y + row.y1) * s;
        if (!canvas.touchesRows(y0, y1 - y0)) continue;
        for (int c = 0; c < f.cols; ++c) {
            const float v = f.values[std::size_t(r) * f.cols + c];
            const CellBox box = cellBox(L, r, c);
            const int x0 = (o.x + box.x0) * s, x1 = (o.x + box.x1) * s;
            if (v == kHiddenCell) { // left out by a pair view: blank, not masked
                canvas.fill(x0, y0, x1 - x0, y1 - y0, kHiddenColor);
            } else if (v == kMaskedCell) { // grey, hatched: the diagonals run on across cells
                for (int y = std::max(y0, canvas.top);
                     y < std::min(y1, canvas.top + canvas.image.height); ++y)
                    for (int x = x0; x < x1; ++x)
                        canvas.put(x, y, onHatch(x, y, s) ? kHatchColor : kMaskedColor);
            } else {
                canvas.fill(x0, y0, x1 - x0, y1 - y0,
                            sampleColormap(f.colormap, colorPosition(f, v)));
            }
        }
    }
    for (const DividerBox& d : pairDividers(L, f.pairStart)) // over the cells, as the window's
        canvas.fill((o.x + d.x0) * s, (o.y + d.y0) * s, (d.x1 - d.x0) * s, (d.y1 - d.y0) * s,
                    kDividerColor);
}

// Title, the head's colour, axis titles, row labels, and the column labels turned to read
// upwards. `colMaskWidths`: each column label's mask width at the drawing scale.
void drawLabels(Canvas& canvas, const Font& font, const HeatmapFigure& f, const PanelLayout& L,
                const std::vector<int>& colMaskWidths, Origin o) {
    const int s = canvas.scale;
    drawText(canvas, font, at(L.title, o), kTitlePx, kTitleColor, Anchor::Left);
    if (f.keyColor)
        canvas.fill((o.x + kMargin) * s, (o.y + L.keyTop) * s, L.keyW * s, kKeyHeight * s,
                    *f.keyColor);
    drawText(canvas, font, at(L.colAxis, o), kAxisTitlePx, kAxisTitleColor, Anchor::Left);
    drawText(canvas, font, at(L.rowAxis, o), kAxisTitlePx, kAxisTitleColor, Anchor::Right);
    for (const PlacedText& t : L.rowLabels)
        drawText(canvas, font, at(t, o), kLabelPx, kLabelColor, Anchor::Right);
    const float px = kLabelPx * float(s);
    for (std::size_t c = 0; c < L.colLabels.size(); ++c) {
        const PlacedText& t = L.colLabels[c];
        const int maskWidth = colMaskWidths[c], pad = TextMask{}.pad;
        // The text's start (mask x = pad) lands on the label's bottom row.
        const int y = int(std::lround((float(o.y) + t.y) * float(s))) - (maskWidth - 1 - pad);
        if (t.text.empty() || !canvas.touchesRows(y, maskWidth)) continue;
        canvas.drawMaskRotated(renderText(font, decodeUtf8(t.text), px),
                               int(std::lround((float(o.x) + t.x) * float(s))), y, kLabelColor);
    }
}

// The colour bar in a thin border, its ticks, their labels and what the colours mean; nothing
// for a panel without one.
void drawColorBar(Canvas& canvas, const Font& font, const HeatmapFigure& f, const PanelLayout& L,
                  Origin o) {
    if (L.barW == 0) return;
    const int s = canvas.scale;
    const int bx = (o.x + L.barLeft) * s, by = (o.y + L.barTop) * s;
    const int bw = L.barW * s, bh = kBarHeight * s;
    if (canvas.touchesRows(by - s, bh + 2 * s)) {
        canvas.fill(bx - s, by - s, bw + 2 * s, bh + 2 * s, kBarBorder);
        for (int x = 0; x < bw; ++x) {
            const float t = bw > 1 ? float(x) / float(bw - 1) : 0.0f;
            canvas.fill(bx + x, by, 1, bh, sampleColormap(f.colormap, t));
        }
    }
    for (float x : L.tickX)
        canvas.fill(int(std::lround((float(o.x) + x - 0.5f) * float(s))), by + bh + s, s,
                    kTickLength * s, kTickColor);
    for (const PlacedText& t : L.tickLabels)
        drawText(canvas, font, at(t, o), kTickPx, kTickColor, Anchor::Centre);
    drawText(canvas, font, at(L.barLabel, o), kBarLabelPx, kLabelColor, Anchor::Centre);
}

// What drawing a panel needs beyond its layout: the column labels' mask widths at the scale.
std::vector<int> columnMaskWidths(const Font& font, const PanelLayout& L, int scale) {
    std::vector<int> widths;
    for (const PlacedText& t : L.colLabels)
        widths.push_back(
            t.text.empty() ? 0 : textMaskWidth(font, decodeUtf8(t.text), kLabelPx * float(scale)));
    return widths;
}

void drawPanel(Canvas& canvas, const Font& font, const HeatmapFigure& f, const PanelLayout& L,
               const std::vector<int>& colMaskWidths, Origin o) {
    drawLabels(canvas, font, f, L, colMaskWidths, o);
    drawCells(canvas, f, L, o);
    drawColorBar(canvas, font, f, L, o);
}

void drawCaption(Canvas& canvas, const Font& font, const std::vector<PlacedText>& caption) {
    for (const PlacedText& t : caption)
        drawText(canvas, font, t, kCaptionPx, kCaptionColor, Anchor::Left);
}

// What a heatmap figure's drawing needs, laid out once for every band.
struct HeatmapPlan {
    std::shared_ptr<const Font> font;
    HeatmapLayout layout;
    std::vector<int> colMaskWidths;
};

HeatmapPlan planHeatmap(const HeatmapFigure& figure, int scale) {
    checkScale(scale);
    HeatmapPlan plan{figureFont(), {}, {}};
    plan.layout = layoutHeatmap(figure, fontMetrics(*plan.font));
    plan.colMaskWidths = columnMaskWidths(*plan.font, plan.layout.panel, scale);
    return plan;
}

void drawHeatmap(Canvas& canvas, const HeatmapFigure& figure, const HeatmapPlan& plan) {
    drawPanel(canvas, *plan.font, figure, plan.layout.panel, plan.colMaskWidths, {});
    drawCaption(canvas, *plan.font, plan.layout.caption);
}

struct GridPlan {
    std::shared_ptr<const Font> font;
    GridLayout layout;
    std::vector<std::vector<int>> colMaskWidths; // per panel
};

GridPlan planGrid(const GridFigure& figure, int scale) {
    checkScale(scale);
    GridPlan plan{figureFont(), {}, {}};
    plan.layout = layoutGrid(figure, fontMetrics(*plan.font));
    for (const PanelLayout& panel : plan.layout.panels)
        plan.colMaskWidths.push_back(columnMaskWidths(*plan.font, panel, scale));
    return plan;
}

// The frames of the panels' groups (under the panels: a tint is their background), drawn as
// the SVG strokes them: a line on the box's outer pixels.
void drawGroupFrames(Canvas& canvas, const GridFigure& figure, const GridLayout& layout) {
    const int s = canvas.scale, w = kGroupFrameWidth * s;
    for (const GroupFrame& g : groupFrames(layout, figure.panelGroups)) {
        const int x0 = g.x0 * s, y0 = g.y0 * s, x1 = g.x1 * s, y1 = g.y1 * s;
        if (g.tinted) canvas.fill(x0, y0, x1 - x0, y1 - y0, kGroupTint);
        canvas.fill(x0, y0, x1 - x0, w, kGroupFrameColor);
        canvas.fill(x0, y1 - w, x1 - x0, w, kGroupFrameColor);
        canvas.fill(x0, y0, w, y1 - y0, kGroupFrameColor);
        canvas.fill(x1 - w, y0, w, y1 - y0, kGroupFrameColor);
    }
}

void drawGrid(Canvas& canvas, const GridFigure& figure, const GridPlan& plan) {
    drawText(canvas, *plan.font, plan.layout.title, kTitlePx, kTitleColor, Anchor::Left);
    drawGroupFrames(canvas, figure, plan.layout);
    for (std::size_t i = 0; i < figure.panels.size(); ++i)
        drawPanel(canvas, *plan.font, figure.panels[i], plan.layout.panels[i],
                  plan.colMaskWidths[i], panelOrigin(plan.layout, i));
    drawColorBar(canvas, *plan.font, figure.panels.front(), plan.layout.bar, {});
    drawCaption(canvas, *plan.font, plan.layout.caption);
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
    Canvas canvas(plan.layout.width, plan.layout.height, scale);
    drawHeatmap(canvas, figure, plan);
    return std::move(canvas.image);
}

Image gridPng(const GridFigure& figure, int scale) {
    const GridPlan plan = planGrid(figure, scale);
    Canvas canvas(plan.layout.width, plan.layout.height, scale);
    drawGrid(canvas, figure, plan);
    return std::move(canvas.image);
}

PixelSize gridPngSize(const GridFigure& figure, int scale) {
    const GridPlan plan = planGrid(figure, scale);
    return {plan.layout.width * scale, plan.layout.height * scale};
}

void fitGridToPixels(GridFigure& figure, int scale, long long maxPixels) {
    const auto fits = [&] {
        const PixelSize size = gridPngSize(figure, scale);
        return (long long)size.width * size.height <= maxPixels;
    };
    if (figure.panels.empty() || fits()) return;
    // The largest cell that fits: a bisection over kMinCell..kMaxCell (a layout each).
    int lo = kMinCell, hi = kMaxCell; // lo: the answer when nothing fits
    while (lo < hi) {
        const int mid = (lo + hi + 1) / 2;
        for (HeatmapFigure& panel : figure.panels) panel.maxCell = mid;
        if (fits())
            lo = mid;
        else
            hi = mid - 1;
    }
    for (HeatmapFigure& panel : figure.panels) panel.maxCell = lo;
}

PixelSize heatmapPngSize(const HeatmapFigure& figure, int scale) {
    checkScale(scale);
    const HeatmapLayout layout = layoutHeatmap(figure, fontMetrics(*figureFont()));
    return {layout.width * scale, layout.height * scale};
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
    return encodeInBands(plan.layout.width, plan.layout.height, scale, bandBytes,
                         [&](Canvas& canvas) { drawHeatmap(canvas, figure, plan); });
}

std::vector<std::uint8_t> encodeGridPng(const GridFigure& figure, int scale,
                                        std::size_t bandBytes) {
    const GridPlan plan = planGrid(figure, scale);
    return encodeInBands(plan.layout.width, plan.layout.height, scale, bandBytes,
                         [&](Canvas& canvas) { drawGrid(canvas, figure, plan); });
}

} // namespace core
