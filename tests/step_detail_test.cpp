// core::stepDetail: every number of the Step-through tab, checked against the trace's own
// tensors (scores, attention, head outputs, output) with a tolerance.
#include "engine/step_detail.h"
#include "engine/trace.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

namespace {

constexpr float kTolerance = 1e-5f;

core::Trace traceOf(core::Scene scene) {
    return core::run(scene);
}

core::Scene batchScene() {
    core::Scene scene;
    scene.sentences = {"The cat sat on the mat because it was tired .", "A dog barked ."};
    scene.mask = core::MaskKind::Causal;
    scene.heads = 4;
    return scene;
}

// Every relation the steps show, for one (b, h, i).
void expectConsistent(const core::Trace& t, int b, int h, int i) {
    SCOPED_TRACE("b " + std::to_string(b) + " h " + std::to_string(h) + " i " + std::to_string(i));
    const core::Attention& a = t.attention;
    const core::StepDetail s = core::stepDetail(t, b, h, i);
    const Eigen::Index headRow = a.headRow(b, h, i), tokenRow = Eigen::Index(b) * a.queryLen + i;
    ASSERT_EQ(s.rawScores.size(), a.keyLen);
    ASSERT_EQ(s.kHead.rows(), a.keyLen);
    ASSERT_EQ(s.kHead.cols(), a.d_head);
    ASSERT_EQ(s.contributions.rows(), a.heads);
    ASSERT_EQ(s.contributions.cols(), a.d_model);
    EXPECT_EQ(s.x, t.input.x.row(tokenRow));
    EXPECT_EQ(s.q, a.q.row(tokenRow));
    // q . k scaled is the trace's score; the softmax row and the head output are the trace's.
    for (int j = 0; j < a.keyLen; ++j) {
        EXPECT_NEAR(s.rawScores[j] * s.scale, a.scores(headRow, j), kTolerance) << "key " << j;
        EXPECT_EQ(s.scaledScores[j], a.scores(headRow, j));
        EXPECT_EQ(s.weights[j], a.attention(headRow, j));
        EXPECT_EQ(s.masked[std::size_t(j)], a.masked(b, i, j));
        if (s.masked[std::size_t(j)]) {
            EXPECT_EQ(s.weights[j], 0.0f);
        }
    }
    // The softmax of the visible scaled scores.
    double denominator = 0, largest = -INFINITY;
    for (int j = 0; j < a.keyLen; ++j)
        if (!s.masked[std::size_t(j)]) largest = std::max(largest, double(s.scaledScores[j]));
    for (int j = 0; j < a.keyLen; ++j)
        if (!s.masked[std::size_t(j)]) denominator += std::exp(s.scaledScores[j] - largest);
    for (int j = 0; j < a.keyLen; ++j) {
        if (s.masked[std::size_t(j)]) continue;
        EXPECT_NEAR(s.weights[j], std::exp(s.scaledScores[j] - largest) / denominator, kTolerance);
    }
    EXPECT_NEAR(s.weightSum, s.maskedCount == a.keyLen ? 0.0f : 1.0f, kTolerance);
    // weights . V is the head output.
    const core::RowVec weighted = s.weights * s.vHead; // 1 x d_head
    for (int c = 0; c < a.d_head; ++c) {
        EXPECT_NEAR(weighted[c], s.headOutput[c], kTolerance);
        EXPECT_EQ(s.headOutput[c], a.headOutputs(headRow, c));
    }
    // The contributions of every head add up to the output row.
    const core::RowVec summed = s.contributions.colwise().sum(); // 1 x d_model
    for (int c = 0; c < a.d_model; ++c) {
        EXPECT_NEAR(summed[c], a.output(tokenRow, c), 1e-4f) << "dim " << c;
        EXPECT_EQ(s.output[c], a.output(tokenRow, c));
        EXPECT_EQ(s.concat[c], a.concat(tokenRow, c));
    }
}

TEST(StepDetail, EveryStepMatchesTheTrace) {
    const core::Trace t = traceOf(batchScene());
    for (int b = 0; b < t.batch(); ++b)
        for (int h = 0; h < t.attention.heads; ++h)
            for (int i = 0; i < t.queryLen(); i += 3) expectConsistent(t, b, h, i);
}

TEST(StepDetail, QueryAndKeySlicesAreTheHeadsColumns) {
    const core::Trace t = traceOf(batchScene());
    const core::Attention& a = t.attention;
    const int b = 1, h = 2, i = 1;
    const core::StepDetail s = core::stepDetail(t, b, h, i);
    for (int c = 0; c < a.d_head; ++c) {
        EXPECT_EQ(s.qHead[c], a.q(Eigen::Index(b) * a.queryLen + i, h * a.d_head + c));
        for (int j = 0; j < a.keyLen; ++j) {
            EXPECT_EQ(s.kHead(j, c), a.k(Eigen::Index(b) * a.keyLen + j, h * a.d_head + c));
            EXPECT_EQ(s.vHead(j, c), a.v(Eigen::Index(b) * a.keyLen + j, h * a.d_head + c));
        }
    }
}

TEST(StepDetail, PaddingAndCausalKeysAreCountedAsMasked) {
    const core::Trace t = traceOf(batchScene());
    // "A dog barked ." has 4 tokens: query 1 sees keys 0 and 1 (causal), of 11.
    const core::StepDetail s = core::stepDetail(t, 1, 0, 1);
    EXPECT_EQ(s.maskedCount, t.keyLen() - 2);
}

TEST(StepDetail, CrossAttentionAndPitfallsStayConsistent) {
    core::Scene scene;
    scene.sentences = {"The cat sat on the mat ."};
    scene.sources = {"Le chat s'est assis sur le tapis ."};
    scene.heads = 8;
    scene.ablatedHeads = {1, 5};
    expectConsistent(traceOf(scene), 0, 1, 2);
    scene.reshapeBug = true; // the slices come from the flat buffer: still the trace's numbers
    scene.sources.clear();
    expectConsistent(traceOf(scene), 0, 3, 4);
}

TEST(StepDetail, WithoutWOEachHeadFillsOnlyItsColumns) {
    core::Scene scene;
    scene.outProjection = false;
    scene.heads = 4;
    const core::Trace t = traceOf(scene);
    expectConsistent(t, 0, 0, 5);
    const core::StepDetail s = core::stepDetail(t, 0, 0, 5);
    EXPECT_FALSE(s.outProjection);
    for (int g = 0; g < s.heads; ++g)
        for (int c = 0; c < s.d_model; ++c) {
            const bool own = c / s.d_head == g;
            EXPECT_EQ(s.contributions(g, c), own ? s.concat[c] : 0.0f) << g << "," << c;
        }
}

// Grouped-query attention: the keys and values shown are K/V head h / (H / H_kv)'s.
TEST(StepDetail, GroupedHeadsReadTheirKvHeadsKeysAndValues) {
    core::Scene scene = batchScene();
    scene.heads = 8;
    core::setKvHeads(scene, 2);
    const core::Trace t = traceOf(scene);
    const core::Attention& a = t.attention;
    for (int h : {0, 3, 4, 7}) {
        expectConsistent(t, 1, h, 2);
        const core::StepDetail s = core::stepDetail(t, 1, h, 2);
        EXPECT_EQ(s.kvHeads, 2);
        EXPECT_EQ(s.kvHead, h / 4);
        for (int j = 0; j < a.keyLen; ++j)
            for (int c = 0; c < a.d_head; ++c) {
                EXPECT_EQ(s.kHead(j, c), a.k(Eigen::Index(a.keyLen) + j, s.kvHead * a.d_head + c));
                EXPECT_EQ(s.vHead(j, c), a.v(Eigen::Index(a.keyLen) + j, s.kvHead * a.d_head + c));
            }
    }
    scene.reshapeBug = true; // K's flat buffer is H_kv*d_head wide: still the trace's numbers
    expectConsistent(traceOf(scene), 0, 5, 4);
}

// [SECTION] Rotary positions

core::Scene rotaryScene() {
    core::Scene scene;
    scene.sentences = {"The cat sat on the mat because it was tired ."};
    scene.positional = core::PositionalKind::Rotary;
    scene.heads = 4;
    core::setKvHeads(scene, 2);
    return scene;
}

// q and k before the turn are the plain projections x W_Q, x W_K (no positions in x); after
// it the trace's; q . k after is the head's own raw score; the angles are position x theta_p.
TEST(RotaryDetail, BeforeIsTheProjectionAfterIsTheTraceAndTheAnglesArePositionTimesTheta) {
    const core::Trace t = traceOf(rotaryScene());
    const core::Attention& a = t.attention;
    const int h = 3, i = 7, j = 2, g = a.kvHeadOf(h);
    const core::StepDetail s = core::stepDetail(t, 0, h, i, j);
    const core::RotaryDetail& r = s.rotary;
    ASSERT_TRUE(r.on());
    EXPECT_EQ(r.dims, a.d_head);
    EXPECT_EQ(r.queryPosition, i);
    EXPECT_EQ(r.keyPosition, j);
    const core::RowVec q = t.input.x.row(i) * t.weights->wQ; // 1 x (H*d_head), unturned
    const core::RowVec k = t.input.x.row(j) * t.weights->wK; // 1 x (H_kv*d_head)
    for (int c = 0; c < a.d_head; ++c) {
        EXPECT_NEAR(r.qBefore[c], q[h * a.d_head + c], kTolerance) << c;
        EXPECT_NEAR(r.kBefore[c], k[g * a.d_head + c], kTolerance) << c;
        EXPECT_EQ(r.qAfter[c], a.q(i, h * a.d_head + c));
        EXPECT_EQ(r.kAfter[c], a.k(j, g * a.d_head + c));
    }
    EXPECT_NEAR(r.score, s.rawScores[j], kTolerance);
    for (int p = 0; p < r.dims / 2; ++p) {
        const double theta = std::pow(10000.0, -2.0 * p / r.dims);
        EXPECT_NEAR(r.frequencies[p], theta, 1e-6);
        EXPECT_NEAR(r.queryAngles[p], i * theta, 1e-5);
        EXPECT_NEAR(r.keyAngles[p], j * theta, 1e-5);
    }
}

// The relative line: both positions moved alike, computed again, give the same score; each
// pair moves within the tables (back to 0, or forward when one of them is at 0).
TEST(RotaryDetail, MovingBothPositionsAlikeKeepsTheScore) {
    const core::Trace t = traceOf(rotaryScene());
    const int rows = int(t.input.rotation.cos.rows());
    for (const auto& [i, j] :
         {std::pair{7, 2}, std::pair{3, 9}, std::pair{0, 5}, std::pair{10, 0}, std::pair{0, 0}}) {
        const core::RotaryDetail r = core::stepDetail(t, 0, 1, i, j).rotary;
        EXPECT_NE(r.shift, 0) << i << "," << j;
        EXPECT_GE(std::min(i, j) + r.shift, 0);
        EXPECT_LT(std::max(i, j) + r.shift, rows);
        EXPECT_NEAR(r.shiftedScore, r.score, 1e-5f * std::max(1.0f, std::abs(r.score)))
            << i << "," << j;
    }
    // A real test of the claim: another distance gives another score.
    EXPECT_GT(std::abs(core::stepDetail(t, 0, 1, 7, 2).rotary.score -
                       core::stepDetail(t, 0, 1, 7, 3).rotary.score),
              1e-3f);
}

// From an Attention and a Rotation alone, as a real model's layer will hand them over.
TEST(RotaryDetail, NeedsOnlyTheAttentionAndItsRotation) {
    const core::Trace t = traceOf(rotaryScene());
    const core::RotaryDetail r = core::rotaryDetail(t.attention, t.input.rotation, 0, 2, 4, 1);
    EXPECT_EQ(r.score, core::stepDetail(t, 0, 2, 4, 1).rotary.score);
    EXPECT_FALSE(core::rotaryDetail(t.attention, core::Rotation{}, 0, 2, 4, 1).on());
    EXPECT_THROW(core::rotaryDetail(t.attention, t.input.rotation, 0, 2, 4, 99), std::out_of_range);
    EXPECT_FALSE(core::stepDetail(traceOf(core::Scene{}), 0, 0, 0).rotary.on()); // sinusoidal
    // Without a key given, the key followed is the one the query weighs most.
    const core::StepDetail s = core::stepDetail(t, 0, 2, 4);
    Eigen::Index most = 0;
    s.weights.maxCoeff(&most);
    EXPECT_EQ(s.rotary.key, int(most));
}

TEST(StepDetail, IndexesOutsideTheTraceThrow) {
    const core::Trace t = traceOf(core::Scene{});
    EXPECT_THROW(core::stepDetail(t, 1, 0, 0), std::out_of_range);
    EXPECT_THROW(core::stepDetail(t, 0, t.attention.heads, 0), std::out_of_range);
    EXPECT_THROW(core::stepDetail(t, 0, 0, t.queryLen()), std::out_of_range);
    EXPECT_THROW(core::stepDetail(t, 0, -1, 0), std::out_of_range);
}

} // namespace
