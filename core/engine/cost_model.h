// What one attention forward costs, step by step: FLOPs and the values each step writes.
// The one cost model of the app: the Cost tab shows it, the window's runner decides from it
// whether a recompute goes to a worker thread, and the benchmark turns it into GFLOP/s.
#pragma once

#include "engine/scalar.h"
#include "engine/scene.h"

#include <array>
#include <string>

namespace core {

// The sizes the cost depends on. Doubles: real models' products overflow int.
struct CostShape {
    double batch = 1;          // B
    double queryLen = 0;       // N
    double keyLen = 0;         // M (= N for self-attention)
    double d_model = 0;        // d
    double heads = 1;          // H, divides d_model
    bool outProjection = true; // false: no x W_O (the output is the concat)
    double kvHeads = 0;        // H_kv, a divisor of H (grouped-query attention); 0: H
    double d_head = 0;         // a model's own head size; 0: d_model / H

    double kvHeadCount() const { return kvHeads > 0 ? kvHeads : heads; }
    double headSize() const { return d_head > 0 ? d_head : d_model / heads; }
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
// The same with H query heads and H_kv K/V heads of d_head: W_Q and W_O d x (H d_head) each,
// W_K and W_V d x (H_kv d_head) each: 2 d d_head (H + H_kv). 4 d^2 when H_kv = H, H d_head = d.
double layerParameters(double d_model, double heads, double kvHeads, double d_head);

// A decoder's KV cache: K and V (2) of every layer for every token, H_kv heads of d_head values
// each: 2 x layers x H_kv x d_head x bytes per value. What grouped-query attention shrinks: a
// model with H_kv = H / 4 caches a quarter of what MHA would.
double kvCacheBytesPerToken(double layers, double kvHeads, double d_head, double bytesPerValue);

// Bytes in binary units, three significant digits: "128 B", "18 KiB", "4.5 MiB", "2 GiB" (KV
// caches are powers of two, so they read exactly).
std::string binaryBytes(double bytes);

// The sizes of well-known models, for the Cost tab's tables and the Pipeline tab's "show".
// From their papers and Hugging Face configs; context: the length they were trained for.
struct ModelConfig {
    const char* name;
    int layers, d_model, heads, kvHeads, d_head, context;
    bool decoder; // generates token by token, so it keeps a KV cache (an encoder does not)
    double kvCacheBytesPerToken() const; // in BF16 (kBf16Bytes per value)
};
inline constexpr double kBf16Bytes = 2; // how real checkpoints run: BF16 (or FP16), 2 bytes
inline constexpr ModelConfig kModelConfigs[] = {
    {"BERT-base", 12, 768, 12, 12, 64, 512, false},
    {"GPT-2 small", 12, 768, 12, 12, 64, 1024, true},
    {"GPT-3 175B", 96, 12288, 96, 96, 128, 2048, true},
    {"LLaMA-2-7B", 32, 4096, 32, 32, 128, 4096, true},
    {"Llama-3-8B", 32, 4096, 32, 8, 128, 8192, true},
    {"Gemma-2B (MQA)", 18, 2048, 8, 1, 256, 8192, true},
};

// The shape of a forward already run (B, N, M, d_model, H and W_O as it ran).
CostShape costShape(const Attention& attention);

// An upper bound of a scene's forward FLOPs without tokenizing it (tokens are at most one
// per byte and capped at kMaxTokens): cheap enough to ask before every recompute.
double estimatedForwardFlops(const Scene& scene);

} // namespace core
