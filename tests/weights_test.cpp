// Seeded Glorot-uniform weights: fixed by the seed alone.
#include "engine/weights.h"

#include <gtest/gtest.h>

#include <cmath>

TEST(Weights, SameSeedSameWeights) {
    const core::Weights a = core::randomWeights(42, 32), b = core::randomWeights(42, 32);
    EXPECT_EQ(a.wQ, b.wQ);
    EXPECT_EQ(a.wO, b.wO);
}

TEST(Weights, DifferentSeedOrMatrixGivesDifferentValues) {
    const core::Weights a = core::randomWeights(42, 16), b = core::randomWeights(43, 16);
    EXPECT_NE(a.wQ, b.wQ);
    EXPECT_NE(a.wQ, a.wK);
    EXPECT_NE(a.wK, a.wV);
    EXPECT_NE(a.wV, a.wO);
}

TEST(Weights, PinnedValuesAreTheSameOnEveryMachine) {
    // Computed independently (Python, numpy float32) from the algorithm in weights.h.
    const core::Weights w = core::randomWeights(1, 4);
    EXPECT_EQ(w.wQ(0, 0), float(-0.12002295255661011));
    EXPECT_EQ(w.wQ(3, 3), float(0.16156180202960968));
    EXPECT_EQ(w.wO(1, 2), float(-0.5967962145805359));
}

TEST(Weights, GlorotUniformBoundsAndSpread) {
    const int d = 256;
    const core::Weights w = core::randomWeights(7, d);
    const float limit = std::sqrt(3.0f / d);
    for (const core::Mat* m : {&w.wQ, &w.wK, &w.wV, &w.wO}) {
        EXPECT_LE(m->cwiseAbs().maxCoeff(), limit);
        EXPECT_GT(m->cwiseAbs().maxCoeff(), 0.99f * limit);
        const double variance = m->cast<double>().array().square().mean();
        EXPECT_NEAR(variance, 1.0 / d, 0.05 / d); // U(-a, a) has variance a^2 / 3 = 1 / d
    }
}

TEST(Weights, ParameterCountIsFourDModelSquared) {
    for (int d : {2, 64, 512}) EXPECT_EQ(core::randomWeights(1, d).parameterCount(), 4LL * d * d);
}

// Grouped-query attention: W_K and W_V narrowed to H_kv*d_head columns, the first ones of the
// full draw, so a K/V head keeps its numbers whatever H_kv is; W_Q and W_O are MHA's.
TEST(Weights, KvColumnsAreTheFirstColumnsOfTheFullDraw) {
    const core::Weights full = core::randomWeights(5, 32), narrow = core::randomWeights(5, 32, 8);
    EXPECT_EQ(narrow.wK.rows(), 32);
    EXPECT_EQ(narrow.wK.cols(), 8);
    EXPECT_EQ(narrow.wV.cols(), 8);
    EXPECT_EQ(narrow.wK, full.wK.leftCols(8));
    EXPECT_EQ(narrow.wV, full.wV.leftCols(8));
    EXPECT_EQ(narrow.wQ, full.wQ);
    EXPECT_EQ(narrow.wO, full.wO);
    EXPECT_EQ(narrow.parameterCount(), 2LL * 32 * 32 + 2LL * 32 * 8);
    EXPECT_EQ(core::randomWeights(5, 32, 32).wK, full.wK); // 0 or d_model: MHA
}
