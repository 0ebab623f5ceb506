// The attention backward pass (engine/attention_backward.h) on every SIMD path this machine
// has: every gradient entry against central finite differences of a naive double-precision
// self-attention written here from the formulas (plain loops, no engine code), with the masks,
// padding, ablated heads and no out projection; plus reuse, determinism and refusals.
#include "engine/attention_backward.h"

#include "simd_paths.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

using core::Attention;
using core::AttentionGradients;
using core::AttentionInput;
using core::Mat;
using MatD = Eigen::MatrixXd;

class AttentionBackwardOnEveryPath : public testing_support::OnEveryPath {};
MHA_ON_EVERY_PATH(AttentionBackwardOnEveryPath);

// One self-attention set-up: B sentences of the given lengths padded to N, d_model D, H heads.
struct Case {
    std::vector<int> lengths;
    int D = 8, H = 2;
    bool causal = true;
    std::vector<int> ablated;
    bool outProjection = true;
    int N() const { return *std::max_element(lengths.begin(), lengths.end()); }
};

Case makeCase(std::vector<int> lengths, int D = 8, int H = 2) {
    Case c;
    c.lengths = std::move(lengths), c.D = D, c.H = H;
    return c;
}

// x, the four weights and R in double: loss = sum(output ⊙ R), so d loss / d output = R.
struct Tensors {
    std::vector<MatD> all; // x, wQ, wK, wV, wO
    MatD R;
};

// The loss from the formulas: per sentence b, head h and query i, softmax over the keys j that
// are not padding (j < length) and, when causal, not after i; ablated heads left out of concat.
double referenceLoss(const Case& c, const Tensors& t) {
    const MatD &x = t.all[0], &wO = t.all[4];
    const MatD q = x * t.all[1], k = x * t.all[2], v = x * t.all[3]; // (B*N) x D
    const int N = c.N(), dh = c.D / c.H;
    MatD concat = MatD::Zero(x.rows(), c.D); // (B*N) x D
    for (int b = 0; b < int(c.lengths.size()); ++b)
        for (int h = 0; h < c.H; ++h) {
            if (std::count(c.ablated.begin(), c.ablated.end(), h) > 0) continue;
            for (int i = 0; i < N; ++i) {
                std::vector<double> e(N, 0.0);
                double top = -std::numeric_limits<double>::infinity(), sum = 0;
                const int visible = c.causal ? std::min(i + 1, c.lengths[b]) : c.lengths[b];
                for (int j = 0; j < visible; ++j) {
                    double dot = 0;
                    for (int d = 0; d < dh; ++d)
                        dot += q(b * N + i, h * dh + d) * k(b * N + j, h * dh + d);
                    e[j] = dot / std::sqrt(double(dh));
                    top = std::max(top, e[j]);
                }
                for (int j = 0; j < visible; ++j) sum += e[j] = std::exp(e[j] - top);
                for (int j = 0; j < visible; ++j)
                    for (int d = 0; d < dh; ++d)
                        concat(b * N + i, h * dh + d) += e[j] / sum * v(b * N + j, h * dh + d);
            }
        }
    const MatD output = c.outProjection ? MatD(concat * wO) : concat;
    return (output.array() * t.R.array()).sum();
}

AttentionInput inputOf(const Case& c, std::uint64_t seed) {
    AttentionInput in = testing_support::paddedInput(c.lengths, c.D, c.H, seed);
    in.x *= 0.6f; // softmax well away from saturation, so every path carries gradient
    in.causal = c.causal;
    in.ablatedHeads = c.ablated;
    in.outProjection = c.outProjection;
    return in;
}

AttentionGradients engineGradients(const AttentionInput& in, const core::Weights& w, const Mat& R) {
    Attention a;
    core::forward(in, w, a);
    AttentionGradients grads;
    core::backward(in.x, w, a, R, grads);
    return grads;
}

