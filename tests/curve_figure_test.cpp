// Curve figures (core/figures/curve_figure.h): ticks, palette, the SVG writer and the PNG
// rasteriser, on figures built by hand; and demo figures written to /tmp for a human to look at.
//
// [SECTION] Ticks: 1-2-5 steps, log decades
// [SECTION] Palette
// [SECTION] SVG: polylines, gaps, legend, escaping, ranges
// [SECTION] PNG: size, where the series' pixels are, dashes, legend placement, demo figures
#include "figures/curve_figure.h"

#include "figures/colormap.h"
#include "figures/image.h"
#include "io/atomic_file.h"
#include "thrown_message.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using testing_support::thrownMessage;

namespace {

using core::CurveFigure;
using core::CurvePoint;
using core::CurveSeries;
using core::Image;
using core::Rgb;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// "L{l}H{h}" (appends: GCC 12 warns, a false positive, on "L" + std::string).
std::string headName(int layer, int head) {
    return std::string("L").append(std::to_string(layer)).append("H").append(std::to_string(head));
}

// [SECTION] Ticks: 1-2-5 steps, log decades

// The step between ticks is 1, 2 or 5 times a power of ten.
bool isOneTwoFive(double step) {
    const double mantissa = step / std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    for (double m : {1.0, 2.0, 5.0})
        if (std::abs(mantissa - m) < 1e-6) return true;
    return false;
}

TEST(CurveTicks, LossRangeGetsHalfSteps) {
    const core::AxisTicks t = core::linearTicks(1.2, 3.4);
    EXPECT_DOUBLE_EQ(t.min, 1.0);
    EXPECT_DOUBLE_EQ(t.max, 3.5);
    ASSERT_EQ(t.values.size(), 6u);
    EXPECT_EQ(t.labels, (std::vector<std::string>{"1.0", "1.5", "2.0", "2.5", "3.0", "3.5"}));
}

TEST(CurveTicks, StepsAxisKeepsItsRangeAndLabelsThousands) {
    const core::AxisTicks steps = core::linearTicks(0, 3000, 6, false);
    EXPECT_EQ(steps.min, 0);
    EXPECT_EQ(steps.max, 3000);
    EXPECT_EQ(steps.labels,
              (std::vector<std::string>{"0", "500", "1000", "1500", "2000", "2500", "3000"}));
    const core::AxisTicks inside = core::linearTicks(0, 2990, 6, false);
    EXPECT_EQ(inside.max, 2990); // not extended: the last tick falls inside
    EXPECT_EQ(inside.values.back(), 2500);
    const core::AxisTicks long_ = core::linearTicks(0, 30000, 6, false);
    EXPECT_EQ(long_.labels.back(), "30k");
    EXPECT_EQ(long_.labels[1], "5k");
    EXPECT_EQ(long_.labels[0], "0");
}

TEST(CurveTicks, EveryRangeGetsOneTwoFiveStepsAroundIt) {
    const double ranges[][2] = {{0, 1},       {0.013, 0.087}, {-3.2, 7.9}, {1e-5, 3e-5},
                                {100, 100.5}, {0, 123456},    {-1, -0.2},  {2.5, 2.5}};
    for (const auto& r : ranges) {
        const core::AxisTicks t = core::linearTicks(r[0], r[1]);
        SCOPED_TRACE(std::to_string(r[0]) + " .. " + std::to_string(r[1]));
        ASSERT_GE(t.values.size(), 3u);
        EXPECT_LE(t.values.size(), 7u);
        EXPECT_EQ(t.labels.size(), t.values.size());
        EXPECT_LE(t.min, r[0]);
        EXPECT_GE(t.max, r[1]);
        EXPECT_LT(t.min, t.max);
        const double step = t.values[1] - t.values[0];
        EXPECT_TRUE(isOneTwoFive(step)) << step;
        for (std::size_t k = 1; k < t.values.size(); ++k)
            EXPECT_NEAR(t.values[k] - t.values[k - 1], step, step * 1e-6);
        EXPECT_DOUBLE_EQ(t.values.front(), t.min); // extended: the range ends on ticks
        EXPECT_DOUBLE_EQ(t.values.back(), t.max);
    }
    EXPECT_EQ(core::linearTicks(-1, -0.2).labels.front(), "-1.0");
    EXPECT_EQ(core::linearTicks(-0.4, 0.4).labels[2], "0.0"); // not "-0.0"
}

TEST(CurveTicks, LogAxisOverDecadesTicksEveryDecade) {
    const core::AxisTicks t = core::logTicks(0.05, 3.4);
    EXPECT_DOUBLE_EQ(t.min, 0.01);
    EXPECT_DOUBLE_EQ(t.max, 10);
    EXPECT_EQ(t.labels, (std::vector<std::string>{"0.01", "0.1", "1", "10"}));
    EXPECT_EQ(t.minor.size(), 3u * 8u); // 2..9 in each of the three decades
    EXPECT_NEAR(t.minor.front(), 0.02, 1e-12);
}

TEST(CurveTicks, LogAxisInsideADecadeUsesOneTwoFiveOrEveryDigit) {
    const core::AxisTicks t = core::logTicks(0.8, 3.4);
    EXPECT_DOUBLE_EQ(t.min, 0.5);
    EXPECT_DOUBLE_EQ(t.max, 5);
    EXPECT_EQ(t.labels, (std::vector<std::string>{"0.5", "1", "2", "5"}));
    EXPECT_EQ(t.minor.size(), 6u); // 0.6 .. 0.9, 3, 4
    const core::AxisTicks oneDecade = core::logTicks(0.3, 3);
    EXPECT_EQ(oneDecade.labels, (std::vector<std::string>{"0.2", "0.5", "1", "2", "5"}));
    const core::AxisTicks twoDecades = core::logTicks(0.1, 10, false); // "0.1, 1, 10" is too few
    EXPECT_EQ(twoDecades.labels,
              (std::vector<std::string>{"0.1", "0.2", "0.5", "1", "2", "5", "10"}));
    const core::AxisTicks narrow = core::logTicks(1.2, 3.4); // 1, 2, 5 would say little
    EXPECT_DOUBLE_EQ(narrow.max, 4);
    EXPECT_EQ(narrow.labels, (std::vector<std::string>{"1", "2", "3", "4"}));
    const core::AxisTicks tiny = core::logTicks(2.1, 2.4); // not even 1..9: plain steps
    EXPECT_GE(tiny.values.size(), 2u);
    EXPECT_GT(tiny.min, 0);
    EXPECT_LE(tiny.min, 2.1);
    EXPECT_GE(tiny.max, 2.4);
}

TEST(CurveTicks, LogAxisOverManyDecadesLabelsFewOfThem) {
    const core::AxisTicks t = core::logTicks(1e-8, 1e8);
    EXPECT_LE(t.values.size(), 9u);
    EXPECT_GE(t.values.size(), 4u);
    for (double v : t.values) EXPECT_NEAR(std::log10(v), std::round(std::log10(v)), 1e-9);
    EXPECT_EQ(t.labels.front(), "10\xE2\x81\xBB\xE2\x81\xB8"); // 10⁻⁸, like every label here
    EXPECT_EQ(t.labels[t.labels.size() / 2], "10\xE2\x81\xB0");
    EXPECT_EQ(t.labels.back(), "10\xE2\x81\xB8");
    // Decades near 1 stay plain numbers; the ends are labelled when the range is extended.
    EXPECT_EQ(core::logTicks(0.002, 300).labels,
              (std::vector<std::string>{"0.001", "0.01", "0.1", "1", "10", "100", "1000"}));
}

TEST(CurveTicks, LogAxisWithoutExtendKeepsTheRange) {
    const core::AxisTicks t = core::logTicks(0.3, 30, false);
    EXPECT_DOUBLE_EQ(t.min, 0.3);
    EXPECT_DOUBLE_EQ(t.max, 30);
    for (double v : t.values) {
        EXPECT_GE(v, 0.3);
        EXPECT_LE(v, 30);
    }
}

TEST(CurveTicks, LogAxisNeedsPositiveValues) {
    EXPECT_FALSE(thrownMessage([] { core::logTicks(0, 1); }).empty());
    EXPECT_FALSE(thrownMessage([] { core::logTicks(-1, 1); }).empty());
}

// [SECTION] Palette

std::tuple<int, int, int> rgb(Rgb c) {
    return {c.r, c.g, c.b};
}

TEST(CurvePalette, ColoursAreDistinctAndStable) {
    const std::vector<Rgb> palette = core::headPalette(48);
    std::set<std::tuple<int, int, int>> seen;
    for (int i = 0; i < 48; ++i) {
        EXPECT_TRUE(seen.insert(rgb(palette[std::size_t(i)])).second) << i;
        EXPECT_EQ(rgb(core::seriesColor(i)), rgb(palette[std::size_t(i)]));
        // Lines on white paper: no colour as light as the grid.
        const Rgb c = palette[std::size_t(i)];
        EXPECT_LT(0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b, 200) << i;
    }
    EXPECT_EQ(rgb(core::seriesColor(0)), rgb(Rgb{31, 119, 180})); // Tableau blue, as LineFigure
    EXPECT_EQ(rgb(core::headColor(1, 2, 4)), rgb(core::seriesColor(6)));
    EXPECT_EQ(rgb(core::headColor(0, 3, 8)), rgb(core::seriesColor(3)));
}

// [SECTION] SVG: polylines, gaps, legend, escaping, ranges

CurveFigure lossFigure() {
    CurveFigure f;
    f.title = "induction task: loss";
    f.captionLines = {"2 layers, d_model 64, H 4, Adam lr 0.001, seed 1"};
    f.yLabel = "loss";
    CurveSeries train{"train", core::seriesColor(0), {}, false};
    CurveSeries heldout{"held-out", core::seriesColor(1), {}, true};
    for (int step = 0; step <= 3000; step += 100) {
        const double loss = 1.2 + 2.2 / (1 + std::exp((step - 600) / 40.0));
        train.points.push_back({double(step), loss * (1 + 0.03 * std::sin(step))});
        heldout.points.push_back({double(step), loss + 0.05});
    }
    f.series = {train, heldout};
    f.markers = {{600, "drop"}};
    return f;
}

struct Polyline {
    std::string color;
    std::vector<std::pair<double, double>> points;
};

std::vector<Polyline> polylines(const std::string& svg) {
    std::vector<Polyline> out;
    const std::regex element("<polyline[^>]*stroke=\"(#[0-9a-f]{6})\"[^>]*points=\"([^\"]*)\"");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element);
         it != std::sregex_iterator(); ++it) {
        Polyline p{(*it)[1], {}};
        std::istringstream in((*it)[2].str());
        for (std::string pair; in >> pair;) {
            const auto comma = pair.find(',');
            p.points.push_back(
                {std::stod(pair.substr(0, comma)), std::stod(pair.substr(comma + 1))});
        }
        out.push_back(p);
    }
    return out;
}

