// The backward pass of core::forward, for training (core/train): from d loss / d output to the
// gradients of the four weight matrices and of x. It reads the forward's own intermediates
// (core::Attention) and recomputes nothing. Like the forward, its arithmetic runs on the active
// SIMD path (engine/simd.h).
#pragma once

#include "engine/attention.h"

#include <vector>

namespace core {

struct AttentionGradients {
    Weights weights; // d loss / d wQ, wK, wV, wO, each d_model x d_model
    Mat dx;          // (B*N) x d_model, d loss / d x through the attention alone
    // Scratch, kept so that a training loop allocates nothing after its first step.
    Mat dConcat;               // (B*N) x d_model
    Mat dQKV;                  // (B*N) x (3*d_model): dQ | dK | dV side by side, so that the three
                               // projections take one GEMM for their weights and one for dx
    Mat wQKV;                  // d_model x (3*d_model): wQ | wK | wV
    std::vector<Mat> partials; // per chunk of the batch, d_model x (4*d_model): its share of
                               // d wQ | d wK | d wV | d wO
};

// Fills `grads` (reusing its buffers when the shapes are unchanged) for `a`, the forward of the
// self-attention of x with weights w: output = concat * wO, concat = the heads side by side,
// head = softmax(scale * q k^T, masked) * v, q = x * wQ (k, v alike). Masked and padded keys need
// no step of their own (their weights are exactly 0, so are their gradients); ablated heads get
// zero gradients (concat held 0 there, whatever their q, k, v), and so does wO without the out
// projection. Throws std::invalid_argument for the reshape bug (a teaching switch, never
// trained), for cross-attention (keys from another sequence, not from x) and for shapes that do
// not fit.
void backward(const Mat& x /* (B*N) x d_model */, const Weights& w, const Attention& a,
              const Mat& dOutput /* (B*N) x d_model */, AttentionGradients& grads);

} // namespace core
