// The attention backward pass, anchored on the readable reference (engine/reference.h): its
// backward against central finite differences of its forward, with the masks, padding, ablated
// heads, no out projection and every scale; then the engine's (engine/attention_backward.h)
// against that reference backward on every SIMD path this machine has; plus reuse, determinism
// and refusals.
#include "engine/attention_backward.h"
#include "engine/reference.h"

#include "simd_paths.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace {

namespace reference = core::reference;
using core::Attention;
using core::AttentionGradients;
using core::AttentionInput;
using core::Mat;
using reference::MatD;

class AttentionBackwardOnEveryPath : public testing_support::OnEveryPath {};
MHA_ON_EVERY_PATH(AttentionBackwardOnEveryPath);

// One self-attention set-up: B sentences of the given lengths padded to N, d_model D, H heads.
struct Case {
    std::vector<int> lengths;
    int D = 8, H = 2;
    bool causal = true;
    std::vector<int> ablated;
    bool outProjection = true;
    core::ScaleKind scale = core::ScaleKind::SqrtDHead;
};

Case makeCase(std::vector<int> lengths, int D = 8, int H = 2) {
    Case c;
    c.lengths = std::move(lengths), c.D = D, c.H = H;
    return c;
}

AttentionInput inputOf(const Case& c, std::uint64_t seed) {
    AttentionInput in = testing_support::paddedInput(c.lengths, c.D, c.H, seed);
    in.x *= 0.6f; // softmax well away from saturation, so every path carries gradient
    in.causal = c.causal;
    in.ablatedHeads = c.ablated;
    in.outProjection = c.outProjection;
    in.scale = c.scale;
    return in;
}

AttentionGradients engineGradients(const AttentionInput& in, const core::Weights& w, const Mat& R) {
    Attention a;
    core::forward(in, w, a);
    AttentionGradients grads;
    core::backward(in.x, w, a, R, grads);
    return grads;
}

// d x and the four weight gradients, in this order, with their names.
const char* const kNames[] = {"x", "w_q", "w_k", "w_v", "w_o"};

std::vector<MatD> gradientsOf(const reference::Gradients& g) {
    return {g.x, g.wQ, g.wK, g.wV, g.wO};
}

std::vector<MatD> gradientsOf(const AttentionGradients& g) {
    return {g.dx.cast<double>(), g.weights.wQ.cast<double>(), g.weights.wK.cast<double>(),
            g.weights.wV.cast<double>(), g.weights.wO.cast<double>()};
}

// Every entry within `ofLargest` * G + `ofEntry` * |expected entry|, G the largest expected
// gradient entry of all five.
void expectClose(const std::vector<MatD>& actual, const std::vector<MatD>& expected,
                 double ofLargest, double ofEntry, const char* expectedName) {
    double largest = 0; // G
    for (const MatD& m : expected) largest = std::max(largest, m.cwiseAbs().maxCoeff());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        ASSERT_EQ(actual[i].rows(), expected[i].rows()) << kNames[i];
        ASSERT_EQ(actual[i].cols(), expected[i].cols()) << kNames[i];
        for (Eigen::Index r = 0; r < expected[i].rows(); ++r)
            for (Eigen::Index col = 0; col < expected[i].cols(); ++col) {
                const double a = actual[i](r, col), e = expected[i](r, col);
                ASSERT_LE(std::abs(a - e), ofLargest * largest + ofEntry * std::abs(e))
                    << kNames[i] << "(" << r << ", " << col << "): analytic " << a << ", "
                    << expectedName << " " << e << ", largest gradient " << largest;
            }
    }
}

// loss = sum(output ⊙ R), so d loss / d output = R.
double referenceLoss(const AttentionInput& in, const reference::Tensors& t, const MatD& R) {
    return (reference::forward(in, t).output.array() * R.array()).sum();
}

