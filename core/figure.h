// A head's attention map as a figure for slides and papers: cells, token labels on both
// axes, a colour bar and a caption that says how it was made. Written as SVG, PNG (no
// OpenGL, no display) and CSV by core/figure_*.cpp.
#pragma once

#include "colormap.h"
#include "image.h"
#include "trace.h"

#include <string>
#include <vector>

namespace core {

struct HeatmapFigure {
    std::string title;                     // e.g. "head 3: previous-token"
    std::vector<std::string> captionLines; // sentence; d_model, H, d_head, mask, scale, seed, head
    std::vector<std::string> rowLabels;    // query tokens (N), "<pad>" past the sentence
    std::vector<std::string> colLabels;    // key tokens (M)
    int rows = 0, cols = 0;
    std::vector<float> values; // rows x cols, row-major; kMaskedCell (-1) = masked
    float valueMax = 1.0f;     // colour scale 0..valueMax
    ColormapId colormap = ColormapId::Viridis;
};

// All heads of one sentence side by side, one shared caption.
struct GridFigure {
    std::vector<HeatmapFigure> panels;
    int columns = 4;
    std::vector<std::string> captionLines;
};

HeatmapFigure headFigure(const Trace& trace, int batchIndex, int head,
                         ColormapId colormap = ColormapId::Viridis);
GridFigure gridFigure(const Trace& trace, int batchIndex,
                      ColormapId colormap = ColormapId::Viridis);

// SVG 1.1: real vector (rect and text elements), tokens XML-escaped.
std::string heatmapSvg(const HeatmapFigure& figure);
std::string gridSvg(const GridFigure& figure);

// "query,key1,key2,..." header, one row per query token; masked cells are 0.
std::string heatmapCsv(const HeatmapFigure& figure);

// Rasterised with stb_truetype and DejaVu Sans (found like the window's font); `scale` 1..4
// multiplies the resolution. On failure (no font file) returns an empty image and sets error.
Image heatmapPng(const HeatmapFigure& figure, int scale, std::string& error);
Image gridPng(const GridFigure& figure, int scale, std::string& error);

// The font file the rasteriser uses: $MHA_VIZ_FONT, else DejaVuSans.ttf in the usual places.
std::string findFigureFont();

} // namespace core
