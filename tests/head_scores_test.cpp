// Head scores and accuracies (core/train/head_scores.h) on hand-made attention patterns and
// logits, where the right answer is known exactly, and the metric columns of a real model.
#include "train/head_scores.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace {

using core::train::VerbSite;

// A causal core::Attention of B sequences of n tokens and H heads whose head h puts weight
// pattern(h, i, j) from query i on key j (each row is expected to sum to 1 over j <= i).
core::Attention makeAttention(int B, int H, int n,
                              const std::function<double(int, int, int)>& pattern) {
    core::Attention a;
    a.batch = B;
    a.heads = H;
    a.queryLen = a.keyLen = n;
    a.causal = true;
    a.attention = core::Mat::Zero(Eigen::Index(B) * H * n, n); // (B*H*n) x n
    for (int b = 0; b < B; ++b)
        for (int h = 0; h < H; ++h)
            for (int i = 0; i < n; ++i)
                for (int j = 0; j <= i; ++j)
                    a.attention(a.headRow(b, h, i), j) = core::Scalar(pattern(h, i, j));
    return a;
}

// Head 0 previous-token (position 0 on itself), head 1 uniform, head 2 induction for half 4.
double pattern(int h, int i, int j) {
    if (h == 0) return j == std::max(i - 1, 0) ? 1.0 : 0.0;
    if (h == 1) return 1.0 / (i + 1);
    const int target = i >= 4 ? i - 4 + 1 : i;
    return j == target ? 1.0 : 0.0;
}

TEST(HeadScores, PreviousTokenPattern) {
    const auto a = makeAttention(3, 3, 8, pattern);
    EXPECT_DOUBLE_EQ(core::train::previousTokenScore(a, 0), 1.0);
    double uniform = 0; // weight 1/(t+1) for t = 1..7
    for (int t = 1; t < 8; ++t) uniform += 1.0 / (t + 1);
    EXPECT_NEAR(core::train::previousTokenScore(a, 1), uniform / 7, 1e-6);
    // The induction head (half 4) looks at t-1 only where it looks at itself or t-3: t = 1.
    EXPECT_LT(core::train::previousTokenScore(a, 2), 0.2);
    EXPECT_THROW(core::train::previousTokenScore(a, 3), std::invalid_argument);
}

TEST(HeadScores, InductionPattern) {
    const auto a = makeAttention(2, 3, 8, pattern);
    EXPECT_DOUBLE_EQ(core::train::inductionScore(a, 2, 4), 1.0);
    double uniform = 0; // t = 4..7
    for (int t = 4; t < 8; ++t) uniform += 1.0 / (t + 1);
    EXPECT_NEAR(core::train::inductionScore(a, 1, 4), uniform / 4, 1e-6);
    EXPECT_DOUBLE_EQ(core::train::inductionScore(a, 0, 4), 0.0);
    EXPECT_THROW(core::train::inductionScore(a, 2, 3), std::invalid_argument);
}

TEST(HeadScores, SubjectPattern) {
    // Head 0 of sentence 1 attends from 4 to 1 (the subject); head 1 uniform.
    const auto a = makeAttention(2, 2, 6, [](int h, int i, int j) {
        if (h == 1) return 1.0 / (i + 1);
        return (i == 4 ? j == 1 : j == i) ? 1.0 : 0.0;
    });
    const std::vector<VerbSite> verbs = {{1, 5, 1, 0, 1}, {0, 5, 2, 0, 1}};
    EXPECT_DOUBLE_EQ(core::train::subjectScore(a, 0, verbs), 0.5);
    EXPECT_NEAR(core::train::subjectScore(a, 1, verbs), 0.2, 1e-6);
    EXPECT_DOUBLE_EQ(core::train::subjectScore(a, 0, {}), 0.0);
    EXPECT_THROW(core::train::subjectScore(a, 0, {{2, 5, 1, 0, 1}}), std::invalid_argument);
}

TEST(HeadScores, TokenAccuracyOnHandMadeLogits) {
    core::train::Batch batch;
    batch.tokens = {{0, 1, 2}, {2, 2, 0}};
    batch.lossMask = {{true, true, false}, {true, false, false}};
    core::Mat logits = core::Mat::Zero(6, 3); // (B*n) x V
    logits(0, 1) = 1;                         // right: next is 1
    logits(1, 0) = 1;                         // wrong: next is 2
    logits(3, 2) = 5;                         // right: next is 2
    logits(4, 1) = 9;                         // not masked
    EXPECT_NEAR(core::train::tokenAccuracy(logits, batch), 2.0 / 3, 1e-12);
    EXPECT_THROW(core::train::tokenAccuracy(core::Mat::Zero(5, 3), batch), std::invalid_argument);
}

TEST(HeadScores, AgreementAccuracyOnHandMadeLogits) {
    core::Mat logits = core::Mat::Zero(8, 4); // B = 2, n = 4, V = 4
    logits(2, 3) = 1;                         // b 0, verb at 3: right 3 above wrong 2
    logits(5, 0) = 1;                         // b 1, verb at 2: right 1 below wrong 0
    const std::vector<VerbSite> verbs = {{0, 3, 1, 3, 2}, {1, 2, 0, 1, 0}};
    EXPECT_DOUBLE_EQ(core::train::agreementAccuracy(logits, 4, verbs), 0.5);
    EXPECT_DOUBLE_EQ(core::train::agreementAccuracy(logits, 4, {}), 0.0);
    EXPECT_THROW(core::train::agreementAccuracy(logits, 4, {{0, 4, 1, 3, 2}}),
                 std::invalid_argument);
}

TEST(HeadScores, ColumnsOfARealModel) {
    EXPECT_EQ(core::train::headScoreColumn(0, 3, "induction"), "L1H4.induction");
    for (auto kind : {core::train::TaskKind::Induction, core::train::TaskKind::Agreement}) {
        const core::train::Task task(kind);
        core::train::ModelConfig config;
        config.vocab = task.vocabSize();
        config.d_model = 16;
        config.heads = 2;
        config.layers = 2;
        const auto params = core::train::initParams(config, 1);
        const auto probe = core::train::makeProbeSet(task, core::train::probeSeed(1), 4, 32);
        const auto metrics = core::train::probeMetrics(config, params, probe);
        const bool agreement = kind == core::train::TaskKind::Agreement;
        ASSERT_EQ(metrics.size(), 2u + 2 * 2 * (agreement ? 3 : 2));
        EXPECT_EQ(metrics[0].name, "heldout_loss");
        EXPECT_EQ(metrics[1].name, agreement ? "agreement_accuracy" : "accuracy");
        EXPECT_EQ(metrics[2].name, "L1H1.previous_token");
        EXPECT_EQ(metrics.back().name, agreement ? "L2H2.subject" : "L2H2.induction");
        for (const auto& m : metrics) {
            EXPECT_GE(m.value, 0.0) << m.name;
            if (m.name != "heldout_loss") {
                EXPECT_LE(m.value, 1.0) << m.name;
            }
        }
        EXPECT_NEAR(metrics[0].value, std::log(double(config.vocab)), 1.0); // untrained
    }
}

} // namespace