std::size_t count(const std::string& text, const std::string& what) {
    std::size_t n = 0;
    for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
    return n;
}

TEST(CurveSvg, EachSeriesIsAPolylineWithEveryPoint) {
    const std::string svg = core::curveSvg(lossFigure());
    const std::vector<Polyline> lines = polylines(svg);
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].color, "#1f77b4");
    EXPECT_EQ(lines[0].points.size(), 31u);
    EXPECT_EQ(lines[1].points.size(), 31u);
    EXPECT_EQ(count(svg, "stroke-dasharray=\"6 4\""), 2u); // held-out's line and legend sample
    // x grows left to right; the loss falls, so y (down the page) grows.
    EXPECT_LT(lines[1].points.front().first, lines[1].points.back().first);
    EXPECT_LT(lines[1].points.front().second, lines[1].points.back().second);
    EXPECT_NE(svg.find(">induction task: loss</text>"), std::string::npos);
    EXPECT_NE(svg.find(">2 layers, d_model 64, H 4, Adam lr 0.001, seed 1</text>"),
              std::string::npos);
    EXPECT_NE(svg.find(">drop</text>"), std::string::npos);
    EXPECT_NE(svg.find(">step</text>"), std::string::npos);
    EXPECT_NE(svg.find("rotate(-90"), std::string::npos); // the y label
    EXPECT_EQ(svg.rfind("</svg>\n"), svg.size() - 7);
}

