// The forward pass against the readable double-precision reference (engine/reference.h) and its
// properties, on every SIMD path this machine has.
#include "engine/attention.h"

#include "reference_checks.h"
#include "simd_paths.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

using core::Attention;
using core::AttentionInput;
using testing_support::paddedInput;
using testing_support::randomMatrix;
using testing_support::runForward;

namespace {

void expectMatchesReference(const AttentionInput& in, const core::Weights& w) {
    testing_support::expectWeightsAndOutputMatch(runForward(in, w),
                                                 core::reference::forward(in, w));
}

// Every test below runs once per SIMD path (scalar, SSE2, AVX2, AVX-512, as this CPU has them):
// the exact promises (masked weights 0, rows summing to 1) must hold on each.
class AttentionOnEveryPath : public testing_support::OnEveryPath {};
MHA_ON_EVERY_PATH(AttentionOnEveryPath);

} // namespace

TEST_P(AttentionOnEveryPath, SelfAttentionMatchesNaiveReference) {
    AttentionInput in = paddedInput({9}, 32, 4, 11);
    expectMatchesReference(in, core::randomWeights(3, 32));
}

TEST_P(AttentionOnEveryPath, CausalPaddedBatchMatchesNaiveReference) {
    AttentionInput in = paddedInput({6, 11, 2}, 48, 6, 12);
    in.causal = true;
    expectMatchesReference(in, core::randomWeights(4, 48));
}

TEST_P(AttentionOnEveryPath, CrossAttentionMatchesNaiveReference) {
    AttentionInput in = paddedInput({5, 3}, 16, 2, 13);
    const AttentionInput src = paddedInput({7, 4}, 16, 2, 14);
    in.keyLen = src.keyLen;
    in.xSource = src.x;
    in.keyPadding = src.keyPadding;
    expectMatchesReference(in, core::randomWeights(5, 16));
}

TEST_P(AttentionOnEveryPath, EveryScaleChoiceMatchesNaiveReference) {
    for (core::ScaleKind s :
         {core::ScaleKind::SqrtDHead, core::ScaleKind::SqrtDModel, core::ScaleKind::None}) {
        AttentionInput in = paddedInput({8}, 16, 4, 15);
        in.scale = s;
        expectMatchesReference(in, core::randomWeights(6, 16));
    }
}

TEST_P(AttentionOnEveryPath, ScoresAreScaledDotProductsBeforeTheMask) {
    AttentionInput in = paddedInput({5}, 16, 4, 16);
    in.causal = true;
    const Attention a = runForward(in, core::randomWeights(7, 16));
    const int h = 2, i = 1, j = 4; // j > i: masked in the weights, still a score
    const auto q = a.q.row(i).segment(h * a.d_head, a.d_head);
    const auto k = a.k.row(j).segment(h * a.d_head, a.d_head);
    EXPECT_NEAR(a.scores(a.headRow(0, h, i), j), q.dot(k) / 2.0f, 1e-6); // sqrt(d_head = 4) = 2
    EXPECT_EQ(a.attention(a.headRow(0, h, i), j), 0.0f);
}

TEST_P(AttentionOnEveryPath, EveryUnmaskedRowSumsToOne) {
    AttentionInput in = paddedInput({4, 10, 7}, 64, 8, 17);
    in.causal = true;
    const Attention a = runForward(in, core::randomWeights(8, 64));
    for (Eigen::Index r = 0; r < a.attention.rows(); ++r)
        EXPECT_NEAR(a.attention.row(r).sum(), 1.0, 1e-6) << "row " << r;
}

TEST_P(AttentionOnEveryPath, CausalUpperTriangleIsExactlyZero) {
    AttentionInput in = paddedInput({12}, 32, 8, 18);
    in.causal = true;
    const Attention a = runForward(in, core::randomWeights(9, 32));
    for (int h = 0; h < 8; ++h)
        for (int i = 0; i < 12; ++i)
            for (int j = i + 1; j < 12; ++j) ASSERT_EQ(a.attention(a.headRow(0, h, i), j), 0.0f);
}

TEST_P(AttentionOnEveryPath, PaddedKeysGetExactlyZeroWeight) {
    const AttentionInput in = paddedInput({3, 8}, 16, 4, 19);
    const Attention a = runForward(in, core::randomWeights(10, 16));
    for (int h = 0; h < 4; ++h)
        for (int i = 0; i < 8; ++i)
            for (int j = 3; j < 8; ++j) ASSERT_EQ(a.attention(a.headRow(0, h, i), j), 0.0f);
}

