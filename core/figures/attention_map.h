// One head's attention map as a view or an exporter wants it: values with masked
// cells marked, token labels on both axes.
#pragma once

#include "engine/trace.h"
#include "figures/colormap.h"
#include "train/probe_maps.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace core {

inline constexpr float kMaskedCell = -2.0f; // weights are in [0, 1], differences of two heads
                                            // in [-1, 1]: -2 is neither
inline constexpr const char* kPadLabel = "<pad>";
inline constexpr int kMaxLabelCodePoints = 48; // longer tokens are cut, with an ellipsis

struct AttentionMap {
    int rows = 0, cols = 0;    // N queries x M keys
    std::vector<float> values; // rows x cols, row-major; kMaskedCell where masked
    std::vector<std::string> queryLabels, keyLabels; // "<pad>" past a sentence's end
    float maxWeight = 0; // largest unmasked weight (per-head colour scale)
    int pairStart = -1;  // a sentence pair: where B starts (a divider on both axes), else -1
};

// Whether cell (i, j) is outside the block a pair view shows (engine/trace.h, PairView).
bool hiddenByPairView(PairView view, int pairStart, int i, int j);

// The head's weights with masked cells marked; with a pair view (a sentence pair's trace), the
// cells outside its block are marked masked too.
AttentionMap attentionMap(const Trace& trace, int batchIndex, int head,
                          PairView pairView = PairView::All);
// Head `head` of layer `layer` of a trained model's probe maps (causal: later keys masked).
AttentionMap attentionMap(const train::ProbeMaps& maps, int layer, int head);

// The colours of `count` cells as the PNG and SVG figures paint them: sampleColormap at the
// value's place in [valueMin, valueMax] (clamped; non-finite values and ranges give the first
// colour), RGBA8 with alpha 255, and alpha 0 (black) on masked cells. The window colours its
// maps with this once per change instead of a colormap lookup per screen pixel.
void colorCells(const float* values, std::size_t count, ColormapId colormap, float valueMin,
                float valueMax, std::uint8_t* rgba);

} // namespace core
