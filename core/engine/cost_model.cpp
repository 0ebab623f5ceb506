#include "engine/cost_model.h"

#include "text/tokenizer.h"

#include <algorithm>

namespace core {

double layerParameters(double d_model) {
    return 4 * d_model * d_model;
}

ForwardCost forwardCost(const CostShape& s) {
    const double B = s.batch, N = s.queryLen, M = s.keyLen, d = s.d_model, H = s.heads;
    const double d_head = d / H; // whole: H divides d_model
    ForwardCost cost;
    cost.steps = {{
        // Q from the N query rows, K and V from the M key rows, each (rows x d) . (d x d).
        {CostStep::Projections, "Q, K, V projections", "2 B (N + 2M) d^2",
         2 * B * (N + 2 * M) * d * d, B * (N + 2 * M) * d},
        // Per head (N x d_head) . (d_head x M): summed over heads that is 2 B N M d for any H.
        {CostStep::Scores, "scores Q K^T", "2 B H N M d_head", 2 * B * H * N * M * d_head,
         B * H * N * M},
        // exp, max, sum and divide per weight: no multiply-adds, it writes the maps.
        {CostStep::Softmax, "softmax", "elementwise", 0, B * H * N * M},
        {CostStep::WeightedValues, "weights x V", "2 B H N M d_head", 2 * B * H * N * M * d_head,
         B * H * N * d_head},
        // The heads side by side: a copy.
        {CostStep::Merge, "concat", "a copy", 0, B * N * d},
        // Switched off, the output is the concat (still written).
        {CostStep::OutProjection, "x W_O", "2 B N d^2", s.outProjection ? 2 * B * N * d * d : 0,
         B * N * d},
    }};
    for (const StepCost& step : cost.steps) cost.flops += step.flops, cost.bytes += step.bytes();
    return cost;
}

CostShape costShape(const Attention& a) {
    return {double(a.batch),   double(a.queryLen), double(a.keyLen),
            double(a.d_model), double(a.heads),    a.outProjection};
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