TEST_P(AttentionOnEveryPath, RowWithEveryKeyMaskedIsZeroNotNaN) {
    AttentionInput in = paddedInput({4, 4}, 16, 2, 20);
    in.keyPadding.row(1).setConstant(true); // sentence 2 has no visible key at all
    const Attention a = runForward(in, core::randomWeights(11, 16));
    EXPECT_TRUE(a.attention.allFinite());
    EXPECT_TRUE(a.output.allFinite());
    for (int h = 0; h < 2; ++h)
        EXPECT_EQ(a.attention.middleRows(a.headRow(1, h), 4).cwiseAbs().maxCoeff(), 0.0f);
    EXPECT_EQ(a.concat.middleRows(4, 4).cwiseAbs().maxCoeff(), 0.0f);
}

// A NaN token (token 1 of sentence 1) makes the scores of every query that sees it NaN:
// those rows' visible weights are NaN, but masked weights stay exactly 0 whatever the row
// length (short rows, long rows taken one at a time) and mask (causal, padded).
TEST_P(AttentionOnEveryPath, NaNScoreLeavesMaskedWeightsExactlyZero) {
    struct Case {
        std::vector<int> lengths;
        bool causal;
    };
    for (const Case& c :
         {Case{{6}, true}, Case{{70}, true}, Case{{3, 8}, false}, Case{{40, 70}, true}}) {
        AttentionInput in = paddedInput(c.lengths, 16, 2, 22);
        in.causal = c.causal;
        in.x.row(1).setConstant(std::numeric_limits<float>::quiet_NaN());
        const Attention a = runForward(in, core::randomWeights(13, 16));
        int masked = 0;
        for (int b = 0; b < a.batch; ++b)
            for (int h = 0; h < a.heads; ++h)
                for (int i = 0; i < a.queryLen; ++i)
                    for (int j = 0; j < a.keyLen; ++j)
                        if (a.masked(b, i, j)) {
                            ++masked;
                            ASSERT_EQ(a.attention(a.headRow(b, h, i), j), 0.0f)
                                << a.queryLen << " tokens: (" << b << ", " << h << ", " << i << ", "
                                << j << ")";
                        }
        EXPECT_GT(masked, 0);
        EXPECT_TRUE(std::isnan(a.attention(a.headRow(0, 0, 2), 1))); // the NaN reached row 2
    }
}

TEST_P(AttentionOnEveryPath, HugeScoresStayFinite) {
    AttentionInput in = paddedInput({6}, 16, 1, 21);
    in.x *= 1000.0f; // scores around 1e6: a naive exp overflows, the stable softmax does not
    in.scale = core::ScaleKind::None;
    const Attention a = runForward(in, core::randomWeights(12, 16));
    EXPECT_TRUE(a.attention.allFinite());
    for (Eigen::Index r = 0; r < a.attention.rows(); ++r)
        EXPECT_NEAR(a.attention.row(r).sum(), 1.0, 1e-6);
}

TEST_P(AttentionOnEveryPath, OneHeadEqualsPlainSingleHeadAttention) {
    const AttentionInput in = paddedInput({7}, 24, 1, 22);
    const core::Weights w = core::randomWeights(13, 24);
    const Attention a = runForward(in, w);
    // softmax(Q K^T / sqrt(d)) V W_O written out with whole matrices.
    const core::Mat q = in.x * w.wQ, k = in.x * w.wK, v = in.x * w.wV; // N x d
    core::Mat s = (q * k.transpose()) / std::sqrt(24.0f);              // N x N
    for (Eigen::Index i = 0; i < s.rows(); ++i) {
        s.row(i) = (s.row(i).array() - s.row(i).maxCoeff()).exp();
        s.row(i) /= s.row(i).sum();
    }
    const core::Mat out = s * v * w.wO; // N x d
    EXPECT_LE((a.attention - s).cwiseAbs().maxCoeff(), 1e-6);
    EXPECT_LE((a.output - out).cwiseAbs().maxCoeff(), 1e-5);
}

TEST_P(AttentionOnEveryPath, HeadsEqualToDModelMeansOneDimensionPerHead) {
    AttentionInput in = paddedInput({5}, 8, 8, 23);
    const core::Weights w = core::randomWeights(14, 8);
    const Attention a = runForward(in, w);
    EXPECT_EQ(a.d_head, 1);
    expectMatchesReference(in, w);
}

