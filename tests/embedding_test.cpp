// Toy embeddings: deterministic per token, unit variance, sinusoidal positions.
#include "engine/embedding.h"

#include "base/prng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

TEST(Prng, Fnv1aMatchesPublishedValues) {
    EXPECT_EQ(core::fnv1a64(""), 0xcbf29ce484222325ull);
    EXPECT_EQ(core::fnv1a64("a"), 0xaf63dc4c8601ec8cull);
    EXPECT_EQ(core::fnv1a64("foobar"), 0x85944171f73967e8ull);
}

TEST(Prng, SplitMix64MatchesItsReferenceSequence) {
    core::SplitMix64 rng(1234567);
    // First outputs of the reference C implementation for seed 1234567.
    EXPECT_EQ(rng.next(), 6457827717110365317ull);
    EXPECT_EQ(rng.next(), 3203168211198807973ull);
    EXPECT_EQ(rng.next(), 9817491932198370423ull);
}

TEST(Embedding, SameTokenSameVectorAnywhere) {
    const core::Mat a = core::embedTokens({"the", "cat", "sat"}, 32, false);
    const core::Mat b = core::embedTokens({"a", "big", "cat"}, 32, false);
    EXPECT_EQ(a.row(1), b.row(2));
    EXPECT_EQ(a.row(1), core::tokenEmbedding("cat", 32));
}

TEST(Embedding, CaseDoesNotChangeTheVector) {
    EXPECT_EQ(core::tokenEmbedding("The", 16), core::tokenEmbedding("the", 16));
    EXPECT_NE(core::tokenEmbedding("cat", 16), core::tokenEmbedding("cut", 16));
}

TEST(Embedding, PinnedValuesAreTheSameOnEveryMachine) {
    // Computed independently (Python, numpy float32) from the documented algorithm. If
    // these change, every saved trace and figure changes: that is a format break.
    const core::RowVec cat = core::tokenEmbedding("cat", 4);
    const float expected[4] = {float(-1.5685698986053467), float(-1.602411150932312),
                               float(-1.7297999858856201), float(-1.0567706823349)};
    for (int j = 0; j < 4; ++j) EXPECT_EQ(cat[j], expected[j]) << j;
}

TEST(Embedding, LeadingDimensionsDoNotDependOnDModel) {
    EXPECT_EQ(core::tokenEmbedding("mat", 64).head(8), core::tokenEmbedding("mat", 8));
}

TEST(Embedding, EachDimensionHasUnitVarianceAcrossTokens) {
    const int tokens = 4000, d = 16;
    Eigen::ArrayXd sum = Eigen::ArrayXd::Zero(d), sumSq = Eigen::ArrayXd::Zero(d);
    for (int t = 0; t < tokens; ++t) {
        const Eigen::ArrayXd v =
            core::tokenEmbedding("word" + std::to_string(t), d).cast<double>().transpose().array();
        sum += v;
        sumSq += v * v;
    }
    const Eigen::ArrayXd mean = sum / tokens, var = sumSq / tokens - mean * mean;
    for (int j = 0; j < d; ++j) {
        EXPECT_NEAR(mean[j], 0.0, 0.08) << j;
        EXPECT_NEAR(var[j], 1.0, 0.08) << j;
    }
}

TEST(Embedding, PositionZeroIsSinZeroCosZero) {
    const core::RowVec pe = core::positionalEncoding(0, 8);
    for (int i = 0; i < 8; i += 2) {
        EXPECT_EQ(pe[i], 0.0f);
        EXPECT_EQ(pe[i + 1], 1.0f);
    }
}

TEST(Embedding, PositionalEncodingFollowsVaswani) {
    const int d = 16, pos = 7, i = 6;
    const core::RowVec pe = core::positionalEncoding(pos, d);
    EXPECT_NEAR(pe[i], std::sin(pos / std::pow(10000.0, double(i) / d)), 1e-7);
    EXPECT_NEAR(pe[i + 1], std::cos(pos / std::pow(10000.0, double(i) / d)), 1e-7);
}

TEST(Embedding, PositionalSwitchAddsExactlyTheEncoding) {
    const core::Mat with = core::embedTokens({"a", "b", "c"}, 8, true);
    const core::Mat without = core::embedTokens({"a", "b", "c"}, 8, false);
    for (int i = 0; i < 3; ++i)
        EXPECT_LE(
            (with.row(i) - without.row(i) - core::positionalEncoding(i, 8)).cwiseAbs().maxCoeff(),
            1e-6);
}

TEST(Embedding, SmallestAndLargestDModelWork) {
    EXPECT_EQ(core::embedTokens({"x"}, 2, true).cols(), 2);
    EXPECT_EQ(core::embedTokens({"x"}, 1024, true).cols(), 1024);
    EXPECT_TRUE(core::embedTokens({"x", "y"}, 1024, true).allFinite());
}
