// Where a curve figure's parts go (scale-1 pixels), shared by the SVG and PNG writers: title,
// the plot box with its ticks and axis labels, the legend right of it or below, the caption.
#include "figures/curve_layout.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <stdexcept>

namespace core::curves {

namespace {

int ceilPx(float v) {
    return int(std::ceil(v - 1e-4f));
}

bool drawable(const CurvePoint& p, bool logY) {
    return std::isfinite(p.x) && std::isfinite(p.y) && (!logY || p.y > 0);
}

struct Extent {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    bool empty() const { return lo > hi; }
};

Extent extentOf(const CurveFigure& f, bool xAxis) {
    Extent e;
    for (const CurveSeries& s : f.series)
        for (const CurvePoint& p : s.points)
            if (drawable(p, f.logY)) {
                const double v = xAxis ? p.x : p.y;
                e.lo = std::min(e.lo, v), e.hi = std::max(e.hi, v);
            }
    return e;
}

void checkRange(const AxisRange& r, const char* axis, bool log) {
    if (!(r.min < r.max) || !std::isfinite(r.min) || !std::isfinite(r.max) || (log && r.min <= 0))
        throw std::invalid_argument(std::string("bad ") + axis + " range " + std::to_string(r.min) +
                                    " to " + std::to_string(r.max) +
                                    (log ? " (a log axis needs 0 < min < max)" : ""));
}

AxisTicks xTicks(const CurveFigure& f) {
    if (f.xRange) {
        checkRange(*f.xRange, "x", false);
        return linearTicks(f.xRange->min, f.xRange->max, 6, false);
    }
    const Extent e = extentOf(f, true);
    return e.empty() ? linearTicks(0, 1, 6, false) : linearTicks(e.lo, e.hi, 6, false);
}

AxisTicks yTicks(const CurveFigure& f) {
    if (f.yRange) {
        checkRange(*f.yRange, "y", f.logY);
        return f.logY ? logTicks(f.yRange->min, f.yRange->max, false)
                      : linearTicks(f.yRange->min, f.yRange->max, 6, false);
    }
    const Extent e = extentOf(f, false);
    if (e.empty()) return f.logY ? logTicks(1, 10, true) : linearTicks(0, 1, 6, true);
    return f.logY ? logTicks(e.lo, e.hi, true) : linearTicks(e.lo, e.hi, 6, true);
}

PlacedText placed(const TextMetrics& m, const std::string& text, float px, float maxWidth) {
    PlacedText t;
    t.text = m.cut(text, px, maxWidth);
    t.width = m.width(t.text, px);
    return t;
}

// Legend entries in columns, filled top to bottom: beside the plot (as many rows as fit its
// height) or below it (as many columns as fit its width). Returns the legend's bottom.
float layoutLegend(CurveLayout& L, const CurveFigure& f, const TextMetrics& m, float belowTop) {
    std::vector<int> shown;
    for (std::size_t i = 0; i < f.series.size(); ++i)
        if (!f.series[i].name.empty()) shown.push_back(int(i));
    if (f.legend == LegendPlacement::None || shown.empty()) return belowTop;
    const int count = int(shown.size());
    const float entryH = float(ceilPx(m.lineHeight(kLegendPx)) + 4);
    float nameW = 0;
    for (int i : shown) {
        L.legend.push_back(
            {placed(m, f.series[std::size_t(i)].name, kLegendPx, kMaxLegendName), i});
        nameW = std::max(nameW, L.legend.back().name.width);
    }
    const float columnW = float(kSwatch + kSwatchGap + ceilPx(nameW));
    const bool right = f.legend == LegendPlacement::Right;
    int rows = 0;
    if (right) {
        rows = std::max(1, int(float(L.plotH) / entryH));
    } else {
        const int columns =
            std::max(1, int((float(L.plotW + kColumnGap)) / (columnW + kColumnGap)));
        rows = (count + columns - 1) / columns;
    }
    const int columns = (count + rows - 1) / rows;
    rows = (count + columns - 1) / columns; // balanced: 16 in 2 columns is 8 + 8, not 15 + 1
    const float left = right ? float(L.plotLeft + L.plotW + kLegendGap) : float(L.plotLeft);
    const float top = right ? float(L.plotTop) : belowTop + 8;
    for (int k = 0; k < count; ++k) {
        LegendEntry& e = L.legend[std::size_t(k)];
        e.swatchX = left + float(k / rows) * (columnW + kColumnGap);
        e.name.x = e.swatchX + kSwatch + kSwatchGap;
        e.name.y = top + float(k % rows) * entryH + 2;
        e.swatchY = e.name.y + m.lineHeight(kLegendPx) / 2;
        L.width = std::max(L.width, ceilPx(e.name.x + e.name.width) + kMargin);
    }
    return right ? belowTop : top + float(rows) * entryH;
}

// Marker lines inside the plot; a label that would collide with an earlier one moves down.
void layoutMarkers(CurveLayout& L, const CurveFigure& f, const TextMetrics& m) {
    const float lineH = m.lineHeight(kTickPx) + 2;
    std::vector<float> rowsLeft(8, 1e9f), rowsRight(8, -1e9f); // label spans per stacked row
    for (const CurveMarker& marker : f.markers) {
        const float x = plotX(L, marker.x);
        if (!std::isfinite(x) || x < float(L.plotLeft) - 0.5f ||
            x > float(L.plotLeft + L.plotW) + 0.5f)
            continue;
        MarkerLayout ml{x, placed(m, marker.label, kTickPx, 160)};
        ml.labelLeft = x + 4 + ml.label.width > float(L.plotLeft + L.plotW);
        ml.label.x = ml.labelLeft ? x - 4 - ml.label.width : x + 4;
        std::size_t row = 0;
        while (row + 1 < rowsRight.size() && ml.label.x < rowsRight[row] + 6 &&
               ml.label.x + ml.label.width > rowsLeft[row] - 6)
            ++row;
        rowsLeft[row] = std::min(rowsLeft[row], ml.label.x);
        rowsRight[row] = std::max(rowsRight[row], ml.label.x + ml.label.width);
        ml.label.y = float(L.plotTop) + 3 + float(row) * lineH;
        L.markers.push_back(std::move(ml));
    }
}

// A fraction t of the axis range, clamped to a million ranges so that a wild value stays
// finite in float pixels (seriesRuns clips it away anyway).
double along(double t) {
    return std::isfinite(t) ? std::clamp(t, -1e6, 1e6) : (t > 0 ? 1e6 : -1e6);
}

} // namespace

float plotX(const CurveLayout& L, double x) {
    return float(L.plotLeft + L.plotW * along((x - L.x.min) / (L.x.max - L.x.min)));
}

float plotY(const CurveLayout& L, double y) {
    const double t = L.logY ? std::log(y / L.y.min) / std::log(L.y.max / L.y.min)
                            : (y - L.y.min) / (L.y.max - L.y.min);
    return float(L.plotTop + L.plotH - L.plotH * along(t));
}

namespace {

struct Box {
    double x0, y0, x1, y1;
};

// Liang-Barsky: the part t0..t1 of a -> b inside the box; false when none is.
bool clipSegment(PlotPoint a, PlotPoint b, const Box& box, double& t0, double& t1) {
    const double dx = double(b.x) - a.x, dy = double(b.y) - a.y;
    const double p[4] = {-dx, dx, -dy, dy};
    const double q[4] = {a.x - box.x0, box.x1 - a.x, a.y - box.y0, box.y1 - a.y};
    t0 = 0, t1 = 1;
    for (int i = 0; i < 4; ++i) {
        if (p[i] == 0) {
            if (q[i] < 0) return false;
        } else if (p[i] < 0) {
            t0 = std::max(t0, q[i] / p[i]);
        } else {
            t1 = std::min(t1, q[i] / p[i]);
        }
    }
    return t0 <= t1;
}

PlotPoint lerp(PlotPoint a, PlotPoint b, double t) {
    return {float(a.x + t * (double(b.x) - a.x)), float(a.y + t * (double(b.y) - a.y))};
}

} // namespace

std::vector<std::vector<PlotPoint>> seriesRuns(const CurveLayout& L, const CurveSeries& s) {
    // Clipped to the plot box and a margin wider than any stroke, so off-axis values (a fixed
    // range) neither draw outside nor put huge numbers in the SVG.
    const Box box{L.plotLeft - 8.0, L.plotTop - 8.0, L.plotLeft + L.plotW + 8.0,
                  L.plotTop + L.plotH + 8.0};
    std::vector<std::vector<PlotPoint>> runs;
    std::vector<PlotPoint> run;
    const auto endRun = [&] {
        if (!run.empty()) runs.push_back(std::move(run));
        run.clear();
    };
    std::optional<PlotPoint> previous, lone; // lone: drawable, no drawable neighbour yet
    const auto endLone = [&] {
        if (lone && lone->x >= box.x0 && lone->x <= box.x1 && lone->y >= box.y0 &&
            lone->y <= box.y1)
            runs.push_back({*lone});
        lone.reset();
    };
    for (const CurvePoint& p : s.points) {
        if (!drawable(p, L.logY)) {
            endLone(), endRun(), previous.reset();
            continue;
        }
        const PlotPoint q{plotX(L, p.x), plotY(L, p.y)};
        if (!previous) {
            previous = lone = q;
            continue;
        }
        lone.reset();
        double t0 = 0, t1 = 1;
        if (clipSegment(*previous, q, box, t0, t1)) {
            if (t0 > 0 || run.empty()) endRun(), run.push_back(lerp(*previous, q, t0));
            run.push_back(lerp(*previous, q, t1));
            if (t1 < 1) endRun();
        } else {
            endRun();
        }
        previous = q;
    }
    endLone(), endRun();
    return runs;
}

CurveLayout layoutCurves(const CurveFigure& f, const TextMetrics& m) {
    CurveLayout L;
    L.x = xTicks(f), L.y = yTicks(f), L.logY = f.logY;
    const float tickLine = m.lineHeight(kTickPx), labelLine = m.lineHeight(kAxisLabelPx);
    float tickW = 0;
    for (const std::string& label : L.y.labels) {
        L.yTickLabels.push_back(placed(m, label, kTickPx, 120));
        tickW = std::max(tickW, L.yTickLabels.back().width);
    }
    const int yLabelRoom = f.yLabel.empty() ? 0 : ceilPx(labelLine) + 8;
    L.plotLeft = kMargin + yLabelRoom + ceilPx(tickW) + kTickGap + kTickLength;
    L.title = placed(m, f.title, kTitlePx, kCaptionMaxWidth - 2 * kMargin);
    L.title.x = kMargin, L.title.y = kMargin;
    L.plotTop = kMargin + (f.title.empty() ? 4 : ceilPx(m.lineHeight(kTitlePx)) + 12);
    L.width = std::max(L.plotLeft + L.plotW, ceilPx(L.title.x + L.title.width)) + kMargin;
    for (std::size_t k = 0; k < L.y.values.size(); ++k) {
        PlacedText& t = L.yTickLabels[k];
        t.x = float(L.plotLeft - kTickLength - kTickGap);
        t.y = plotY(L, L.y.values[k]) - tickLine / 2;
    }
    const float tickTop = float(L.plotTop + L.plotH + kTickLength + kTickGap);
    for (std::size_t k = 0; k < L.x.values.size(); ++k) {
        L.xTickLabels.push_back(placed(m, L.x.labels[k], kTickPx, 120));
        PlacedText& t = L.xTickLabels.back();
        t.x = plotX(L, L.x.values[k]), t.y = tickTop;
        L.width = std::max(L.width, ceilPx(t.x + t.width / 2) + kMargin);
    }
    float bottom = tickTop + tickLine;
    L.xLabel = placed(m, f.xLabel, kAxisLabelPx, float(L.plotW));
    L.xLabel.x = float(L.plotLeft) + float(L.plotW) / 2, L.xLabel.y = bottom + 5;
    if (!f.xLabel.empty()) bottom += 5 + labelLine;
    L.yLabel = placed(m, f.yLabel, kAxisLabelPx, float(L.plotH));
    L.yLabel.x = kMargin, L.yLabel.y = float(L.plotTop) + float(L.plotH) / 2;
    layoutMarkers(L, f, m);
    bottom = layoutLegend(L, f, m, bottom);

    // The caption may widen a narrow figure, up to a page's column, then is cut.
    float widest = 0;
    for (const std::string& line : f.captionLines)
        widest = std::max(widest, m.width(line, kCaptionPx));
    L.width = std::max(L.width, std::min(ceilPx(widest) + 2 * kMargin, kCaptionMaxWidth));
    const float captionLine = float(ceilPx(m.lineHeight(kCaptionPx)) + 2);
    if (!f.captionLines.empty()) bottom += 12;
    for (const std::string& line : f.captionLines) {
        L.caption.push_back(placed(m, line, kCaptionPx, float(L.width - 2 * kMargin)));
        L.caption.back().x = kMargin, L.caption.back().y = bottom;
        bottom += captionLine;
    }
    L.height = ceilPx(bottom) + kMargin;
    return L;
}

} // namespace core::curves
