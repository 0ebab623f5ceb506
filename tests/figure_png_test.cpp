// The PNG rasteriser for attention-map figures (core/figures/figure_png.cpp), on figures built by
// hand.
#include "figures/attention_map.h"
#include "figures/colormap.h"
#include "figures/figure.h"
#include "figures/image.h"
#include "io/atomic_file.h"
#include "thrown_message.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

using testing_support::thrownMessage;

namespace {

using core::Image;

std::vector<std::string> demoTokens() {
    std::istringstream in("The black cat sat on the mat because it was tired .");
    std::vector<std::string> tokens;
    for (std::string word; in >> word;) tokens.push_back(word);
    return tokens;
}

// n x n causal map: row r attends to keys 0..r (previous token strongest), the rest masked.
core::HeatmapFigure demoFigure(const std::string& title = "head 3: previous-token") {
    const std::vector<std::string> tokens = demoTokens();
    core::HeatmapFigure f;
    f.title = title;
    f.captionLines = {"\"The black cat sat on the mat because it was tired .\"",
                      "d_model 64, H 8, d_head 8, mask causal, scale sqrt(d_head), seed 1, head 3"};
    f.rowLabels = tokens;
    f.colLabels = tokens;
    f.rows = f.cols = int(tokens.size());
    f.values.assign(std::size_t(f.rows) * f.cols, core::kMaskedCell);
    for (int r = 0; r < f.rows; ++r) {
        float sum = 0;
        std::vector<float> w(std::size_t(r) + 1);
        for (int c = 0; c <= r; ++c) sum += w[std::size_t(c)] = (c == r - 1 ? 6.0f : 1.0f);
        for (int c = 0; c <= r; ++c)
            f.values[std::size_t(r) * f.cols + c] = w[std::size_t(c)] / sum;
    }
    return f;
}

// Tiny 2 x 3 map: row 0 = {1, 0, masked}, row 1 = {0.5, masked, 0.25}.
core::HeatmapFigure smallFigure() {
    core::HeatmapFigure f;
    f.title = "tiny";
    f.rowLabels = {"a", "b"};
    f.colLabels = {"x", "y", "z"};
    f.rows = 2;
    f.cols = 3;
    f.values = {1.0f, 0.0f, core::kMaskedCell, 0.5f, core::kMaskedCell, 0.25f};
    return f;
}

std::tuple<int, int, int> pixel(const Image& image, int x, int y) {
    const std::uint8_t* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
    return {p[0], p[1], p[2]};
}

std::tuple<int, int, int> rgb(core::Rgb c) {
    return {c.r, c.g, c.b};
}

double luminanceStdDev(const Image& image) {
    double sum = 0, sumSq = 0;
    const std::size_t n = std::size_t(image.width) * image.height;
    for (std::size_t i = 0; i < n; ++i) {
        const double l = (image.rgba[i * 4] + image.rgba[i * 4 + 1] + image.rgba[i * 4 + 2]) / 3.0;
        sum += l;
        sumSq += l * l;
    }
    const double mean = sum / double(n);
    return std::sqrt(std::max(0.0, sumSq / double(n) - mean * mean));
}

// Bounding box of pixels whose colour equals `c` (the cells of a given value).
struct Box {
    int x0 = 1 << 30, y0 = 1 << 30, x1 = -1, y1 = -1;
    bool empty() const { return x1 < 0; }
};

Box findColour(const Image& image, std::tuple<int, int, int> c, int yMax) {
    Box box;
    for (int y = 0; y < std::min(yMax, image.height); ++y)
        for (int x = 0; x < image.width; ++x)
            if (pixel(image, x, y) == c) {
                box.x0 = std::min(box.x0, x), box.y0 = std::min(box.y0, y);
                box.x1 = std::max(box.x1, x), box.y1 = std::max(box.y1, y);
            }
    return box;
}

Image render(const core::HeatmapFigure& f, int scale = 1) {
    Image image;
    EXPECT_EQ(thrownMessage([&] { image = core::heatmapPng(f, scale); }), "");
    EXPECT_GT(image.width, 0);
    EXPECT_EQ(image.rgba.size(), std::size_t(image.width) * image.height * 4);
    return image;
}

TEST(FigurePng, FindsAFontFileOnThisMachine) {
    const std::string path = core::findFigureFont();
    ASSERT_FALSE(path.empty()) << "install fonts-dejavu-core";
    EXPECT_TRUE(std::filesystem::is_regular_file(path)) << path;
}

TEST(FigurePng, FontOverrideByEnvironment) {
    const std::string found = core::findFigureFont();
    ASSERT_FALSE(found.empty());
    const char* old = std::getenv("MHA_VIZ_FONT");
    const std::string saved = old ? old : "";
    ::setenv("MHA_VIZ_FONT", found.c_str(), 1);
    EXPECT_EQ(core::findFigureFont(), found);
    ::setenv("MHA_VIZ_FONT", "/nonexistent/font.ttf", 1); // not a file: falls back
    EXPECT_EQ(core::findFigureFont(), found);
    if (old)
        ::setenv("MHA_VIZ_FONT", saved.c_str(), 1);
    else
        ::unsetenv("MHA_VIZ_FONT");
}

TEST(FigurePng, ImageIsNotFlat) {
    const Image image = render(demoFigure());
    EXPECT_GT(luminanceStdDev(image), 20.0);
    EXPECT_FALSE(core::encodePng(image).empty());
}

TEST(FigurePng, ScaleTwoDoublesTheSizeExactly) {
    for (const core::HeatmapFigure& f : {demoFigure(), smallFigure()}) {
        const Image one = render(f, 1);
        const Image two = render(f, 2);
        const Image four = render(f, 4);
        EXPECT_EQ(two.width, 2 * one.width);
        EXPECT_EQ(two.height, 2 * one.height);
        EXPECT_EQ(four.width, 4 * one.width);
        EXPECT_EQ(four.height, 4 * one.height);
    }
}

TEST(FigurePng, BadScaleIsAnError) {
    for (int scale : {0, 5, -1}) {
        EXPECT_EQ(thrownMessage([&] { core::heatmapPng(smallFigure(), scale); }),
                  "export scale must be 1 to 4");
        core::GridFigure grid;
        grid.panels = {smallFigure()};
        EXPECT_EQ(thrownMessage([&] { core::gridPng(grid, scale); }),
                  "export scale must be 1 to 4");
    }
}

TEST(FigurePng, MismatchedValuesAreAnError) {
    core::HeatmapFigure f = smallFigure();
    f.values.pop_back();
    EXPECT_FALSE(thrownMessage([&] { core::heatmapPng(f, 1); }).empty());
}

TEST(FigurePng, CellColoursMatchTheColormap) {
    for (core::ColormapId id : {core::ColormapId::Viridis, core::ColormapId::Magma}) {
        core::HeatmapFigure f = smallFigure();
        f.colormap = id;
        const Image image = render(f, 2);
        // The colour bar also holds these colours: search above it (cells come first).
        const Box one = findColour(image, rgb(core::sampleColormap(id, 1.0f)), image.height);
        ASSERT_FALSE(one.empty());
        const int cell = 22 * 2;
        // Cell (0, 0) is the top-left full cell of value 1.0: its centre has that colour.
        const int gridLeft = one.x0, gridTop = one.y0;
        EXPECT_EQ(pixel(image, gridLeft + cell / 2, gridTop + cell / 2),
                  rgb(core::sampleColormap(id, 1.0f)));
        // Cell (0, 1) has value 0.0.
        EXPECT_EQ(pixel(image, gridLeft + cell + cell / 2, gridTop + cell / 2),
                  rgb(core::sampleColormap(id, 0.0f)));
        // Cell (1, 0) has value 0.5, cell (1, 2) 0.25.
        EXPECT_EQ(pixel(image, gridLeft + cell / 2, gridTop + cell + cell / 2),
                  rgb(core::sampleColormap(id, 0.5f)));
        EXPECT_EQ(pixel(image, gridLeft + 2 * cell + cell / 2, gridTop + cell + cell / 2),
                  rgb(core::sampleColormap(id, 0.25f)));
    }
}

TEST(FigurePng, ValuesAreScaledByValueMax) {
    core::HeatmapFigure f = smallFigure();
    f.valueMax = 2.0f; // 1.0 is now the middle of the colormap
    const Image image = render(f);
    const Box zero = findColour(image, rgb(core::sampleColormap(f.colormap, 0.0f)), image.height);
    ASSERT_FALSE(zero.empty());
    // The top of the zero colour is cell (0, 1) (the colour bar is below the grid); its row
    // holds cell (0, 0) = 1.0 just left of it, which is now the middle colour.
    const int y = zero.y0 + 11;
    int x = 0;
    while (x < image.width && pixel(image, x, y) != rgb(core::sampleColormap(f.colormap, 0.0f)))
        ++x;
    ASSERT_LT(x, image.width);
    EXPECT_EQ(pixel(image, x - 11, y), rgb(core::sampleColormap(f.colormap, 0.5f)));
}

TEST(FigurePng, MaskedCellsAreHatchedGrey) {
    const core::HeatmapFigure f = smallFigure();
    const Image image = render(f);
    const Box one = findColour(image, rgb(core::sampleColormap(f.colormap, 1.0f)), image.height);
    ASSERT_FALSE(one.empty());
    const int cell = 22;
    // Cell (0, 2) is masked.
    const int x0 = one.x0 + 2 * cell + 2, y0 = one.y0 + 2;
    std::set<std::tuple<int, int, int>> colours;
    for (int y = y0; y < y0 + cell - 4; ++y)
        for (int x = x0; x < x0 + cell - 4; ++x) colours.insert(pixel(image, x, y));
    EXPECT_EQ(colours.size(), 2u);
    EXPECT_TRUE(colours.count({205, 205, 208}));
    EXPECT_TRUE(colours.count({140, 140, 145}));
    EXPECT_FALSE(colours.count(rgb(core::sampleColormap(f.colormap, 0.0f))));
    for (const auto& [r, g, b] : colours) EXPECT_TRUE(r == g || std::abs(r - b) <= 5);
}

TEST(FigurePng, TitleTextIsDarkInTheTitleBand) {
    core::HeatmapFigure f = smallFigure();
    f.title = "head 3: previous-token";
    const Image image = render(f);
    const Box one = findColour(image, rgb(core::sampleColormap(f.colormap, 1.0f)), image.height);
    int dark = 0;
    for (int y = 16; y < 16 + 18; ++y)
        for (int x = 0; x < image.width; ++x) {
            const auto [r, g, b] = pixel(image, x, y);
            if (r + g + b < 3 * 110) ++dark;
        }
    EXPECT_GT(dark, 40);
    // Nothing above the title band (the top margin stays white).
    for (int y = 0; y < 10; ++y)
        for (int x = 0; x < image.width; ++x) EXPECT_EQ(pixel(image, x, y), rgb({255, 255, 255}));
    EXPECT_GT(one.y0, 16 + 18); // the grid is below the title
}

TEST(FigurePng, LongLabelsAndCaptionStayInside) {
    core::HeatmapFigure f = smallFigure();
    f.rowLabels[0] = "an-extraordinarily-long-query-token";
    f.colLabels[1] = "an-extraordinarily-long-key-token";
    f.captionLines = {std::string(400, 'w')};
    const Image image = render(f);
    EXPECT_LT(image.width, 700); // labels cut to ~14 characters, the caption to the width
    // The right margin stays white: no text runs off the figure.
    for (int y = 0; y < image.height; ++y)
        for (int x = image.width - 10; x < image.width; ++x)
            EXPECT_EQ(pixel(image, x, y), rgb({255, 255, 255})) << x << "," << y;
}

TEST(FigurePng, LargeMapsFitAndKeepTwoPixelCells) {
    core::HeatmapFigure f;
    f.rows = f.cols = 300;
    f.values.assign(std::size_t(300) * 300, 0.5f);
    for (int i = 0; i < 300; ++i) {
        f.rowLabels.push_back(std::string("r").append(std::to_string(i)));
        f.colLabels.push_back(std::string("c").append(std::to_string(i)));
    }
    const Image image = render(f);
    const Box cells = findColour(image, rgb(core::sampleColormap(f.colormap, 0.5f)), image.height);
    EXPECT_EQ(cells.x1 - cells.x0 + 1, 600); // 2 px per cell (the colour bar is narrower)
    EXPECT_LT(image.width, 900);
}

TEST(FigurePng, MissingGlyphsAndBadUtf8DoNotBreakRendering) {
    core::HeatmapFigure f = smallFigure();
    f.title = "\xF0\x9F\x98\x80 \xFF\xFE caf\xC3\xA9 \xE4\xB8\xAD"; // emoji, bad bytes, CJK
    f.rowLabels[0] = "\xC3";
    EXPECT_GT(luminanceStdDev(render(f)), 10.0);
}

TEST(FigurePng, GridLaysOutPanelsByColumns) {
    core::GridFigure grid;
    grid.columns = 2;
    grid.sharedColorBar = false; // each panel as wide as its figure drawn alone
    for (int h = 0; h < 3; ++h) {
        core::HeatmapFigure panel = demoFigure("head " + std::to_string(h));
        panel.captionLines.clear();
        grid.panels.push_back(panel);
    }
    grid.captionLines = demoFigure().captionLines;
    Image image;
    ASSERT_EQ(thrownMessage([&] { image = core::gridPng(grid, 1); }), "");
    core::HeatmapFigure single = grid.panels[0];
    const Image panel = render(single);
    EXPECT_EQ(image.width, 2 * panel.width);
    EXPECT_GT(image.height, 2 * panel.height - 40); // two rows of panels plus the caption
    EXPECT_LT(image.height, 2 * panel.height + 80);

    const Image two = core::gridPng(grid, 2);
    EXPECT_EQ(two.width, 2 * image.width);
    EXPECT_EQ(two.height, 2 * image.height);

    // Masked cells (their grey) appear in three panels: top-left, top-right, bottom-left; none
    // at the bottom right.
    const std::tuple<int, int, int> top{205, 205, 208};
    int quadrants[2][2] = {{0, 0}, {0, 0}};
    const int halfW = image.width / 2, halfH = panel.height; // panel rows are panel.height tall
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x)
            if (pixel(image, x, y) == top) ++quadrants[y < halfH ? 0 : 1][x < halfW ? 0 : 1];
    EXPECT_GT(quadrants[0][0], 100);
    EXPECT_GT(quadrants[0][1], 100);
    EXPECT_GT(quadrants[1][0], 100);
    EXPECT_EQ(quadrants[1][1], 0);

