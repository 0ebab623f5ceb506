// Each forward of embed_and_loss.h with its backward right below it.
#include "train/embed_and_loss.h"

#include <cmath>

namespace core::train {

void embedTokens(const Params& params, const Batch& batch, Mat& x /* (B*n) x D */) {
    const int B = batch.size(), n = batch.length();
    x.resize(Eigen::Index(B) * n, params.embed.cols());
    for (int b = 0; b < B; ++b)
        for (int t = 0; t < n; ++t)
            x.row(Eigen::Index(b) * n + t) =
                params.embed.row(batch.tokens[b][t]) + params.pos.row(t);
}

// Backward of embedTokens: each row's gradient goes to its token's embedding row (summed over
// every place the token occurs) and to its position's row (summed over the batch).
void embedTokensBackward(const Batch& batch, const Mat& dx0 /* (B*n) x D */, Params& grads) {
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

// log-softmax through the row's maximum, so no exp overflows; the sum in double, so a large
// batch loses nothing to rounding in the mean.
double meanCrossEntropy(const Mat& logits /* (B*n) x V */, const Batch& batch, int& positions) {
    const int n = batch.length();
    double total = 0;
    positions = 0;
    for (int b = 0; b < batch.size(); ++b)
        for (int t = 0; t + 1 < n; ++t) {
            if (!batch.lossMask[b][t]) continue;
            const auto row = logits.row(Eigen::Index(b) * n + t); // 1 x V
            const Scalar rowMax = row.maxCoeff();
            const Scalar logSumExp = rowMax + std::log((row.array() - rowMax).exp().sum());
            total += double(logSumExp - row[batch.tokens[b][t + 1]]);
            ++positions;
        }
    return total / positions;
}

// Backward of meanCrossEntropy. loss = (1/P) sum over the P masked (b, t) of logsumexp(row) -
// row[target], so row (b, t) gets (softmax(row) - onehot(target)) / P; unmasked rows get 0.
void meanCrossEntropyBackward(const Mat& logits /* (B*n) x V */, const Batch& batch, int positions,
                              Mat& dLogits /* (B*n) x V */) {
    const int n = batch.length();
    dLogits.resize(logits.rows(), logits.cols());
    const Scalar perPosition = Scalar(1.0 / positions);
    for (int b = 0; b < batch.size(); ++b)
        for (int t = 0; t < n; ++t) {
            const Eigen::Index r = Eigen::Index(b) * n + t;
            auto softmax = dLogits.row(r); // 1 x V
            if (!batch.lossMask[b][t]) {   // never set at t = n-1 (validate)
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

} // namespace core::train