TEST_P(AttentionOnEveryPath, PermutingTokensPermutesOutputsWithoutPositions) {
    const int n = 6, d = 16;
    AttentionInput in = paddedInput({n}, d, 4, 24);
    const core::Weights w = core::randomWeights(15, d);
    const std::vector<int> perm{3, 0, 5, 1, 4, 2};
    AttentionInput permuted = in;
    for (int i = 0; i < n; ++i) permuted.x.row(i) = in.x.row(perm[i]);
    const Attention a = runForward(in, w), p = runForward(permuted, w);
    for (int i = 0; i < n; ++i) {
        EXPECT_LE((p.output.row(i) - a.output.row(perm[i])).cwiseAbs().maxCoeff(), 1e-5);
        for (int h = 0; h < 4; ++h)
            for (int j = 0; j < n; ++j)
                EXPECT_NEAR(p.attention(p.headRow(0, h, i), j),
                            a.attention(a.headRow(0, h, perm[i]), perm[j]), 1e-6);
    }
}

TEST_P(AttentionOnEveryPath, ConcatPlacesEachHeadInItsOwnColumns) {
    const AttentionInput in = paddedInput({5, 3}, 24, 3, 25);
    const Attention a = runForward(in, core::randomWeights(16, 24));
    for (int b = 0; b < 2; ++b)
        for (int h = 0; h < 3; ++h)
            EXPECT_EQ(a.concat.block(b * 5, h * 8, 5, 8),
                      a.headOutputs.middleRows(a.headRow(b, h), 5));
}

TEST_P(AttentionOnEveryPath, ReusedBuffersGiveTheSameResultAsFreshOnes) {
    const core::Weights w32 = core::randomWeights(17, 32), w16 = core::randomWeights(18, 16);
    const AttentionInput big = paddedInput({9, 4}, 32, 8, 26), small = paddedInput({3}, 16, 2, 27);
    Attention reused;
    core::forward(big, w32, reused);
    core::forward(small, w16, reused); // shrinks every buffer
    const Attention fresh = runForward(small, w16);
    EXPECT_EQ(reused.attention, fresh.attention);
    EXPECT_EQ(reused.output, fresh.output);
    EXPECT_EQ(reused.keyPadding, fresh.keyPadding);
}

TEST_P(AttentionOnEveryPath, ShapesThatDoNotFitAreRejected) {
    const core::Weights w = core::randomWeights(19, 16);
    AttentionInput in = paddedInput({4}, 16, 3, 28); // 3 does not divide 16
    Attention out;
    EXPECT_THROW(core::forward(in, w, out), std::invalid_argument);
    in.heads = 4;
    in.x.conservativeResize(3, 16); // N says 4 rows
    EXPECT_THROW(core::forward(in, w, out), std::invalid_argument);
}

TEST_P(AttentionOnEveryPath, LargeShapeUsesThreadsAndStillMatches) {
    // Big enough to take the multi-threaded path over (b, h) blocks.
    AttentionInput in = paddedInput({96, 80}, 64, 4, 29);
    in.causal = true;
    expectMatchesReference(in, core::randomWeights(20, 64));
}

TEST_P(AttentionOnEveryPath, FlopCountAddsProjectionsScoresValuesAndOutput) {
    // B=1, N=M=10, d=64: 4 projections 2*10*64*64 each + 2 * 2*10*10*64.
    EXPECT_DOUBLE_EQ(core::forwardFlops(1, 10, 10, 64), 4 * 81920.0 + 2 * 12800.0);
}

namespace {

// Weights of H query heads and H_kv K/V heads of d_head each (grouped-query attention).
core::Weights groupedWeights(int d, int heads, int kvHeads, int d_head, std::uint64_t seed) {
    core::Weights w; // scaled as Glorot's, so activations stay near 1 as in a trained model
    const float in = std::sqrt(3.0f / float(d)), out = std::sqrt(3.0f / float(heads * d_head));
    w.wQ = in * randomMatrix(d, heads * d_head, seed);       // d x (H*d_head)
    w.wK = in * randomMatrix(d, kvHeads * d_head, seed + 1); // d x (H_kv*d_head)
    w.wV = in * randomMatrix(d, kvHeads * d_head, seed + 2); // d x (H_kv*d_head)
    w.wO = out * randomMatrix(heads * d_head, d, seed + 3);  // (H*d_head) x d
    return w;
}

// Rotary tables as a model makes them: angle p / 10000^(2j / r) for position p.
core::Rotation rotaryTables(int positions, int r) {
    core::Rotation turn;
    turn.cos.resize(positions, r / 2); // P x r/2
    turn.sin.resize(positions, r / 2);
    for (int p = 0; p < positions; ++p)
        for (int j = 0; j < r / 2; ++j) {
            const double angle = p / std::pow(10000.0, 2.0 * j / r);
            turn.cos(p, j) = float(std::cos(angle));
            turn.sin(p, j) = float(std::sin(angle));
        }
    return turn;
}

} // namespace