    // More columns than panels: one row.
    grid.columns = 8;
    const Image row = core::gridPng(grid, 1);
    EXPECT_EQ(row.width, 3 * panel.width);
}

// PNG width and height from the IHDR chunk (bytes 16..23, big-endian).
std::pair<long long, long long> pngSize(const std::vector<std::uint8_t>& png) {
    const auto word = [&](std::size_t at) {
        return (long long)png[at] << 24 | png[at + 1] << 16 | png[at + 2] << 8 | png[at + 3];
    };
    return {word(16), word(20)};
}

// Issue 36: every head of GPT-2 small (12 x 12 panels of 14 tokens) at 2x was 10368 x 12344 px
// with 144 colour bars. Now: one bar under the panels, and at most 25 MP at the scale asked.
TEST(FigurePng, AGridOfEveryHeadHasOneColourBarAndFitsASlide) {
    core::GridFigure grid;
    grid.columns = 12;
    grid.title = "gpt2 \xC2\xB7 every head of every layer";
    for (int p = 0; p < 144; ++p) {
        core::HeatmapFigure panel =
            demoFigure(std::string("L") // appended: GCC 12 warns on "L" + string (-Wrestrict)
                           .append(std::to_string(p / 12 + 1))
                           .append("-H")
                           .append(std::to_string(p % 12 + 1)));
        panel.captionLines.clear();
        grid.panels.push_back(panel);
    }
    const std::string svg = core::gridSvg(grid);
    std::size_t bars = 0;
    for (std::size_t at = 0; (at = svg.find("<linearGradient", at)) != std::string::npos; ++at)
        ++bars;
    EXPECT_EQ(bars, 1u);
    const core::PixelSize full = core::gridPngSize(grid, 2);
    EXPECT_GT((long long)full.width * full.height, core::kSlidePixels);
    core::fitGridToPixels(grid, 2, core::kSlidePixels);
    const auto [width, height] = pngSize(core::encodeGridPng(grid, 2));
    EXPECT_LE(width * height, core::kSlidePixels);
    EXPECT_GT(width * height, core::kSlidePixels / 2); // the cells shrink no more than needed
    EXPECT_EQ(width, core::gridPngSize(grid, 2).width);
    // A grid that fits keeps its cells.
    core::GridFigure small;
    small.panels = {demoFigure()};
    core::fitGridToPixels(small, 2, core::kSlidePixels);
    EXPECT_EQ(small.panels[0].maxCell, 0);
}

