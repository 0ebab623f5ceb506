// Two models on the same text, head by head (docs/real-models.md, "Comparing two models"):
// a checkpoint against its quantized copy (BF16 against Q4_K_M), F32 against BF16, or two
// fine-tunes of one base. Which heads moved most, by how much and where, and whether the
// predictions still agree. GUI-free: the CLI's --compare and the window's comparison read it.
#pragma once

#include "figures/figure.h"
#include "models/real_model.h"

#include <string>
#include <vector>

namespace core::models {

// One head's difference between the two runs.
struct HeadShift {
    int layer = 0, head = 0;       // from 0
    double meanTotalVariation = 0; // over the queries: 0.5 * sum_j |a_ij - b_ij|, 0..1
    double maxAbs = 0;             // the largest |a_ij - b_ij|
    int query = 0, key = 0;        // where it is
};

struct TraceComparison {
    int layers = 0, heads = 0, tokens = 0;
    Mat totalVariation;            // L x H: HeadShift::meanTotalVariation
    Mat maxAbs;                    // L x H
    std::vector<HeadShift> ranked; // every head, the most moved first (ties: layer, head order)
    // The next-token (decoder) or masked-token (encoder) predictions: positions where both
    // traces have a top choice, and how many of those agree.
    int positions = 0, topAgree = 0;
    double lossA = 0, lossB = 0; // NaN for an encoder
};

// Compares two traces of one text. Throws std::invalid_argument when they read different ids
// (naming the first position and both tokens) or their models differ in layers or heads.
TraceComparison compareTraces(const RealTrace& a, const RealTrace& b);

// "L3 H5 (0.124)" for the first `count` ranked heads, joined by ", ".
std::string mostMovedHeads(const TraceComparison& c, int count);

// "layer,head,mean_total_variation,max_abs_difference,query,key", then every head ranked
// (layers and heads from 1, tokens from 0).
std::string comparisonCsv(const TraceComparison& c);

// The L x H grid of mean total variation, scaled to the largest (its value says so): the
// figure of "which heads does quantization move most".
HeatmapFigure comparisonFigure(const TraceComparison& c, const std::string& nameA,
                               const std::string& nameB, ColormapId colormap = ColormapId::Viridis);

// "llama, 16 layers, 32 query heads, 8 K/V heads (GQA, 4 per group), d_head 64, d_model 2048,
// BF16": what a comparison says of each of its models.
std::string modelSummary(const RealModel& model);

struct ComparisonExport {
    int scale = 1; // PNG resolution x scale
    ColormapId colormap = ColormapId::Viridis;
    bool caption = true;
};

// compare-heads.csv and compare-heads.svg/.png (the next free names) in `dir`, made ready
// first: the files the CLI's --compare --export and the window's comparison write. `trace` is
// model a's. Returns the paths written; throws std::runtime_error naming what could not be.
std::vector<std::string> exportComparison(const std::string& dir, const RealModel& a,
                                          const RealModel& b, const RealTrace& trace,
                                          const TraceComparison& c,
                                          const ComparisonExport& options);

} // namespace core::models
