// The classic pitfalls as switches: no W_O, ablated heads, the reshape bug, the scale;
// each against the readable double-precision reference (engine/reference.h), plus the entropy
// statistics.
#include "engine/attention.h"
#include "engine/attention_stats.h"
#include "engine/trace.h"

#include "reference_checks.h"
#include "simd_paths.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <tuple>
#include <vector>

using core::Attention;
using core::AttentionInput;
using testing_support::paddedInput;
using testing_support::runForward;

namespace {

constexpr double kTol = testing_support::kReferenceTolerance;

// B = 3 padded, causal: the combination where a wrong mask or split shows first.
AttentionInput causalBatch(int d_model, int heads, std::uint64_t seed) {
    AttentionInput in = paddedInput({6, 9, 3}, d_model, heads, seed);
    in.causal = true;
    return in;
}

// Cross-attention, B = 2, N != M, keys padded.
AttentionInput crossBatch(int d_model, int heads, std::uint64_t seed) {
    AttentionInput in = paddedInput({5, 3}, d_model, heads, seed);
    const AttentionInput src = paddedInput({7, 4}, d_model, heads, seed + 100);
    in.keyLen = src.keyLen;
    in.xSource = src.x;
    in.keyPadding = src.keyPadding;
    return in;
}

// Everything the reference knows, engine vs reference: weights, head outputs, concat,
// output and (when some head is ablated) the output shift.
void expectMatchesReference(const AttentionInput& in, const core::Weights& w) {
    const Attention a = runForward(in, w);
    const core::reference::Forward ref = core::reference::forward(in, w);
    testing_support::expectWeightsAndOutputMatch(a, ref);
    double headOut = 0, concat = 0, shift = 0;
    for (int b = 0; b < a.batch; ++b) {
        for (int h = 0; h < a.heads; ++h)
            for (int i = 0; i < a.queryLen; ++i)
                for (int c = 0; c < a.d_head; ++c)
                    headOut = std::max(headOut, std::abs(a.headOutputs(a.headRow(b, h, i), c) -
                                                         ref.headOutputs(ref.headRow(b, h, i), c)));
        for (int i = 0; i < a.queryLen; ++i) {
            const Eigen::Index row = Eigen::Index(b) * a.queryLen + i;
            for (int c = 0; c < a.d_model; ++c)
                concat = std::max(concat, std::abs(a.concat(row, c) - ref.concat(row, c)));
            if (!in.ablatedHeads.empty())
                shift = std::max(shift, std::abs(a.outputShift[row] - ref.outputShift(row, 0)));
        }
    }
    EXPECT_LE(headOut, kTol);
    EXPECT_LE(concat, kTol);
    EXPECT_LE(shift, kTol);
    if (in.ablatedHeads.empty()) {
        EXPECT_EQ(a.outputShift.size(), 0);
    } else {
        ASSERT_EQ(a.outputShift.size(), Eigen::Index(a.batch) * a.queryLen);
        EXPECT_GT(a.outputShift.maxCoeff(), 1e-3); // the shift is really there
    }
}

// The switches change the engine's arithmetic, so they are checked on every SIMD path.
class NoOutProjectionOnEveryPath : public testing_support::OnEveryPath {};
class AblationOnEveryPath : public testing_support::OnEveryPath {};
class ReshapeBugOnEveryPath : public testing_support::OnEveryPath {};
MHA_ON_EVERY_PATH(NoOutProjectionOnEveryPath);
MHA_ON_EVERY_PATH(AblationOnEveryPath);
MHA_ON_EVERY_PATH(ReshapeBugOnEveryPath);

} // namespace

// ---- no output projection ----

TEST_P(NoOutProjectionOnEveryPath, MatchesReferenceOnACausalPaddedBatch) {
    AttentionInput in = causalBatch(32, 4, 101);
    in.outProjection = false;
    expectMatchesReference(in, core::randomWeights(1, 32));
}

TEST_P(NoOutProjectionOnEveryPath, MatchesReferenceForCrossAttention) {
    AttentionInput in = crossBatch(24, 3, 102);
    in.outProjection = false;
    expectMatchesReference(in, core::randomWeights(2, 24));
}

TEST_P(NoOutProjectionOnEveryPath, OutputEqualsConcatExactly) {
    AttentionInput in = causalBatch(32, 8, 103);
    in.outProjection = false;
    const core::Weights w = core::randomWeights(3, 32);
    const Attention a = runForward(in, w);
    EXPECT_FALSE(a.outProjection);
    EXPECT_EQ(a.output, a.concat);
    in.outProjection = true; // W_O changes only the last step
    const Attention withWo = runForward(in, w);
    EXPECT_EQ(withWo.concat, a.concat);
    EXPECT_GT((withWo.output - a.output).cwiseAbs().maxCoeff(), 1e-2);
}

