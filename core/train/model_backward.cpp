// The hand-written backward pass of the attention-only transformer (model.h), step by step in
// the reverse order of the forward: cross-entropy, unembed, then per layer (last first) the
// residual add, W_O, the merge, weights * V, the softmax, the causal mask, the scale, q * k^T,
// the split and the Q/K/V projections; last the embeddings and positions. Every step reads the
// forward's own intermediates (ForwardPass, core::Attention); nothing is recomputed.
#include "train/model.h"

namespace core::train {

namespace {

// d loss / d logits. loss = (1/P) sum over the P masked (b, t) of logsumexp(row) - row[target],
// so row (b, t) gets (softmax(row) - onehot(target)) / P; unmasked rows get 0.
Mat logitsGradient(const Mat& logits /* (B*n) x V */, const Batch& batch, int positions) {
    const int n = batch.length();
    Mat grad = Mat::Zero(logits.rows(), logits.cols()); // (B*n) x V
    const Scalar perPosition = Scalar(1.0 / positions);
    for (int b = 0; b < batch.size(); ++b)
        for (int t = 0; t + 1 < n; ++t) {
            if (!batch.lossMask[b][t]) continue;
            const Eigen::Index r = Eigen::Index(b) * n + t;
            const auto row = logits.row(r);                 // 1 x V
            auto softmax = grad.row(r);                     // 1 x V
            softmax = (row.array() - row.maxCoeff()).exp(); // shifted: no overflow
            softmax /= softmax.sum();
            softmax[batch.tokens[b][t + 1]] -= 1;
            softmax *= perPosition;
        }
    return grad;
}

// Softmax backward of one head's N x M block, in place: dWeights becomes dScores.
// weights = softmax(scores) row by row, so dScores = weights ⊙ (dWeights - rowsum(dWeights ⊙
// weights)). Masked keys have weight exactly 0 (the engine sets them so), which makes their
// score gradient exactly 0: the mask's backward is this product, with no extra step.
void softmaxBackward(const Eigen::Ref<const Mat>& weights /* N x M */,
                     Eigen::Ref<Mat> dWeights /* N x M, becomes dScores */) {
    const Eigen::Matrix<Scalar, Eigen::Dynamic, 1> rowDot =
        (dWeights.array() * weights.array()).rowwise().sum(); // N
    dWeights = (weights.array() * (dWeights.array().colwise() - rowDot.array())).matrix();
}

// One head's block (b, h): from dConcat (the merge's backward is the split: head h's output
// went to columns [h*d_head, (h+1)*d_head) of its tokens' rows) to its slices of dQ, dK, dV.
void headBackward(const Attention& a, int b, int h, const Mat& dConcat, Mat& dQ, Mat& dK, Mat& dV) {
    const int n = a.queryLen, d_head = a.d_head;
    const Eigen::Index row0 = Eigen::Index(b) * n, col0 = Eigen::Index(h) * d_head;
    const auto q = a.q.block(row0, col0, n, d_head);                 // n x d_head
    const auto k = a.k.block(row0, col0, n, d_head);                 // n x d_head
    const auto v = a.v.block(row0, col0, n, d_head);                 // n x d_head
    const auto weights = a.attention.middleRows(a.headRow(b, h), n); // n x n
    const auto dHeadOutput = dConcat.block(row0, col0, n, d_head);   // n x d_head
    // headOutput = weights * v
    Mat dScores = dHeadOutput * v.transpose(); // n x n, dWeights so far
    dV.block(row0, col0, n, d_head).noalias() = weights.transpose() * dHeadOutput;
    softmaxBackward(weights, dScores);
    // scores = scale * q * k^T (the scale is a constant factor on both sides)
    dQ.block(row0, col0, n, d_head).noalias() = a.scale * (dScores * k);
    dK.block(row0, col0, n, d_head).noalias() = a.scale * (dScores.transpose() * q);
}

// One layer, x_out = x + concat(x) * W_O. In: dx = d loss / d x_out. Out: dx = d loss / d x,
// and grad filled with this layer's d loss / d W_Q, W_K, W_V, W_O.
void layerBackward(const Mat& x /* (B*n) x D */, const Attention& a, const Weights& w,
                   Weights& grad, Mat& dx /* (B*n) x D */) {
    const Mat& dOutput = dx; // the residual add passes the gradient to both of its terms
    grad.wO.noalias() = a.concat.transpose() * dOutput;                         // D x D
    const Mat dConcat = dOutput * w.wO.transpose();                             // (B*n) x D
    Mat dQ(x.rows(), x.cols()), dK(x.rows(), x.cols()), dV(x.rows(), x.cols()); // (B*n) x D
    for (int b = 0; b < a.batch; ++b)
        for (int h = 0; h < a.heads; ++h) headBackward(a, b, h, dConcat, dQ, dK, dV);
    // q = x * W_Q (and k, v alike): dW = x^T * dq, and x gets dq * W^T from each projection.
    grad.wQ.noalias() = x.transpose() * dQ; // D x D
    grad.wK.noalias() = x.transpose() * dK; // D x D
    grad.wV.noalias() = x.transpose() * dV; // D x D
    Mat dxIn = dx;                          // (B*n) x D, the residual path
    dxIn.noalias() += dQ * w.wQ.transpose();
    dxIn.noalias() += dK * w.wK.transpose();
    dxIn.noalias() += dV * w.wV.transpose();
    dx = std::move(dxIn);
}

// x0 = embed[tokens] + pos: each row's gradient goes to its token's embedding row (summed over
// every place the token occurs) and to its position's row (summed over the batch).
void embeddingBackward(const Batch& batch, const Mat& dx0 /* (B*n) x D */, Params& grads) {
    const int n = batch.length();
    for (int b = 0; b < batch.size(); ++b)
        for (int t = 0; t < n; ++t) {
            const auto dRow = dx0.row(Eigen::Index(b) * n + t); // 1 x D
            grads.embed.row(batch.tokens[b][t]) += dRow;
            grads.pos.row(t) += dRow;
        }
}

} // namespace

Params backwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                    const ForwardPass& pass) {
    Params grads = zeroParams(config);
    const Mat dLogits = logitsGradient(pass.logits, batch, pass.lossPositions); // (B*n) x V
    // logits = x_L * unembed
    grads.unembed.noalias() = pass.residual.back().transpose() * dLogits; // D x V
    Mat dx = dLogits * params.unembed.transpose();                        // (B*n) x D
    for (int l = config.layers - 1; l >= 0; --l)
        layerBackward(pass.residual[l], pass.heads[l], params.layers[l], grads.layers[l], dx);
    embeddingBackward(batch, dx, grads);
    return grads;
}

} // namespace core::train