TEST(CurveSvg, NonFinitePointsSplitTheLine) {
    CurveFigure f;
    f.series = {
        {"gappy", Rgb{200, 0, 0}, {{0, 1}, {1, 2}, {2, kNaN}, {3, 3}, {4, 2}, {5, 1}}, false},
        {"lone", Rgb{0, 0, 200}, {{0, 0.5}, {1, kNaN}, {2, 1.5}, {3, 1.2}}, false},
        {"inf x", Rgb{0, 200, 0}, {{0, 1}, {INFINITY, 1}, {2, 1}, {3, 1}}, false}};
    const std::string svg = core::curveSvg(f);
    const std::vector<Polyline> lines = polylines(svg);
    ASSERT_EQ(lines.size(), 4u);
    EXPECT_EQ(lines[0].points.size(), 2u);
    EXPECT_EQ(lines[1].points.size(), 3u);
    EXPECT_EQ(lines[2].points.size(), 2u); // "lone" after its gap
    EXPECT_EQ(lines[3].points.size(), 2u); // "inf x" after its gap
    // The lone points before the gaps are dots, not zero-length lines.
    EXPECT_EQ(count(svg, "<circle"), 2u);
    const std::regex numbersOnly("points=\"[0-9., ]*\"");
    const std::regex anyPoints("points=\"[^\"]*\"");
    EXPECT_EQ(std::distance(std::sregex_iterator(svg.begin(), svg.end(), numbersOnly), {}),
              std::distance(std::sregex_iterator(svg.begin(), svg.end(), anyPoints), {}));
}

