// What one attention forward costs, step by step: FLOPs and the values each step writes.
// The one cost model of the app: the Cost tab shows it, the window's runner decides from it
// whether a recompute goes to a worker thread, and the benchmark turns it into GFLOP/s.
#pragma once

#include "engine/scalar.h"
#include "engine/scene.h"

#include <array>

namespace core {

// The sizes the cost depends on. Doubles: real models' products overflow int.
struct CostShape {
    double batch = 1;          // B
    double queryLen = 0;       // N
    double keyLen = 0;         // M (= N for self-attention)
    double d_model = 0;        // d
    double heads = 1;          // H, divides d_model
    bool outProjection = true; // false: no x W_O (the output is the concat)
};

// The steps of the forward in order (as the Pipeline and Step-through tabs show them).
enum class CostStep { Projections, Scores, Softmax, WeightedValues, Merge, OutProjection };
inline constexpr int kCostSteps = 6;

struct StepCost {
    CostStep step = CostStep::Projections;
    const char* name = "";    // "Q, K, V projections"
    const char* formula = ""; // in the Cost tab's notation, "2 B (N + 2M) d^2"
    double flops = 0;         // multiply-adds x 2 (the GEMM count); softmax and merge do none: 0
    double values = 0;        // elements the step writes
    double bytes() const { return values * double(sizeof(Scalar)); }
};

struct ForwardCost {
    std::array<StepCost, kCostSteps> steps; // in CostStep order
    double flops = 0;                       // sum of the steps
    double bytes = 0;                       // sum of the steps: every intermediate the trace keeps

    const StepCost& operator[](CostStep step) const { return steps[std::size_t(step)]; }
    // B H N M: the attention maps kept, one N x M map per head (what grows with H).
    double attentionWeights() const { return (*this)[CostStep::Softmax].values; }
};

ForwardCost forwardCost(const CostShape& shape);

// The parameters of one attention layer: W_Q, W_K, W_V and W_O, each d_model x d_model, no
// biases: 4 d_model^2 (Weights::parameterCount of real weights; the Cost tab's real models).
double layerParameters(double d_model);

// The shape of a forward already run (B, N, M, d_model, H and W_O as it ran).
CostShape costShape(const Attention& attention);

// An upper bound of a scene's forward FLOPs without tokenizing it (tokens are at most one
// per byte and capped at kMaxTokens): cheap enough to ask before every recompute.
double estimatedForwardFlops(const Scene& scene);

} // namespace core
