// An encoder-decoder's trace as figures (docs/real-models.md, "Encoder-decoders"): the alignment
// figure of translation papers (Bahdanau et al. 2015) — target tokens down, source tokens
// across, the cross-attention of one layer averaged over its heads or of every layer — and each
// layer's heads of each kind (encoder, decoder self-attention, cross-attention) as a grid.
#pragma once

#include "figures/figure.h"
#include "models/seq2seq_real_model.h"

#include <string>
#include <vector>

namespace core::models {

// What every figure of the trace says under it: the model, the source, the target.
std::vector<std::string> seq2seqCaption(const Seq2SeqRealModel& model, const Seq2SeqTrace& trace);

// The cross-attention of `head` of `layer` (from 0), or averaged over the heads of `layer`
// (head = -1), or over every head of every layer (layer = -1): Nt x Ns, rows the decoder's
// positions, columns the source's tokens.
Mat alignmentMap(const Seq2SeqTrace& trace, int layer, int head = -1);
// Each row's label: the token the decoder wrote (or read, teacher-forced) at that position, what
// the row's cross-attention served (Bahdanau et al. 2015 label their rows so).
std::vector<std::string> alignmentRows(const Seq2SeqRealModel& model, const Seq2SeqTrace& trace);

// alignmentMap as the figure of translation papers: target tokens down, source tokens across.
HeatmapFigure alignmentFigure(const Seq2SeqRealModel& model, const Seq2SeqTrace& trace, int layer,
                              ColormapId colormap = ColormapId::Viridis, int head = -1);

// Every head of one kind's layer `layer` (from 0), a panel each; the decoder's masked cells
// hatched.
GridFigure seq2seqLayerFigure(const Seq2SeqRealModel& model, const Seq2SeqTrace& trace,
                              Seq2SeqKind kind, int layer,
                              ColormapId colormap = ColormapId::Viridis);

struct Seq2SeqExportOptions {
    int scale = 1; // PNG resolution x scale
    ColormapId colormap = ColormapId::Viridis;
    bool caption = true;
};

// alignmentFigure as alignment[-LNN[-HNN]].svg and .png into `dir` (made ready first; a free
// name, nothing overwritten), the PNG at `scale`: the window's Export of its alignment view.
std::vector<std::string> exportAlignment(const std::string& dir, const Seq2SeqRealModel& model,
                                         const Seq2SeqTrace& trace, int layer, int head,
                                         const Seq2SeqExportOptions& options);

// Into `dir` (made ready first): alignment.svg/.png (every layer's mean), alignment-LNN per
// decoder layer, and encoder-LNN, decoder-LNN and cross-LNN grids, each as SVG and PNG. Returns
// the paths written; throws std::runtime_error naming a file that could not be written.
std::vector<std::string> exportSeq2Seq(const std::string& dir, const Seq2SeqRealModel& model,
                                       const Seq2SeqTrace& trace,
                                       const Seq2SeqExportOptions& options);

} // namespace core::models
