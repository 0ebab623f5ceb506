// The PNG rasteriser for curve figures, laid out by curve_layout like the SVG. As in
// figure_png.cpp every size is a scale-1 pixel times `scale`, so scale 2 is exactly twice as
// wide and tall; strokes and glyphs are drawn at the device resolution, anti-aliased.
#include "figures/curve_figure.h"

#include "figures/curve_layout.h"
#include "figures/figure_raster.h"
#include "text/utf8.h"

#include <algorithm>
#include <cmath>

namespace core {

namespace {

using namespace curves;
using namespace raster;

// Coverage of the strokes of one series, combined with max() and blended once: the joints of
// a polyline and thousands of short segments then do not darken or thicken the line.
struct StrokeMask {
    int left = 0, top = 0, width = 0, height = 0; // device pixels
    std::vector<std::uint8_t> alpha;
    int dirtyX0 = 1 << 30, dirtyY0 = 1 << 30, dirtyX1 = -1, dirtyY1 = -1;

    StrokeMask(int l, int t, int w, int h)
        : left(l), top(t), width(w), height(h), alpha(std::size_t(w) * std::size_t(h), 0) {}

    void cover(int x, int y, float coverage) {
        if (x < left || y < top || x >= left + width || y >= top + height || coverage <= 0) return;
        std::uint8_t& a = alpha[std::size_t(y - top) * std::size_t(width) + std::size_t(x - left)];
        a = std::max(a, std::uint8_t(std::lround(255 * std::min(coverage, 1.0f))));
        dirtyX0 = std::min(dirtyX0, x), dirtyY0 = std::min(dirtyY0, y);
        dirtyX1 = std::max(dirtyX1, x), dirtyY1 = std::max(dirtyY1, y);
    }

    // A round-capped segment of radius r from a to b; with dash > 0, only the stretches where
    // (arc + distance along the segment) mod (dash + gap) < dash.
    void segment(PlotPoint a, PlotPoint b, float r, float arc = 0, float dash = 0, float gap = 0);