// Every entry of d x and of the four weight gradients against a central difference of the
// double reference (step 1e-6: exact to ~1e-9). What is left is the engine's float rounding,
// ~1e-7 of the largest gradient G per entry (measured: at most 2e-7 G on every path); the bound
// 2e-6 G + 1e-4 of the entry leaves 10x for that and is still far below what a missing
// transpose, scale, mask or softmax term would cost.
void expectGradientsMatchFiniteDifferences(const Case& c, std::uint64_t seed) {
    const AttentionInput in = inputOf(c, seed);
    const core::Weights w = core::randomWeights(seed + 1, c.D);
    const Mat R = testing_support::randomMatrix(in.x.rows(), c.D, seed + 2); // (B*N) x D
    const AttentionGradients grads = engineGradients(in, w, R);
    const std::vector<const Mat*> analytic = {&grads.dx, &grads.weights.wQ, &grads.weights.wK,
                                              &grads.weights.wV, &grads.weights.wO};
    const char* names[] = {"x", "w_q", "w_k", "w_v", "w_o"};
    Tensors t{{in.x.cast<double>(), w.wQ.cast<double>(), w.wK.cast<double>(), w.wV.cast<double>(),
               w.wO.cast<double>()},
              R.cast<double>()};
    std::vector<MatD> numeric;
    double largest = 0; // G
    for (MatD& m : t.all) {
        numeric.emplace_back(m.rows(), m.cols());
        for (Eigen::Index r = 0; r < m.rows(); ++r)
            for (Eigen::Index col = 0; col < m.cols(); ++col) {
                const double saved = m(r, col);
                m(r, col) = saved + 1e-6;
                const double up = referenceLoss(c, t);
                m(r, col) = saved - 1e-6;
                const double down = referenceLoss(c, t);
                m(r, col) = saved;
                numeric.back()(r, col) = (up - down) / 2e-6;
            }
        largest = std::max(largest, numeric.back().cwiseAbs().maxCoeff());
    }
    for (std::size_t i = 0; i < numeric.size(); ++i) {
        ASSERT_EQ(analytic[i]->rows(), numeric[i].rows()) << names[i];
        ASSERT_EQ(analytic[i]->cols(), numeric[i].cols()) << names[i];
        for (Eigen::Index r = 0; r < numeric[i].rows(); ++r)
            for (Eigen::Index col = 0; col < numeric[i].cols(); ++col) {
                const double a = (*analytic[i])(r, col), n = numeric[i](r, col);
                ASSERT_LE(std::abs(a - n), 2e-6 * largest + 1e-4 * std::abs(n))
                    << names[i] << "(" << r << ", " << col << "): analytic " << a
                    << ", finite difference " << n << ", largest gradient " << largest;
            }
    }
}

} // namespace

TEST_P(AttentionBackwardOnEveryPath, CausalGradientsMatchFiniteDifferences) {
    expectGradientsMatchFiniteDifferences(makeCase({5, 5}, 8, 2), 31);
}

TEST_P(AttentionBackwardOnEveryPath, PaddedKeysWithoutCausalMaskMatchFiniteDifferences) {
    Case c = makeCase({6, 3, 4}, 8, 4);
    c.causal = false;
    expectGradientsMatchFiniteDifferences(c, 37);
}

TEST_P(AttentionBackwardOnEveryPath, AblatedHeadsGetNoGradientAndTheRestMatches) {
    Case c = makeCase({5, 4}, 12, 3);
    c.ablated = {1};
    expectGradientsMatchFiniteDifferences(c, 41);
    const AttentionInput in = inputOf(c, 41);
    const core::Weights w = core::randomWeights(42, 12);
    const AttentionGradients g = engineGradients(in, w, Mat::Ones(in.x.rows(), 12));
    for (const Mat* m : {&g.weights.wQ, &g.weights.wK, &g.weights.wV})
        EXPECT_TRUE(m->middleCols(4, 4).isZero(0)); // head 2's d_head columns
    EXPECT_TRUE(g.weights.wO.middleRows(4, 4).isZero(0));
}

TEST_P(AttentionBackwardOnEveryPath, WithoutOutProjectionMatchesFiniteDifferences) {
    Case c = makeCase({4, 5}, 8, 2);
    c.outProjection = false;
    expectGradientsMatchFiniteDifferences(c, 43);
    const AttentionInput in = inputOf(c, 43);
    EXPECT_TRUE(engineGradients(in, core::randomWeights(44, 8), Mat::Ones(in.x.rows(), 8))
                    .weights.wO.isZero(0));
}

TEST_P(AttentionBackwardOnEveryPath, OneHeadAndOneDimensionPerHeadMatchFiniteDifferences) {
    expectGradientsMatchFiniteDifferences(makeCase({4}, 6, 1), 47);
    expectGradientsMatchFiniteDifferences(makeCase({3, 4}, 4, 4), 53);
}

