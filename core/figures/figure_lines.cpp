// The line view of a head as a figure (BertViz's head view, drawn for a slide): the model
// from a trace, and its PNG rasteriser (the SVG writer sits with the others in figure_svg.cpp).
#include "figures/figure.h"

#include "figures/attention_map.h"
#include "figures/figure_raster.h"
#include "text/utf8.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace core {

LineFigure lineFigure(const Trace& trace, int b, int h, PairView pairView) {
    const AttentionMap map = attentionMap(trace, b, h, pairView);
    const HeatmapFigure heat = headFigure(trace, b, h); // same title and caption as the heatmap
    LineFigure f;
    f.title = heat.title + " \xE2\x80\x94 lines";
    f.captionLines = heat.captionLines;
    f.captionLines.push_back("queries on the left, keys on the right; lines under " +
                             std::string("0.01 left out"));
    f.queryLabels = map.queryLabels, f.keyLabels = map.keyLabels;
    f.rows = map.rows, f.cols = map.cols;
    f.weights = map.values;
    f.color = *heat.keyColor;                         // the head's own colour, as in the window
    for (float& w : f.weights) w = std::max(w, 0.0f); // masked cells draw no line
    return f;
}

namespace {

using namespace raster;

constexpr int kMargin = 16, kGap = 220, kLabelRoom = 160, kLineEnd = 8;
constexpr float kTitlePx = 15, kLabelPx = 12, kCaptionPx = 12;
const Rgb kTitleColor{40, 40, 45}, kLabelColor{50, 50, 55}, kCaptionColor{105, 105, 110};

// An anti-aliased line `width` px wide, `opacity` 0..1, in device pixels: walks the longer
// axis and covers the pixels across it by their distance from the centre.
void drawLine(Canvas& canvas, float x0, float y0, float x1, float y1, float width, Rgb color,
              float opacity) {
    const bool steep = std::abs(y1 - y0) > std::abs(x1 - x0);
    if (steep) std::swap(x0, y0), std::swap(x1, y1);
    if (x0 > x1) std::swap(x0, x1), std::swap(y0, y1);
    const float dx = x1 - x0, dy = y1 - y0;
    const float slope = dx > 0 ? dy / dx : 0.0f;
    const float half = 0.5f * width * std::sqrt(1.0f + slope * slope); // across the walk axis
    for (int x = int(std::floor(x0)); x <= int(std::ceil(x1)); ++x) {
        const float centre = y0 + slope * (float(x) - x0);
        for (int y = int(std::floor(centre - half - 1)); y <= int(std::ceil(centre + half + 1));
             ++y) {
            const float cover = std::clamp(half + 0.5f - std::abs(float(y) - centre), 0.0f, 1.0f);
            const int alpha = int(std::lround(255.0f * cover * opacity));
            if (steep)
                canvas.blend(y, x, color, alpha);
            else
                canvas.blend(x, y, color, alpha);
        }
    }
}

std::vector<std::u32string> cutLabels(const Font& font, const std::vector<std::string>& labels,
                                      int step, int& widest) {
    std::vector<std::u32string> out;
    for (std::size_t k = 0; k < labels.size(); ++k) {
        out.push_back(k % std::size_t(step) == 0
                          ? cutToWidth(font, labels[k], kLabelPx, float(kLabelRoom))
                          : std::u32string());
        widest = std::max(widest, ceilInt(textWidth(font, out.back(), kLabelPx)));
    }
    return out;
}

} // namespace

Image linePng(const LineFigure& f, int scale) {
    checkScale(scale);
    if (f.rows <= 0 || f.cols <= 0 || f.weights.size() != std::size_t(f.rows) * std::size_t(f.cols))
        throw std::invalid_argument(
            "line figure has no cells or its weights do not match rows x cols");
    const auto font = figureFont();

    const int longest = std::max(f.rows, f.cols);
    const int rowH = std::clamp(600 / longest, 3, 20);
    const int step = rowH >= 13 ? 1 : ceilInt(13.0f / float(rowH)); // every k-th label
    int leftW = 0, rightW = 0;
    const auto left = cutLabels(*font, f.queryLabels, step, leftW);
    const auto right = cutLabels(*font, f.keyLabels, step, rightW);
    const int titleH = ceilInt(lineHeight(*font, kTitlePx));
    const int captionLine = ceilInt(lineHeight(*font, kCaptionPx)) + 2;
    const int top = kMargin + titleH + 10;
    const int xLeft = kMargin + leftW + kLineEnd, xRight = xLeft + kGap;
    int width = xRight + kLineEnd + rightW + kMargin;
    const int captionTop = top + rowH * longest + 12;
    std::vector<std::u32string> caption;
    for (const std::string& line : f.captionLines) {
        width = std::max(width,
                         std::min(ceilInt(textWidth(*font, line, kCaptionPx)) + 2 * kMargin, 640));
        caption.push_back(cutToWidth(*font, line, kCaptionPx, float(width - 2 * kMargin)));
    }
    const int height = captionTop + int(caption.size()) * captionLine + kMargin;

    Canvas canvas(width, height, scale);
    const float s = float(scale);
    canvas.drawMask(renderText(*font, decodeUtf8(f.title), kTitlePx * s), (kMargin - 1) * scale,
                    kMargin * scale, kTitleColor);
    for (int i = 0; i < f.rows; ++i)
        for (int j = 0; j < f.cols; ++j) {
            const float w = f.weights[std::size_t(i) * std::size_t(f.cols) + std::size_t(j)];
            if (!(w >= f.minWeight)) continue;
            drawLine(canvas, float(xLeft) * s, (float(top) + float(rowH) * (float(i) + 0.5f)) * s,
                     float(xRight) * s, (float(top) + float(rowH) * (float(j) + 0.5f)) * s,
                     2.0f * s, f.color, std::min(w, 1.0f));
        }
    const int labelLinePx = ceilInt(lineHeight(*font, kLabelPx * s));
    auto drawLabels = [&](const std::vector<std::u32string>& labels, bool alignRight) {
        for (std::size_t k = 0; k < labels.size(); ++k) {
            if (labels[k].empty()) continue;
            const TextMask mask = renderText(*font, labels[k], kLabelPx * s);
            const int w = ceilInt(textWidth(*font, labels[k], kLabelPx * s));
            const int centre = int((float(top) + float(rowH) * (float(k) + 0.5f)) * s);
            const int x =
                alignRight ? (xLeft - 6) * scale - w - mask.pad : (xRight + 6) * scale - mask.pad;
            canvas.drawMask(mask, x, centre - labelLinePx / 2, kLabelColor);
        }
    };
    drawLabels(left, true);
    drawLabels(right, false);
    for (std::size_t k = 0; k < caption.size(); ++k)
        canvas.drawMask(renderText(*font, caption[k], kCaptionPx * s), (kMargin - 1) * scale,
                        (captionTop + int(k) * captionLine) * scale, kCaptionColor);
    return std::move(canvas.image);
}

} // namespace core
