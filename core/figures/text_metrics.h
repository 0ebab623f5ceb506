// How the figures measure text before they draw it, so one layout serves the SVG writer and the
// PNG rasteriser (curve_layout.h, heatmap_layout.h). Sizes are pixel heights (ascent - descent),
// as stb_truetype's.
#pragma once

#include <functional>
#include <string>

namespace core {

// The real font for PNG (raster::fontMetrics). For SVG (viewers measure for real) the heatmaps
// use the font when there is one, so they lay out like their PNG, else the estimate below; the
// curves always use the estimate.
struct TextMetrics {
    std::function<float(const std::string&, float px)> width;
    std::function<float(float px)> lineHeight, ascent;
    // The text cut (with an ellipsis) to at most maxWidth.
    std::function<std::string(const std::string&, float px, float maxWidth)> cut;
};

// DejaVu Sans' own advances (ASCII; 0.6 for the rest) without the font file, so the SVG lays
// out like the PNG.
TextMetrics estimatedMetrics();

// SVG's font-size is the em, smaller than DejaVu Sans' pixel height: 2048 of 2384 units.
constexpr float kSvgEmPerPx = 2048.0f / 2384.0f;

struct PlacedText {
    std::string text;   // already cut to fit
    float x = 0, y = 0; // x as the anchor says (left, centre or right), y the top of its line box
    float width = 0;
};

} // namespace core