TEST(CurveSvg, LogAxisBreaksAtValuesItCannotShow) {
    CurveFigure f;
    f.logY = true;
    f.series = {{"loss", Rgb{200, 0, 0}, {{0, 3}, {1, 1}, {2, 0}, {3, 0.5}, {4, 0.2}}, false}};
    const std::vector<Polyline> lines = polylines(core::curveSvg(f));
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0].points.size(), 2u);
    EXPECT_EQ(lines[1].points.size(), 2u);
}

TEST(CurveSvg, LegendNamesEverySeriesEscaped) {
    CurveFigure f;
    f.series = {{"L1H1 <prev> & \"tok\"", Rgb{1, 2, 3}, {{0, 0}, {1, 1}}, false},
                {"", Rgb{4, 5, 6}, {{0, 1}, {1, 0}}, false}, // unnamed: no legend entry
                {"caf\xC3\xA9 \xFF", Rgb{7, 8, 9}, {{0, 0.5}, {1, 0.5}}, false}};
    f.title = "a < b";
    const std::string svg = core::curveSvg(f);
    EXPECT_NE(svg.find(">L1H1 &lt;prev&gt; &amp; &quot;tok&quot;</text>"), std::string::npos);
    EXPECT_NE(svg.find("<title>L1H1 &lt;prev&gt; &amp; &quot;tok&quot;</title>"),
              std::string::npos);
    EXPECT_EQ(svg.find("<prev>"), std::string::npos);
    EXPECT_NE(svg.find(">a &lt; b</text>"), std::string::npos);
    EXPECT_NE(svg.find(">caf\xC3\xA9 \xEF\xBF\xBD</text>"), std::string::npos); // valid UTF-8
    // Legend samples: one line in each named series' colour outside the plot's clip group.
    EXPECT_EQ(count(svg, "stroke=\"#010203\""), 2u); // polyline + legend sample
    EXPECT_EQ(count(svg, "stroke=\"#040506\""), 1u); // polyline only
}

TEST(CurveSvg, SixteenHeadsFitBesideThePlotAndManyWrapIntoColumns) {
    const auto figureOf = [](int n, core::LegendPlacement placement) {
        CurveFigure f;
        f.legend = placement;
        for (int i = 0; i < n; ++i)
            f.series.push_back({headName(i / 8 + 1, i % 8 + 1),
                                core::headColor(i / 8, i % 8, 8),
                                {{0, 0.1 * i}, {1, 0.05 * i}},
                                false});
        return f;
    };
    const std::regex legendText("<text x=\"([0-9.]+)\"[^>]*>L[0-9]H[0-9]</text>");
    const auto legendColumns = [&](const std::string& svg) {
        std::set<std::string> xs;
        for (auto it = std::sregex_iterator(svg.begin(), svg.end(), legendText);
             it != std::sregex_iterator(); ++it)
            xs.insert((*it)[1]);
        return xs.size();
    };
    const std::string one = core::curveSvg(figureOf(1, core::LegendPlacement::Right));
    const std::string sixteen = core::curveSvg(figureOf(16, core::LegendPlacement::Right));
    const std::string many = core::curveSvg(figureOf(40, core::LegendPlacement::Right));
    EXPECT_EQ(legendColumns(sixteen), 1u);
    EXPECT_GE(legendColumns(many), 2u);
    EXPECT_EQ(count(sixteen, "<polyline"), 16u);
    const auto height = [](const std::string& svg) {
        std::smatch m;
        std::regex_search(svg, m, std::regex("height=\"([0-9]+)\""));
        return std::stoi(m[1]);
    };
    EXPECT_EQ(height(sixteen), height(one)); // beside the plot, no taller
    const std::string below = core::curveSvg(figureOf(16, core::LegendPlacement::Below));
    EXPECT_GT(height(below), height(one));
    EXPECT_GE(legendColumns(below), 2u);
    EXPECT_EQ(count(core::curveSvg(figureOf(16, core::LegendPlacement::None)), ">L1H1</text>"), 0u);
}

