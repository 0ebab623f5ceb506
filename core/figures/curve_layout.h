// Internals of the curve figures: where everything goes, computed once for the SVG writer and
// the PNG rasteriser so both draw the same figure. Sizes are scale-1 pixels (SVG user units).
#pragma once

#include "figures/curve_figure.h"
#include "figures/text_metrics.h"

#include <string>
#include <vector>

namespace core::curves {

constexpr int kMargin = 16;
constexpr float kTitlePx = 15, kAxisLabelPx = 12, kTickPx = 11, kLegendPx = 11, kCaptionPx = 12;
constexpr int kPlotW = 520, kPlotH = 300; // the axes' box, a print figure's ~1.7 aspect
constexpr int kTickLength = 4, kMinorTickLength = 2, kTickGap = 3;
constexpr int kSwatch = 22, kSwatchGap = 6, kColumnGap = 16, kLegendGap = 18;
constexpr int kMaxLegendName = 190; // longer series names are cut (with an ellipsis)
constexpr int kCaptionMaxWidth = 760;
constexpr float kLineWidth = 1.75f, kDotRadius = 2.5f, kDash = 6, kDashGap = 4;

const Rgb kTitleColor{40, 40, 45}, kLabelColor{50, 50, 55}, kTickColor{70, 70, 75},
    kCaptionColor{105, 105, 110}, kAxisColor{120, 120, 125}, kGridColor{232, 232, 236},
    kMarkerColor{110, 110, 115};

struct LegendEntry {
    PlacedText name;
    int series = 0;                 // index into figure.series
    float swatchX = 0, swatchY = 0; // left end and centre line of the sample stroke
};

struct MarkerLayout {
    float x = 0;            // plot px
    PlacedText label;       // left-aligned; empty text for none
    bool labelLeft = false; // the label sits left of the line (near the right edge)
};

struct CurveLayout {
    int width = 0, height = 0;
    PlacedText title;
    int plotLeft = 0, plotTop = 0, plotW = kPlotW, plotH = kPlotH;
    AxisTicks x, y;
    bool logY = false;
    std::vector<PlacedText> xTickLabels; // centred on their tick
    std::vector<PlacedText> yTickLabels; // right-aligned at plotLeft - tick - gap
    PlacedText xLabel;                   // centred under the plot
    PlacedText yLabel;                   // rotated 90° ccw, centred beside the plot; x its left
    std::vector<LegendEntry> legend;
    std::vector<MarkerLayout> markers;
    std::vector<PlacedText> caption;
};

// Throws std::invalid_argument for a range with min >= max (or <= 0 on the log axis).
CurveLayout layoutCurves(const CurveFigure& figure, const TextMetrics& metrics);

// Data -> plot pixels (may lie outside the plot box; callers clip).
float plotX(const CurveLayout& layout, double x);
float plotY(const CurveLayout& layout, double y);

struct PlotPoint {
    float x = 0, y = 0;
};

// The unbroken runs of a series in plot pixels, clipped to the plot box and a margin: a
// non-finite point (or y <= 0 on a log axis) ends a run, so does leaving the box. A run of
// one point is a lone point between gaps (drawn as a dot).
std::vector<std::vector<PlotPoint>> seriesRuns(const CurveLayout& layout,
                                               const CurveSeries& series);

} // namespace core::curves
