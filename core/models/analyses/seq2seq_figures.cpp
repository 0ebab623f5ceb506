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

} // namespace

std::vector<std::string> seq2seqCaption(const Seq2SeqRealModel& model, const Seq2SeqTrace& t) {
    std::vector<std::string> lines = {modelDisplayName(model.location) + " (" + model.family +
                                          ", " + model.net->dtype() + ")",
                                      "source: " + t.sourceText};
    std::string target;
    for (int id : t.labels) target += (target.empty() ? "" : " ") + model.target->readable(id);
    lines.push_back((t.generated ? "generated: " : "target: ") + target);
    return lines;
}

namespace {

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

Mat alignmentMap(const Seq2SeqTrace& t, int layer, int head) {
    const std::vector<Attention>& cross = t.run.cross;
    Mat mean = Mat::Zero(cross.front().queryLen, cross.front().keyLen); // Nt x Ns
    int maps = 0;
    for (int l = 0; l < int(cross.size()); ++l) {
        if (layer >= 0 && l != layer) continue;
        for (int h = 0; h < cross[std::size_t(l)].heads; ++h)
            if (head < 0 || h == head) mean += headMap(cross[std::size_t(l)], h), ++maps;
    }
    return mean / Scalar(std::max(maps, 1));
}

std::vector<std::string> alignmentRows(const Seq2SeqRealModel& model, const Seq2SeqTrace& t) {
    std::vector<std::string> rows;
    for (int id : t.labels) rows.push_back(model.target->readable(id));
    return rows;
}

HeatmapFigure alignmentFigure(const Seq2SeqRealModel& model, const Seq2SeqTrace& t, int layer,
                              ColormapId colormap, int head) {
    if (layer < 0) head = -1; // one head is one layer's
    HeatmapFigure f = mapOf(alignmentMap(t, layer, head), alignmentRows(model, t), sourceLabels(t),
                            false, colormap);
    f.title = layer < 0  ? "alignment: cross-attention, every layer's mean"
              : head < 0 ? "alignment: cross-attention of layer " + std::to_string(layer + 1) +
                               ", the heads' mean"
                         : "alignment: cross-attention of layer " + std::to_string(layer + 1) +
                               ", head " + std::to_string(head + 1);
    f.rowAxis = "target (each row: the token written there)", f.colAxis = "source";
    f.valueLabel = head < 0 ? "mean cross-attention weight" : "cross-attention weight";
    f.captionLines = seq2seqCaption(model, t);
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
    grid.captionLines = seq2seqCaption(model, t);
    return grid;
}

std::vector<std::string> exportAlignment(const std::string& dir, const Seq2SeqRealModel& model,
                                         const Seq2SeqTrace& t, int layer, int head,
                                         const Seq2SeqExportOptions& o) {
    prepareExportFolder(dir);
    HeatmapFigure f = alignmentFigure(model, t, layer, o.colormap, head);
    if (!o.caption) f.captionLines.clear();
    std::string stem = layer < 0 ? std::string("alignment") : layerName("alignment", layer);
    if (layer >= 0 && head >= 0) stem += "-H" + std::to_string(head + 1);
    std::vector<std::string> written;
    writeFigure(dir, stem, &f, nullptr, o.scale, written);
    return written;
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