TEST(CurveSvg, FixedRangeClipsOutsideValues) {
    CurveFigure f;
    f.yRange = core::AxisRange{0, 1};
    f.series = {{"s", Rgb{200, 0, 0}, {{0, 0.5}, {1, 1e30}, {2, 0.5}, {3, -7}}, false}};
    const std::string svg = core::curveSvg(f);
    for (const Polyline& line : polylines(svg))
        for (const auto& [x, y] : line.points) {
            EXPECT_GT(y, 0);
            EXPECT_LT(y, 400);
        }
    EXPECT_EQ(svg.find("e+"), std::string::npos);
}

TEST(CurveSvg, BadRangesAreErrors) {
    CurveFigure f;
    f.yRange = core::AxisRange{1, 1};
    EXPECT_NE(thrownMessage([&] { core::curveSvg(f); }).find("bad y range"), std::string::npos);
    f.yRange = core::AxisRange{0, 1};
    f.logY = true;
    EXPECT_NE(thrownMessage([&] { core::curveSvg(f); }).find("log axis"), std::string::npos);
    f.logY = false;
    f.xRange = core::AxisRange{5, 2};
    EXPECT_NE(thrownMessage([&] { core::curveSvg(f); }).find("bad x range"), std::string::npos);
}

TEST(CurveSvg, EmptyFigureStillDrawsAxes) {
    const std::string svg = core::curveSvg(CurveFigure{});
    EXPECT_EQ(count(svg, "<polyline"), 0u);
    EXPECT_GT(count(svg, "<line"), 4u);
}

// [SECTION] PNG: size, where the series' pixels are, dashes, legend placement, demo figures

std::tuple<int, int, int> pixel(const Image& image, int x, int y) {
    const std::uint8_t* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
    return {p[0], p[1], p[2]};
}

Image render(const CurveFigure& f, int scale = 1) {
    Image image;
    EXPECT_EQ(thrownMessage([&] { image = core::curvePng(f, scale); }), "");
    EXPECT_EQ(image.rgba.size(), std::size_t(image.width) * image.height * 4);
    return image;
}

// The plot box as the image shows it: the bottom axis is the longest run of the axis colour
// in a row, the left axis the longest in a column.
struct PlotBox {
    int left = 0, right = 0, top = 0, bottom = 0;
};

PlotBox findPlot(const Image& image) {
    const std::tuple<int, int, int> axis{120, 120, 125};
    PlotBox box;  // left and top from the left axis, right and bottom from the bottom one
    int best = 0; // (the ticks at the ends lengthen the other ends of those runs)
    for (int y = 0; y < image.height; ++y)
        for (int x = 0, run = 0; x < image.width; ++x) {
            run = pixel(image, x, y) == axis ? run + 1 : 0;
            if (run > best) best = run, box.bottom = y, box.right = x;
        }
    best = 0;
    for (int x = 0; x < image.width; ++x)
        for (int y = 0, run = 0; y < image.height; ++y) {
            run = pixel(image, x, y) == axis ? run + 1 : 0;
            if (run > best) best = run, box.top = y - run + 1, box.left = x;
        }
    return box;
}

// Whether colour c is in the column x between rows y0 and y1: at least 3/4 of a pixel
// covered (a 1.75 px line on a pixel boundary covers no pixel fully).
bool columnHas(const Image& image, int x, int y0, int y1, std::tuple<int, int, int> c) {
    const auto [r, g, b] = c;
    for (int y = std::max(0, y0); y <= std::min(image.height - 1, y1); ++y) {
        const auto [pr, pg, pb] = pixel(image, x, y);
        if (std::abs(pr - r) < 64 && std::abs(pg - g) < 64 && std::abs(pb - b) < 64) return true;
    }
    return false;
}