    // Blends the covered pixels into the canvas and clears them for the next series.
    void flush(Canvas& canvas, Rgb color) {
        for (int y = dirtyY0; y <= dirtyY1; ++y)
            for (int x = dirtyX0; x <= dirtyX1; ++x) {
                std::uint8_t& a =
                    alpha[std::size_t(y - top) * std::size_t(width) + std::size_t(x - left)];
                canvas.blend(x, y, color, a);
                a = 0;
            }
        dirtyX0 = dirtyY0 = 1 << 30, dirtyX1 = dirtyY1 = -1;
    }
};

void StrokeMask::segment(PlotPoint a, PlotPoint b, float r, float arc, float dash, float gap) {
    const float dx = b.x - a.x, dy = b.y - a.y, length2 = dx * dx + dy * dy;
    const float length = std::sqrt(length2);
    // Walk the longer axis (u) and cover a band across it (v): cost ~ length x width.
    const bool steep = std::abs(dy) > std::abs(dx);
    float au = steep ? a.y : a.x, bu = steep ? b.y : b.x;
    float av = steep ? a.x : a.y, bv = steep ? b.x : b.y;
    if (au > bu) std::swap(au, bu), std::swap(av, bv);
    const float slope = bu > au ? (bv - av) / (bu - au) : 0.0f; // |slope| <= 1
    const float band = 2 * r + 2;
    const int uMin = std::max(int(std::floor(au - r - 1)), steep ? top : left);
    const int uMax = std::min(int(std::ceil(bu + r + 1)), steep ? top + height : left + width);
    for (int u = uMin; u <= uMax; ++u) {
        const float uc = float(u) + 0.5f;
        const float vc = av + slope * (std::clamp(uc, au, bu) - au);
        for (int v = int(std::floor(vc - band)); v <= int(std::ceil(vc + band)); ++v) {
            const float px = steep ? float(v) + 0.5f : uc, py = steep ? uc : float(v) + 0.5f;
            const float t =
                length2 > 0 ? std::clamp(((px - a.x) * dx + (py - a.y) * dy) / length2, 0.0f, 1.0f)
                            : 0.0f;
            if (dash > 0 && std::fmod(arc + t * length, dash + gap) >= dash) continue;
            const float ex = px - (a.x + t * dx), ey = py - (a.y + t * dy);
            const float coverage = r + 0.5f - std::sqrt(ex * ex + ey * ey);
            if (steep)
                cover(v, u, coverage);
            else
                cover(u, v, coverage);
        }
    }
}

// A crisp line one scale-1 pixel thick, centred on scale-1 coordinate c.
int device(float c, int s) {
    return int(std::lround((c - 0.5f) * float(s)));
}

void drawGrid(Canvas& canvas, const CurveLayout& L) {
    const int s = canvas.scale;
    const int left = L.plotLeft * s, top = L.plotTop * s, w = L.plotW * s, h = L.plotH * s;
    for (double v : L.y.values) canvas.fill(left, device(plotY(L, v), s), w, s, kGridColor);
    for (double v : L.x.values) canvas.fill(device(plotX(L, v), s), top, s, h, kGridColor);
}

// The left and bottom axes with their ticks, over the curves (a curve at the axis' value
// does not hide it).
void drawAxes(Canvas& canvas, const CurveLayout& L) {
    const int s = canvas.scale;
    const int left = L.plotLeft * s, top = L.plotTop * s, w = L.plotW * s, h = L.plotH * s;
    canvas.fill(device(float(L.plotLeft), s), top, s, h + s / 2, kAxisColor);
    canvas.fill(left, device(float(L.plotTop + L.plotH), s), w, s, kAxisColor);
    for (double v : L.y.values)
        canvas.fill(left - kTickLength * s, device(plotY(L, v), s), kTickLength * s, s, kAxisColor);
    for (double v : L.y.minor)
        canvas.fill(left - kMinorTickLength * s, device(plotY(L, v), s), kMinorTickLength * s, s,
                    kAxisColor);
    for (double v : L.x.values)
        canvas.fill(device(plotX(L, v), s), top + h, s, kTickLength * s, kAxisColor);
}

void drawAxisText(Canvas& canvas, const Font& font, const CurveLayout& L) {
    for (const PlacedText& t : L.yTickLabels)
        drawText(canvas, font, t, kTickPx, kTickColor, Anchor::Right);
    for (const PlacedText& t : L.xTickLabels)
        drawText(canvas, font, t, kTickPx, kTickColor, Anchor::Centre);
    drawText(canvas, font, L.xLabel, kAxisLabelPx, kLabelColor, Anchor::Centre);
    if (!L.yLabel.text.empty()) { // turned to read bottom to top, centred on the plot's height
        const int s = canvas.scale;
        const TextMask mask = renderText(font, decodeUtf8(L.yLabel.text), kAxisLabelPx * float(s));
        canvas.drawMaskRotated(mask, int(L.yLabel.x) * s,
                               int(std::lround(L.yLabel.y * float(s))) - mask.width / 2,
                               kLabelColor);
    }
}

void drawSeries(Canvas& canvas, StrokeMask& mask, const CurveLayout& L, const CurveSeries& series) {
    const float s = float(canvas.scale);
    const auto device = [s](PlotPoint p) { return PlotPoint{p.x * s, p.y * s}; };
    for (const std::vector<PlotPoint>& run : seriesRuns(L, series)) {
        if (run.size() == 1) { // a lone point: a dot, as the SVG's circle
            mask.segment(device(run[0]), device(run[0]), kDotRadius * s);
            continue;
        }
        float arc = 0;
        for (std::size_t k = 0; k + 1 < run.size(); ++k) {
            const PlotPoint a = device(run[k]), b = device(run[k + 1]);
            if (series.dashed)
                mask.segment(a, b, kLineWidth * s / 2, arc, kDash * s, kDashGap * s);
            else
                mask.segment(a, b, kLineWidth * s / 2);
            arc += std::hypot(b.x - a.x, b.y - a.y);
        }
    }
    mask.flush(canvas, series.color);
}

void drawMarkers(Canvas& canvas, const Font& font, const CurveLayout& L, bool labels) {
    const int s = canvas.scale;
    for (const MarkerLayout& m : L.markers) {
        if (!labels) { // dashed 4 on, 3 off, like the SVG
            for (int y = 0; y < L.plotH; ++y)
                if (y % 7 < 4) canvas.fill(device(m.x, s), (L.plotTop + y) * s, s, s, kMarkerColor);
            continue;
        }
        if (m.label.text.empty()) continue;
        const int x0 = int(std::lround((m.label.x - 2) * float(s))), y0 = int(m.label.y) * s;
        const int w = int(std::ceil((m.label.width + 4) * float(s)));
        const int h = int(std::ceil(lineHeight(font, kTickPx) * float(s)));
        for (int y = y0; y < y0 + h; ++y)
            for (int x = x0; x < x0 + w; ++x) canvas.blend(x, y, {255, 255, 255}, 217);
        drawText(canvas, font, m.label, kTickPx, kTickColor, Anchor::Left);
    }
}

void drawLegend(Canvas& canvas, const Font& font, const CurveLayout& L, const CurveFigure& f) {
    const float s = float(canvas.scale);
    StrokeMask mask(0, 0, canvas.image.width, canvas.image.height);
    for (const LegendEntry& e : L.legend) {
        const CurveSeries& series = f.series[std::size_t(e.series)];
        const PlotPoint a{e.swatchX * s, e.swatchY * s},
            b{(e.swatchX + kSwatch) * s, e.swatchY * s};
        const float r = (kLineWidth + 0.5f) * s / 2;
        if (series.dashed)
            mask.segment(a, b, r, 0, kDash * s, kDashGap * s);
        else
            mask.segment(a, b, r);
        mask.flush(canvas, series.color);
        drawText(canvas, font, e.name, kLegendPx, kLabelColor, Anchor::Left);
    }
}

} // namespace

Image curvePng(const CurveFigure& f, int scale) {
    checkScale(scale);
    const auto font = figureFont();
    const CurveLayout L = layoutCurves(f, fontMetrics(*font));
    Canvas canvas(L.width, L.height, scale);
    drawText(canvas, *font, L.title, kTitlePx, kTitleColor, Anchor::Left);
    drawGrid(canvas, L);
    drawMarkers(canvas, *font, L, false);
    // Strokes may reach 2 px past the box, so a line along the top of a 0..1 axis keeps its
    // full width (the SVG's clip path is as wide).
    StrokeMask plot((L.plotLeft - 2) * scale, (L.plotTop - 2) * scale, (L.plotW + 4) * scale,
                    (L.plotH + 4) * scale);
    for (const CurveSeries& series : f.series) drawSeries(canvas, plot, L, series);
    drawAxes(canvas, L);
    drawMarkers(canvas, *font, L, true);
    drawAxisText(canvas, *font, L);
    drawLegend(canvas, *font, L, f);
    for (const PlacedText& t : L.caption)
        drawText(canvas, *font, t, kCaptionPx, kCaptionColor, Anchor::Left);
    return std::move(canvas.image);
}

} // namespace core