// Threaded tiles, rowwise softmax (M >= 64), padding, a rotation and a score bias at once.
TEST_P(AttentionOnEveryPath, GroupedQueryRotaryAndBiasLargeMatchReference) {
    AttentionInput in = paddedInput({96, 80}, 64, 8, 30);
    in.causal = true;
    in.rotation = rotaryTables(96, 8);
    in.scoreBias = randomMatrix(8 * 96, 96, 31); // (H*N) x M
    core::Weights w = groupedWeights(64, 8, 2, 12, 32);
    w.bQ = randomMatrix(1, 8 * 12, 33);
    w.bK = randomMatrix(1, 2 * 12, 34);
    const Attention a = runForward(in, w);
    EXPECT_EQ(a.kvHeads, 2);
    EXPECT_EQ(a.d_head, 12);
    EXPECT_EQ(a.concat.cols(), 96);
    testing_support::expectWeightsAndOutputMatch(a, core::reference::forward(in, w));
}

TEST_P(AttentionOnEveryPath, CrossAttentionWithSharedKeyValueHeadsMatchesReference) {
    AttentionInput in = paddedInput({5, 3}, 16, 4, 35);
    const AttentionInput src = paddedInput({7, 4}, 16, 4, 36);
    in.keyLen = src.keyLen;
    in.xSource = src.x;
    in.keyPadding = src.keyPadding;
    expectMatchesReference(in, groupedWeights(16, 4, 1, 6, 37));
}

// Two query heads of a group with the same W_Q columns read the same K/V head: the same map.
TEST_P(AttentionOnEveryPath, QueryHeadsOfOneGroupShareTheirKeys) {
    const AttentionInput in = paddedInput({7}, 16, 4, 38);
    core::Weights w = groupedWeights(16, 4, 2, 4, 39);
    w.wQ.middleCols(4, 4) = w.wQ.middleCols(0, 4);  // head 1 = head 0 (both K/V head 0)
    w.wQ.middleCols(12, 4) = w.wQ.middleCols(0, 4); // head 3 = head 0, but K/V head 1
    const Attention a = runForward(in, w);
    EXPECT_EQ(a.kvHeadOf(1), 0);
    EXPECT_EQ(a.kvHeadOf(3), 1);
    // The same map to rounding: a GEMM may round a column by where it falls in its SIMD panel.
    EXPECT_LE(
        (a.attention.middleRows(a.headRow(0, 1), 7) - a.attention.middleRows(a.headRow(0, 0), 7))
            .cwiseAbs()
            .maxCoeff(),
        1e-6);
    EXPECT_GT(
        (a.attention.middleRows(a.headRow(0, 3), 7) - a.attention.middleRows(a.headRow(0, 0), 7))
            .cwiseAbs()
            .maxCoeff(),
        1e-3);
}

// Rotary positions make a score depend on the distance between two tokens, not on where they
// are: with every token the same vector, score(i, j) is a function of i - j.
TEST_P(AttentionOnEveryPath, RotationMakesScoresDependOnRelativePosition) {
    AttentionInput in = paddedInput({12}, 16, 2, 40);
    for (int i = 1; i < 12; ++i) in.x.row(i) = in.x.row(0);
    in.rotation = rotaryTables(12, 8);
    const Attention a = runForward(in, groupedWeights(16, 2, 1, 8, 41));
    for (int h = 0; h < 2; ++h)
        for (int i = 1; i < 12; ++i)
            for (int j = 1; j < 12; ++j)
                EXPECT_NEAR(a.scores(a.headRow(0, h, i), j),
                            a.scores(a.headRow(0, h, i - 1), j - 1), 1e-4);
}

