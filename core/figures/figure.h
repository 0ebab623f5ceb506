// A head's attention map as a figure for slides and papers: cells, token labels and a title on
// both axes, a colour bar saying what the colours mean and a caption that says how it was made.
// Written as SVG, PNG (no OpenGL, no display) and CSV by core/figures/figure*.cpp, both pictures
// laid out by core/figures/heatmap_layout.h.
#pragma once

#include "base/csv_field.h"
#include "engine/trace.h"
#include "figures/colormap.h"
#include "figures/image.h"
#include "train/probe_maps.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace core {

struct HeatmapFigure {
    std::string title;                     // e.g. "head 3: previous-token"
    std::vector<std::string> captionLines; // sentence; d_model, H, d_head, mask, scale, seed, head
    std::vector<std::string> rowLabels;    // query tokens (N), "<pad>" past the sentence
    std::vector<std::string> colLabels;    // key tokens (M)
    int rows = 0, cols = 0;
    std::vector<float> values;              // rows x cols, row-major; kMaskedCell (-2) = masked
    float valueMin = 0.0f, valueMax = 1.0f; // colour scale; a difference of heads is signed
    int tickDecimals = 2;                   // colour-bar labels
    // The axis titles ("query" gets a ↓ on the rows, "key" a → on the columns) and what the
    // colours mean, under the colour bar; empty: left out.
    std::string rowAxis = "query", colAxis = "key", valueLabel = "attention weight";
    int rowLabelChars = 14, colLabelChars = 14; // PNG labels are cut to this many code points
    ColormapId colormap = ColormapId::Viridis;
    // A head's colour (figures/palette.h), drawn as a bar under the title, as the window frames
    // the head's map with it; none for views of several heads (mean, difference, entropy).
    std::optional<Rgb> keyColor;
    // A sentence pair: where sentence B starts, drawn as a divider across both axes (as the
    // window draws it); -1: none.
    int pairStart = -1;
    int maxCell = 0; // the largest cell side (scale-1 px) a grid that must fit allows; 0: any
};

// A cell a pair view leaves out (drawn blank, unlike a masked cell's hatching); the CSV says 0.
inline constexpr float kHiddenCell = -3.0f;
// The caption line a pair view adds: which block is shown and what the blank cells are.
std::string pairViewNote(PairView view);

// Where value v falls on the figure's colour scale, 0..1 (clamped; non-finite -> 0).
float colorPosition(const HeatmapFigure& figure, float v);
// The colour bar's k-th of 5 tick values (k = 0..4), from valueMin to valueMax.
float tickValue(const HeatmapFigure& figure, int k);

// All heads of one sentence side by side, one shared caption. With `sharedColorBar` the
// panels (which then share a colormap and a value range) have one colour bar under them all,
// the first panel's.
struct GridFigure {
    std::vector<HeatmapFigure> panels;
    int columns = 4;
    std::vector<std::string> captionLines;
    std::string title; // above the panels; empty: none
    bool sharedColorBar = true;
    // Panels that belong together (a model's query heads that share a K/V head): per panel its
    // group, -1 for none. Each run of a group's panels within a row is framed, every other
    // group's frame (the first's too) tinted. Empty: no frames.
    std::vector<int> panelGroups;
};

// `pairView`: a sentence pair's cells outside the block shown drawn as masked (attention_map.h).
HeatmapFigure headFigure(const Trace& trace, int batchIndex, int head,
                         ColormapId colormap = ColormapId::Viridis,
                         PairView pairView = PairView::All);
GridFigure gridFigure(const Trace& trace, int batchIndex, ColormapId colormap = ColormapId::Viridis,
                      PairView pairView = PairView::All);

// A trained model's probe maps (the Train view): a panel per head, titled "L{l}H{h}" in its
// colour, a row per layer (at most 8 heads a row, so the PNG stays openable).
GridFigure trainMapsFigure(const train::ProbeMaps& maps, const std::vector<std::string>& caption,
                           ColormapId colormap = ColormapId::Viridis);

// The views beside the grid (numbers from core/figures/head_views.h).
HeatmapFigure meanFigure(const Trace& trace, int batchIndex,
                         ColormapId colormap = ColormapId::Viridis,
                         PairView pairView = PairView::All);
