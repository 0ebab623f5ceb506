// The backward pass's arithmetic (attention_backward.h), compiled like attention_kernel.cpp:
// into mha_engine for the baseline and into each SIMD level's shared object. Step by step in the
// reverse order of the forward: W_O, the merge, weights * V, the softmax, the scale, q * k^T,
// the split and the Q/K/V projections.
//
// Map: each step of the math, the function here that computes it, and its readable version in
// engine/reference.h (core::reference: in double, straight loops).
//   output = concat wO: d wO, d concat        chunkBackward                 outProjectBackward
//   merge: its backward is the split          headBackward (dConcat.block)  splitHead
//   ablated head: no gradient                 headBackward                  backward
//   headOutput = weights V_h: d weights, d V  headBackward                  weightedValuesBackward
//   softmax (mask: weight 0, so gradient 0)   softmaxBackward               softmaxBackward
//   scores = scale * Q_h K_h^T: d Q_h, d K_h  headBackward                  scoresBackward
//   split: its backward is the merge          headBackward (dQKV.block)     mergeHead
//   Q = x wQ, K, V: d wQ, d wK, d wV, d x     chunkBackward                 projectBackward
//   the batch's chunks summed, in order       backward                      backward
// The call: core::backward (attention_backward.cpp) checks the shapes (self-attention, no reshape
// bug) and calls kernel::active().backward, the backward of the active SIMD level's
// MhaEngineKernel table (attention_kernel.h), which simd.cpp fills with this file's backward:
// the built-in copy, or the one in lib/mha-viz/libmha_engine_<level>.so that it loads with dlopen.
#include "engine/attention_kernel.h"

#include <algorithm>

