#include "figures/palette.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>

namespace core {

namespace {

// Hue h in degrees, saturation and value 0..1.
Rgb hsv(double h, double s, double v) {
    const double c = v * s, hp = std::fmod(h, 360.0) / 60.0;
    const double x = c * (1 - std::abs(std::fmod(hp, 2.0) - 1)), m = v - c;
    const int sector = int(hp) % 6;
    const double r[6] = {c, x, 0, 0, x, c}, g[6] = {x, c, c, x, 0, 0}, b[6] = {0, 0, x, c, c, x};
    const auto byte = [&](double u) { return std::uint8_t(std::lround(255 * (u + m))); };
    return {byte(r[sector]), byte(g[sector]), byte(b[sector])};
}

double luminance(Rgb c) {
    return 0.2126 * c.r + 0.7152 * c.g + 0.0722 * c.b;
}

// Into luminance [80, 180]: darker toward black, lighter toward white, hue kept.
Rgb readable(Rgb c) {
    const double y = luminance(c);
    const auto mix = [](std::uint8_t u, double toward, double t) {
        return std::uint8_t(std::lround(u + (toward - u) * t));
    };
    if (y > 180)
        return {mix(c.r, 0, 1 - 180 / y), mix(c.g, 0, 1 - 180 / y), mix(c.b, 0, 1 - 180 / y)};
    if (y < 80) {
        const double t = (80 - y) / (255 - y);
        return {mix(c.r, 255, t), mix(c.g, 255, t), mix(c.b, 255, t)};
    }
    return c;
}

constexpr Rgb kPalette[] = {{31, 119, 180},  {255, 127, 14}, {44, 160, 44},   {214, 39, 40},
                            {148, 103, 189}, {140, 86, 75},  {227, 119, 194}, {188, 189, 34},
                            {23, 190, 207},  {96, 110, 220}, {0, 128, 112},   {200, 60, 120},
                            {222, 165, 0},   {99, 121, 57},  {150, 110, 210}, {220, 70, 220},
                            {0, 180, 120},   {177, 89, 40},  {90, 160, 230},  {127, 127, 127}};

} // namespace

Rgb seriesColor(int i) {
    constexpr int n = int(std::size(kPalette));
    if (i < n) return kPalette[std::max(i, 0)];
    // Past the table: golden-angle hues (each far from the last), two alternating values.
    return readable(hsv(25.0 + 137.508 * (i - n), 0.75, (i - n) % 2 ? 0.6 : 0.85));
}

std::vector<Rgb> headPalette(int n) {
    std::vector<Rgb> colors;
    for (int i = 0; i < n; ++i) colors.push_back(seriesColor(i));
    return colors;
}

Rgb headColor(int layer, int head, int heads) {
    return seriesColor(modelHeadIndex(layer, head, heads));
}

Rgb headColor(const Trace& trace, int head) {
    return seriesColor(trace.headColorIndex(head));
}

} // namespace core