// Drawn and encoded band by band, down to one row per band, a figure is the same file as drawn
// whole: text and cells that cross a band's edge are drawn in both bands, nothing is lost.
TEST(FigurePng, DrawnInBandsItIsTheSameFile) {
    core::HeatmapFigure longLabels = demoFigure();
    for (std::string& label : longLabels.colLabels) label += "-a-rather-long-key-token";
    longLabels.captionLines.push_back("a third caption line");
    for (const core::HeatmapFigure& f : {demoFigure(), smallFigure(), longLabels})
        for (int scale : {1, 3}) {
            const std::vector<std::uint8_t> whole = core::encodePng(render(f, scale));
            ASSERT_GT(whole.size(), 26u);
            EXPECT_EQ(whole[25], 2) << "a figure is opaque: RGB";
            const std::size_t rowBytes = std::size_t(render(f, scale).width) * 4;
            for (std::size_t band : {std::size_t(1), 37 * rowBytes, core::kPngBandBytes})
                EXPECT_TRUE(core::encodeHeatmapPng(f, scale, band) == whole)
                    << f.title << " at " << scale << "x, bands of " << band / rowBytes << " rows";
        }
    core::GridFigure grid;
    grid.columns = 2;
    for (int h = 0; h < 3; ++h) grid.panels.push_back(demoFigure("head " + std::to_string(h)));
    grid.captionLines = demoFigure().captionLines;
    for (int scale : {1, 3}) {
        const std::vector<std::uint8_t> whole = core::encodePng(core::gridPng(grid, scale));
        EXPECT_TRUE(core::encodeGridPng(grid, scale, 1) == whole) << scale << "x, one-row bands";
        EXPECT_TRUE(core::encodeGridPng(grid, scale) == whole) << scale << "x";
    }
}

