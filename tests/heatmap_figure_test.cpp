// One look for a heatmap's SVG and PNG (core/figures/heatmap_layout.h): both draw the layout's
// cells, white gaps, hatching of masked cells, tick labels, axis titles and colour-bar label,
// and the caption is only there when the figure has one.
#include "figures/attention_map.h"
#include "figures/colormap.h"
#include "figures/figure.h"
#include "figures/figure_raster.h"
#include "figures/heatmap_layout.h"
#include "figures/image.h"
#include "figures/svg_text.h"
#include "thrown_message.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <regex>
#include <string>
#include <tuple>
#include <vector>

using testing_support::thrownMessage;

namespace {

namespace hm = core::heatmaps;

// A causal 6 x 6 map, large cells (gaps between them), its upper triangle masked.
core::HeatmapFigure causalFigure(int n = 6) {
    core::HeatmapFigure f;
    f.title = "head 1: previous-token";
    f.captionLines = {"\"a b c d e f\"", "d_model 64, H 8, d_head 8, mask causal, head 1"};
    for (int i = 0; i < n; ++i) {
        f.rowLabels.push_back("t" + std::to_string(i));
        f.colLabels.push_back("t" + std::to_string(i));
    }
    f.rows = f.cols = n;
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c)
            f.values.push_back(c > r ? core::kMaskedCell : 1.0f / float(r + 1));
    f.keyColor = core::Rgb{214, 39, 40};
    return f;
}

std::tuple<int, int, int> pixel(const core::Image& image, int x, int y) {
    const std::uint8_t* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
    return {p[0], p[1], p[2]};
}

std::tuple<int, int, int> rgb(core::Rgb c) {
    return {c.r, c.g, c.b};
}

struct SvgRect {
    double x, y, w, h;
    std::string fill;
};

// The cells of an SVG: the rects that carry a <title> (the tooltip naming query and key).
std::vector<SvgRect> svgCells(const std::string& svg) {
    static const std::regex cell(R"re(<rect x="([-\d.]+)" y="([-\d.]+)" width="([\d.]+)" )re"
                                 R"re(height="([\d.]+)" fill="(#[0-9a-f]{6})"><title>)re");
    std::vector<SvgRect> cells;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), cell); it != std::sregex_iterator();
         ++it)
        cells.push_back({std::stod((*it)[1]), std::stod((*it)[2]), std::stod((*it)[3]),
                         std::stod((*it)[4]), (*it)[5]});
    return cells;
}

// The hatching path's segments: "Mx yLx y" each.
std::vector<hm::Segment> svgHatch(const std::string& svg) {
    const std::size_t at = svg.find("<path d=\"");
    std::vector<hm::Segment> segments;
    if (at == std::string::npos) return segments;
    const std::string d = svg.substr(at + 9, svg.find('"', at + 9) - at - 9);
    static const std::regex segment(R"(M([-\d.]+) ([-\d.]+)L([-\d.]+) ([-\d.]+))");
    for (auto it = std::sregex_iterator(d.begin(), d.end(), segment); it != std::sregex_iterator();
         ++it)
        segments.push_back(
            {std::stof((*it)[1]), std::stof((*it)[2]), std::stof((*it)[3]), std::stof((*it)[4])});
    return segments;
}

std::vector<std::string> svgTexts(const std::string& svg) {
    static const std::regex text(R"(<text [^>]*>([^<]*)</text>)");
    std::vector<std::string> texts;
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), text); it != std::sregex_iterator();
         ++it)
        texts.push_back((*it)[1]);
    return texts;
}

bool contains(const std::vector<std::string>& texts, const std::string& s) {
    return std::find(texts.begin(), texts.end(), s) != texts.end();
}

core::TextMetrics pngMetrics() {
    static const auto font = core::raster::figureFont();
    return core::raster::fontMetrics(*font);
}