TEST_P(AttentionBackwardOnEveryPath, ReusedBuffersGiveTheSameResultAsFreshOnes) {
    const AttentionInput big = inputOf(makeCase({9, 7}, 16, 4), 59),
                         small = inputOf(makeCase({4}, 8), 61);
    const core::Weights w16 = core::randomWeights(62, 16), w8 = core::randomWeights(63, 8);
    Attention a;
    AttentionGradients reused;
    core::forward(big, w16, a);
    core::backward(big.x, w16, a, Mat::Ones(big.x.rows(), 16), reused);
    const Mat R = testing_support::randomMatrix(small.x.rows(), 8, 64); // (B*N) x D
    core::forward(small, w8, a);
    core::backward(small.x, w8, a, R, reused); // shrinks every buffer
    const AttentionGradients fresh = engineGradients(small, w8, R);
    EXPECT_EQ(reused.dx, fresh.dx);
    EXPECT_EQ(reused.weights.wQ, fresh.weights.wQ);
    EXPECT_EQ(reused.weights.wK, fresh.weights.wK);
    EXPECT_EQ(reused.weights.wV, fresh.weights.wV);
    EXPECT_EQ(reused.weights.wO, fresh.weights.wO);
}

// Big enough for the threads over (b, h) blocks: each block writes its own slices and nothing
// is summed across threads, so every run gives the same bits; and the threads give the
// single-thread numbers up to float rounding (Eigen's GEMM blocks by thread count).
TEST_P(AttentionBackwardOnEveryPath, ThreadedRunsAreIdenticalAndMatchOneThread) {
    const AttentionInput in = inputOf(makeCase(std::vector<int>(8, 48), 32, 4), 67);
    const core::Weights w = core::randomWeights(68, 32);
    const Mat R = testing_support::randomMatrix(in.x.rows(), 32, 69); // (B*N) x D
    const AttentionGradients first = engineGradients(in, w, R);
    for (int run = 0; run < 3; ++run) {
        const AttentionGradients again = engineGradients(in, w, R);
        ASSERT_EQ(again.dx, first.dx);
        ASSERT_EQ(again.weights.wQ, first.weights.wQ);
        ASSERT_EQ(again.weights.wK, first.weights.wK);
        ASSERT_EQ(again.weights.wV, first.weights.wV);
        ASSERT_EQ(again.weights.wO, first.weights.wO);
    }
#ifdef _OPENMP
    const int threads = omp_get_max_threads();
    omp_set_num_threads(1);
    const AttentionGradients serial = engineGradients(in, w, R);
    omp_set_num_threads(threads);
    EXPECT_LE((serial.dx - first.dx).cwiseAbs().maxCoeff(), 1e-5f * first.dx.cwiseAbs().maxCoeff());
    EXPECT_LE((serial.weights.wQ - first.weights.wQ).cwiseAbs().maxCoeff(),
              1e-5f * first.weights.wQ.cwiseAbs().maxCoeff());
#endif
}

TEST_P(AttentionBackwardOnEveryPath, WhatItDoesNotHandleIsRejected) {
    const core::Weights w = core::randomWeights(71, 8);
    AttentionInput in = inputOf(makeCase({4, 3}, 8), 72);
    const Mat R = Mat::Ones(in.x.rows(), 8); // (B*N) x D
    Attention a;
    AttentionGradients grads;
    core::forward(in, w, a);
    EXPECT_THROW(core::backward(in.x, w, a, Mat::Ones(3, 8), grads), std::invalid_argument);
    EXPECT_THROW(core::backward(in.x.topRows(4), w, a, R, grads), std::invalid_argument);
    EXPECT_THROW(core::backward(in.x, core::randomWeights(73, 4), a, R, grads),
                 std::invalid_argument);
    in.reshapeBug = true;
    core::forward(in, w, a);
    EXPECT_THROW(core::backward(in.x, w, a, R, grads), std::invalid_argument);
    in.reshapeBug = false;
    in.xSource = in.x; // cross-attention with keys of the same length
    core::forward(in, w, a);
    EXPECT_THROW(core::backward(in.x, w, a, R, grads), std::invalid_argument);
}