// Head a minus head b on the diverging RdBu map, symmetric around 0 (red: a attends more).
HeatmapFigure differenceFigure(const Trace& trace, int batchIndex, int headA, int headB,
                               PairView pairView = PairView::All);
// Head `head` of `trace` minus the same head of `other`, the same layer of another model on the
// same text (the A-B tab across two models): model A's and B's names in the title and caption.
HeatmapFigure modelDifferenceFigure(const Trace& trace, const Trace& other, int batchIndex,
                                    int head, const std::string& nameA, const std::string& nameB,
                                    PairView pairView = PairView::All);
// Row entropy in bits: one row per head, one column per query token.
HeatmapFigure entropyFigure(const Trace& trace, int batchIndex,
                            ColormapId colormap = ColormapId::Viridis);
// Per head and query: entropy (bits), the key with the largest weight and that weight.
std::string statisticsCsv(const Trace& trace, int batchIndex);

// A head as two token columns joined by lines (BertViz's head view): queries on the left,
// keys on the right, each line as opaque as its weight.
struct LineFigure {
    std::string title;
    std::vector<std::string> captionLines;
    std::vector<std::string> queryLabels, keyLabels; // N, M
    int rows = 0, cols = 0;
    std::vector<float> weights; // rows x cols, row-major; masked cells 0
    Rgb color{31, 119, 180};    // the head's colour (palette.h)
    float minWeight = 0.01f;    // lighter lines are left out (invisible, and N x M of them)
};

LineFigure lineFigure(const Trace& trace, int batchIndex, int head,
                      PairView pairView = PairView::All);
std::string lineSvg(const LineFigure& figure);
Image linePng(const LineFigure& figure, int scale);

// SVG 1.1: real vector (rect and text elements), tokens XML-escaped.
std::string heatmapSvg(const HeatmapFigure& figure);
std::string gridSvg(const GridFigure& figure);

// "query,key1,key2,..." header, one row per query token; masked cells are 0.
std::string heatmapCsv(const HeatmapFigure& figure);

// Rasterised with stb_truetype and DejaVu Sans (found like the window's font); `scale` 1..4
// multiplies the resolution. Throws std::invalid_argument for a bad scale or an empty figure,
// std::runtime_error when there is no font file.
Image heatmapPng(const HeatmapFigure& figure, int scale);
Image gridPng(const GridFigure& figure, int scale);
// The same figures as PNG bytes (encodePng of the image above, byte for byte), drawn and
// encoded a band of rows at a time: the 4x grid of 16 heads of 120 tokens is 21408 x 5904 px,
// 500 MB as one Image, a few MB this way. `bandBytes`: the RGBA drawn at a time (at least a
// row). Throws like heatmapPng.
inline constexpr std::size_t kPngBandBytes = std::size_t(8) << 20; // ~100 rows of that grid
std::vector<std::uint8_t> encodeHeatmapPng(const HeatmapFigure& figure, int scale,
                                           std::size_t bandBytes = kPngBandBytes);
std::vector<std::uint8_t> encodeGridPng(const GridFigure& figure, int scale,
                                        std::size_t bandBytes = kPngBandBytes);

// Device px of gridPng(figure, scale), planned without drawing. Throws like gridPng.
struct PixelSize {
    int width = 0, height = 0;
};
PixelSize gridPngSize(const GridFigure& figure, int scale);
PixelSize heatmapPngSize(const HeatmapFigure& figure, int scale);
// The largest scale from `scale` down to 1 whose PNG keeps both sides within kMaxPngSide (1 when
// none does): ImageMagick's default policy, and many viewers, refuse larger images.
inline constexpr int kMaxPngSide = 16384;
int fittingGridScale(const GridFigure& figure, int scale);
// What a slide takes: a grid larger than this at its scale is not sharper on a projector, only
// slower to open (a 16:9 slide at 4K is 8.3 MP).
inline constexpr long long kSlidePixels = 25'000'000;
// Shrinks the panels' cells (maxCell, down to the smallest cell) until gridPngSize at `scale`
// has at most `maxPixels`; a grid that fits keeps its cells.
void fitGridToPixels(GridFigure& figure, int scale, long long maxPixels);

// The font file the rasteriser uses: $MHA_VIZ_FONT, else DejaVuSans.ttf in the usual places.
std::string findFigureFont();

} // namespace core