TEST(FigurePng, EmptyGridIsAnError) {
    EXPECT_FALSE(thrownMessage([&] { core::gridPng(core::GridFigure{}, 1); }).empty());
}

// Writes the demo figures for a human to look at (and the test to check they encode).
TEST(FigurePng, WritesDemoFigures) {
    Image figure;
    ASSERT_EQ(thrownMessage([&] { figure = core::heatmapPng(demoFigure(), 2); }), "");
    EXPECT_EQ(thrownMessage([&] { core::writePng("/tmp/figure_demo.png", figure); }), "");

    core::GridFigure grid;
    grid.columns = 2;
    const char* names[] = {"head 0: previous-token", "head 1: first token", "head 2: uniform"};
    for (int h = 0; h < 3; ++h) {
        core::HeatmapFigure panel = demoFigure(names[h]);
        panel.captionLines.clear();
        if (h == 1)
            for (int r = 0; r < panel.rows; ++r)
                for (int c = 0; c <= r; ++c)
                    panel.values[std::size_t(r) * panel.cols + c] = c == 0 ? 0.9f : 0.1f / float(r);
        if (h == 2)
            for (int r = 0; r < panel.rows; ++r)
                for (int c = 0; c <= r; ++c)
                    panel.values[std::size_t(r) * panel.cols + c] = 1.0f / float(r + 1);
        panel.colormap = core::ColormapId::Magma;
        grid.panels.push_back(panel);
    }
    grid.captionLines = demoFigure().captionLines;
    Image gridImage;
    ASSERT_EQ(thrownMessage([&] { gridImage = core::gridPng(grid, 1); }), "");
    EXPECT_EQ(thrownMessage([&] { core::writePng("/tmp/figure_grid.png", gridImage); }), "");
}

} // namespace