CurveFigure knownFigure() {
    CurveFigure f;
    f.title = "known points";
    f.xRange = core::AxisRange{0, 10};
    f.yRange = core::AxisRange{0, 1};
    f.series = {{"rising", Rgb{200, 0, 0}, {{1, 0.1}, {9, 0.9}}, false}, // clear of the axes
                {"flat with a gap",
                 Rgb{0, 0, 200},
                 {{2, 0.25}, {4, 0.25}, {5, kNaN}, {6, 0.25}, {8, 0.25}},
                 false}};
    return f;
}

TEST(CurvePng, ScaleTwoDoublesTheSizeExactly) {
    for (const CurveFigure& f : {lossFigure(), knownFigure(), CurveFigure{}}) {
        const Image one = render(f, 1), two = render(f, 2), four = render(f, 4);
        EXPECT_GT(one.width, 500);
        EXPECT_GT(one.height, 300);
        EXPECT_EQ(two.width, 2 * one.width);
        EXPECT_EQ(two.height, 2 * one.height);
        EXPECT_EQ(four.width, 4 * one.width);
        EXPECT_EQ(four.height, 4 * one.height);
    }
}

TEST(CurvePng, BadScaleIsAnError) {
    for (int scale : {0, 5})
        EXPECT_EQ(thrownMessage([&] { core::curvePng(knownFigure(), scale); }),
                  "export scale must be 1 to 4");
}

TEST(CurvePng, SeriesColourLiesWhereItsPointsAre) {
    for (int scale : {1, 3}) {
        SCOPED_TRACE(scale);
        const Image image = render(knownFigure(), scale);
        const PlotBox box = findPlot(image);
        const int w = box.right - box.left, h = box.bottom - box.top;
        ASSERT_NEAR(w, 520 * scale, 2 * scale);
        ASSERT_NEAR(h, 300 * scale, 2 * scale);
        const auto at = [&](double x, double y) {
            return std::pair<int, int>{int(std::lround(box.left + w * x / 10)),
                                       int(std::lround(box.bottom - h * y))};
        };
        const std::tuple<int, int, int> red{200, 0, 0}, blue{0, 0, 200};
        for (double x : {1.5, 5.0, 7.5}) { // the rising line (not where it crosses the flat one)
            const auto [px, py] = at(x, x / 10);
            EXPECT_TRUE(columnHas(image, px, py - scale, py + scale, red)) << x;
        }
        for (double x : {3.0, 7.0}) { // the flat line on both sides of its gap
            const auto [px, py] = at(x, 0.25);
            EXPECT_TRUE(columnHas(image, px, py - scale, py + scale, blue)) << x;
        }
        for (double x : {1.0, 5.0, 9.0}) { // before it starts, in the gap, after it ends
            const auto [px, py] = at(x, 0.25);
            EXPECT_FALSE(columnHas(image, px, box.top, box.bottom, blue)) << x;
        }
        // The legend, right of the plot, holds both colours.
        bool redRight = false, blueRight = false;
        for (int x = box.right + 4; x < image.width; ++x) {
            redRight = redRight || columnHas(image, x, box.top, box.bottom, red);
            blueRight = blueRight || columnHas(image, x, box.top, box.bottom, blue);
        }
        EXPECT_TRUE(redRight);
        EXPECT_TRUE(blueRight);
    }
}

TEST(CurvePng, LineAtTheTopOfTheRangeKeepsItsWidth) {
    CurveFigure f;
    f.yRange = core::AxisRange{0, 1};
    f.legend = core::LegendPlacement::None;
    f.series = {{"", Rgb{200, 0, 0}, {{0, 1}, {1, 1}}, false}};
    const Image image = render(f, 2);
    const PlotBox box = findPlot(image);
    const int x = (box.left + box.right) / 2;
    int rows = 0; // fully red rows around the top edge
    for (int y = box.top - 6; y <= box.top + 6; ++y)
        rows += pixel(image, x, y) == std::tuple{200, 0, 0};
    EXPECT_GE(rows, 2); // 1.75 px at scale 2: not halved by the clip
}

