#include "figures/app_icon.h"

#include "figures/colormap.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <optional>

namespace core {

namespace {

// The design, in units of a 256 x 256 canvas. Whole numbers, so the SVG stays exact.
struct Layout {
    double inset = 8;        // transparent margin around the rounded square (the plate)
    double plateRadius = 52; // corner radius of the plate
    double rim = 4;          // a lighter edge, so the dark plate stands out on dark panels
    double origin = 40;      // the first cell's top-left: the map (6 * 30 - 4) is centred
    double pitch = 30;       // cell + gap
    double gap = 4;          // the plate shows between cells, as in the app's heatmaps
    double cellRadius = 4;   // softens the cells at large sizes
};

constexpr Layout kDesign;
constexpr int kSamplesPerAxis = 8; // 64 samples per pixel: smooth edges down to 16 px

// The design scaled to `size` pixels, its straight edges moved onto whole pixels: unsnapped,
// a 16 px icon has a blurred half-pixel rim and cells smeared over two pixels each. At 128
// and 256 px this is exactly the design.
Layout pixelLayout(int size) {
    const double k = size / kAppIconUnits;
    Layout px;
    px.inset = std::floor(kDesign.inset * k);
    px.plateRadius = kDesign.plateRadius * k;
    px.rim = std::max(1.0, std::round(kDesign.rim * k));
    px.pitch = std::max(1.0, std::round(kDesign.pitch * k));
    px.gap = std::round(kDesign.gap * k); // 0 below 32 px: the cells tile, no muddy seams
    px.origin = std::floor((size - (kAppIconCells * px.pitch - px.gap)) / 2);
    px.cellRadius = kDesign.cellRadius * k;
    if (px.cellRadius < 1.5) px.cellRadius = 0; // a sub-pixel rounding only blurs the corners
    return px;
}

constexpr Rgb kPlate{29, 32, 41}; // dark slate: viridis reads on it, as on the dark theme
constexpr Rgb kRim{62, 67, 84};
constexpr Rgb kMasked{52, 56, 70}; // masked keys: a shade above the plate, like the hatching

// Scores of query i on key j: a previous-token head (the bright staircase below the diagonal)
// with a little pull to itself and to the first token, plus a fixed per-key wobble so that
// rows differ as in a trained model.
double score(int row, int col) {
    constexpr std::array<double, kAppIconCells> wobble{0.3, -0.2, 0.4, 0.0, -0.3, 0.2};
    double s = wobble[std::size_t(col)];
    if (col == row - 1) s += 3.0;
    if (col == row) s += 1.2;
    if (col == 0) s += 0.8;
    return s;
}

// Viridis of the weight, or the masked shade above the diagonal.
Rgb cellColour(int row, int col) {
    if (col > row) return kMasked;
    // A gentle gamma keeps the small weights of long rows off the darkest purple, which would
    // vanish into the plate at 16 px.
    return sampleColormap(ColormapId::Viridis, float(std::pow(appIconWeight(row, col), 0.75)));
}

// The gap follows each cell, so an odd gap in pixels never puts a cell edge mid-pixel.
AppIconRect cellRect(const Layout& layout, int row, int col) {
    return {layout.origin + col * layout.pitch, layout.origin + row * layout.pitch,
            layout.pitch - layout.gap, layout.pitch - layout.gap};
}

// Is (x, y) inside the rounded rectangle [x0, x1] x [y0, y1] with corner radius r?
bool insideRoundedRect(double x, double y, double x0, double y0, double x1, double y1, double r) {
    if (x < x0 || x > x1 || y < y0 || y > y1) return false;
    const double dx = std::max({x0 + r - x, x - (x1 - r), 0.0});
    const double dy = std::max({y0 + r - y, y - (y1 - r), 0.0});
    return dx * dx + dy * dy <= r * r;
}

using CellColours = std::array<Rgb, kAppIconCells * kAppIconCells>;

// The icon at one point of a size x size canvas: nothing (transparent), the plate or a cell.
std::optional<Rgb> sampleIcon(double x, double y, int size, const Layout& layout,
                              const CellColours& cells) {
    const double lo = layout.inset, hi = size - layout.inset;
    if (!insideRoundedRect(x, y, lo, lo, hi, hi, layout.plateRadius)) return std::nullopt;
    const double r = layout.rim;
    if (!insideRoundedRect(x, y, lo + r, lo + r, hi - r, hi - r, layout.plateRadius - r))
        return kRim;
    const int col = int(std::floor((x - layout.origin) / layout.pitch));
    const int row = int(std::floor((y - layout.origin) / layout.pitch));
    if (row < 0 || col < 0 || row >= kAppIconCells || col >= kAppIconCells) return kPlate;
    const AppIconRect c = cellRect(layout, row, col);
    if (!insideRoundedRect(x, y, c.x, c.y, c.x + c.width, c.y + c.height, layout.cellRadius))
        return kPlate;
    return cells[std::size_t(row * kAppIconCells + col)];
}

std::string hex(Rgb c) {
    char text[8];
    std::snprintf(text, sizeof text, "#%02x%02x%02x", c.r, c.g, c.b);
    return text;
}

std::string svgRect(double x, double y, double size, double radius, Rgb fill) {
    auto number = [](double v) { return std::to_string(std::lround(v)); }; // the design is whole
    const std::string s = number(size), r = number(radius);
    return "  <rect x=\"" + number(x) + "\" y=\"" + number(y) + "\" width=\"" + s + "\" height=\"" +
           s + "\" rx=\"" + r + "\" ry=\"" + r + "\" fill=\"" + hex(fill) + "\"/>\n";
}

} // namespace

float appIconWeight(int row, int col) {
    if (row < 0 || row >= kAppIconCells || col < 0 || col > row) return 0.0f;
    double total = 0;
    for (int j = 0; j <= row; ++j) total += std::exp(score(row, j));
    return float(std::exp(score(row, col)) / total);
}

AppIconRect appIconCell(int row, int col) {
    return cellRect(kDesign, row, col);
}

Image appIcon(int size) {
    Image image;
    if (size < 1) return image;
    image.width = image.height = size;
    image.rgba.assign(std::size_t(size) * size * 4, 0);
    CellColours cells;
    for (int i = 0; i < kAppIconCells; ++i)
        for (int j = 0; j < kAppIconCells; ++j)
            cells[std::size_t(i * kAppIconCells + j)] = cellColour(i, j);
    const Layout layout = pixelLayout(size);
    constexpr int n = kSamplesPerAxis;
    for (int py = 0; py < size; ++py)
        for (int px = 0; px < size; ++px) {
            double r = 0, g = 0, b = 0; // sums over covered samples; alpha is the coverage
            int covered = 0;
            for (int sy = 0; sy < n; ++sy)
                for (int sx = 0; sx < n; ++sx)
                    if (const auto c = sampleIcon(px + (sx + 0.5) / n, py + (sy + 0.5) / n, size,
                                                  layout, cells)) {
                        r += c->r, g += c->g, b += c->b;
                        ++covered;
                    }
            if (covered == 0) continue;
            std::uint8_t* out = &image.rgba[(std::size_t(py) * size + px) * 4];
            out[0] = std::uint8_t(std::lround(r / covered));
            out[1] = std::uint8_t(std::lround(g / covered));
            out[2] = std::uint8_t(std::lround(b / covered));
            out[3] = std::uint8_t(std::lround(255.0 * covered / (n * n)));
        }
    return image;
}

std::string appIconSvg() {
    std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"256\" "
                      "height=\"256\" viewBox=\"0 0 256 256\">\n"
                      "  <title>mha-viz</title>\n";
    const double plate = kAppIconUnits - 2 * kDesign.inset, rim = kDesign.rim;
    svg += svgRect(kDesign.inset, kDesign.inset, plate, kDesign.plateRadius, kRim);
    svg += svgRect(kDesign.inset + rim, kDesign.inset + rim, plate - 2 * rim,
                   kDesign.plateRadius - rim, kPlate);
    for (int i = 0; i < kAppIconCells; ++i)
        for (int j = 0; j < kAppIconCells; ++j) {
            const AppIconRect cell = appIconCell(i, j);
            svg += svgRect(cell.x, cell.y, cell.width, kDesign.cellRadius, cellColour(i, j));
        }
    svg += "</svg>\n";
    return svg;
}

} // namespace core
