// The app icon (core/figures/app_icon.h): what a desktop relies on from the PNGs at every hicolor
// size and the scalable SVG, and that the map in it reads as a causal attention map.
#include "figures/app_icon.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <set>
#include <string>
#include <utility>

namespace {

std::array<int, 4> pixel(const core::Image& image, int x, int y) {
    const std::uint8_t* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
    return {p[0], p[1], p[2], p[3]};
}

// The pixel at the centre of cell (row, col), the design's units scaled to the image.
std::array<int, 4> cellCentre(const core::Image& image, int row, int col) {
    const core::AppIconRect cell = core::appIconCell(row, col);
    const double k = image.width / core::kAppIconUnits;
    return pixel(image, int((cell.x + cell.width / 2) * k), int((cell.y + cell.height / 2) * k));
}

int count(const std::string& text, const std::string& what) {
    int n = 0;
    for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
        ++n;
    return n;
}

TEST(AppIcon, EverySizeIsSquareWithTheAskedDimensions) {
    for (int size : core::kAppIconSizes) {
        const core::Image icon = core::appIcon(size);
        EXPECT_EQ(icon.width, size);
        EXPECT_EQ(icon.height, size);
        EXPECT_EQ(icon.rgba.size(), std::size_t(size) * size * 4) << size;
    }
    EXPECT_TRUE(core::appIcon(0).rgba.empty());
}

TEST(AppIcon, CornersAreTransparentAndTheMiddleIsOpaque) {
    for (int size : core::kAppIconSizes) {
        const core::Image icon = core::appIcon(size);
        const int last = size - 1;
        for (auto [x, y] : {std::pair{0, 0}, {last, 0}, {0, last}, {last, last}})
            EXPECT_EQ(pixel(icon, x, y)[3], 0) << size << " px, corner " << x << "," << y;
        EXPECT_EQ(pixel(icon, size / 2, size / 2)[3], 255) << size;
    }
}

TEST(AppIcon, WeightsAreACausalAttentionMap) {
    for (int i = 0; i < core::kAppIconCells; ++i) {
        double sum = 0;
        for (int j = 0; j < core::kAppIconCells; ++j) {
            const float w = core::appIconWeight(i, j);
            if (j > i) {
                EXPECT_EQ(w, 0.0f) << i << "," << j;
            }
            sum += w;
        }
        EXPECT_NEAR(sum, 1.0, 1e-6) << "row " << i;
        // A previous-token head: the brightest key is the one before the query.
        for (int j = 0; j <= i && i > 0; ++j)
            EXPECT_LE(core::appIconWeight(i, j), core::appIconWeight(i, i - 1)) << i << "," << j;
    }
}

TEST(AppIcon, MaskedTriangleDiffersFromTheVisibleCells) {
    for (int size : {64, 128, 256}) {
        const core::Image icon = core::appIcon(size);
        const std::array<int, 4> masked = cellCentre(icon, 0, core::kAppIconCells - 1);
        std::set<std::array<int, 4>> visible;
        for (int i = 0; i < core::kAppIconCells; ++i)
            for (int j = 0; j < core::kAppIconCells; ++j) {
                const std::array<int, 4> c = cellCentre(icon, i, j);
                EXPECT_EQ(c[3], 255) << size << " px, cell " << i << "," << j;
                if (j > i) {
                    EXPECT_EQ(c, masked) << size << " px: masked cells share one shade";
                } else {
                    EXPECT_NE(c, masked) << size << " px, cell " << i << "," << j;
                    visible.insert(c);
                }
            }
        EXPECT_GE(visible.size(), 8u) << size << " px: the weights show as different colours";
    }
}

TEST(AppIcon, SixteenPixelsIsNotBlank) {
    const core::Image icon = core::appIcon(16);
    std::set<std::array<int, 4>> colours;
    int brightest = 0, opaque = 0;
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) {
            const std::array<int, 4> p = pixel(icon, x, y);
            colours.insert(p);
            if (p[3] == 255) ++opaque;
            brightest = std::max(brightest, (p[0] + p[1] + p[2]) / 3);
        }
    EXPECT_GE(opaque, 200);         // nearly the whole square, only the corners cut
    EXPECT_GE(colours.size(), 10u); // a map, not a flat tile
    EXPECT_GE(brightest, 150);      // the yellow of the strongest weight survives
}

TEST(AppIcon, SvgIsAStandaloneDocumentOfTheSameDesign) {
    const std::string svg = core::appIconSvg();
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("xmlns=\"http://www.w3.org/2000/svg\""), std::string::npos);
    EXPECT_NE(svg.find("viewBox=\"0 0 256 256\""), std::string::npos);
    EXPECT_EQ(svg.substr(svg.size() - 7), "</svg>\n");
    EXPECT_EQ(count(svg, "<svg"), 1);
    const int rects = count(svg, "<rect");
    EXPECT_GE(rects, core::kAppIconCells * core::kAppIconCells + 1); // the plate and every cell
    EXPECT_EQ(count(svg, "/>"), rects);                              // every rect closed
    // The PNG's cells carry the SVG's colours: the top-left cell's fill, at 256 px.
    const std::array<int, 4> first = cellCentre(core::appIcon(256), 0, 0);
    char fill[32];
    std::snprintf(fill, sizeof fill, "fill=\"#%02x%02x%02x\"", first[0], first[1], first[2]);
    EXPECT_NE(svg.find(fill), std::string::npos) << fill;
}

} // namespace
