// The hand-written backward pass of the attention-only transformer (model.h), step by step in
// the reverse order of the forward: cross-entropy, unembed, then per layer (last first) the
// residual add and the attention, whose backward is the engine's (engine/attention_backward.h:
// W_O, the merge, weights * V, the softmax, the causal mask, the scale, q * k^T, the split and
// the Q/K/V projections); last the embeddings and positions. Every step reads the forward's own
// intermediates (ForwardPass, core::Attention); nothing is recomputed.
#include "train/model.h"

namespace core::train {

namespace {

// d loss / d logits. loss = (1/P) sum over the P masked (b, t) of logsumexp(row) - row[target],
// so row (b, t) gets (softmax(row) - onehot(target)) / P; unmasked rows get 0.
void logitsGradient(const Mat& logits /* (B*n) x V */, const Batch& batch, int positions,
                    Mat& grad /* (B*n) x V */) {
    const int n = batch.length();
    grad.resize(logits.rows(), logits.cols());
    const Scalar perPosition = Scalar(1.0 / positions);
    for (int b = 0; b < batch.size(); ++b)
        for (int t = 0; t < n; ++t) {
            const Eigen::Index r = Eigen::Index(b) * n + t;
            auto softmax = grad.row(r);  // 1 x V
            if (!batch.lossMask[b][t]) { // never set at t = n-1 (validate)
                softmax.setZero();
                continue;
            }
            const auto row = logits.row(r);                 // 1 x V
            softmax = (row.array() - row.maxCoeff()).exp(); // shifted: no overflow
            softmax /= softmax.sum();
            softmax[batch.tokens[b][t + 1]] -= 1;
            softmax *= perPosition;
        }
}

// x0 = embed[tokens] + pos: each row's gradient goes to its token's embedding row (summed over
// every place the token occurs) and to its position's row (summed over the batch).
void embeddingBackward(const Batch& batch, const Mat& dx0 /* (B*n) x D */, Params& grads) {
    const int n = batch.length();
    grads.embed.setZero();
    grads.pos.setZero();
    for (int b = 0; b < batch.size(); ++b)
        for (int t = 0; t < n; ++t) {
            const auto dRow = dx0.row(Eigen::Index(b) * n + t); // 1 x D
            grads.embed.row(batch.tokens[b][t]) += dRow;
            grads.pos.row(t) += dRow;
        }
}

bool sameShapes(const Params& a, const Params& b) {
    const std::vector<ConstNamedTensor> ta = namedTensors(a), tb = namedTensors(b);
    if (ta.size() != tb.size()) return false;
    for (std::size_t i = 0; i < ta.size(); ++i)
        if (ta[i].tensor->rows() != tb[i].tensor->rows() ||
            ta[i].tensor->cols() != tb[i].tensor->cols())
            return false;
    return true;
}

} // namespace

Params backwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                    const ForwardPass& pass) {
    Params grads;
    BackwardBuffers buffers;
    backwardPass(config, params, batch, pass, grads, buffers);
    return grads;
}

void backwardPass(const ModelConfig& config, const Params& params, const Batch& batch,
                  const ForwardPass& pass, Params& grads, BackwardBuffers& buffers) {
    if (!sameShapes(grads, params)) grads = zeroParams(config);
    logitsGradient(pass.logits, batch, pass.lossPositions, buffers.dLogits); // (B*n) x V
    // logits = x_L * unembed
    const Mat& xLast = pass.residual.back();                                        // (B*n) x D
    engineMultiply(xLast, Transposed::Left, buffers.dLogits, grads.unembed);        // D x V
    engineMultiply(buffers.dLogits, Transposed::Right, params.unembed, buffers.dx); // (B*n) x D
    for (int l = config.layers - 1; l >= 0; --l) {
        // x_out = x + MHA(x): the residual add passes dx to both terms.
        core::backward(pass.residual[l], params.layers[l], pass.heads[l], buffers.dx,
                       buffers.attention);
        buffers.dx += buffers.attention.dx; // (B*n) x D
        grads.layers[l] = buffers.attention.weights;
    }
    embeddingBackward(batch, buffers.dx, grads);
}

} // namespace core::train