TEST(HeatmapFigure, HasAxisTitlesAndSaysWhatTheColoursMean) {
    const core::HeatmapFigure f = causalFigure();
    const std::vector<std::string> texts = svgTexts(core::heatmapSvg(f));
    EXPECT_TRUE(contains(texts, "query \xE2\x86\x93")) << "the rows' title, an arrow down";
    EXPECT_TRUE(contains(texts, "key \xE2\x86\x92")) << "the columns' title, an arrow right";
    EXPECT_TRUE(contains(texts, "attention weight")) << "under the colour bar";

    // In the PNG: dark text where the layout puts them, left of the grid and above it.
    const hm::PanelLayout L = hm::layoutHeatmap(f, pngMetrics()).panel;
    const core::Image png = core::heatmapPng(f, 1);
    const auto inkIn = [&](float x0, float y0, float x1, float y1) {
        int ink = 0;
        for (int y = int(y0); y < int(std::ceil(y1)); ++y)
            for (int x = int(x0); x < int(std::ceil(x1)); ++x) {
                const auto [r, g, b] = pixel(png, x, y);
                ink += r + g + b < 3 * 160;
            }
        return ink;
    };
    const float line = 12;
    EXPECT_GT(inkIn(L.rowAxis.x - L.rowAxis.width, L.rowAxis.y, L.rowAxis.x, L.rowAxis.y + line),
              20);
    EXPECT_LE(L.rowAxis.x, float(L.gridLeft)) << "right of it: the grid";
    EXPECT_LT(L.rowAxis.y + line, float(L.gridTop)) << "above the first row";
    EXPECT_GT(inkIn(L.colAxis.x, L.colAxis.y, L.colAxis.x + L.colAxis.width, L.colAxis.y + line),
              20);
    EXPECT_GT(inkIn(L.barLabel.x - L.barLabel.width / 2, L.barLabel.y,
                    L.barLabel.x + L.barLabel.width / 2, L.barLabel.y + 11),
              20);
    EXPECT_GT(L.barLabel.y, float(L.barTop + hm::kBarHeight)) << "under the bar and its ticks";
}

TEST(HeatmapFigure, ViewsNameTheirOwnAxesAndValues) {
    core::HeatmapFigure f = causalFigure();
    f.rowAxis = "head", f.colAxis = "query", f.valueLabel = "row entropy (bits)";
    const std::vector<std::string> texts = svgTexts(core::heatmapSvg(f));
    EXPECT_TRUE(contains(texts, "head \xE2\x86\x93"));
    EXPECT_TRUE(contains(texts, "query \xE2\x86\x92"));
    EXPECT_TRUE(contains(texts, "row entropy (bits)"));
    f.rowAxis = f.colAxis = f.valueLabel = ""; // left out, and no room kept for them
    const std::vector<std::string> none = svgTexts(core::heatmapSvg(f));
    EXPECT_FALSE(contains(none, "head \xE2\x86\x93"));
    EXPECT_FALSE(contains(none, "row entropy (bits)"));
    EXPECT_LT(core::heatmapPng(f, 1).height, core::heatmapPng(causalFigure(), 1).height);
}

TEST(HeatmapFigure, CaptionIsThereOnlyWhenTheFigureHasOne) {
    core::HeatmapFigure f = causalFigure();
    const std::string with = core::heatmapSvg(f);
    EXPECT_TRUE(contains(svgTexts(with), "d_model 64, H 8, d_head 8, mask causal, head 1"));
    const core::Image withPng = core::heatmapPng(f, 1);
    f.captionLines.clear();
    const std::vector<std::string> texts = svgTexts(core::heatmapSvg(f));
    EXPECT_TRUE(contains(texts, "head 1: previous-token")) << "the title stays";
    for (const std::string& t : texts) EXPECT_EQ(t.find("d_model"), std::string::npos) << t;
    const core::Image without = core::heatmapPng(f, 1);
    EXPECT_LT(without.height, withPng.height);
    // Below the colour bar's label only the bottom margin is left: white.
    const hm::HeatmapLayout L = hm::layoutHeatmap(f, pngMetrics());
    EXPECT_EQ(without.height, L.panel.bottom + hm::kMargin);
    for (int y = L.panel.bottom + 2; y < without.height; ++y)
        for (int x = 0; x < without.width; ++x)
            ASSERT_EQ(pixel(without, x, y), rgb({255, 255, 255})) << x << "," << y;
}