// ---- ablated heads ----

TEST_P(AblationOnEveryPath, MatchesReferenceOnACausalPaddedBatch) {
    AttentionInput in = causalBatch(48, 6, 104);
    in.ablatedHeads = {1, 4};
    expectMatchesReference(in, core::randomWeights(4, 48));
}

TEST_P(AblationOnEveryPath, MatchesReferenceForCrossAttention) {
    AttentionInput in = crossBatch(32, 4, 105);
    in.ablatedHeads = {0};
    expectMatchesReference(in, core::randomWeights(5, 32));
}

TEST_P(AblationOnEveryPath, WithoutOutProjectionMatchesReference) {
    AttentionInput in = causalBatch(32, 4, 106);
    in.ablatedHeads = {2, 3};
    in.outProjection = false;
    expectMatchesReference(in, core::randomWeights(6, 32));
}

TEST_P(AblationOnEveryPath, ZeroesTheHeadsColumnsOfConcatAndKeepsEverythingElse) {
    AttentionInput in = causalBatch(32, 4, 107);
    const core::Weights w = core::randomWeights(7, 32);
    const Attention full = runForward(in, w);
    in.ablatedHeads = {1, 3};
    const Attention a = runForward(in, w);
    EXPECT_EQ(a.headAblated, std::vector<bool>({false, true, false, true}));
    EXPECT_EQ(a.attention, full.attention);     // the maps are unchanged
    EXPECT_EQ(a.headOutputs, full.headOutputs); // what was removed stays visible
    for (int h = 0; h < 4; ++h) {
        const auto columns = a.concat.middleCols(h * 8, 8);     // (B*N) x d_head
        const auto fullCols = full.concat.middleCols(h * 8, 8); // (B*N) x d_head
        if (a.headAblated[h])
            EXPECT_EQ(columns.cwiseAbs().maxCoeff(), 0.0f) << "head " << h;
        else
            EXPECT_EQ(columns, fullCols) << "head " << h;
    }
    EXPECT_EQ(full.outputShift.size(), 0);
    EXPECT_EQ(full.headAblated, std::vector<bool>(4, false));
}

TEST_P(AblationOnEveryPath, ShiftIsTheDistanceToTheUnablatedOutput) {
    AttentionInput in = paddedInput({7, 4}, 16, 4, 108);
    const core::Weights w = core::randomWeights(8, 16);
    const Attention full = runForward(in, w);
    in.ablatedHeads = {2};
    const Attention a = runForward(in, w);
    for (Eigen::Index r = 0; r < a.output.rows(); ++r)
        EXPECT_NEAR(a.outputShift[r], (a.output.row(r) - full.output.row(r)).norm(), 1e-5);
}

TEST_P(AblationOnEveryPath, AllHeadsGiveExactlyZeroOutput) {
    for (bool outProjection : {true, false}) {
        AttentionInput in = causalBatch(32, 4, 109);
        in.outProjection = outProjection;
        in.ablatedHeads = {0, 1, 2, 3};
        const Attention a = runForward(in, core::randomWeights(9, 32));
        EXPECT_EQ(a.output.cwiseAbs().maxCoeff(), 0.0f) << "W_O " << outProjection;
        EXPECT_EQ(a.concat.cwiseAbs().maxCoeff(), 0.0f);
        EXPECT_GT(a.headOutputs.cwiseAbs().maxCoeff(), 0.0f);
    }
}

TEST_P(AblationOnEveryPath, DuplicateHeadsAreHarmless) {
    AttentionInput in = paddedInput({5}, 16, 4, 110);
    const core::Weights w = core::randomWeights(10, 16);
    in.ablatedHeads = {2};
    const Attention once = runForward(in, w);
    in.ablatedHeads = {2, 2};
    EXPECT_EQ(runForward(in, w).output, once.output);
}

TEST_P(AblationOnEveryPath, HeadsOutsideTheRangeAreRejected) {
    AttentionInput in = paddedInput({4}, 16, 4, 111);
    Attention out;
    in.ablatedHeads = {4};
    EXPECT_THROW(core::forward(in, core::randomWeights(11, 16), out), std::invalid_argument);
    in.ablatedHeads = {-1};
    EXPECT_THROW(core::forward(in, core::randomWeights(11, 16), out), std::invalid_argument);
}

