// An independent, deliberately naive multi-head attention in double precision:
// plain loops over (b, h, i, j), written from the formula, not from the engine.
// Tests compare the engine against it with a tolerance, like ggml's test-backend-ops.
#pragma once

#include "attention.h"
#include "weights.h"

#include <cmath>
#include <limits>
#include <vector>

namespace reference {

struct Result {
    // [b][h][i][j] and [b][i][c], flattened with the helpers below
    std::vector<double> attention, output;
    int B, H, N, M, d;
    double weight(int b, int h, int i, int j) const {
        return attention[((std::size_t(b) * H + h) * N + i) * M + j];
    }
    double out(int b, int i, int c) const { return output[(std::size_t(b) * N + i) * d + c]; }
};

inline Result multiHeadAttention(const core::AttentionInput& in, const core::Weights& w) {
    const int B = in.batch, N = in.queryLen, M = in.keyLen, H = in.heads;
    const int d = int(w.wQ.rows()), dh = d / H;
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

    Result res{std::vector<double>(std::size_t(B) * H * N * M, 0.0),
               std::vector<double>(std::size_t(B) * N * d, 0.0),
               B,
               H,
               N,
               M,
               d};
    std::vector<double> concat(std::size_t(B) * N * d, 0.0);
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < N; ++i) {
                std::vector<double> s(M, -std::numeric_limits<double>::infinity());
                for (int j = 0; j < M; ++j) {
                    const bool masked =
                        (in.causal && j > i) || (in.keyPadding.size() > 0 && in.keyPadding(b, j));
                    if (masked) continue;
                    double dot = 0;
                    for (int c = h * dh; c < (h + 1) * dh; ++c)
                        dot += Q[(std::size_t(b) * N + i) * d + c] *
                               K[(std::size_t(b) * M + j) * d + c];
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
                    for (int c = h * dh; c < (h + 1) * dh; ++c)
                        concat[(std::size_t(b) * N + i) * d + c] +=
                            a * V[(std::size_t(b) * M + j) * d + c];
                }
            }
    for (int r = 0; r < B * N; ++r)
        for (int c = 0; c < d; ++c)
            for (int t = 0; t < d; ++t)
                res.output[std::size_t(r) * d + c] += concat[std::size_t(r) * d + t] * w.wO(t, c);
    return res;
}

} // namespace reference
