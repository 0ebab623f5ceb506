#include "engine/cost_model.h"

#include "text/tokenizer.h"

#include <algorithm>
#include <cstdio>

namespace core {

double layerParameters(double d_model) {
    return 4 * d_model * d_model;
}

double layerParameters(double d_model, double heads, double kvHeads, double d_head) {
    return 2 * d_model * d_head * (heads + kvHeads);
}

double kvCacheBytesPerToken(double layers, double kvHeads, double d_head, double bytesPerValue) {
    return 2 * layers * kvHeads * d_head * bytesPerValue;
}

std::string binaryBytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int unit = 0;
    while (bytes >= 1024 && unit < 4) bytes /= 1024, ++unit;
    char text[32];
    std::snprintf(text, sizeof text, "%.3g %s", bytes, units[unit]);
    return text;
}

double ModelConfig::kvCacheBytesPerToken() const {
    return core::kvCacheBytesPerToken(layers, kvHeads, d_head, kBf16Bytes);
}

ForwardCost forwardCost(const CostShape& s) {
    const double B = s.batch, N = s.queryLen, M = s.keyLen, d = s.d_model, H = s.heads;
    const double d_head = s.headSize(), Hkv = s.kvHeadCount();
    const bool mha = Hkv == H && H * d_head == d;
    ForwardCost cost;
    cost.steps = {{
        // Q from the N query rows (d x H d_head), K and V from the M key rows (d x H_kv d_head).
        {CostStep::Projections, "Q, K, V projections",
         mha ? "2 B (N + 2M) d^2" : "2 B (N H + 2 M H_kv) d_head d",
         2 * B * (N * H + 2 * M * Hkv) * d_head * d, B * (N * H + 2 * M * Hkv) * d_head},
        // Per head (N x d_head) . (d_head x M): summed over heads that is 2 B N M d for any H;
        // query heads sharing a K/V head still each score every key.
        {CostStep::Scores, "scores Q K^T", "2 B H N M d_head", 2 * B * H * N * M * d_head,
         B * H * N * M},
        // exp, max, sum and divide per weight: no multiply-adds, it writes the maps.
        {CostStep::Softmax, "softmax", "elementwise", 0, B * H * N * M},
        {CostStep::WeightedValues, "weights x V", "2 B H N M d_head", 2 * B * H * N * M * d_head,
         B * H * N * d_head},
        // The heads side by side: a copy.
        {CostStep::Merge, "concat", "a copy", 0, B * N * H * d_head},
        // Switched off, the output is the concat (still written).
        {CostStep::OutProjection, "x W_O", mha ? "2 B N d^2" : "2 B N H d_head d",
         s.outProjection ? 2 * B * N * H * d_head * d : 0, B * N * d},
    }};
    for (const StepCost& step : cost.steps) cost.flops += step.flops, cost.bytes += step.bytes();
    return cost;
}

CostShape costShape(const Attention& a) {
    return {double(a.batch), double(a.queryLen), double(a.keyLen),  double(a.d_model),
            double(a.heads), a.outProjection,    double(a.kvHeads), double(a.d_head)};
}

double estimatedForwardFlops(const Scene& scene) {
    // Tokens are at most one per byte and capped; a generous bound is fine here.
    auto tokens = [](const std::string& text) {
        return double(std::min<std::size_t>(text.size(), kMaxTokens));
    };
    CostShape shape;
    for (const std::string& t : scene.sentences)
        shape.queryLen = std::max(shape.queryLen, tokens(t));
    for (const std::string& t : scene.sources) shape.keyLen = std::max(shape.keyLen, tokens(t));
    if (scene.sources.empty()) shape.keyLen = shape.queryLen;
    shape.batch = double(scene.sentences.size());
    shape.d_model = double(scene.d_model);
    // H does not change the FLOPs (H x d_head = d_model); 1 keeps a bad H from dividing by 0.
    return forwardCost(shape).flops;
}

} // namespace core
