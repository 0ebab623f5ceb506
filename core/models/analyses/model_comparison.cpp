// Two models' traces of one text, head by head (model_comparison.h).
#include "models/analyses/model_comparison.h"

#include "figures/figure.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "models/analyses/real_model_figures.h"
#include "models/formats/model_config.h"
#include "models/formats/model_folder.h"
#include "models/real_trace_parts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <stdexcept>

namespace core::models {
namespace {

// The token at i as the tokenizer shows it, for a refusal.
std::string tokenAt(const RealTrace& t, std::size_t i) {
    return i < t.ids.size() ? "'" + t.model->tokenizer->readable(t.ids[i]) + "'" : "(none)";
}

// Both traces must have read the same ids through models of the same shape.
void checkComparable(const RealTrace& a, const RealTrace& b) {
    if (a.ids != b.ids) {
        std::size_t i = 0;
        while (i < a.ids.size() && i < b.ids.size() && a.ids[i] == b.ids[i]) ++i;
        throw std::invalid_argument(
            "the two models read the text differently: token " + std::to_string(i) + " is " +
            tokenAt(a, i) + " for the first and " + tokenAt(b, i) + " for the second (" +
            std::to_string(a.ids.size()) + " and " + std::to_string(b.ids.size()) +
            " tokens): compare models that share a tokenizer");
    }
    const ModelConfig &ca = a.model->config(), &cb = b.model->config();
    if (a.layerCount() != b.layerCount() || ca.heads != cb.heads)
        throw std::invalid_argument(
            "the two models differ in shape: " + std::to_string(a.layerCount()) + " layers x " +
            std::to_string(ca.heads) + " heads against " + std::to_string(b.layerCount()) + " x " +
            std::to_string(cb.heads));
}

// One head's maps (N x N each) compared.
HeadShift shiftOf(const Mat& a, const Mat& b, int layer, int head) {
    HeadShift s;
    s.layer = layer, s.head = head;
    const Mat diff = (a - b).cwiseAbs(); // N x N
    s.meanTotalVariation = 0.5 * diff.cast<double>().rowwise().sum().mean();
    Eigen::Index q = 0, k = 0;
    s.maxAbs = diff.size() > 0 ? double(diff.maxCoeff(&q, &k)) : 0.0;
    s.query = int(q), s.key = int(k);
    return s;
}

// Where both traces made a top choice, how many agree.
void comparePredictions(const RealTrace& a, const RealTrace& b, TraceComparison& c) {
    const std::size_t n = std::min(a.predictions.size(), b.predictions.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (a.predictions[i].empty() || b.predictions[i].empty()) continue;
        ++c.positions;
        if (a.predictions[i].front().id == b.predictions[i].front().id) ++c.topAgree;
    }
    c.lossA = a.loss, c.lossB = b.loss;
}

} // namespace

TraceComparison compareTraces(const RealTrace& a, const RealTrace& b) {
    checkComparable(a, b);
    TraceComparison c;
    c.layers = a.layerCount(), c.heads = a.model->config().heads, c.tokens = int(a.ids.size());
    c.totalVariation.resize(c.layers, c.heads); // L x H
    c.maxAbs.resize(c.layers, c.heads);         // L x H
    for (int l = 0; l < c.layers; ++l) {
        const std::shared_ptr<const Trace> ta = a.layer(l), tb = b.layer(l);
        for (int h = 0; h < c.heads; ++h) {
            const HeadShift s = shiftOf(headMap(ta->attention, h), headMap(tb->attention, h), l, h);
            c.totalVariation(l, h) = Scalar(s.meanTotalVariation);
            c.maxAbs(l, h) = Scalar(s.maxAbs);
            c.ranked.push_back(s);
        }
    }
    std::stable_sort(c.ranked.begin(), c.ranked.end(), [](const HeadShift& x, const HeadShift& y) {
        return x.meanTotalVariation > y.meanTotalVariation;
    });
    comparePredictions(a, b, c);
    return c;
}

std::string mostMovedHeads(const TraceComparison& c, int count) {
    std::string text;
    for (int i = 0; i < count && i < int(c.ranked.size()); ++i) {
        const HeadShift& s = c.ranked[std::size_t(i)];
        char item[64];
        std::snprintf(item, sizeof item, "%sL%d H%d (%.3g)", i > 0 ? ", " : "", s.layer + 1,
                      s.head + 1, s.meanTotalVariation);
        text += item;
    }
    return text;
}

std::string comparisonCsv(const TraceComparison& c) {
    std::ostringstream out;
    out.precision(9);
    out << "layer,head,mean_total_variation,max_abs_difference,query,key\n";
    for (const HeadShift& s : c.ranked)
        out << s.layer + 1 << ',' << s.head + 1 << ',' << s.meanTotalVariation << ',' << s.maxAbs
            << ',' << s.query << ',' << s.key << '\n';
    return out.str();
}

HeatmapFigure comparisonFigure(const TraceComparison& c, const std::string& nameA,
                               const std::string& nameB, ColormapId colormap) {
    HeatmapFigure f;
    f.title = "attention moved per head: " + nameA + " against " + nameB;
    f.rows = c.layers, f.cols = c.heads;
    for (int l = 0; l < f.rows; ++l)
        f.rowLabels.push_back(std::string("L").append(std::to_string(l + 1)));
    for (int h = 0; h < f.cols; ++h)
        f.colLabels.push_back(std::string("H").append(std::to_string(h + 1)));
    for (int l = 0; l < f.rows; ++l)
        for (int h = 0; h < f.cols; ++h) f.values.push_back(float(c.totalVariation(l, h)));
    const float top = c.ranked.empty() ? 0.0f : float(c.ranked.front().meanTotalVariation);
    f.valueMin = 0.0f, f.valueMax = top > 0.0f ? top : 1.0f; // small shifts stay visible
    f.tickDecimals = top > 0.0f && top < 0.01f ? 4 : 3;
    f.rowAxis = "layer", f.colAxis = "head";
    f.valueLabel = "mean total variation of the rows, 0..1 (scale to the largest)";
    f.captionLines = {"most moved: " + mostMovedHeads(c, 5)};
    f.colormap = colormap;
    return f;
}

std::string modelSummary(const RealModel& model) {
    return model.family + ", " + std::to_string(model.config().layers) + " layers, " +
           headLayout(model.config()) + ", d_model " + std::to_string(model.config().dModel) +
           ", " + model.net->weightTypes();
}

std::vector<std::string> exportComparison(const std::string& dir, const RealModel& a,
                                          const RealModel& b, const RealTrace& trace,
                                          const TraceComparison& c,
                                          const ComparisonExport& options) {
    prepareExportFolder(dir);
    const std::string csv = freePath(dir, "compare-heads", ".csv");
    writeFileAtomically(csv, comparisonCsv(c));
    HeatmapFigure f = comparisonFigure(c, modelDisplayName(a.location),
                                       modelDisplayName(b.location), options.colormap);
    std::vector<std::string> caption = realModelCaption(a, trace);
    caption.push_back("against " + b.location.source + " (" + modelSummary(b) + ")");
    f.captionLines.insert(f.captionLines.begin(), caption.begin(), caption.end());
    if (!options.caption) f.captionLines.clear();
    const std::string stem = freeStem(dir, "compare-heads", {".svg", ".png"});
    writeFileAtomically(stem + ".svg", heatmapSvg(f));
    writeFileAtomically(stem + ".png", encodeHeatmapPng(f, options.scale));
    return {csv, stem + ".svg", stem + ".png"};
}

} // namespace core::models
