// Real-model figures (real_model_figures.h).
#include "models/analyses/real_model_figures.h"

#include "base/csv_field.h"
#include "figures/attention_map.h"
#include "figures/palette.h"
#include "models/formats/model_folder.h"
#include "models/model_description.h"

#include <cstdio>
#include <stdexcept>

namespace core::models {
namespace {

// "L3-H7" for layer 2, head 6 (from 0), as the export's file names and titles say it.
// Appended: GCC 12 warns on "L" + string (-Wrestrict).
std::string layerHeadName(int layer, int head) {
    return std::string("L")
        .append(std::to_string(layer + 1))
        .append("-H")
        .append(std::to_string(head + 1));
}

// A layer's heads per row: all up to 12; beyond, the largest divisor of H from 12 down to 4, so
// each layer starts a row; else 12 (a layer then spans rows).
int modelGridColumns(int heads) {
    if (heads <= 12) return heads;
    for (int c = 12; c >= 4; --c)
        if (heads % c == 0) return c;
    return 12;
}

// The layer's trace, kept or recomputed (RealTrace::layer); throws for a layer not there.
std::shared_ptr<const Trace> layerOf(const RealTrace& trace, int layer) {
    return trace.layer(layer);
}

// `values` (N x N) on the labels and mask of layer `layer`'s head `head`: masked cells stay
// kMaskedCell, as every attention map of the app marks them.
HeatmapFigure tokenMapFigure(const Trace& layer, int head, const Mat& values, ColormapId colormap) {
    const AttentionMap map = attentionMap(layer, 0, head);
    if (values.rows() != map.rows || values.cols() != map.cols)
        throw std::invalid_argument("a token map must be N x N for the trace's N tokens");
    HeatmapFigure f;
    f.rows = map.rows, f.cols = map.cols;
    f.rowLabels = map.queryLabels, f.colLabels = map.keyLabels;
    f.values = map.values;
    f.pairStart = map.pairStart;
    for (int i = 0; i < f.rows; ++i)
        for (int j = 0; j < f.cols; ++j) {
            float& cell = f.values[std::size_t(i) * std::size_t(f.cols) + std::size_t(j)];
            if (cell != kMaskedCell) cell = float(values(i, j));
        }
    f.colormap = colormap;
    return f;
}

// normalizedRows(valueWeightedAttention(layer, head)) as a titled figure.
HeatmapFigure valueWeightedPanel(const Trace& layer, int head, ColormapId colormap) {
    // N x N, rows summing to 1 (or 0 for an ablated head): on the scale of attention weights.
    const Mat weighted = normalizedRows(valueWeightedAttention(layer, head));
    HeatmapFigure f = tokenMapFigure(layer, head, weighted, colormap);
    f.title = layerHeadName(layer.layer, head) + " value-weighted";
    f.valueLabel = "\xE2\x80\x96\xCE\xB1 f(x)\xE2\x80\x96, rows normalised";
    f.captionLines = {"|alpha_ij f(x_j)|: what token j sends token i through the head "
                      "(Kobayashi et al. 2020)"};
    f.keyColor = headColor(layer.layer, head, layer.attention.heads);
    return f;
}

} // namespace

namespace {

// "L1H3, L2H1": the heads the trace ran with switched off, layers and heads from 1.
std::string switchedOffHeads(const RealTrace& trace) {
    std::string off;
    for (std::size_t l = 0; l < trace.ablated.size(); ++l)
        for (int h : trace.ablated[l])
            off +=
                (off.empty() ? "L" : ", L") + std::to_string(l + 1) + "H" + std::to_string(h + 1);
    return off;
}

} // namespace

std::vector<std::string> realModelCaption(const RealModel& model, const RealTrace& trace) {
    const ModelConfig& c = model.config();
    char sizes[200];
    std::snprintf(sizes, sizeof sizes, "%s, %d layers, %s, d_model %d, %s, %s",
                  model.family.c_str(), c.layers, headLayout(c).c_str(), c.dModel,
                  model.dtype().c_str(), model.isEncoder() ? "bidirectional" : "causal");
    // Its name, never a local path: a path cut to the figure's width says nothing.
    const std::string what = "real model " + modelDisplayName(model.location) + ": its own weights";
    std::string text = "\"" + trace.text + "\"";
    if (!trace.pair.empty()) text = "A: " + text + "  B: \"" + trace.pair + "\"";
    std::vector<std::string> lines = {text, what, sizes};
    if (const std::string attention = attentionCaptionLine(model); !attention.empty())
        lines.push_back(attention); // RoPE, windows, the scale: what the sizes do not say
    if (const std::string off = switchedOffHeads(trace); !off.empty())
        lines.push_back(std::string("heads switched off (output zeroed before ") +
                        model.architecture->outProjection + "): " + off);
    return lines;
}

namespace {

// "L3-H7", or "L3-H7 · kv 4" where query heads share K/V heads in groups (GQA).
std::string panelTitle(int layer, int head, const KvGroups& groups) {
    if (!groups.shared() || groups.groups() == 1) return layerHeadName(layer, head);
    return layerHeadName(layer, head) + " \xC2\xB7 kv " + std::to_string(groups.groupOf(head) + 1);
}

// The query heads that share a K/V head framed together, and the caption saying so.
void frameGroups(GridFigure& grid, const KvGroups& groups, int layers) {
    if (!groups.shared()) return; // MHA: every head its own keys and values
    for (int l = 0; l < layers; ++l)
        for (int h = 0; h < groups.heads; ++h) grid.panelGroups.push_back(groups.groupOf(h));
    grid.captionLines.push_back("each frame: the query heads that read one K/V head; " +
                                kvGroupsLegend(groups));
}

} // namespace

namespace {

// Every head of `count` layers, each layer's trace from `layerAt` (one at a time).
GridFigure layersGrid(int count, const std::function<std::shared_ptr<const Trace>(int)>& layerAt,
                      const std::vector<std::string>& captionLines, ColormapId colormap,
                      bool valueWeighted) {
    GridFigure grid;
    int heads = 0;
    KvGroups groups;
    for (int l = 0; l < count; ++l) {
        const std::shared_ptr<const Trace> kept = layerAt(l); // one layer at a time
        const Trace& layer = *kept;
        heads = layer.attention.heads;
        groups = {heads, layer.attention.kvHeads};
        for (int h = 0; h < heads; ++h) {
            if (valueWeighted) {
                HeatmapFigure f = valueWeightedPanel(layer, h, colormap);
                f.title = panelTitle(l, h, groups);
                grid.panels.push_back(std::move(f));
                continue;
            }
            const AttentionMap map = attentionMap(layer, 0, h);
            HeatmapFigure f;
            f.title = panelTitle(l, h, groups);
            f.rows = map.rows, f.cols = map.cols;
            f.rowLabels = map.queryLabels, f.colLabels = map.keyLabels;
            f.values = map.values;
            f.pairStart = map.pairStart;
            f.colormap = colormap;
            f.keyColor = headColor(l, h, heads); // as the window frames the head's map
            grid.panels.push_back(std::move(f));
        }
    }
    grid.columns = modelGridColumns(heads);
    grid.captionLines = captionLines;
    frameGroups(grid, groups, count);
    return grid;
}

} // namespace

GridFigure modelGridFigure(const RealTrace& trace, const std::vector<std::string>& captionLines,
                           ColormapId colormap, bool valueWeighted) {
    return layersGrid(
        trace.layerCount(), [&trace](int l) { return layerOf(trace, l); }, captionLines, colormap,
        valueWeighted);
}

GridFigure modelGridFigure(const std::vector<std::shared_ptr<const Trace>>& layers,
                           const std::vector<std::string>& captionLines, ColormapId colormap) {
    return layersGrid(
        int(layers.size()), [&layers](int l) { return layers.at(std::size_t(l)); }, captionLines,
        colormap, false);
}

HeatmapFigure detectorFigure(const HeadDetectorScores& scores, ColormapId colormap) {
    HeatmapFigure f;
    f.title = scores.title.empty() ? "head detector: " + scores.name : scores.title;
    f.captionLines = {scores.explanation};
    f.rows = int(scores.scores.rows()), f.cols = int(scores.scores.cols());
    for (int l = 0; l < f.rows; ++l) // appended: GCC 12 warns on "L" + string (-Wrestrict)
        f.rowLabels.push_back(std::string("L").append(std::to_string(l + 1)));
    for (int h = 0; h < f.cols; ++h)
        f.colLabels.push_back(std::string("H").append(std::to_string(h + 1)));
    for (int l = 0; l < f.rows; ++l)
        for (int h = 0; h < f.cols; ++h) f.values.push_back(float(scores.scores(l, h)));
    f.valueMin = 0.0f, f.valueMax = 1.0f; // a score is a share of attention
    f.rowAxis = "layer", f.colAxis = "head";
    f.valueLabel = scores.title.empty() ? scores.name + " score" : scores.title;
    f.colormap = colormap;
    return f;
}

HeatmapFigure rolloutFigure(const RealTrace& trace, int upToLayer, ColormapId colormap) {
    return rolloutFigure(trace.meanAttention, *layerOf(trace, 0), upToLayer, colormap);
}

HeatmapFigure rolloutFigure(const std::vector<Mat>& layerMeans, const Trace& firstLayer,
                            int upToLayer, ColormapId colormap) {
    const Mat rollout = attentionRollout(layerMeans, upToLayer); // N x N, rows sum to 1
    HeatmapFigure f = tokenMapFigure(firstLayer, 0, rollout, colormap);
    f.title = "attention rollout after layer " + std::to_string(upToLayer);
    f.valueLabel = "share of the input token in the stream (Abnar & Zuidema 2020)";
    f.captionLines = {"per layer 0.5 (mean attention over heads) + 0.5 I, rows renormalised, "
                      "layers multiplied"};
    return f;
}

HeatmapFigure valueWeightedFigure(const RealTrace& trace, int layer, int head,
                                  ColormapId colormap) {
    return valueWeightedPanel(*layerOf(trace, layer), head, colormap);
}

std::string logitLensCsv(const RealModel& model, const RealTrace& trace, int position, int k) {
    const std::vector<std::vector<TokenChoice>> lens = logitLens(model, trace, position, k);
    std::string csv = "layer,rank,token,id,probability\n";
    for (std::size_t l = 0; l < lens.size(); ++l)
        for (std::size_t r = 0; r < lens[l].size(); ++r) {
            const TokenChoice& c = lens[l][r];
            char probability[32];
            std::snprintf(probability, sizeof probability, "%.9g", double(c.probability));
            csv.append(std::to_string(l + 1)).append(",").append(std::to_string(r + 1));
            csv.append(",").append(csvField(c.token)).append(",").append(std::to_string(c.id));
            csv.append(",").append(probability).append("\n");
        }
    return csv;
}

} // namespace core::models