TEST_P(AttentionOnEveryPath, GroupedShapesThatDoNotFitAreRejectedByName) {
    AttentionInput in = paddedInput({4}, 16, 8, 42);
    Attention out;
    const auto message = [&](const core::Weights& w) {
        try {
            core::forward(in, w, out);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message(groupedWeights(16, 8, 3, 4, 43)).find("K/V heads"), std::string::npos);
    core::Weights w = groupedWeights(16, 8, 2, 4, 44);
    w.wO = randomMatrix(16, 16, 45); // not (H*d_head) x d
    EXPECT_NE(message(w).find("W_O"), std::string::npos);
    in.rotation = rotaryTables(4, 6); // 3 pairs, d_head 4
    EXPECT_NE(message(groupedWeights(16, 8, 2, 4, 46)).find("rotation"), std::string::npos);
    in.rotation = {};
    in.scoreBias = randomMatrix(4, 4, 47); // not (H*N) x M
    EXPECT_NE(message(groupedWeights(16, 8, 2, 4, 48)).find("score bias"), std::string::npos);
}

// The exact promises hold with K/V heads shared, a rotation and a score bias as without: a
// masked weight (causal or padding) is exactly 0 whatever the bias there, a row sums to 1.
TEST_P(AttentionOnEveryPath, MaskedWeightsStayZeroWithSharedKeysRotationAndBias) {
    AttentionInput in = paddedInput({70, 41}, 32, 4, 49);
    in.causal = true;
    in.rotation = rotaryTables(70, 8);
    in.scoreBias = 50.0f * randomMatrix(4 * 70, 70, 50); // large: the mask must still win
    const Attention a = runForward(in, groupedWeights(32, 4, 1, 8, 51));
    for (int b = 0; b < 2; ++b)
        for (int h = 0; h < 4; ++h)
            for (int i = 0; i < 70; ++i) {
                const Eigen::Index r = a.headRow(b, h, i);
                for (int j = 0; j < 70; ++j)
                    if (a.masked(b, i, j)) ASSERT_EQ(a.attention(r, j), 0.0f) << b << h << i << j;
                EXPECT_NEAR(a.attention.row(r).sum(), 1.0, 1e-6) << "row " << r;
            }
}

// A sliding window and a soft cap (Mistral's, Gemma 2's) keep them too, on short rows (one tile
// softmax) and long ones (row by row), and match the readable reference.
TEST_P(AttentionOnEveryPath, MaskedWeightsStayZeroWithASlidingWindowAndASoftCap) {
    for (const int n : {20, 70}) {
        AttentionInput in = paddedInput({n, n - 7}, 32, 4, 52);
        in.causal = true;
        in.window = 5;
        in.scoreCap = 3;
        in.rotation = rotaryTables(n, 8);
        const core::Weights w = groupedWeights(32, 4, 2, 8, 53);
        const Attention a = runForward(in, w);
        for (int b = 0; b < 2; ++b)
            for (int h = 0; h < 4; ++h)
                for (int i = 0; i < n; ++i) {
                    const Eigen::Index r = a.headRow(b, h, i);
                    bool sees = false; // a padded query's window may hold padding alone
                    for (int j = 0; j < n; ++j) {
                        sees = sees || !a.masked(b, i, j);
                        if (a.masked(b, i, j))
                            ASSERT_EQ(a.attention(r, j), 0.0f) << n << b << i << j;
                    }
                    EXPECT_NEAR(a.attention.row(r).sum(), sees ? 1.0 : 0.0, 1e-6) << "row " << r;
                }
        EXPECT_TRUE(a.masked(0, 10, 5));                 // 10 - 5 = 5: just outside the window
        EXPECT_FALSE(a.masked(0, 10, 6));                // inside it
        EXPECT_LE(a.scores.cwiseAbs().maxCoeff(), 3.0f); // capped
        expectMatchesReference(in, w);
    }
}

// attendProjected, given the projections forward() makes, gives forward()'s attention and concat.
TEST_P(AttentionOnEveryPath, AttendProjectedEqualsTheForwardOnItsOwnProjections) {
    AttentionInput in = paddedInput({70}, 32, 4, 54);
    in.keyPadding.resize(0, 0);
    in.causal = true;
    in.window = 9;
    in.rotation = rotaryTables(70, 8);
    const core::Weights w = groupedWeights(32, 4, 2, 8, 55);
    const Attention whole = runForward(in, w);
    AttentionInput own = in;
    own.q = in.x * w.wQ; // 70 x 32, before the rotation
    own.k = in.x * w.wK; // 70 x 16
    own.v = in.x * w.wV; // 70 x 16
    Attention a;
    core::attendProjected(own, a);
    EXPECT_LE((a.attention - whole.attention).cwiseAbs().maxCoeff(), 1e-5f);
    EXPECT_LE((a.concat - whole.concat).cwiseAbs().maxCoeff(), 1e-5f);
    EXPECT_EQ(a.output.size(), 0); // W_O is the model's
}

namespace {

// Rows [first, first + rows) of each sentence of a (B*len) x width matrix.
core::Mat sentenceRows(const core::Mat& m, int batch, int first, int rows) {
    const Eigen::Index len = m.rows() / batch;
    core::Mat out(Eigen::Index(batch) * rows, m.cols()); // (B*rows) x width
    for (int b = 0; b < batch; ++b)
        out.middleRows(b * rows, rows) = m.middleRows(b * len + first, rows);
    return out;
}

// The forward of tokens [P, N) of `whole` after the keys and values `full` gave tokens [0, P).
AttentionInput afterCache(const AttentionInput& whole, const Attention& full, int P) {
    AttentionInput in = whole;
    const int B = whole.batch, N = whole.queryLen;
    in.queryLen = N - P; // keyLen stays N
    in.x = sentenceRows(whole.x, B, P, N - P);
    in.pastKeys = sentenceRows(full.k, B, 0, P);
    in.pastValues = sentenceRows(full.v, B, 0, P);
    in.keyPadding = {};
    return in;
}

} // namespace

// A decoder's cache: the queries after P cached tokens see keys up to P + i and are turned as
// tokens P + i, so their rows are the whole forward's rows [P, N), and the reference agrees.
TEST_P(AttentionOnEveryPath, QueriesAfterCachedKeysAreTheWholeForwardsLaterRows) {
    for (const int P : {1, 37, 69}) {
        AttentionInput whole = paddedInput({70, 70}, 32, 4, 52);
        whole.causal = true;
        whole.keyPadding = {};
        whole.rotation = rotaryTables(70, 8);
        core::Weights w = groupedWeights(32, 4, 2, 8, 53);
        w.bK = randomMatrix(1, 2 * 8, 54);
        w.bV = randomMatrix(1, 2 * 8, 55);
        const Attention full = runForward(whole, w);
        const AttentionInput in = afterCache(whole, full, P);
        const Attention tail = runForward(in, w);
        ASSERT_EQ(tail.queryOffset, P);
        ASSERT_EQ(tail.keyLen, 70);
        testing_support::expectWeightsAndOutputMatch(tail, core::reference::forward(in, w));
        double worst = 0; // the same rows of the whole forward
        for (int b = 0; b < 2; ++b) {
            for (int h = 0; h < 4; ++h)
                worst = std::max(worst,
                                 double((tail.attention.middleRows(tail.headRow(b, h), 70 - P) -
                                         full.attention.middleRows(full.headRow(b, h, P), 70 - P))
                                            .cwiseAbs()
                                            .maxCoeff()));
            worst = std::max(worst, double((tail.output.middleRows(b * (70 - P), 70 - P) -
                                            full.output.middleRows(b * 70 + P, 70 - P))
                                               .cwiseAbs()
                                               .maxCoeff()));
        }
        EXPECT_LE(worst, testing_support::kReferenceTolerance) << "P " << P;
        for (int i = 0; i < 70 - P; ++i) // exactly 0 past the query's own token
            for (int j = P + i + 1; j < 70; ++j)
                ASSERT_EQ(tail.attention(tail.headRow(1, 3, i), j), 0.0f);
    }
}

TEST_P(AttentionOnEveryPath, CachedKeysOfTheWrongShapeAreRejected) {
    AttentionInput whole = paddedInput({12}, 16, 4, 56);
    whole.causal = true;
    const core::Weights w = groupedWeights(16, 4, 2, 4, 57);
    const Attention full = runForward(whole, w);
    AttentionInput in = afterCache(whole, full, 5);
    Attention out;
    in.keyLen = 12 - 5; // M must be P + N
    EXPECT_THROW(core::forward(in, w, out), std::invalid_argument);
    in.keyLen = 12;
    in.pastValues = core::Mat(in.pastValues.topRows(4)); // not as many as the keys (a copy:
                                                         // a block of itself would alias)
    EXPECT_THROW(core::forward(in, w, out), std::invalid_argument);
    in = afterCache(whole, full, 5);
    in.pastKeys = randomMatrix(5, 16, 58); // K/V are 2 heads of 4: 8 wide
    EXPECT_THROW(core::forward(in, w, out), std::invalid_argument);
    in = afterCache(whole, full, 5);
    in.rotation = rotaryTables(10, 2); // tables for 10 tokens, the queries reach token 11
    EXPECT_THROW(core::forward(in, w, out), std::invalid_argument);
    in.rotation = rotaryTables(12, 2);
    EXPECT_NO_THROW(core::forward(in, w, out));
}
