// Line charts ("curves") as figures for slides and papers: training loss, accuracy and head
// scores against the step, one line per series, with nice ticks, a legend and a caption. The
// same model feeds the SVG writer (curve_figure_svg.cpp) and the PNG rasteriser
// (curve_figure_png.cpp); the layout both share is in curve_layout.h.
#pragma once

#include "figures/colormap.h"
#include "figures/image.h"
#include "figures/palette.h"

#include <optional>
#include <string>
#include <vector>

namespace core {

struct CurvePoint {
    double x = 0, y = 0; // a non-finite x or y (and y <= 0 on a log axis) breaks the line
};

struct CurveSeries {
    std::string name; // legend entry; XML-escaped in the SVG
    Rgb color{31, 119, 180};
    std::vector<CurvePoint> points; // in x order as drawn: a polyline, not a scatter
    bool dashed = false;            // e.g. held-out beside train in the same colour
    bool level = false; // a reference level (chance), not a measurement: a live view that dims
                        // the steps after its cursor leaves it as it is
};

// A vertical line across the plot at x, its label at the top ("drop", "step 1200").
struct CurveMarker {
    double x = 0;
    std::string label;
};

enum class LegendPlacement { Right, Below, None };

struct AxisRange {
    double min = 0, max = 1;
};

struct CurveFigure {
    std::string title;
    std::vector<std::string> captionLines; // how it was made: task, sizes, seed
    std::string xLabel = "step", yLabel;
    bool logY = false;               // base 10, decade ticks (1-2-5 inside one decade)
    std::optional<AxisRange> yRange; // fixed y axis (e.g. 0..1 for scores); else from the data
    std::optional<AxisRange> xRange; // fixed x axis; else the data's extent
    std::vector<CurveSeries> series;
    std::vector<CurveMarker> markers;
    LegendPlacement legend = LegendPlacement::Right; // wraps into columns when long
};

// ---- ticks ---------------------------------------------------------------------------------

struct AxisTicks {
    double min = 0, max = 1;         // the axis range (a nice range contains the data)
    std::vector<double> values;      // labelled ticks with grid lines, ascending, within [min, max]
    std::vector<double> minor;       // log axes: unlabelled ticks between the labelled ones
    std::vector<std::string> labels; // one per value: "0.5", "1000", "20k", "10⁻⁵"
};

// Linear ticks at 1, 2 or 5 x 10^k, about `target` of them. With `extend` the range grows
// to the ticks just outside [lo, hi] (a y axis); without it the range is [lo, hi] and the
// ticks fall inside (an x axis of steps). lo == hi is widened so there is a range.
AxisTicks linearTicks(double lo, double hi, int target = 6, bool extend = true);

// Log-10 ticks for lo, hi > 0: decades (10^k) when the range spans enough of them, else
// 1-2-5 x 10^k, else 1..9 x 10^k (the coarsest that gives a few ticks and, extended, a range
// the data fills well), else plain linear steps; `extend` snaps the range out to ticks as for
// linearTicks. Decades far from 1 are labelled 10ⁿ (superscript), the rest as plain numbers.
// Throws std::invalid_argument unless lo and hi are positive and finite.
AxisTicks logTicks(double lo, double hi, bool extend = true);

// ---- output --------------------------------------------------------------------------------

// SVG 1.1: one polyline per unbroken run of a series (a lone point is a circle), text
// elements for labels, names XML-escaped. Needs no font file.
std::string curveSvg(const CurveFigure& figure);

// Rasterised like heatmapPng (DejaVu Sans, `scale` 1..4 multiplies the resolution exactly).
// Throws std::invalid_argument for a bad scale or a bad range (min >= max, or <= 0 on a log
// axis), std::runtime_error when there is no font file.
Image curvePng(const CurveFigure& figure, int scale);

} // namespace core