// The SVG's cells are the layout's boxes (gaps between them), masked cells grey, and its
// hatching the layout's segments; its ticks read as the PNG's.
TEST(HeatmapSvg, DrawsTheLayoutsCellsGapsHatchingAndTicks) {
    const core::HeatmapFigure f = causalFigure();
    const std::string svg = core::heatmapSvg(f);
    const hm::PanelLayout L =
        hm::layoutHeatmap(f, core::raster::figureFontMetricsOrEstimate()).panel;
    ASSERT_EQ(L.seam, 1) << "cells of " << L.cell << " px have gaps";
    const std::vector<SvgRect> cells = svgCells(svg);
    ASSERT_EQ(int(cells.size()), f.rows * f.cols);
    std::vector<hm::Segment> hatch;
    for (int r = 0; r < f.rows; ++r)
        for (int c = 0; c < f.cols; ++c) {
            const SvgRect& cell = cells[std::size_t(r * f.cols + c)];
            const hm::CellBox box = hm::cellBox(L, r, c);
            EXPECT_EQ(cell.x, box.x0);
            EXPECT_EQ(cell.y, box.y0);
            EXPECT_EQ(cell.w, box.x1 - box.x0);
            EXPECT_EQ(cell.h, box.y1 - box.y0);
            if (c > 0) {
                const SvgRect& left = cells[std::size_t(r * f.cols + c - 1)];
                EXPECT_EQ(cell.x, left.x + left.w + 1) << "a 1 px gap";
            }
            const bool masked = f.values[std::size_t(r * f.cols + c)] == core::kMaskedCell;
            const float v = f.values[std::size_t(r * f.cols + c)];
            EXPECT_EQ(cell.fill,
                      masked ? "#cdcdd0" : core::svg::hex(core::sampleColormap(f.colormap, v)));
            if (masked)
                for (const hm::Segment& s : hm::hatchSegments(box, 0, 0)) hatch.push_back(s);
        }
    const std::vector<hm::Segment> drawn = svgHatch(svg);
    ASSERT_EQ(drawn.size(), hatch.size());
    ASSERT_GT(drawn.size(), std::size_t(15 * 3)) << "several diagonals per masked cell";
    for (std::size_t i = 0; i < drawn.size(); ++i) {
        EXPECT_NEAR(drawn[i].x1, hatch[i].x1, 0.01);
        EXPECT_NEAR(drawn[i].y2, hatch[i].y2, 0.01);
        EXPECT_NEAR(drawn[i].x1 + drawn[i].y1, drawn[i].x2 + drawn[i].y2, 0.02) << "a diagonal";
    }
    const std::vector<std::string> texts = svgTexts(svg);
    for (int k = 0; k <= 4; ++k) EXPECT_TRUE(contains(texts, hm::tickText(f, k))) << k;
    EXPECT_TRUE(contains(texts, "0.00") && contains(texts, "0.25") && contains(texts, "1.00"))
        << "two decimals, as the PNG prints them";
    EXPECT_NE(svg.find("stroke=\"#d62728\""), std::string::npos) << "the head's colour";
}