// d loss / d every entry of x and of the four weights as central differences of the reference
// forward (step 1e-6). Self-attention: xSource is empty, so a step of x moves K and V too.
std::vector<MatD> finiteDifferences(const AttentionInput& in, reference::Tensors t, const MatD& R) {
    std::vector<MatD> numeric;
    for (MatD* m : {&t.x, &t.wQ, &t.wK, &t.wV, &t.wO}) {
        numeric.emplace_back(m->rows(), m->cols());
        for (Eigen::Index r = 0; r < m->rows(); ++r)
            for (Eigen::Index col = 0; col < m->cols(); ++col) {
                const double saved = (*m)(r, col);
                (*m)(r, col) = saved + 1e-6;
                const double up = referenceLoss(in, t, R);
                (*m)(r, col) = saved - 1e-6;
                const double down = referenceLoss(in, t, R);
                (*m)(r, col) = saved;
                numeric.back()(r, col) = (up - down) / 2e-6;
            }
    }
    return numeric;
}

// The reference backward against central differences of the reference forward, both in double:
// the differences are exact to ~1e-9 of the largest gradient G (rounding 2e-16 * loss / 1e-6,
// truncation ~1e-12; measured: at most 6e-10 G). The bound 1e-8 G + 1e-6 of the entry leaves
// over 10x for that and is far below what a missing transpose, scale, mask or softmax term costs.
void expectReferenceMatchesFiniteDifferences(const Case& c, std::uint64_t seed) {
    const AttentionInput in = inputOf(c, seed);
    const reference::Tensors t = reference::tensorsOf(in, core::randomWeights(seed + 1, c.D));
    const MatD R = // (B*N) x D
        testing_support::randomMatrix(in.x.rows(), c.D, seed + 2).cast<double>();
    expectClose(gradientsOf(reference::backward(in, t, R)), finiteDifferences(in, t, R), 1e-8, 1e-6,
                "finite difference");
}

// The engine's gradients against the reference backward of the same float inputs. What is left
// is the engine's float rounding, ~1e-7 of the largest gradient G per entry (measured: at most
// 2e-7 G on every path); the bound 2e-6 G + 1e-4 of the entry leaves 10x for that and is still
// far below what a missing transpose, scale, mask or softmax term would cost.
void expectEngineMatchesReference(const Case& c, std::uint64_t seed) {
    const AttentionInput in = inputOf(c, seed);
    const core::Weights w = core::randomWeights(seed + 1, c.D);
    const Mat R = testing_support::randomMatrix(in.x.rows(), c.D, seed + 2); // (B*N) x D
    expectClose(gradientsOf(engineGradients(in, w, R)),
                gradientsOf(reference::backward(in, w, R.cast<double>())), 2e-6, 1e-4, "reference");
}

} // namespace

// ---- the reference backward against finite differences of the reference forward ----

TEST(ReferenceBackward, CausalGradientsMatchFiniteDifferences) {
    expectReferenceMatchesFiniteDifferences(makeCase({5, 5}, 8, 2), 31);
}

TEST(ReferenceBackward, PaddedKeysWithoutCausalMaskMatchFiniteDifferences) {
    Case c = makeCase({6, 3, 4}, 8, 4);
    c.causal = false;
    expectReferenceMatchesFiniteDifferences(c, 37);
}

TEST(ReferenceBackward, AblatedHeadsGetNoGradientAndTheRestMatches) {
    Case c = makeCase({5, 4}, 12, 3);
    c.ablated = {1};
    expectReferenceMatchesFiniteDifferences(c, 41);
    const AttentionInput in = inputOf(c, 41);
    const reference::Gradients g =
        reference::backward(in, core::randomWeights(42, 12), MatD::Ones(in.x.rows(), 12));
    for (const MatD* m : {&g.wQ, &g.wK, &g.wV})
        EXPECT_TRUE(m->middleCols(4, 4).isZero(0)); // head 2's d_head columns
    EXPECT_TRUE(g.wO.middleRows(4, 4).isZero(0));
}

TEST(ReferenceBackward, WithoutOutProjectionMatchesFiniteDifferences) {
    Case c = makeCase({4, 5}, 8, 2);
    c.outProjection = false;
    expectReferenceMatchesFiniteDifferences(c, 43);
    const AttentionInput in = inputOf(c, 43);
    EXPECT_TRUE(reference::backward(in, core::randomWeights(44, 8), MatD::Ones(in.x.rows(), 8))
                    .wO.isZero(0));
}