TEST(CurvePng, DashedSeriesHasGaps) {
    CurveFigure f;
    f.legend = core::LegendPlacement::None;
    f.yRange = core::AxisRange{0, 3}; // lines at 1 and 2, clear of the axes
    f.series = {{"", Rgb{200, 0, 0}, {{0, 1}, {1, 1}}, true},
                {"", Rgb{0, 0, 200}, {{0, 2}, {1, 2}}, false}};
    const Image image = render(f);
    const PlotBox box = findPlot(image);
    const int third = (box.bottom - box.top) / 3;
    int red = 0, blue = 0;
    for (int x = box.left + 10; x < box.right - 10; ++x) {
        red += columnHas(image, x, box.bottom - third - 3, box.bottom - third + 3, {200, 0, 0});
        blue += columnHas(image, x, box.top + third - 3, box.top + third + 3, {0, 0, 200});
    }
    const int span = box.right - box.left - 20;
    EXPECT_EQ(blue, span);
    EXPECT_GT(red, span / 3);
    EXPECT_LT(red, span * 4 / 5); // dash 6, gap 4
}

TEST(CurvePng, MarkerLabelAndLegendBelow) {
    CurveFigure f = lossFigure();
    f.legend = core::LegendPlacement::Below;
    const Image image = render(f);
    const PlotBox box = findPlot(image);
    // The legend's samples are below the plot now, none beside it.
    const std::tuple<int, int, int> blue = rgb(core::seriesColor(0));
    bool below = false, beside = false;
    for (int y = box.bottom + 8; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x) below = below || pixel(image, x, y) == blue;
    for (int x = box.right + 8; x < image.width; ++x)
        beside = beside || columnHas(image, x, 0, image.height - 1, blue);
    EXPECT_TRUE(below);
    EXPECT_FALSE(beside);
}

TEST(CurvePng, OddNamesAndManySeriesDoNotBreakRendering) {
    CurveFigure f;
    f.title = "\xF0\x9F\x98\x80 \xFF\xFE caf\xC3\xA9";
    f.logY = true;
    for (int i = 0; i < 40; ++i) {
        CurveSeries s{headName(i, 1).append(" ").append(std::string(std::size_t(i), 'w')),
                      core::seriesColor(i),
                      {},
                      i % 3 == 0};
        for (int step = 0; step <= 2000; ++step) // dense: a point per pixel and more
            s.points.push_back({double(step), std::exp(-step / (300.0 + 10 * i)) + 1e-3});
        f.series.push_back(s);
    }
    const Image image = render(f);
    EXPECT_GT(image.width, 800); // the legend wrapped into columns
    EXPECT_LT(image.width, 2200);
}

// Writes the demo figures for a human to look at (and checks they encode).
TEST(CurvePng, WritesDemoFigures) {
    CurveFigure heads;
    heads.title = "induction score per head";
    heads.captionLines = {"induction task, 2 layers, H 4, d_model 64, Adam lr 0.001, seed 1",
                          "score: mean attention from t to the token after the earlier copy"};
    heads.yLabel = "induction score";
    heads.yRange = core::AxisRange{0, 1};
    heads.markers = {{600, "drop"}, {1500, "step shown"}};
    for (int l = 0; l < 2; ++l)
        for (int h = 0; h < 4; ++h) {
            CurveSeries s{headName(l + 1, h + 1), core::headColor(l, h, 4), {}, false};
            const double top = l == 1 ? 0.9 - 0.25 * h : 0.08 + 0.02 * h;
            for (int step = 0; step <= 3000; step += 50)
                s.points.push_back(
                    {double(step),
                     0.05 + (top - 0.05) / (1 + std::exp((620 + 40 * h - step) / 30.0))});
            heads.series.push_back(s);
        }
    CurveFigure loss = lossFigure();
    loss.logY = true;
    for (const auto& entry : {std::pair{"loss", loss}, std::pair{"heads", heads}}) {
        const char* name = entry.first;
        const CurveFigure& figure =
            entry.second; // a plain reference: clang 14 cannot capture bindings
        Image png;
        ASSERT_EQ(thrownMessage([&] { png = core::curvePng(figure, 2); }), "");
        const std::string base = std::string("/tmp/mha_curves_demo_") + name;
        EXPECT_EQ(thrownMessage([&] { core::writePng(base + ".png", png); }), "");
        EXPECT_EQ(thrownMessage(
                      [&] { core::writeFileAtomically(base + ".svg", core::curveSvg(figure)); }),
                  "");
    }
}

} // namespace