// The PNG's pixels are the layout's: each cell's colour fills its box, the gaps are white, a
// masked cell is grey with hatch pixels exactly on the layout's diagonals.
TEST(HeatmapPng, DrawsTheLayoutsCellsGapsHatchingAndTicks) {
    const core::HeatmapFigure f = causalFigure();
    for (int scale : {1, 2}) {
        const core::Image png = core::heatmapPng(f, scale);
        const hm::PanelLayout L = hm::layoutHeatmap(f, pngMetrics()).panel;
        int hatched = 0;
        for (int r = 0; r < f.rows; ++r)
            for (int c = 0; c < f.cols; ++c) {
                const hm::CellBox box = hm::cellBox(L, r, c);
                const float v = f.values[std::size_t(r * f.cols + c)];
                for (int y = box.y0 * scale; y < box.y1 * scale; ++y)
                    for (int x = box.x0 * scale; x < box.x1 * scale; ++x) {
                        const auto want = v != core::kMaskedCell
                                              ? rgb(core::sampleColormap(f.colormap, v))
                                              : rgb(hm::onHatch(x, y, scale) ? hm::kHatchColor
                                                                             : hm::kMaskedColor);
                        ASSERT_EQ(pixel(png, x, y), want) << r << "," << c << " at " << scale;
                        hatched += v == core::kMaskedCell && hm::onHatch(x, y, scale);
                    }
                if (c > 0) { // the gap left of the cell
                    EXPECT_EQ(pixel(png, box.x0 * scale - 1, box.y0 * scale), rgb(hm::kSeamColor));
                }
            }
        EXPECT_GT(hatched, 15 * 6 * scale);
        for (float x : L.tickX) // tick marks under the bar
            EXPECT_EQ(
                pixel(png, int((x - 0.5f) * float(scale)), (L.barTop + hm::kBarHeight + 2) * scale),
                rgb(hm::kTickColor));
    }
}

// At scale 1 every hatch pixel of the PNG has its centre on a diagonal the SVG draws (the same
// segments), and every diagonal the SVG draws longer than a pixel has PNG pixels on it.
TEST(HeatmapFigure, PngAndSvgHatchTheSameDiagonals) {
    const core::HeatmapFigure f = causalFigure();
    const core::Image png = core::heatmapPng(f, 1);
    const hm::PanelLayout L = hm::layoutHeatmap(f, pngMetrics()).panel;
    for (int r = 0; r < f.rows; ++r)
        for (int c = r + 1; c < f.cols; ++c) {
            const hm::CellBox box = hm::cellBox(L, r, c);
            const std::vector<hm::Segment> lines = hm::hatchSegments(box, 0, 0);
            std::vector<int> pixelsOn(lines.size(), 0);
            for (int y = box.y0; y < box.y1; ++y)
                for (int x = box.x0; x < box.x1; ++x) {
                    if (pixel(png, x, y) != rgb(hm::kHatchColor)) continue;
                    const float sum = float(x + y) + 1; // the pixel centre's x + y
                    bool on = false;
                    for (std::size_t i = 0; i < lines.size(); ++i)
                        if (std::abs(lines[i].x1 + lines[i].y1 - sum) < 0.01f)
                            on = true, ++pixelsOn[i];
                    EXPECT_TRUE(on) << "hatch pixel " << x << "," << y << " off every diagonal";
                }
            for (std::size_t i = 0; i < lines.size(); ++i)
                if (lines[i].x2 - lines[i].x1 > 1.5f) {
                    EXPECT_GT(pixelsOn[i], 0) << "cell " << r << "," << c << " diagonal " << i;
                }
        }
}

// Without the font file the SVG is laid out by the estimate: the same cells, gaps, hatching
// and ticks, the grid placed within a few pixels of the font's layout.
TEST(HeatmapFigure, TheEstimateKeepsTheCellsGapsAndTicks) {
    const core::HeatmapFigure f = causalFigure();
    const hm::PanelLayout font = hm::layoutHeatmap(f, pngMetrics()).panel;
    const hm::PanelLayout estimate = hm::layoutHeatmap(f, core::estimatedMetrics()).panel;
    EXPECT_EQ(estimate.cell, font.cell);
    EXPECT_EQ(estimate.seam, font.seam);
    EXPECT_EQ(estimate.barW, font.barW);
    EXPECT_NEAR(estimate.gridLeft, font.gridLeft, 4);
    EXPECT_NEAR(estimate.gridTop, font.gridTop, 4);
    for (int k = 0; k <= 4; ++k)
        EXPECT_EQ(estimate.tickLabels[std::size_t(k)].text, font.tickLabels[std::size_t(k)].text);
}