TEST_P(AblationOnEveryPath, ReusedBuffersForgetAnEarlierAblation) {
    const core::Weights w = core::randomWeights(12, 16);
    AttentionInput in = paddedInput({6}, 16, 4, 112);
    in.ablatedHeads = {0, 3};
    Attention reused;
    core::forward(in, w, reused);
    in.ablatedHeads.clear();
    core::forward(in, w, reused);
    const Attention fresh = runForward(in, w);
    EXPECT_EQ(reused.output, fresh.output);
    EXPECT_EQ(reused.concat, fresh.concat);
    EXPECT_EQ(reused.outputShift.size(), 0);
    EXPECT_EQ(reused.headAblated, std::vector<bool>(4, false));
}

// ---- the reshape bug ----

TEST_P(ReshapeBugOnEveryPath, MatchesReferenceOnACausalPaddedBatch) {
    AttentionInput in = causalBatch(32, 4, 113);
    in.reshapeBug = true;
    expectMatchesReference(in, core::randomWeights(13, 32));
}

TEST_P(ReshapeBugOnEveryPath, MatchesReferenceForCrossAttention) {
    AttentionInput in = crossBatch(24, 6, 114); // N = 5, M = 7: different views for Q and K/V
    in.reshapeBug = true;
    expectMatchesReference(in, core::randomWeights(14, 24));
}

TEST_P(ReshapeBugOnEveryPath, MatchesReferenceWithEveryOtherSwitch) {
    for (core::ScaleKind scale :
         {core::ScaleKind::SqrtDHead, core::ScaleKind::SqrtDModel, core::ScaleKind::None}) {
        AttentionInput in = causalBatch(16, 4, 115);
        in.reshapeBug = true;
        in.scale = scale;
        in.ablatedHeads = {1};
        in.outProjection = scale != core::ScaleKind::None;
        expectMatchesReference(in, core::randomWeights(15, 16));
    }
    AttentionInput in = crossBatch(16, 2, 116);
    in.reshapeBug = true;
    in.ablatedHeads = {0};
    in.outProjection = false;
    expectMatchesReference(in, core::randomWeights(16, 16));
}

TEST_P(ReshapeBugOnEveryPath, LargeShapeUsesThreadsAndStillMatches) {
    AttentionInput in = paddedInput({96, 80}, 64, 4, 117); // takes the threaded head loop
    in.causal = true;
    in.reshapeBug = true;
    in.ablatedHeads = {3};
    expectMatchesReference(in, core::randomWeights(17, 64));
}

TEST_P(ReshapeBugOnEveryPath, ChangesAttentionAndOutputWithSeveralHeads) {
    AttentionInput in = causalBatch(32, 4, 118);
    const core::Weights w = core::randomWeights(18, 32);
    const Attention correct = runForward(in, w);
    in.reshapeBug = true;
    const Attention buggy = runForward(in, w);
    EXPECT_TRUE(buggy.reshapeBug);
    EXPECT_EQ(buggy.q, correct.q); // the projections are right, only the split is wrong
    EXPECT_GT((buggy.attention - correct.attention).cwiseAbs().maxCoeff(), 1e-2);
    EXPECT_GT((buggy.output - correct.output).cwiseAbs().maxCoeff(), 1e-2);
}

TEST_P(ReshapeBugOnEveryPath, IsBitIdenticalWithOneHead) {
    const core::Weights w = core::randomWeights(19, 24);
    for (AttentionInput in : {causalBatch(24, 1, 119), crossBatch(24, 1, 120)}) {
        in.ablatedHeads = {};
        const Attention correct = runForward(in, w);
        in.reshapeBug = true;
        const Attention buggy = runForward(in, w);
        EXPECT_EQ(buggy.scores, correct.scores);
        EXPECT_EQ(buggy.attention, correct.attention);
        EXPECT_EQ(buggy.headOutputs, correct.headOutputs);
        EXPECT_EQ(buggy.concat, correct.concat);
        EXPECT_EQ(buggy.output, correct.output);
    }
}

TEST_P(ReshapeBugOnEveryPath, ScoresUseTheElementsSplitSourceNames) {
    // The UI explains the bug with splitSource; the engine must read exactly those elements.
    AttentionInput in = paddedInput({5, 5}, 12, 3, 121);
    in.reshapeBug = true;
    in.scale = core::ScaleKind::None;
    const Attention a = runForward(in, core::randomWeights(20, 12));
    const int N = 5, d = 12, H = 3, dh = 4;
    for (int b = 0; b < 2; ++b)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < N; ++i)
                for (int j = 0; j < N; ++j) {
                    double dot = 0;
                    for (int c = 0; c < dh; ++c) {
                        const core::SplitSource qs = core::splitSource(h, i, c, N, d, H, true);
                        const core::SplitSource ks = core::splitSource(h, j, c, N, d, H, true);
                        dot +=
                            double(a.q(b * N + qs.token, qs.dim)) * a.k(b * N + ks.token, ks.dim);
                    }
                    EXPECT_NEAR(a.scores(a.headRow(b, h, i), j), dot, 1e-5);
                }
}