// The planned size is the drawn one, and a grid too large to open at the scale asked for is
// written at the largest scale that keeps both sides within 16384 px (never below 1).
TEST(FigurePng, GridSizeIsPlannedAndScaledToStayOpenable) {
    core::GridFigure grid;
    grid.columns = 2;
    for (int h = 0; h < 3; ++h) grid.panels.push_back(demoFigure("head " + std::to_string(h)));
    const Image image = core::gridPng(grid, 2);
    const core::PixelSize planned = core::gridPngSize(grid, 2);
    EXPECT_EQ(planned.width, image.width);
    EXPECT_EQ(planned.height, image.height);
    EXPECT_EQ(core::fittingGridScale(grid, 4), 4); // small: as asked

    const core::PixelSize one = core::gridPngSize(grid, 1);
    grid.columns = int(grid.panels.size());
    while (int(grid.panels.size()) * one.width <= core::kMaxPngSide) // 2x: over 16384 px wide
        grid.panels.push_back(grid.panels.front());
    grid.columns = int(grid.panels.size());
    ASSERT_GT(core::gridPngSize(grid, 2).width, core::kMaxPngSide);
    const int fitting = core::fittingGridScale(grid, 4);
    EXPECT_EQ(fitting, 1);
    EXPECT_LE(core::gridPngSize(grid, fitting).width, core::kMaxPngSide);
    grid.panels.resize(grid.panels.size() * 3); // too wide even at 1x: 1, the smallest there is
    for (auto& p : grid.panels) p = grid.panels.front();
    grid.columns = int(grid.panels.size());
    EXPECT_EQ(core::fittingGridScale(grid, 2), 1);
}