// A grid draws every panel's layout at its place: the SVG translates each panel group there,
// and its cells and hatching are the panel's.
TEST(HeatmapSvg, GridPanelsAreTheirLayoutsAtTheirPlaces) {
    core::GridFigure grid;
    grid.columns = 2;
    for (int h = 0; h < 3; ++h) grid.panels.push_back(causalFigure());
    grid.captionLines = {"one caption for the grid"};
    const std::string svg = core::gridSvg(grid);
    const hm::GridLayout L = hm::layoutGrid(grid, core::raster::figureFontMetricsOrEstimate());
    EXPECT_NE(svg.find("translate(" + std::to_string(L.panelW) + " 0)"), std::string::npos);
    EXPECT_NE(svg.find("translate(0 " + std::to_string(L.panelH) + ")"), std::string::npos);
    EXPECT_EQ(svgCells(svg).size(), std::size_t(3 * 36));
    std::size_t hatch = 0;
    for (std::size_t p = 0; p < 3; ++p) {
        const hm::Origin o = hm::panelOrigin(L, p);
        for (int r = 0; r < 6; ++r)
            for (int c = r + 1; c < 6; ++c)
                hatch += hm::hatchSegments(hm::cellBox(L.panels[p], r, c), o.x, o.y).size();
    }
    std::size_t drawn = 0;
    for (std::size_t at = 0; (at = svg.find("<path d=\"", at)) != std::string::npos; ++at)
        drawn += svgHatch(svg.substr(at)).size();
    EXPECT_EQ(drawn, hatch);
    const core::Image png = core::gridPng(grid, 1);
    EXPECT_EQ(png.width, L.width);
    EXPECT_EQ(png.height, L.height);
    EXPECT_NE(svg.find("width=\"" + std::to_string(L.width) + "\""), std::string::npos);
}

// Panels of a group (query heads sharing a K/V head) framed together in both pictures: a
// frame per run of a group within a row, in the panels' margins, every other group tinted.
TEST(HeatmapFigure, GroupedPanelsAreFramedAndEveryOtherGroupTinted) {
    core::GridFigure grid;
    grid.columns = 3;
    for (int h = 0; h < 6; ++h) grid.panels.push_back(causalFigure());
    grid.panelGroups = {0, 0, 1, 1, 2, 2}; // group 1 runs on into the second row
    grid.title = "every head of every layer";
    const hm::GridLayout L = hm::layoutGrid(grid, pngMetrics());
    const std::vector<hm::GroupFrame> frames = hm::groupFrames(L, grid.panelGroups);
    ASSERT_EQ(frames.size(), 4u);
    EXPECT_GT(float(frames[0].y0), L.title.y + pngMetrics().lineHeight(hm::kTitlePx))
        << "the first row's frames pass under the grid's title";
    EXPECT_LT(frames[0].y0, L.panels[0].title.y + float(L.top)) << "and over the panels' titles";
    EXPECT_EQ(frames[0].x0, hm::kGroupInset);
    EXPECT_EQ(frames[0].x1, 2 * L.panelW - hm::kGroupInset);
    EXPECT_EQ(frames[1].x1, 3 * L.panelW - hm::kGroupInset); // group 1's first panel
    EXPECT_EQ(frames[2].x0, hm::kGroupInset);                // and its second, a row down
    EXPECT_EQ(frames[2].y0, L.top + L.panelH + hm::kGroupInsetTop);
    EXPECT_TRUE(frames[0].tinted);
    EXPECT_FALSE(frames[1].tinted);
    EXPECT_TRUE(frames[3].tinted);
    const core::Image png = core::gridPng(grid, 2);
    const hm::GroupFrame& f = frames[0];
    EXPECT_EQ(pixel(png, f.x0 * 2, (f.y0 + 20) * 2), rgb(hm::kGroupFrameColor));
    EXPECT_EQ(pixel(png, f.x1 * 2 - 1, (f.y0 + 20) * 2), rgb(hm::kGroupFrameColor));
    EXPECT_EQ(pixel(png, (f.x0 + 3) * 2, (f.y0 + 3) * 2), rgb(hm::kGroupTint)); // in the margin
    const hm::GroupFrame& plain = frames[1];
    EXPECT_EQ(pixel(png, (plain.x0 + 3) * 2, (plain.y0 + 3) * 2), std::make_tuple(255, 255, 255));
    const std::string svg = core::gridSvg(grid);
    EXPECT_NE(svg.find("fill=\"" + core::svg::hex(hm::kGroupTint) + "\" stroke=\"" +
                       core::svg::hex(hm::kGroupFrameColor) + "\""),
              std::string::npos);
    EXPECT_EQ(svgCells(svg).size(), std::size_t(6 * 36)) << "the frames are no cells";
    grid.panelGroups = {0, -1, -1, -1, -1, -1}; // -1: no group; a lone panel is framed alone
    EXPECT_EQ(hm::groupFrames(hm::layoutGrid(grid, pngMetrics()), grid.panelGroups).size(), 1u);
    grid.panelGroups.clear();
    EXPECT_EQ(core::gridSvg(grid).find(core::svg::hex(hm::kGroupFrameColor)), std::string::npos);
}