TEST(SplitSource, CorrectSplitIsTokenRowAndHeadColumns) {
    // d_model 8, 4 heads: d_head 2; head 3 column 1 is dimension 7 of the same token.
    const core::SplitSource s = core::splitSource(3, 5, 1, 6, 8, 4, false);
    EXPECT_EQ(s.token, 5);
    EXPECT_EQ(s.dim, 7);
    const core::SplitSource first = core::splitSource(0, 0, 0, 6, 8, 4, false);
    EXPECT_EQ(first.token, 0);
    EXPECT_EQ(first.dim, 0);
}

TEST(SplitSource, ReshapeBugReadsTheFlatBlock) {
    // len 6, d_model 8, 4 heads (d_head 2).
    // head 0 row 3 col 1: flat (0*6 + 3)*2 + 1 = 7 -> token 0, dim 7
    auto s = core::splitSource(0, 3, 1, 6, 8, 4, true);
    EXPECT_EQ(s.token, 0);
    EXPECT_EQ(s.dim, 7);
    // head 0 row 4 col 0: flat 8 -> token 1, dim 0 (head 0 already reads token 1)
    s = core::splitSource(0, 4, 0, 6, 8, 4, true);
    EXPECT_EQ(s.token, 1);
    EXPECT_EQ(s.dim, 0);
    // head 2 row 5 col 1: flat (2*6 + 5)*2 + 1 = 35 -> token 4, dim 3
    s = core::splitSource(2, 5, 1, 6, 8, 4, true);
    EXPECT_EQ(s.token, 4);
    EXPECT_EQ(s.dim, 3);
    // last element: head 3 row 5 col 1: flat 47 -> token 5, dim 7
    s = core::splitSource(3, 5, 1, 6, 8, 4, true);
    EXPECT_EQ(s.token, 5);
    EXPECT_EQ(s.dim, 7);
}

TEST(SplitSource, OneHeadIsTheSameEitherWay) {
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 6; ++c) {
            const core::SplitSource good = core::splitSource(0, r, c, 4, 6, 1, false);
            const core::SplitSource bug = core::splitSource(0, r, c, 4, 6, 1, true);
            EXPECT_EQ(good.token, bug.token);
            EXPECT_EQ(good.dim, bug.dim);
        }
}

// ---- scale and entropy ----

TEST(Scale, SqrtDModelFlattensAndNoScaleSharpensTheDemo) {
    core::Scene scene;
    const double dHead = core::meanRowEntropy(core::run(scene).attention);
    scene.scale = core::ScaleKind::SqrtDModel;
    const double dModel = core::meanRowEntropy(core::run(scene).attention);
    scene.scale = core::ScaleKind::None;
    const double none = core::meanRowEntropy(core::run(scene).attention);
    EXPECT_GT(dModel, dHead);
    EXPECT_LT(none, dHead);
    EXPECT_GT(none, 0.0);
    EXPECT_LE(dModel, std::log(11.0)); // never above uniform over the demo's 11 tokens
}

// The entropies run in the SIMD kernels (attention_stats_kernel.cpp): every path is checked.
class EntropyOnEveryPath : public testing_support::OnEveryPath {};
MHA_ON_EVERY_PATH(EntropyOnEveryPath);

TEST_P(EntropyOnEveryPath, UniformRowsGiveLogOfTheVisibleKeys) {
    AttentionInput in = paddedInput({6, 4}, 8, 2, 122);
    in.x.setZero(); // every score 0: each row is uniform over its visible keys
    in.causal = true;
    const Attention a = runForward(in, core::randomWeights(21, 8));
    for (int h = 0; h < 2; ++h)
        for (int i = 0; i < 6; ++i) {
            EXPECT_NEAR(core::rowEntropy(a, 0, h, i), std::log(i + 1.0), 1e-6);
            EXPECT_NEAR(core::rowEntropy(a, 1, h, i), std::log(std::min(i, 3) + 1.0), 1e-6);
        }
}

TEST_P(EntropyOnEveryPath, AllMaskedRowIsZeroAndSkippedByTheMean) {
    AttentionInput in = paddedInput({3, 3}, 8, 2, 123);
    in.x.setZero();
    in.keyPadding.row(1).setConstant(true); // sentence 2 sees no key at all
    const Attention a = runForward(in, core::randomWeights(22, 8));
    EXPECT_EQ(core::rowEntropy(a, 1, 0, 0), 0.0);
    EXPECT_NEAR(core::meanRowEntropy(a), std::log(3.0), 1e-6); // only sentence 1's rows count
}

