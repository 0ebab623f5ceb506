// The attention-only transformer of "Watch heads learn" (Elhage et al. 2021, as in Olsson et al.
// 2022): x0 = embed[tokens] + pos; per layer x = x + MHA(x) (causal, scale 1/sqrt(d_head),
// no biases, no LayerNorm); logits = x_L * unembed; loss = mean next-token cross-entropy over
// the positions the loss mask selects. Each layer's MHA is the explorer's core::forward, so a
// trained model shows in the window exactly as it computed while learning.
#pragma once

#include "engine/attention.h"
#include "engine/attention_backward.h"
#include "engine/scalar.h"
#include "engine/weights.h"

#include <cstdint>
#include <string>
#include <vector>

namespace core::train {

struct ModelConfig {
    int vocab = 0;    // V, token ids are 0 .. V-1
    int d_model = 64; // D
    int heads = 4;    // H, divides D
    int layers = 2;   // L
    int seq = 32;     // N, the longest sequence (rows of pos)

    int dHead() const { return d_model / heads; }
};

// Throws std::invalid_argument naming the first bad value (vocab < 2, d_model < 1, heads not
// dividing d_model, layers < 1, seq < 2).
void validate(const ModelConfig& config);

// Every learned tensor; row-vector convention (q = x * w_q), like core::Weights and the trace.
struct Params {
    Mat embed;                   // V x D
    Mat pos;                     // N x D
    std::vector<Weights> layers; // L: wQ wK wV wO, each D x D
    Mat unembed;                 // D x V

    long long parameterCount() const;
};

// A tensor with its safetensors name: "embed", "pos", "layers.{l}.w_q" (w_k, w_v, w_o; l from 0),
// "unembed", in that order (the order checkpoints and the optimizer walk them in).
struct NamedTensor {
    std::string name;
    Mat* tensor = nullptr;
};
struct ConstNamedTensor {
    std::string name;
    const Mat* tensor = nullptr;
};
std::vector<NamedTensor> namedTensors(Params& params);
std::vector<ConstNamedTensor> namedTensors(const Params& params);

// Every tensor of the config's shapes, all zero (gradients, optimizer moments).
Params zeroParams(const ModelConfig& config);

// Seeded initial weights, the same bits on every machine. Each tensor is filled row by row from
// its own stream SplitMix64(seed ^ fnv1a64(name)), uniform in [-a, a):
//   embed, pos          a = sqrt(3 / D): std 1/sqrt(D), so a token's vector has norm ~1
//   layers.*.w_*        Glorot, a = sqrt(6 / (D + D)) = sqrt(3 / D), as core::randomWeights:
//                       std 1/sqrt(D) keeps a vector's norm through each projection
//   unembed             Glorot, a = sqrt(6 / (D + V)): the initial logits are small, so the
//                       initial loss is close to ln V
// Unit-scale residual vectors (no LayerNorm rescues a bad scale here) keep the gradients of
// every tensor of the same order, which plain SGD needs as much as Adam.
Params initParams(const ModelConfig& config, std::uint64_t seed);

// B sequences of equal length n (2 <= n <= seq). lossMask[b][t] asks for the prediction of
// tokens[b][t+1] at position t, so it must be false at t = n-1.
struct Batch {
    std::vector<std::vector<int>> tokens;    // B x n, 0 <= token < V
    std::vector<std::vector<bool>> lossMask; // B x n

    int size() const { return int(tokens.size()); }
    int length() const { return tokens.empty() ? 0 : int(tokens.front().size()); }
};

// Throws std::invalid_argument naming the bad value: ragged rows, a token outside the vocab, a
// mask at the last position, no position selected at all.
void validate(const Batch& batch, const ModelConfig& config);

// Everything the backward pass needs: the residual stream before each layer and after the last,
// each layer's core::Attention (q, k, v, weights, concat, output), the logits. The engine runs
// without its explorer-only intermediates (AttentionInput::intermediates), so scores and
// headOutputs stay empty; the weights are the explorer's to the bit.
struct ForwardPass {
    int batch = 0, length = 0;    // B, n
    std::vector<Mat> residual;    // L+1, each (B*n) x D: x_0 .. x_L
    std::vector<Attention> heads; // L, the engine's intermediates of each layer
    Mat logits;                   // (B*n) x V
    int lossPositions = 0;        // how many (b, t) the loss averages over
    double loss = 0;              // mean cross-entropy in nats
};

// Heads switched off, one list of 0-based heads per layer (or empty: none), as the explorer's
// --ablate does it: their outputs are zeroed before W_O.
using HeadLists = std::vector<std::vector<int>>;

// The forward pass of the whole batch (validates config, params' shapes, batch and ablated).
ForwardPass forwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                        const HeadLists& ablated = {});
// The same into `pass`, reusing its buffers when the shapes are unchanged: a training loop
// calls it every step, and fresh buffers of this size cost more in page faults than in
// arithmetic.
void forwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                 const HeadLists& ablated, ForwardPass& pass);

// d loss / d every parameter, from a forward pass of the same params and batch. Heads ablated
// in that pass get zero gradients for their share of W_Q, W_K, W_V.
Params backwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                    const ForwardPass& pass);

// What the backward pass computes on its way, kept between steps like forwardPass's buffers.
struct BackwardBuffers {
    Mat dLogits;                  // (B*n) x V
    Mat dx;                       // (B*n) x D, d loss / d the residual stream
    AttentionGradients attention; // the engine's, of one layer at a time
};
// The same into `grads` (reshaped to the config's tensors when they differ), reusing its and
// `buffers`' memory.
void backwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                  const ForwardPass& pass, Params& grads, BackwardBuffers& buffers);

struct LossAndGradients {
    double loss = 0;
    Params gradients;
};
LossAndGradients lossAndGradients(const ModelConfig& config, const Params& params,
                                  const Batch& batch);

// Everything one training step computes, kept from step to step: with it a step allocates
// nothing after the first (same shapes), so it takes no page fault for fresh buffers, which
// on the default model cost as much time as the arithmetic.
struct StepBuffers {
    ForwardPass pass;
    BackwardBuffers backward;
    Params gradients; // d loss / d every parameter, after lossAndGradients
};
// The forward and backward pass of one step; returns the loss, the gradients are in
// buffers.gradients.
double lossAndGradients(const ModelConfig& config, const Params& params, const Batch& batch,
                        StepBuffers& buffers);

} // namespace core::train