TEST(HeatmapFigure, BadFiguresAreErrorsInBothPictures) {
    core::HeatmapFigure f = causalFigure();
    f.values.pop_back();
    EXPECT_NE(thrownMessage([&] { core::heatmapSvg(f); }), "");
    EXPECT_NE(thrownMessage([&] { core::heatmapPng(f, 1); }), "");
    EXPECT_NE(thrownMessage([&] { core::gridSvg(core::GridFigure{}); }), "");
}

} // namespace

namespace {

// A scene of seven tokens read as a pair: A is tokens 0-2, B from token 3.
core::Trace pairTrace() {
    core::Scene scene;
    scene.sentences = {"a b c d e f g"};
    scene.heads = 2;
    scene.mask = core::MaskKind::None;
    core::Trace t = core::run(scene);
    t.pairStart = 3;
    return t;
}

} // namespace

// Issue 36: a pair's export lost the A|B divider the window draws, and the A -> B view's hidden
// cells were hatched as if masked. Now the divider is drawn, hidden cells are blank, and the
// caption says which view it is.
TEST(HeatmapFigure, APairKeepsItsDividerAndItsViewsHiddenCellsAreBlank) {
    const core::Trace t = pairTrace();
    const core::HeatmapFigure f =
        core::headFigure(t, 0, 0, core::ColormapId::Viridis, core::PairView::AToB);
    EXPECT_EQ(f.pairStart, 3);
    EXPECT_TRUE(contains(f.captionLines, core::pairViewNote(core::PairView::AToB)));
    const core::Image png = core::heatmapPng(f, 1);
    const hm::PanelLayout L = hm::layoutHeatmap(f, pngMetrics()).panel;
    for (int r = 0; r < f.rows; ++r)
        for (int c = 0; c < f.cols; ++c) {
            const bool shown = r < 3 && c >= 3; // A's queries reading B's keys
            EXPECT_EQ(f.values[std::size_t(r * f.cols + c)] == core::kHiddenCell, !shown);
            const hm::CellBox box = hm::cellBox(L, r, c);
            if (!shown) // blank through and through: no hatch pixel
                for (int y = box.y0 + 2; y < box.y1 - 2; ++y)
                    for (int x = box.x0 + 2; x < box.x1 - 2; ++x)
                        ASSERT_EQ(pixel(png, x, y), rgb(hm::kHiddenColor)) << r << "," << c;
        }
    // The divider between tokens 2 and 3 on both axes, over the cells, as in the PNG.
    const std::vector<hm::DividerBox> dividers = hm::pairDividers(L, 3);
    ASSERT_EQ(dividers.size(), 2u);
    for (const hm::DividerBox& d : dividers)
        EXPECT_EQ(pixel(png, (d.x0 + d.x1) / 2, (d.y0 + d.y1) / 2), rgb(hm::kDividerColor));
    const std::string svg = core::heatmapSvg(f);
    EXPECT_NE(svg.find("fill=\"" + core::svg::hex(hm::kDividerColor) + "\""), std::string::npos);
    EXPECT_EQ(svg.find("<path d=\""), std::string::npos) << "no hatching: nothing is masked";
    // All: the divider alone, every cell shown.
    const core::HeatmapFigure all = core::headFigure(t, 0, 0);
    EXPECT_EQ(all.pairStart, 3);
    EXPECT_EQ(std::count(all.values.begin(), all.values.end(), core::kHiddenCell), 0);
}

