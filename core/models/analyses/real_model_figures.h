// A real model's views as figures for slides and papers (docs/real-models.md, "Exporting"):
// every head of every layer, the head detector scores, attention rollout, value-weighted
// attention, and the logit lens as CSV. GUI-free; the numbers are model_analysis.h's, drawn and
// written by figures/ and io/ (real_model_export.h writes them all).
#pragma once

#include "figures/figure.h"
#include "models/analyses/model_analysis.h"
#include "models/real_model.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace core::models {

// What every figure of a real model says under it: the text, which model this is (its name,
// modelDisplayName: the hub id or the folder's name), its family, sizes and dtype, and the
// heads switched off when the trace ran with some (the window's ablation). A
// real model's layer traces carry a scene (seed, random weights) only to reuse the views; a
// caption from it would pass the checkpoint off as a toy scene.
std::vector<std::string> realModelCaption(const RealModel& model, const RealTrace& trace);

// Every head of every layer: L x H panels titled "L{l}-H{h}" (from 1) in the head's colour, each
// layer starting a row, at most 12 heads a row (so the PNG stays openable; writeGridPng also
// lowers the scale when needed). Masked cells as headFigure's. `valueWeighted`: each panel is
// valueWeightedFigure's instead of the weights.
GridFigure modelGridFigure(const RealTrace& trace, const std::vector<std::string>& captionLines,
                           ColormapId colormap = ColormapId::Viridis, bool valueWeighted = false);
// The same of layers held whole (an attention file's, saved_attention.h): the weights only.
GridFigure modelGridFigure(const std::vector<std::shared_ptr<const Trace>>& layers,
                           const std::vector<std::string>& captionLines,
                           ColormapId colormap = ColormapId::Viridis);

// One detector's scores: rows the layers "L1".., columns the heads "H1"..; 0..1. The caption is
// the detector's explanation (the caller adds the model's).
HeatmapFigure detectorFigure(const HeadDetectorScores& scores,
                             ColormapId colormap = ColormapId::Viridis);

// attentionRollout(trace.layers, upToLayer) as a token x token map (upToLayer from 1; 0 is the
// identity), masked above the diagonal as a causal head's map. Throws like attentionRollout.
HeatmapFigure rolloutFigure(const RealTrace& trace, int upToLayer,
                            ColormapId colormap = ColormapId::Viridis);
// The same of each layer's mean attention (N x N), on `firstLayer`'s tokens and mask.
HeatmapFigure rolloutFigure(const std::vector<Mat>& layerMeans, const Trace& firstLayer,
                            int upToLayer, ColormapId colormap = ColormapId::Viridis);

// normalizedRows(valueWeightedAttention(layer, head)), layer and head from 0, masked as the
// head's own map. Throws std::invalid_argument for a layer outside the trace, else like
// valueWeightedAttention.
HeatmapFigure valueWeightedFigure(const RealTrace& trace, int layer, int head,
                                  ColormapId colormap = ColormapId::Viridis);

// "layer,rank,token,id,probability", then the logit lens's top k at `position` (from 0) for
// each layer; layers and ranks from 1. Throws like logitLens.
std::string logitLensCsv(const RealModel& model, const RealTrace& trace, int position, int k);

} // namespace core::models