TEST(ReferenceBackward, OneHeadAndOneDimensionPerHeadMatchFiniteDifferences) {
    expectReferenceMatchesFiniteDifferences(makeCase({4}, 6, 1), 47);
    expectReferenceMatchesFiniteDifferences(makeCase({3, 4}, 4, 4), 53);
}

TEST(ReferenceBackward, EveryScaleAndSwitchTogetherMatchFiniteDifferences) {
    for (core::ScaleKind scale : {core::ScaleKind::SqrtDModel, core::ScaleKind::None}) {
        Case c = makeCase({5, 3}, 12, 3);
        c.scale = scale;
        c.ablated = {0, 2};
        c.outProjection = scale == core::ScaleKind::None;
        expectReferenceMatchesFiniteDifferences(c, 79);
    }
}

TEST(ReferenceBackward, WhatItDoesNotHandleIsRejected) {
    const core::Weights w = core::randomWeights(81, 8);
    AttentionInput in = inputOf(makeCase({4, 3}, 8), 82);
    const MatD R = MatD::Ones(in.x.rows(), 8); // (B*N) x D
    EXPECT_THROW(reference::backward(in, w, MatD::Ones(3, 8)), std::invalid_argument);
    in.reshapeBug = true;
    EXPECT_THROW(reference::backward(in, w, R), std::invalid_argument);
    in.reshapeBug = false;
    in.xSource = in.x; // cross-attention with keys of the same length
    EXPECT_THROW(reference::backward(in, w, R), std::invalid_argument);
}

// ---- the engine's backward against the reference's, on every SIMD path ----

TEST_P(AttentionBackwardOnEveryPath, CausalGradientsMatchTheReference) {
    expectEngineMatchesReference(makeCase({5, 5}, 8, 2), 31);
}

TEST_P(AttentionBackwardOnEveryPath, PaddedKeysWithoutCausalMaskMatchTheReference) {
    Case c = makeCase({6, 3, 4}, 8, 4);
    c.causal = false;
    expectEngineMatchesReference(c, 37);
}

TEST_P(AttentionBackwardOnEveryPath, AblatedHeadsGetNoGradientAndTheRestMatches) {
    Case c = makeCase({5, 4}, 12, 3);
    c.ablated = {1};
    expectEngineMatchesReference(c, 41);
    const AttentionInput in = inputOf(c, 41);
    const core::Weights w = core::randomWeights(42, 12);
    const AttentionGradients g = engineGradients(in, w, Mat::Ones(in.x.rows(), 12));
    for (const Mat* m : {&g.weights.wQ, &g.weights.wK, &g.weights.wV})
        EXPECT_TRUE(m->middleCols(4, 4).isZero(0)); // head 2's d_head columns
    EXPECT_TRUE(g.weights.wO.middleRows(4, 4).isZero(0));
}

TEST_P(AttentionBackwardOnEveryPath, WithoutOutProjectionMatchesTheReference) {
    Case c = makeCase({4, 5}, 8, 2);
    c.outProjection = false;
    expectEngineMatchesReference(c, 43);
    const AttentionInput in = inputOf(c, 43);
    EXPECT_TRUE(engineGradients(in, core::randomWeights(44, 8), Mat::Ones(in.x.rows(), 8))
                    .weights.wO.isZero(0));
}

TEST_P(AttentionBackwardOnEveryPath, OneHeadAndOneDimensionPerHeadMatchTheReference) {
    expectEngineMatchesReference(makeCase({4}, 6, 1), 47);
    expectEngineMatchesReference(makeCase({3, 4}, 4, 4), 53);
}

TEST_P(AttentionBackwardOnEveryPath, EveryScaleAndSwitchTogetherMatchTheReference) {
    for (core::ScaleKind scale : {core::ScaleKind::SqrtDModel, core::ScaleKind::None}) {
        Case c = makeCase({5, 3}, 12, 3);
        c.scale = scale;
        c.ablated = {0, 2};
        c.outProjection = scale == core::ScaleKind::None;
        expectEngineMatchesReference(c, 79);
    }
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
