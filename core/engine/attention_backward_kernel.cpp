// The backward pass's arithmetic (attention_backward.h), compiled like attention_kernel.cpp:
// into mha_core for the baseline and into each SIMD level's shared object. Step by step in the
// reverse order of the forward: W_O, the merge, weights * V, the softmax, the scale, q * k^T,
// the split and the Q/K/V projections.
#include "engine/attention_kernel.h"

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

// Every (b, h) block. Each writes its own slices of dQKV and nothing else, so the threads share
// no sum and the result is the same bits whatever thread runs which block.
void headsBackward(const Attention& a, AttentionGradients& g) {
    const int blocks = a.batch * a.heads;
    const double blockFlops = 8.0 * a.queryLen * a.keyLen * a.d_head;
#pragma omp parallel if (blocks > 1 && blockFlops * blocks > 4e6)
    {
        Mat dScores(a.queryLen, a.keyLen); // N x M, one per thread
#pragma omp for schedule(static)
        for (int bh = 0; bh < blocks; ++bh)
            headBackward(a, g.dConcat, bh / a.heads, bh % a.heads, dScores, g.dQKV);
    }
}

} // namespace

void backward(const Mat& x, const Weights& w, const Attention& a, const Mat& dOutput,
              AttentionGradients& g) {
    const Eigen::Index d_model = a.d_model;
    // output = concat * W_O (or concat itself without the out projection)
    if (a.outProjection) {
        g.weights.wO.noalias() = a.concat.transpose() * dOutput; // d_model x d_model
        g.dConcat.noalias() = dOutput * w.wO.transpose();        // (B*N) x d_model
    } else {
        g.weights.wO.setZero(d_model, d_model);
        g.dConcat = dOutput;
    }
    g.dQKV.resize(x.rows(), 3 * d_model); // (B*N) x (3*d_model)
    headsBackward(a, g);
    // q = x * W_Q (k, v alike): dW = x^T * dq, and x gets dq * W^T from each projection; with
    // dQ | dK | dV side by side, one GEMM does all three of each.
    g.wQKV.resize(d_model, 3 * d_model); // d_model x (3*d_model)
    g.wQKV << w.wQ, w.wK, w.wV;
    g.dWeightsQKV.noalias() = x.transpose() * g.dQKV; // d_model x (3*d_model)
    g.weights.wQ = g.dWeightsQKV.leftCols(d_model);
    g.weights.wK = g.dWeightsQKV.middleCols(d_model, d_model);
    g.weights.wV = g.dWeightsQKV.rightCols(d_model);
    g.dx.noalias() = g.dQKV * g.wQKV.transpose(); // (B*N) x d_model
}

} // namespace core::kernel