TEST_P(EntropyOnEveryPath, MatchesTheDefinitionAndMeanIsTheMeanOfTheRows) {
    AttentionInput in = causalBatch(16, 4, 124);
    const Attention a = runForward(in, core::randomWeights(23, 16));
    double sum = 0;
    int rows = 0;
    for (int b = 0; b < a.batch; ++b)
        for (int h = 0; h < a.heads; ++h)
            for (int i = 0; i < a.queryLen; ++i) {
                const double e = core::rowEntropy(a, b, h, i);
                EXPECT_GE(e, 0.0);
                // -sum p ln p in double: the definition, without the kernel's tricks
                const core::reference::MatD row =
                    a.attention.row(a.headRow(b, h, i)).cast<double>();
                EXPECT_NEAR(e, core::reference::entropy(row), 1e-5);
                sum += e;
                ++rows;
            }
    EXPECT_NEAR(core::meanRowEntropy(a), sum / rows, 1e-12);
}

// ---- the scene and core::run ----

TEST(PitfallScene, BadAblatedHeadIsNamedFromOne) {
    core::Scene s;
    s.ablatedHeads = {1, 8};
    EXPECT_EQ(core::validationError(s), "ablated head 9 does not exist (heads = 8)");
    EXPECT_THROW(core::run(s), std::invalid_argument);
    s.ablatedHeads = {-1};
    EXPECT_EQ(core::validationError(s), "ablated head 0 does not exist (heads = 8)");
    s.ablatedHeads = {0, 7};
    EXPECT_EQ(core::validationError(s), "");
}

TEST(PitfallScene, RunPassesTheSwitchesToTheEngine) {
    core::Scene s;
    s.outProjection = false;
    s.ablatedHeads = {2, 5};
    s.reshapeBug = true;
    const core::Trace t = core::run(s);
    EXPECT_FALSE(t.input.outProjection);
    EXPECT_EQ(t.input.ablatedHeads, std::vector<int>({2, 5}));
    EXPECT_TRUE(t.input.reshapeBug);
    EXPECT_FALSE(t.attention.outProjection);
    EXPECT_TRUE(t.attention.reshapeBug);
    EXPECT_EQ(t.attention.headAblated,
              std::vector<bool>({false, false, true, false, false, true, false, false}));
    EXPECT_EQ(t.attention.outputShift.size(), 11);
    EXPECT_EQ(t.attention.output, t.attention.concat);
}

namespace {

// The Pipeline tab draws the reshape bug from splitBlocks: its rectangles must cover exactly
// the cells splitSource names for every element of the head's slice, each once.
TEST(SplitBlocks, CoverExactlyTheCellsEachHeadReads) {
    for (const bool bug : {false, true})
        for (const auto& [len, d, H] : {std::tuple{6, 8, 4}, {5, 12, 3}, {7, 16, 16}, {3, 8, 1}}) {
            std::vector<int> owner(std::size_t(len) * d, -1);
            for (int h = 0; h < H; ++h) {
                for (const core::SplitBlock& b : core::splitBlocks(h, len, d, H, bug))
                    for (int t = b.tokenBegin; t < b.tokenEnd; ++t)
                        for (int c = b.dimBegin; c < b.dimEnd; ++c) {
                            int& cell = owner[std::size_t(t) * d + c];
                            EXPECT_EQ(cell, -1) << "a cell drawn twice";
                            cell = h;
                        }
                for (int r = 0; r < len; ++r)
                    for (int c = 0; c < d / H; ++c) {
                        const core::SplitSource s = core::splitSource(h, r, c, len, d, H, bug);
                        EXPECT_EQ(owner[std::size_t(s.token) * d + s.dim], h)
                            << "bug " << bug << " len " << len << " d " << d << " H " << H;
                    }
            }
            EXPECT_EQ(std::count(owner.begin(), owner.end(), -1), 0); // the heads tile the matrix
        }
    // The correct split is one column band per head; the bug's head 1 of 4 (6 tokens, d 8)
    // reads the flat range [12, 24): the second half of token 1 and all of token 2.
    EXPECT_EQ(core::splitBlocks(1, 6, 8, 4, false), (std::vector<core::SplitBlock>{{0, 6, 2, 4}}));
    EXPECT_EQ(core::splitBlocks(1, 6, 8, 4, true),
              (std::vector<core::SplitBlock>{{1, 2, 4, 8}, {2, 3, 0, 8}}));
}

} // namespace
