// Internals of the figure rasterisers (heatmaps, line views): DejaVu Sans through
// stb_truetype and an RGBA8 canvas with blending. No OpenGL, no display.
#pragma once

#include "figures/colormap.h"
#include "figures/image.h"

#include <stb_truetype.h>

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

// Cuts text to at most maxCodePoints, the last one becoming an ellipsis.
std::u32string cutToCodePoints(const std::string& utf8, std::size_t maxCodePoints);
// Cuts text (with an ellipsis) until it is at most maxWidth px wide.
std::u32string cutToWidth(const Font& font, const std::string& utf8, float px, float maxWidth);

// Rounds a layout size up, forgiving float noise.
int ceilInt(float v);

// Throws std::invalid_argument unless the export scale is 1..4.
void checkScale(int scale);

struct Canvas {
    Image image;
    int scale = 1;

    Canvas(int width, int height, int s) : scale(s) {
        image.width = width * s;
        image.height = height * s;
        image.rgba.assign(std::size_t(image.width) * image.height * 4, 255);
    }

    void put(int x, int y, Rgb c) {
        if (x < 0 || y < 0 || x >= image.width || y >= image.height) return;
        std::uint8_t* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
        p[0] = c.r, p[1] = c.g, p[2] = c.b, p[3] = 255;
    }

    void blend(int x, int y, Rgb c, int alpha) {
        if (alpha <= 0 || x < 0 || y < 0 || x >= image.width || y >= image.height) return;
        std::uint8_t* p = &image.rgba[(std::size_t(y) * image.width + x) * 4];
        const int inv = 255 - alpha;
        p[0] = std::uint8_t((c.r * alpha + p[0] * inv + 127) / 255);
        p[1] = std::uint8_t((c.g * alpha + p[1] * inv + 127) / 255);
        p[2] = std::uint8_t((c.b * alpha + p[2] * inv + 127) / 255);
        p[3] = 255;
    }

    // Rectangle in device pixels.
    void fill(int x0, int y0, int w, int h, Rgb c) {
        for (int y = y0; y < y0 + h; ++y)
            for (int x = x0; x < x0 + w; ++x) put(x, y, c);
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
};

} // namespace core::raster
