// An encoder-decoder's figures (seq2seq_figures.h).
#include "models/analyses/seq2seq_figures.h"

#include "figures/attention_map.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "models/formats/model_folder.h"
#include "models/real_trace_parts.h"

#include <cstdio>

namespace core::models {
namespace {

std::vector<std::string> sourceLabels(const Seq2SeqTrace& t) {
    std::vector<std::string> labels;
    for (const Token& token : t.source.tokens.tokens) labels.push_back(token.text);
    return labels;
}

const std::vector<Attention>& layersOf(const Seq2SeqTrace& t, Seq2SeqKind kind) {
    return kind == Seq2SeqKind::Encoder       ? t.run.encoder
           : kind == Seq2SeqKind::DecoderSelf ? t.run.decoderSelf
                                              : t.run.cross;
}

// The figure's words: the model, the source and what the decoder read or wrote.
std::vector<std::string> captionOf(const Seq2SeqRealModel& model, const Seq2SeqTrace& t) {
    std::vector<std::string> lines = {modelDisplayName(model.location) + " (" + model.family +
                                          ", " + model.net->dtype() + ")",
                                      "source: " + t.sourceText};
    std::string target;
    for (int id : t.labels) target += (target.empty() ? "" : " ") + model.target->readable(id);
    lines.push_back((t.generated ? "generated: " : "target: ") + target);
    return lines;
}

HeatmapFigure mapOf(const Mat& m, std::vector<std::string> rows, std::vector<std::string> cols,
                    bool causal, ColormapId colormap) {
    HeatmapFigure f;
    f.rows = int(m.rows()), f.cols = int(m.cols());
    f.rowLabels = std::move(rows), f.colLabels = std::move(cols);
    for (int i = 0; i < f.rows; ++i)
        for (int j = 0; j < f.cols; ++j)
            f.values.push_back(causal && j > i ? kMaskedCell : m(i, j));
    f.colormap = colormap;
    return f;
}

std::string layerName(const char* stem, int layer) {
    char name[32];
    std::snprintf(name, sizeof name, "%s-L%02d", stem, layer + 1);
    return name;
}

void writeFigure(const std::string& dir, const std::string& stem, const HeatmapFigure* heatmap,
                 const GridFigure* grid, int scale, std::vector<std::string>& written) {
    const std::string path = freeStem(dir, stem, {".svg", ".png"});
    writeFileAtomically(path + ".svg", heatmap ? heatmapSvg(*heatmap) : gridSvg(*grid));
    writeFileAtomically(path + ".png",
                        heatmap ? encodeHeatmapPng(*heatmap, scale) : encodeGridPng(*grid, scale));
    written.push_back(path + ".svg"), written.push_back(path + ".png");
}

} // namespace

HeatmapFigure alignmentFigure(const Seq2SeqRealModel& model, const Seq2SeqTrace& t, int layer,
                              ColormapId colormap) {
    const std::vector<Attention>& cross = t.run.cross;
    Mat mean = Mat::Zero(cross.front().queryLen, cross.front().keyLen); // Nt x Ns
    int maps = 0;
    for (int l = 0; l < int(cross.size()); ++l) {
        if (layer >= 0 && l != layer) continue;
        for (int h = 0; h < cross[std::size_t(l)].heads; ++h, ++maps)
            mean += headMap(cross[std::size_t(l)], h);
    }
    HeatmapFigure f =
        mapOf(mean / Scalar(std::max(maps, 1)), t.decoderTokens, sourceLabels(t), false, colormap);
    f.title = layer < 0 ? "alignment: cross-attention, every layer's mean"
                        : "alignment: cross-attention of layer " + std::to_string(layer + 1) +
                              ", the heads' mean";
    f.rowAxis = "target (the decoder reads)", f.colAxis = "source";
    f.valueLabel = "mean cross-attention weight";
    f.captionLines = captionOf(model, t);
    return f;
}

GridFigure seq2seqLayerFigure(const Seq2SeqRealModel& model, const Seq2SeqTrace& t,
                              Seq2SeqKind kind, int layer, ColormapId colormap) {
    const Attention& a = layersOf(t, kind).at(std::size_t(layer));
    const std::vector<std::string> source = sourceLabels(t);
    const bool encoder = kind == Seq2SeqKind::Encoder;
    GridFigure grid;
    for (int h = 0; h < a.heads; ++h) {
        HeatmapFigure f = mapOf(headMap(a, h), encoder ? source : t.decoderTokens,
                                kind == Seq2SeqKind::DecoderSelf ? t.decoderTokens : source,
                                kind == Seq2SeqKind::DecoderSelf, colormap);
        f.title = "head " + std::to_string(h + 1);
        grid.panels.push_back(std::move(f));
    }
    grid.columns = std::min(a.heads, 8);
    const char* what = encoder                            ? "encoder self-attention"
                       : kind == Seq2SeqKind::DecoderSelf ? "decoder self-attention (causal)"
                                                          : "cross-attention (target x source)";
    grid.title = std::string(what) + ", layer " + std::to_string(layer + 1);
    grid.captionLines = captionOf(model, t);
    return grid;
}

std::vector<std::string> exportSeq2Seq(const std::string& dir, const Seq2SeqRealModel& model,
                                       const Seq2SeqTrace& t, const Seq2SeqExportOptions& o) {
    prepareExportFolder(dir);
    std::vector<std::string> written;
    for (int l = -1; l < int(t.run.cross.size()); ++l) {
        HeatmapFigure f = alignmentFigure(model, t, l, o.colormap);
        if (!o.caption) f.captionLines.clear();
        writeFigure(dir, l < 0 ? std::string("alignment") : layerName("alignment", l), &f, nullptr,
                    o.scale, written);
    }
    const struct {
        Seq2SeqKind kind;
        const char* stem;
    } kinds[] = {{Seq2SeqKind::Encoder, "encoder"},
                 {Seq2SeqKind::DecoderSelf, "decoder"},
                 {Seq2SeqKind::Cross, "cross"}};
    for (const auto& k : kinds)
        for (int l = 0; l < int(layersOf(t, k.kind).size()); ++l) {
            GridFigure g = seq2seqLayerFigure(model, t, k.kind, l, o.colormap);
            if (!o.caption) g.captionLines.clear();
            writeFigure(dir, layerName(k.stem, l), nullptr, &g, o.scale, written);
        }
    return written;
}

} // namespace core::models