namespace core::kernel {

namespace {

// Softmax backward of one head's N x M block, in place: dWeights becomes dScores.
// weights = softmax(scores) row by row, so dScores = weights ⊙ (dWeights - rowsum(dWeights ⊙
// weights)). Masked keys have weight exactly 0 (the forward sets them so), which makes their
// score gradient exactly 0: the mask's backward is this product, with no extra step.
void softmaxBackward(const Eigen::Ref<const Mat>& weights /* N x M */,
                     Eigen::Ref<Mat> dWeights /* N x M, becomes dScores */) {
    for (Eigen::Index i = 0; i < weights.rows(); ++i) {
        auto dRow = dWeights.row(i);                    // 1 x M
        const Scalar rowDot = dRow.dot(weights.row(i)); // sum_j dWeights ⊙ weights
        dRow.array() = weights.row(i).array() * (dRow.array() - rowDot);
    }
}

// One head's block (b, h): from its slice of dConcat (the merge's backward is the split: head h
// went to columns [h*d_head, (h+1)*d_head) of its tokens' rows) to its slices of dQ, dK, dV.
void headBackward(const Attention& a, const Mat& dConcat /* (B*N) x d_model */, int b, int h,
                  Mat& dScores /* N x M */, Mat& dQKV /* (B*N) x (3*d_model) */) {
    const int n = a.queryLen, d_head = a.d_head, d_model = a.d_model;
    const Eigen::Index row0 = Eigen::Index(b) * n, col0 = Eigen::Index(h) * d_head;
    auto dQ = dQKV.block(row0, col0, n, d_head);               // n x d_head
    auto dK = dQKV.block(row0, d_model + col0, n, d_head);     // n x d_head
    auto dV = dQKV.block(row0, 2 * d_model + col0, n, d_head); // n x d_head
    if (a.headAblated[h]) { // concat held 0 for this head: nothing flows back
        dQ.setZero(), dK.setZero(), dV.setZero();
        return;
    }
    const auto q = a.q.block(row0, col0, n, d_head);                 // n x d_head
    const auto k = a.k.block(row0, col0, n, d_head);                 // n x d_head
    const auto v = a.v.block(row0, col0, n, d_head);                 // n x d_head
    const auto weights = a.attention.middleRows(a.headRow(b, h), n); // n x n
    const auto dHeadOutput = dConcat.block(row0, col0, n, d_head);   // n x d_head
    // headOutput = weights * v
    dScores.noalias() = dHeadOutput * v.transpose(); // n x n, dWeights so far
    dV.noalias() = weights.transpose() * dHeadOutput;
    softmaxBackward(weights, dScores);
    // scores = scale * q * k^T (the scale is a constant factor on both sides)
    dQ.noalias() = a.scale * (dScores * k);
    dK.noalias() = a.scale * (dScores.transpose() * q);
}

// The rows of sentences [b0, b1), the unit the threads share out: d concat, the (b, h) blocks
// and d x of these rows, and this chunk's share of the weight gradients (sums over its rows
// only) in `partial`, d_model x (4*d_model): d wQ | d wK | d wV | d wO.
void chunkBackward(const Mat& x, const Weights& w, const Attention& a, const Mat& dOutput,
                   AttentionGradients& g, int b0, int b1, Mat& dScores /* N x M */, Mat& partial) {
    const Eigen::Index d_model = a.d_model, row0 = Eigen::Index(b0) * a.queryLen;
    const Eigen::Index rows = Eigen::Index(b1 - b0) * a.queryLen;
    const auto dOut = dOutput.middleRows(row0, rows); // rows x d_model
    auto dConcat = g.dConcat.middleRows(row0, rows);  // rows x d_model
    // output = concat * W_O (or concat itself without the out projection)
    if (a.outProjection) {
        partial.rightCols(d_model).noalias() = a.concat.middleRows(row0, rows).transpose() * dOut;
        dConcat.noalias() = dOut * w.wO.transpose();
    } else {
        partial.rightCols(d_model).setZero();
        dConcat = dOut;
    }
    for (int b = b0; b < b1; ++b)
        for (int h = 0; h < a.heads; ++h) headBackward(a, g.dConcat, b, h, dScores, g.dQKV);
    // q = x * W_Q (k, v alike): dW = x^T * dq, and x gets dq * W^T from each projection; with
    // dQ | dK | dV side by side, one GEMM does all three of each.
    const auto dQKV = g.dQKV.middleRows(row0, rows); // rows x (3*d_model)
    partial.leftCols(3 * d_model).noalias() = x.middleRows(row0, rows).transpose() * dQKV;
    g.dx.middleRows(row0, rows).noalias() = dQKV * g.wQKV.transpose();
}

} // namespace

// The batch in chunks of whole sentences, about kChunkRows rows each, fixed by the shapes alone.
// Each thread takes whole chunks, so no GEMM is shared between threads (Eigen's own threads
// wait on each other on products this small), each chunk writes only its own rows, and the
// weight gradients are the chunks' partial sums added in chunk order: the same bits whatever
// thread ran which chunk, on every run.
void backward(const Mat& x, const Weights& w, const Attention& a, const Mat& dOutput,
              AttentionGradients& g) {
    constexpr int kChunkRows = 256; // a chunk's inputs and gradients stay in L2 cache
    const Eigen::Index d_model = a.d_model;
    const int perChunk = std::max(1, kChunkRows / a.queryLen); // sentences
    const int chunks = (a.batch + perChunk - 1) / perChunk;
    g.dConcat.resize(x.rows(), d_model);  // (B*N) x d_model
    g.dQKV.resize(x.rows(), 3 * d_model); // (B*N) x (3*d_model)
    g.dx.resize(x.rows(), d_model);       // (B*N) x d_model
    g.wQKV.resize(d_model, 3 * d_model);  // d_model x (3*d_model)
    g.wQKV << w.wQ, w.wK, w.wV;
    g.partials.resize(chunks);
    for (Mat& partial : g.partials) partial.resize(d_model, 4 * d_model);
    [[maybe_unused]] const double flops =
        2.0 * x.rows() * d_model * 8 * d_model +
        8.0 * a.batch * a.heads * a.queryLen * a.keyLen * a.d_head;
#pragma omp parallel if (chunks > 1 && flops > 4e6)
    {
        Mat dScores(a.queryLen, a.keyLen); // N x M, one per thread
#pragma omp for schedule(static)
        for (int c = 0; c < chunks; ++c)
            chunkBackward(x, w, a, dOutput, g, c * perChunk, std::min(a.batch, (c + 1) * perChunk),
                          dScores, g.partials[c]);
    }
    Mat& sum = g.partials.front(); // d_model x (4*d_model), chunk 0 + chunk 1 + ...
    for (int c = 1; c < chunks; ++c) sum += g.partials[c];
    g.weights.wQ = sum.leftCols(d_model);
    g.weights.wK = sum.middleCols(d_model, d_model);
    g.weights.wV = sum.middleCols(2 * d_model, d_model);
    g.weights.wO = sum.rightCols(d_model);
}

} // namespace core::kernel
