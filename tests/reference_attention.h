// An independent, deliberately naive multi-head attention in double precision:
// plain loops over (b, h, i, j), written from the formula, not from the engine.
// Tests compare the engine against it with a tolerance, like ggml's test-backend-ops.
// It knows the teaching switches too (scale, no W_O, ablated heads, the reshape bug),
// each written from its own definition.
#pragma once

#include "engine/attention.h"
#include "engine/weights.h"

#include <cmath>
#include <limits>
#include <vector>

namespace reference {

struct Result {
    // [b][h][i][j], [b][h][i][c] (c < d_head), [b][i][c] and [b][i], flattened with the
    // helpers below
    std::vector<double> attention, headOutputs, concat, output, unablatedOutput, outputShift;
    int B, H, N, M, d;
    double weight(int b, int h, int i, int j) const {
        return attention[((std::size_t(b) * H + h) * N + i) * M + j];
    }
    double headOut(int b, int h, int i, int c) const {
        return headOutputs[((std::size_t(b) * H + h) * N + i) * (d / H) + c];
    }
    double cat(int b, int i, int c) const { return concat[(std::size_t(b) * N + i) * d + c]; }
    double out(int b, int i, int c) const { return output[(std::size_t(b) * N + i) * d + c]; }
    // |output - output with every head on| of token i of sentence b
    double shift(int b, int i) const { return outputShift[std::size_t(b) * N + i]; }
};

// Where head h's element (row r, column c) lives in sentence b's rows of a projection P
// with `len` tokens per sentence, as a flat index into P (row-major, d columns).
// Correct split: token r, dimension h*dh + c. Reshape bug: the sentence's len x d block
// read as (H, len, dh) with no transpose, i.e. its flat element (h*len + r)*dh + c.
inline std::size_t headElement(int b, int h, int r, int c, int len, int d, int dh, bool bug) {
    const std::size_t block = std::size_t(b) * len * d; // sentence b starts here
    if (bug) return block + (std::size_t(h) * len + r) * dh + c;
    return block + std::size_t(r) * d + std::size_t(h) * dh + c;
}

inline Result multiHeadAttention(const core::AttentionInput& in, const core::Weights& w) {
    const int B = in.batch, N = in.queryLen, M = in.keyLen, H = in.heads;
    const int d = int(w.wQ.rows()), dh = d / H;
    const bool bug = in.reshapeBug;
    const core::Mat& src = in.isCross() ? in.xSource : in.x;
    auto project = [&](const core::Mat& x, const core::Mat& W, int rows) {
        std::vector<double> p(std::size_t(rows) * d, 0.0);
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < d; ++c)
                for (int t = 0; t < d; ++t) p[std::size_t(r) * d + c] += double(x(r, t)) * W(t, c);
        return p;
    };
    const auto Q = project(in.x, w.wQ, B * N), K = project(src, w.wK, B * M),
               V = project(src, w.wV, B * M);
    double scale = 1.0 / std::sqrt(double(dh));
    if (in.scale == core::ScaleKind::SqrtDModel) scale = 1.0 / std::sqrt(double(d));
    if (in.scale == core::ScaleKind::None) scale = 1.0;
    std::vector<bool> ablated(H, false);
    for (int h : in.ablatedHeads) ablated[h] = true;

    const std::size_t tokenValues = std::size_t(B) * N * d;
    Result res{std::vector<double>(std::size_t(B) * H * N * M, 0.0),
               std::vector<double>(std::size_t(B) * H * N * dh, 0.0),
               std::vector<double>(tokenValues, 0.0),
               std::vector<double>(tokenValues, 0.0),
               std::vector<double>(tokenValues, 0.0),
               std::vector<double>(std::size_t(B) * N, 0.0),
               B,
               H,
               N,
               M,
               d};
    std::vector<double> fullConcat(tokenValues, 0.0); // every head on
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < N; ++i) {
                std::vector<double> s(M, -std::numeric_limits<double>::infinity());
                for (int j = 0; j < M; ++j) {
                    const bool masked =
                        (in.causal && j > i) || (in.keyPadding.size() > 0 && in.keyPadding(b, j));
                    if (masked) continue;
                    double dot = 0;
                    for (int c = 0; c < dh; ++c)
                        dot += Q[headElement(b, h, i, c, N, d, dh, bug)] *
                               K[headElement(b, h, j, c, M, d, dh, bug)];
                    s[j] = dot * scale;
                }
                double mx = -std::numeric_limits<double>::infinity();
                for (double v : s) mx = std::max(mx, v);
                if (std::isinf(mx)) continue; // every key masked: weights stay 0
                double sum = 0;
                for (double& v : s) sum += (v = std::exp(v - mx));
                for (int j = 0; j < M; ++j) {
                    const double a = s[j] / sum;
                    res.attention[((std::size_t(b) * H + h) * N + i) * M + j] = a;
                    for (int c = 0; c < dh; ++c)
                        res.headOutputs[((std::size_t(b) * H + h) * N + i) * dh + c] +=
                            a * V[headElement(b, h, j, c, M, d, dh, bug)];
                }
                // Merge: the inverse of the split, into the same places of the concat.
                for (int c = 0; c < dh; ++c) {
                    const double value = res.headOut(b, h, i, c);
                    const std::size_t at = headElement(b, h, i, c, N, d, dh, bug);
                    fullConcat[at] = value;
                    res.concat[at] = ablated[h] ? 0.0 : value; // ablated: zeroed before W_O
                }
            }
    auto outProject = [&](const std::vector<double>& concat, std::vector<double>& output) {
        if (!in.outProjection) {
            output = concat;
            return;
        }
        for (int r = 0; r < B * N; ++r)
            for (int c = 0; c < d; ++c)
                for (int t = 0; t < d; ++t)
                    output[std::size_t(r) * d + c] += concat[std::size_t(r) * d + t] * w.wO(t, c);
    };
    outProject(res.concat, res.output);
    outProject(fullConcat, res.unablatedOutput);
    for (int r = 0; r < B * N; ++r) {
        double sq = 0;
        for (int c = 0; c < d; ++c) {
            const double diff =
                res.output[std::size_t(r) * d + c] - res.unablatedOutput[std::size_t(r) * d + c];
            sq += diff * diff;
        }
        res.outputShift[r] = std::sqrt(sq);
    }
    return res;
}

} // namespace reference