// Captions wrap at spaces: no word is cut while it fits on a line of its own.
TEST(HeatmapFigure, CaptionsWrapAtWordsNotInsideThem) {
    const core::TextMetrics m = core::estimatedMetrics();
    const std::string text = "scored on repeated random tokens (TransformerLens's test), not on a "
                             "text, read from a model folder with a long name";
    const std::vector<std::string> lines = hm::wrapWords(text, m, hm::kCaptionPx, 200);
    ASSERT_GT(lines.size(), 1u);
    std::string joined;
    for (const std::string& line : lines) {
        EXPECT_LE(m.width(line, hm::kCaptionPx), 200.0f) << line;
        EXPECT_EQ(line.find("\u2026"), std::string::npos) << line;
        joined += (joined.empty() ? "" : " ") + line;
    }
    EXPECT_EQ(joined, text);
    core::HeatmapFigure f = causalFigure();
    f.captionLines = {text};
    const std::vector<std::string> texts = svgTexts(core::heatmapSvg(f));
    EXPECT_TRUE(std::any_of(texts.begin(), texts.end(), [](const std::string& t) {
        return t.find("TransformerLens") != std::string::npos; // whole, on some line
    }));
    for (const std::string& t : texts) EXPECT_EQ(t.find("\u2026"), std::string::npos) << t;
}

// Grouped-query attention and rotary positions in the figures: the caption's sizes line says
// "K/V heads 2 (GQA)" and how positions were given, a head's title which K/V head it reads and
// a grid panel's, shortly, the same.
TEST(HeatmapFigure, CaptionsAndTitlesSayGqaAndRotaryWhereTheyApply) {
    core::Scene s;
    s.sentences = {"the cat sat"};
    core::setKvHeads(s, 2);
    s.positional = core::PositionalKind::Rotary;
    const core::Trace t = core::run(s);
    const core::HeatmapFigure f = core::headFigure(t, 0, 5);
    EXPECT_EQ(f.title, "head 6 (K/V head 2 of 2, GQA)");
    EXPECT_TRUE(contains(f.captionLines,
                         "d_model 64, H 8, K/V heads 2 (GQA), d_head 8, mask none, scale "
                         "sqrt_d_head, seed 1, weights random, rotary positions (theta 10000)"))
        << f.captionLines[1];
    const core::GridFigure g = core::gridFigure(t, 0);
    EXPECT_EQ(g.panels[5].title, "head 6 \xC2\xB7 kv 2");
    core::setKvHeads(s, 1);
    EXPECT_EQ(core::headFigure(core::run(s), 0, 0).title, "head 1 (K/V head 1 of 1, MQA)");
    const core::Trace mha = core::run(core::Scene{});
    EXPECT_EQ(core::headFigure(mha, 0, 0).title, "head 1"); // MHA: as ever
    EXPECT_EQ(core::gridFigure(mha, 0).panels[0].title, "head 1");
}
