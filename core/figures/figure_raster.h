// Internals of the figure rasterisers (heatmaps, line views): DejaVu Sans through
// stb_truetype and an RGBA8 canvas with blending. No OpenGL, no display.
#pragma once

#include "figures/colormap.h"
#include "figures/image.h"
#include "figures/text_metrics.h"

#include <stb_truetype.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace core::raster {

struct Font {
    std::vector<unsigned char> bytes;
    stbtt_fontinfo info{};
    float ascentUnits = 0, descentUnits = 0; // font units; descent is negative
    bool hasReplacement = false;
};

// The figure font (findFigureFont), read and parsed once per process; throws
// std::runtime_error when there is none or it cannot be read.
std::shared_ptr<const Font> figureFont();

float textWidth(const Font& font, const std::u32string& text, float px);
float textWidth(const Font& font, const std::string& utf8, float px);
float lineHeight(const Font& font, float px); // line box (ascent - descent) in pixels

// Text as a coverage mask: `pad` px left, baseline at `baseline`, one line box tall.
struct TextMask {
    int width = 0, height = 0, pad = 1;
    std::vector<std::uint8_t> alpha;
};

TextMask renderText(const Font& font, const std::u32string& text, float px);
// The size renderText's mask will have, without rendering it: to skip text outside a band.
int textMaskHeight(const Font& font, float px);
int textMaskWidth(const Font& font, const std::u32string& text, float px);

// Cuts text to at most maxCodePoints, the last one becoming an ellipsis.
std::u32string cutToCodePoints(const std::string& utf8, std::size_t maxCodePoints);
// Cuts text (with an ellipsis) until it is at most maxWidth px wide.
std::u32string cutToWidth(const Font& font, const std::string& utf8, float px, float maxWidth);

// The font's own measurements, for a layout the PNG draws (it keeps a reference to `font`).
TextMetrics fontMetrics(const Font& font);
// fontMetrics of the figure font when there is one (kept alive by the metrics), else
// estimatedMetrics(): the SVG then lays out exactly like the PNG, and needs no font file.
TextMetrics figureFontMetricsOrEstimate();

// Rounds a layout size up, forgiving float noise.
int ceilInt(float v);

// Throws std::invalid_argument unless the export scale is 1..4.
void checkScale(int scale);

// An RGBA8 drawing surface in device pixels. It may hold only a band of the full image's rows
// (setBand): drawing outside the band is skipped, so a figure too large for memory is drawn
// band by band, each band encoded before the next (encodeHeatmapPng). Every pixel it draws
// is opaque.
struct Canvas {
    Image image; // the band: rows [top, top + image.height) of the full image
    int scale = 1;
    int top = 0, fullHeight = 0; // device rows

    Canvas(int width, int height, int s) : Canvas(width, height, s, height * s) {}
    // Starts with the band of the first `bandRows` rows.
    Canvas(int width, int height, int s, int bandRows) : scale(s) {
        image.width = width * s;
        fullHeight = height * s;
        bandRows_ = std::max(1, std::min(bandRows, fullHeight));
        setBand(0);
    }

    // Moves the band to start at device row `bandTop`, cleared to white.
    void setBand(int bandTop) {
        top = bandTop;
        image.height = std::max(0, std::min(bandRows_, fullHeight - bandTop));
        image.rgba.assign(std::size_t(image.width) * std::size_t(image.height) * 4, 255);
    }

    // Whether device rows [y, y + h) meet the band.
    bool touchesRows(int y, int h) const { return y < top + image.height && y + h > top; }

    void put(int x, int y, Rgb c) {
        y -= top;
        if (x < 0 || y < 0 || x >= image.width || y >= image.height) return;
        std::uint8_t* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
        p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = 255;
    }

    void blend(int x, int y, Rgb c, int alpha) {
        y -= top;
        if (alpha <= 0 || x < 0 || y < 0 || x >= image.width || y >= image.height) return;
        std::uint8_t* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
        const int inv = 255 - alpha;
        p[0] = std::uint8_t((c.r * alpha + p[0] * inv + 127) / 255);
        p[1] = std::uint8_t((c.g * alpha + p[1] * inv + 127) / 255);
        p[2] = std::uint8_t((c.b * alpha + p[2] * inv + 127) / 255);
        p[3] = 255;
    }

    // Rectangle in device pixels, clipped to the band first (cells are drawn once per band).
    void fill(int x0, int y0, int w, int h, Rgb c) {
        const int xBegin = std::max(x0, 0), xEnd = std::min(x0 + w, image.width);
        const int yBegin = std::max(y0, top), yEnd = std::min(y0 + h, top + image.height);
        if (xBegin >= xEnd) return;
        for (int y = yBegin; y < yEnd; ++y) {
            std::uint8_t* p = &image.rgba[(std::size_t(y - top) * image.width + xBegin) * 4];
            for (int x = xBegin; x < xEnd; ++x, p += 4)
                p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = 255;
        }
    }

    // Horizontal mask with its top-left corner at (x, y), device pixels.
    void drawMask(const TextMask& mask, int x, int y, Rgb c) {
        for (int my = 0; my < mask.height; ++my)
            for (int mx = 0; mx < mask.width; ++mx)
                blend(x + mx, y + my, c, mask.alpha[std::size_t(my) * mask.width + mx]);
    }

    // Mask turned 90° counter-clockwise (reads bottom to top): glyph tops face left, the
    // start of the text at the bottom. (x, y) is the top-left of the rotated box.
    void drawMaskRotated(const TextMask& mask, int x, int y, Rgb c) {
        for (int my = 0; my < mask.height; ++my)
            for (int mx = 0; mx < mask.width; ++mx)
                blend(x + my, y + (mask.width - 1 - mx), c,
                      mask.alpha[std::size_t(my) * mask.width + mx]);
    }

  private:
    int bandRows_ = 1;
};

// Text whose line box starts at t.y, anchored at t.x by its left edge, centre or right edge
// (scale-1 px); skipped when it misses the canvas' band.
enum class Anchor { Left, Centre, Right };
void drawText(Canvas& canvas, const Font& font, const PlacedText& t, float px, Rgb color,
              Anchor anchor);

} // namespace core::raster
