// The analyses of a real model (models/analyses/model_analysis.h): each definition on hand-built
// attention whose answer is known by hand, then on the small random GPT-2 of
// tests/fixtures/gpt2/f32 for shapes and invariants.
#include "models/analyses/model_analysis.h"

#include "base/prng.h"
#include "build_facts.h"
#include "io/csv_table.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

namespace {

using core::Mat;
using namespace core::models;
namespace fs = std::filesystem;

using Layers = std::vector<std::shared_ptr<const core::Trace>>;

const std::string kFixture = (fs::path(build_facts::fixtureDir()) / "gpt2" / "f32").string();

const RealModel& fixtureModel() {
    static const std::unique_ptr<RealModel> model = openRealModel(kFixture);
    return *model;
}

// A head whose query i puts all its weight on key target[i].
Mat attendTo(const std::vector<int>& target) {
    const int n = int(target.size());
    Mat a = Mat::Zero(n, n); // N x N
    for (int i = 0; i < n; ++i) a(i, target[std::size_t(i)]) = 1;
    return a;
}

// A causal softmax of seeded random scores: a head with no pattern in particular.
Mat randomCausalHead(int n, std::uint64_t seed) {
    core::SplitMix64 rng(seed);
    Mat a = Mat::Zero(n, n); // N x N
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j <= i; ++j) a(i, j) = std::exp(rng.symmetric(3.0f));
        a.row(i) /= a.row(i).sum();
    }
    return a;
}

// One layer of one causal sentence holding these heads (each N x N).
std::shared_ptr<const core::Trace> layerOf(const std::vector<Mat>& heads) {
    auto t = std::make_shared<core::Trace>();
    core::Attention& a = t->attention;
    a.batch = 1;
    a.heads = int(heads.size());
    a.queryLen = a.keyLen = int(heads[0].rows());
    a.causal = true;
    a.attention.resize(Eigen::Index(a.heads) * a.queryLen, a.keyLen); // (H*N) x N
    for (int h = 0; h < a.heads; ++h)
        a.attention.middleRows(a.headRow(0, h), a.queryLen) = heads[std::size_t(h)];
    return t;
}

const HeadDetectorScores& named(const std::vector<HeadDetectorScores>& all, const std::string& n) {
    for (const HeadDetectorScores& s : all)
        if (s.name == n) return s;
    throw std::invalid_argument("no score " + n);
}

TEST(HeadDetectorPatterns, MarkThePreviousTokenEarlierCopiesAndTheTokenAfterThem) {
    const std::vector<int> ids = {7, 1, 2, 1, 2};
    Mat previous(5, 5), duplicate(5, 5), induction(5, 5); // each N x N
    previous << 0, 0, 0, 0, 0,                            //
        1, 0, 0, 0, 0,                                    //
        0, 1, 0, 0, 0,                                    //
        0, 0, 1, 0, 0,                                    //
        0, 0, 0, 1, 0;
    duplicate << 0, 0, 0, 0, 0, //
        0, 0, 0, 0, 0,          //
        0, 0, 0, 0, 0,          //
        0, 1, 0, 0, 0,          // the second 1 sees the first
        0, 0, 1, 0, 0;
    induction << 0, 0, 0, 0, 0, //
        0, 0, 0, 0, 0,          //
        0, 0, 0, 0, 0,          //
        0, 0, 1, 0, 0,          // after the first 1 came 2
        0, 0, 0, 1, 0;          // after the first 2 came the second 1
    EXPECT_EQ(previousTokenPattern(5), previous);
    EXPECT_EQ(duplicateTokenPattern(ids), duplicate);
    EXPECT_EQ(inductionPattern(ids), induction);
}

TEST(HeadDetectors, AnExactPreviousTokenHeadScoresTransformerLensMaximumAndNoInduction) {
    const std::vector<int> ids = {9, 1, 2, 3, 4, 1, 2, 3, 4};   // BOS, R = 4 tokens, repeated
    const Mat previous = attendTo({0, 0, 1, 2, 3, 4, 5, 6, 7}); // N x N
    const auto scores = detectHeads({layerOf({previous})}, ids);
    ASSERT_EQ(scores.size(), 4u);
    // Row 0 has no previous token yet still counts in TransformerLens's denominator: (N-1)/N.
    EXPECT_NEAR(named(scores, "previous_token").scores(0, 0), 8.0 / 9.0, 1e-6);
    EXPECT_NEAR(named(scores, "duplicate_token").scores(0, 0), 0.0, 1e-6);
    EXPECT_NEAR(named(scores, "induction").scores(0, 0), 0.0, 1e-6);
    EXPECT_NEAR(named(scores, "first_token").scores(0, 0), 1.0 / 8.0, 1e-6); // only query 1
}

TEST(HeadDetectors, AnExactInductionHeadOnARepeatedSequenceScoresRPer2RPlus1) {
    const std::vector<int> ids = {9, 1, 2, 3, 4, 1, 2, 3, 4};
    // The first half has nothing to repeat and rests on the BOS; query i of the second half
    // reads key i - R + 1, the token after the earlier copy of its own.
    const Mat induction = attendTo({0, 0, 0, 0, 0, 2, 3, 4, 5}); // N x N
    const auto scores =
        detectHeads({layerOf({induction, attendTo({0, 0, 0, 0, 0, 1, 2, 3, 4})})}, ids);
    EXPECT_NEAR(named(scores, "induction").scores(0, 0), 4.0 / 9.0, 1e-6);
    EXPECT_NEAR(named(scores, "duplicate_token").scores(0, 0), 0.0, 1e-6);
    EXPECT_NEAR(named(scores, "previous_token").scores(0, 0), 1.0 / 9.0, 1e-6); // query 1 -> 0
    EXPECT_NEAR(named(scores, "first_token").scores(0, 0), 4.0 / 8.0, 1e-6);
    // Head 2 reads the earlier copy itself: a duplicate-token head, not an induction head.
    EXPECT_NEAR(named(scores, "duplicate_token").scores(0, 1), 4.0 / 9.0, 1e-6);
    EXPECT_NEAR(named(scores, "induction").scores(0, 1), 0.0, 1e-6);
}

TEST(HeadDetectors, TheExclusionsDropTheirCellsFromTheDenominatorAsTransformerLensDoes) {
    // Every query i >= 1 splits its weight between itself and i - 1.
    Mat half = 0.5 * (attendTo({0, 0, 1, 2}) + attendTo({0, 1, 2, 3})); // 4 x 4
    const Mat pattern = previousTokenPattern(4);                        // 4 x 4
    EXPECT_NEAR(detectionScore(half, pattern), 1.5 / 4.0, 1e-12);
    EXPECT_NEAR(detectionScore(half, pattern, {false, true}), 1.0, 1e-12);
    // Without key 0 the first query's weight and query 1's previous-token weight are gone.
    EXPECT_NEAR(detectionScore(half, pattern, {true, false}), 1.0 / 2.5, 1e-12);
}

TEST(HeadDetectors, FirstTokenScoresOneForASinkAndTheHarmonicMeanForAUniformHead) {
    EXPECT_NEAR(firstTokenScore(attendTo({0, 0, 0, 0})), 1.0, 1e-12);
    Mat uniform = Mat::Zero(4, 4); // 4 x 4
    for (int i = 0; i < 4; ++i) uniform.row(i).head(i + 1).setConstant(1.0f / float(i + 1));
    EXPECT_NEAR(firstTokenScore(uniform), (1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3.0, 1e-6);
    EXPECT_THROW(firstTokenScore(Mat::Ones(1, 1)), std::invalid_argument);
}

TEST(HeadDetectors, RejectLayersThatDoNotMatchTheTokens) {
    const Layers layers = {layerOf({attendTo({0, 0, 1})})};
    EXPECT_THROW(detectHeads(layers, {1, 2}), std::invalid_argument);
    EXPECT_THROW(detectHeads(layers, {1}), std::invalid_argument);
    EXPECT_THROW(detectHeads({layers[0], layerOf({attendTo({0, 0})})}, {1, 2, 3}),
                 std::invalid_argument);
}

TEST(HeadDetectors, RunOnTheUsersSentenceThroughTheFixtureModel) {
    const RealTrace trace = traceRealModel(fixtureModel(), "the cat sat on the mat, the cat sat");
    const auto scores = detectHeads(trace.layers, trace.ids);
    ASSERT_EQ(scores.size(), 4u);
    for (const HeadDetectorScores& s : scores) {
        EXPECT_EQ(s.scores.rows(), fixtureModel().config().layers) << s.name;
        EXPECT_EQ(s.scores.cols(), fixtureModel().config().heads) << s.name;
        EXPECT_GE(s.scores.minCoeff(), 0.0f) << s.name;
        EXPECT_LE(s.scores.maxCoeff(), 1.0f) << s.name;
    }
    // The repeated words give the duplicate pattern cells, so a head reading them scores > 0.
    EXPECT_GT(named(scores, "duplicate_token").scores.maxCoeff(), 0.0f);
    std::vector<int> shorter = trace.ids;
    shorter.pop_back();
    EXPECT_THROW(detectHeads(trace.layers, shorter), std::invalid_argument);
}

// The detectors view says what it scored: the user took a decoder's scores for the sentence.
TEST(HeadDetectors, SayWhatTheyScoreAsTheModelRunsThem) {
    const RealModel& model = fixtureModel(); // 64 positions: 31 tokens twice after the BOS
    const std::string line = detectorsInputLine(model);
    EXPECT_NE(line.find("31 random tokens repeated twice"), std::string::npos) << line;
    EXPECT_NE(line.find("not on the typed sentence"), std::string::npos) << line;
    const RealTrace trace = traceRealModel(model, "the cat sat");
    const std::vector<HeadDetectorScores> scores = detectModelHeads(trace);
    const std::vector<int> ids =
        repeatedRandomTokens(model.tokenizer->vocabSize(), 31, 1, model.tokenizer->startId());
    EXPECT_NE(line.find("(" + std::to_string(ids.size())), std::string::npos)
        << line << " names the " << ids.size() << " tokens run";
    EXPECT_FALSE(scores.empty());
}

TEST(RepeatedRandomTokens, IsBosThenRTokensTwiceSeededAndInRange) {
    const std::vector<int> ids = repeatedRandomTokens(50, 20, 7, 49);
    ASSERT_EQ(ids.size(), 41u);
    EXPECT_EQ(ids[0], 49);
    for (std::size_t i = 1; i <= 20; ++i) {
        EXPECT_EQ(ids[i], ids[i + 20]);
        EXPECT_GE(ids[i], 0);
        EXPECT_LT(ids[i], 49); // in range and never the BOS
    }
    EXPECT_EQ(repeatedRandomTokens(50, 20, 7, 49), ids);
    EXPECT_NE(repeatedRandomTokens(50, 20, 8, 49), ids);
    const std::vector<int> noBos = repeatedRandomTokens(50, 20, 7, -1);
    ASSERT_EQ(noBos.size(), 40u);
    EXPECT_EQ(std::vector<int>(noBos.begin(), noBos.begin() + 20),
              std::vector<int>(noBos.begin() + 20, noBos.end()));
    EXPECT_THROW(repeatedRandomTokens(50, 0, 7, 49), std::invalid_argument);
    EXPECT_THROW(repeatedRandomTokens(2, 5, 7, 1), std::invalid_argument);
}

TEST(HeadScoresCsv, HasOneRowPerHeadNumberedFromOneThatReadsBack) {
    const std::vector<int> ids = {9, 1, 2, 1, 2};
    const Layers layers = {layerOf({attendTo({0, 0, 1, 2, 3}), randomCausalHead(5, 1)}),
                           layerOf({randomCausalHead(5, 2), attendTo({0, 0, 0, 0, 0})})};
    const auto scores = detectHeads(layers, ids);
    const std::string text = headScoresCsv(scores);
    EXPECT_EQ(text.substr(0, text.find('\n')),
              "layer,head,previous_token,duplicate_token,induction,first_token");
    const core::CsvTable table = core::parseCsv(text);
    ASSERT_EQ(table.rows(), 4u);
    EXPECT_EQ(table.column("layer"), (std::vector<double>{1, 1, 2, 2}));
    EXPECT_EQ(table.column("head"), (std::vector<double>{1, 2, 1, 2}));
    EXPECT_NEAR(table.column("previous_token")[0], 4.0 / 5.0, 1e-6);
    EXPECT_NEAR(table.column("first_token")[3], 1.0, 1e-6); // layer 2, head 2: a sink
    EXPECT_FLOAT_EQ(float(table.column("induction")[2]), named(scores, "induction").scores(1, 0));
}

const RealModel& llamaModel() { // 4 query heads reading 2 K/V heads, rotary positions
    static const std::unique_ptr<RealModel> model =
        openRealModel((fs::path(build_facts::fixtureDir()) / "llama" / "llama3_gqa_f32").string());
    return *model;
}

double largestDifference(const Mat& a, const Mat& b) {
    EXPECT_EQ(a.rows(), b.rows());
    EXPECT_EQ(a.cols(), b.cols());
    return a.rows() == b.rows() && a.cols() == b.cols() ? (a - b).cwiseAbs().maxCoeff() : 1e9;
}

TEST(AttentionSinks, AreEachHeadsMeanWeightOnTheFirstTokenOverTheLaterQueries) {
    Mat uniform = Mat::Zero(4, 4); // 4 x 4, causal
    for (int i = 0; i < 4; ++i) uniform.row(i).head(i + 1).setConstant(1.0f / float(i + 1));
    const Mat shares = attentionSinkShares(
        Layers{layerOf({attendTo({0, 0, 0, 0}), uniform, attendTo({0, 0, 1, 2})}),
               layerOf({attendTo({0, 1, 2, 3}), uniform, uniform})}); // L x H
    ASSERT_EQ(shares.rows(), 2);
    ASSERT_EQ(shares.cols(), 3);
    EXPECT_NEAR(shares(0, 0), 1.0, 1e-6); // a sink: every later token on the first
    EXPECT_NEAR(shares(0, 1), (1.0 / 2 + 1.0 / 3 + 1.0 / 4) / 3, 1e-6);
    EXPECT_NEAR(shares(0, 2), 1.0 / 3, 1e-6); // previous token: only query 1 looks at token 0
    EXPECT_NEAR(shares(1, 0), 0.0, 1e-6);     // each token on itself
    EXPECT_THROW(attentionSinkShares(Layers{layerOf({attendTo({0})})}), std::invalid_argument);
}

TEST(AttentionSinks, OfARealTraceAreThoseOfEveryLayersMapKeptOrNot) {
    for (const RealModel* model : {&fixtureModel(), &llamaModel()}) {
        RealTraceOptions lean;
        lean.keepBytes = 0; // layer 1 alone kept: the others made again for the check
        const RealTrace trace = traceRealModel(
            *model, "When Mary and John went to the store, John gave a drink to", lean);
        ASSERT_EQ(trace.layers[1], nullptr);
        Layers layers;
        for (int l = 0; l < trace.layerCount(); ++l) layers.push_back(trace.layer(l));
        const Mat shares = attentionSinkShares(trace); // L x H
        EXPECT_EQ(shares.rows(), model->config().layers);
        EXPECT_EQ(shares.cols(), model->config().heads);
        EXPECT_LT(largestDifference(shares, attentionSinkShares(layers)), 1e-6) << model->family;
        EXPECT_GE(shares.minCoeff(), 0.0f);
        EXPECT_LE(shares.maxCoeff(), 1.0f);
    }
    const RealTrace one = traceRealModel(fixtureModel(), "a");
    ASSERT_EQ(one.ids.size(), 1u);
    EXPECT_EQ(attentionSinkShares(one), Mat::Zero(2, 4)) << "no token after the first";
    RealTrace bare = one;
    bare.firstKeyWeights.clear(); // not made by traceRealModel
    EXPECT_THROW(attentionSinkShares(bare), std::invalid_argument);
}

TEST(AttentionSinks, OfATraceResumedAfterItsFirstTokensAreTheWholeForwards) {
    const RealModel& model = llamaModel();
    const std::string start = "When Mary and John went to the store";
    const std::string text = start + ", John gave a drink to";
    RealTraceOptions resume;
    resume.resume = std::make_shared<const RealTrace>(traceRealModel(model, start));
    const RealTrace after = traceRealModel(model, text, resume);
    ASSERT_GT(after.reusedRows, 0) << "the rows of the shared start are taken, not made again";
    EXPECT_LT(largestDifference(attentionSinkShares(after),
                                attentionSinkShares(traceRealModel(model, text))),
              1e-5);
    RealTraceOptions off; // a head switched off in layer 2: layer 1 is taken as it was
    off.resume = std::make_shared<const RealTrace>(after);
    off.ablated = {{}, {1}};
    RealTraceOptions fresh;
    fresh.ablated = off.ablated;
    EXPECT_LT(largestDifference(attentionSinkShares(traceRealModel(model, text, off)),
                                attentionSinkShares(traceRealModel(model, text, fresh))),
              1e-6);
}

TEST(AttentionSinks, JoinTheDetectorsAsTheLastScoreOfTheirCsv) {
    const RealTrace trace = traceRealModel(fixtureModel(), "the cat sat on the mat");
    const std::vector<HeadDetectorScores> all = withSentenceSink(detectModelHeads(trace), trace);
    ASSERT_EQ(all.size(), 5u);
    EXPECT_EQ(all.back().name, "first_token_on_sentence");
    EXPECT_EQ(all.back().shownName(), "attention sink (first token) on your sentence");
    EXPECT_EQ(all.front().shownName(), "previous_token");
    EXPECT_TRUE(all.back().onSentence);
    EXPECT_FALSE(all.front().onSentence) << "a decoder's detectors read their own sequence";
    EXPECT_EQ(all.back().scores, attentionSinkShares(trace));
    const std::string text = headScoresCsv(all);
    EXPECT_EQ(text.substr(0, text.find('\n')),
              "layer,head,previous_token,duplicate_token,induction,first_token,"
              "first_token_on_sentence");
    const core::CsvTable table = core::parseCsv(text);
    EXPECT_FLOAT_EQ(float(table.column("first_token_on_sentence")[5]), all.back().scores(1, 1));
    const HeadDetectorScores other{"other", Mat::Zero(3, 3), "another model's grid"};
    EXPECT_EQ(withSentenceSink({other}, trace).size(), 1u) << "grids of another shape stay apart";
    EXPECT_EQ(withSentenceSink({}, trace).size(), 1u);
}

TEST(AttentionRollout, OfIdentityLayersIsTheIdentity) {
    const Mat self = attendTo({0, 1, 2, 3}); // 4 x 4
    const Layers layers = {layerOf({self, self}), layerOf({self, self})};
    EXPECT_TRUE(attentionRollout(layerMeans(layers), 2).isApprox(Mat::Identity(4, 4)));
}

TEST(AttentionRollout, MixesHalfTheHeadMeanWithTheResidualAndMultipliesLastLayerOnTheLeft) {
    const int n = 6;
    const Layers layers = {layerOf({randomCausalHead(n, 1), randomCausalHead(n, 2)}),
                           layerOf({randomCausalHead(n, 3), randomCausalHead(n, 4)})};
    std::vector<Eigen::MatrixXd> mix; // per layer, N x N
    for (const auto& layer : layers) {
        const Eigen::MatrixXd mean = // N x N
            0.5 * (headAttention(layer->attention, 0).cast<double>() +
                   headAttention(layer->attention, 1).cast<double>());
        mix.push_back(0.5 * mean + 0.5 * Eigen::MatrixXd::Identity(n, n));
    }
    ASSERT_GT((mix[1] * mix[0] - mix[0] * mix[1]).norm(), 1e-3); // the order is visible
    const std::vector<Mat> means = layerMeans(layers);           // L of N x N
    EXPECT_TRUE(attentionRollout(means, 1).cast<double>().isApprox(mix[0], 1e-6));
    EXPECT_TRUE(attentionRollout(means, 2).cast<double>().isApprox(mix[1] * mix[0], 1e-6));
    EXPECT_TRUE(attentionRollout(means, 0).isApprox(Mat::Identity(n, n)));
    EXPECT_THROW(attentionRollout(means, 3), std::invalid_argument);
    EXPECT_THROW(attentionRollout(means, -1), std::invalid_argument);
}

TEST(AttentionRollout, OnTheFixtureModelRowsSumToOneAndStayCausal) {
    const RealTrace trace = traceRealModel(fixtureModel(), "the cat sat on the mat, the cat");
    const int n = int(trace.ids.size());
    ASSERT_GE(n, 4);
    for (int upTo = 1; upTo <= trace.layerCount(); ++upTo) {
        const Mat r = attentionRollout(trace.meanAttention, upTo); // N x N
        ASSERT_EQ(r.rows(), n);
        ASSERT_EQ(r.cols(), n);
        EXPECT_LT((r.rowwise().sum().array() - 1).abs().maxCoeff(), 1e-5);
        EXPECT_GE(r.minCoeff(), 0.0f);
        EXPECT_EQ(r.triangularView<Eigen::StrictlyUpper>().toDenseMatrix().cwiseAbs().maxCoeff(),
                  0.0f);
    }
}

// A text that starts as an earlier one did: its rollouts from the earlier rows on equal the
// whole ones (what the window computes after a character typed at the end).
TEST(AttentionRollout, RowsAfterAnEarlierTextsEqualTheWholeRollout) {
    const RealTrace before = traceRealModel(fixtureModel(), "the cat sat on the mat");
    const RealTrace after = traceRealModel(fixtureModel(), "the cat sat on the mat, the dog");
    const int P = int(before.ids.size()) - 1; // its last token's next one changed
    ASSERT_EQ(std::vector<int>(before.ids.begin(), before.ids.begin() + P),
              std::vector<int>(after.ids.begin(), after.ids.begin() + P));
    const std::vector<Mat> whole = attentionRollouts(after.meanAttention);
    const std::vector<Mat> resumed =
        attentionRolloutsAfter(after.meanAttention, attentionRollouts(before.meanAttention), P);
    ASSERT_EQ(resumed.size(), whole.size());
    for (std::size_t l = 0; l < whole.size(); ++l)
        EXPECT_LT((resumed[l] - whole[l]).cwiseAbs().maxCoeff(), 1e-6) << "after layer " << l + 1;
    const std::vector<Mat> fromNothing = attentionRolloutsAfter(after.meanAttention, {}, 0);
    for (std::size_t l = 0; l < whole.size(); ++l)
        EXPECT_LT((fromNothing[l] - whole[l]).cwiseAbs().maxCoeff(), 1e-6) << "P = 0";
    EXPECT_THROW(attentionRolloutsAfter(after.meanAttention, {}, P), std::invalid_argument);
    EXPECT_THROW(attentionRolloutsAfter(after.meanAttention, whole, int(after.ids.size())),
                 std::invalid_argument);
}

// |alpha_ij (x_j W_V,h + b_V,h) W_O,h| in double with plain loops, from the layer's input and
// weights (not the engine's V).
Eigen::MatrixXd bruteForceValueWeighted(const core::Trace& t, int head) {
    const core::Weights& w = *t.weights;
    const int n = t.queryLen(), d = w.dModel(), dh = d / t.attention.heads;
    Eigen::MatrixXd out(n, n); // N x N
    for (int j = 0; j < n; ++j) {
        std::vector<double> value(std::size_t(dh), 0.0), sent(std::size_t(d), 0.0);
        for (int c = 0; c < dh; ++c) {
            double v = w.bV(head * dh + c);
            for (int k = 0; k < d; ++k) v += double(t.input.x(j, k)) * w.wV(k, head * dh + c);
            value[std::size_t(c)] = v;
        }
        for (int e = 0; e < d; ++e)
            for (int c = 0; c < dh; ++c)
                sent[std::size_t(e)] += value[std::size_t(c)] * w.wO(head * dh + c, e);
        double norm = 0;
        for (double s : sent) norm += s * s;
        for (int i = 0; i < n; ++i)
            out(i, j) =
                double(t.attention.attention(t.attention.headRow(0, head, i), j)) * std::sqrt(norm);
    }
    return out;
}

TEST(ValueWeightedAttention, EqualsTheBruteForceNormOnEveryHeadOfAFixtureLayer) {
    const RealTrace trace = traceRealModel(fixtureModel(), "the cat sat on the mat");
    for (const auto& layer : trace.layers)
        for (int h = 0; h < layer->attention.heads; ++h) {
            const Eigen::MatrixXd expected = bruteForceValueWeighted(*layer, h); // N x N
            const Mat got = valueWeightedAttention(*layer, h);                   // N x N
            ASSERT_EQ(got.rows(), expected.rows());
            EXPECT_LT((got.cast<double>() - expected).cwiseAbs().maxCoeff(),
                      1e-4 * std::max(1.0, expected.maxCoeff()))
                << "layer " << layer->layer << " head " << h;
        }
}

TEST(ValueWeightedAttention, BoundsTheLayersOutputWithoutItsBiasAndIsZeroForAnAblatedHead) {
    RealTraceOptions options;
    options.ablated = {{1}, {}};
    const RealTrace trace = traceRealModel(fixtureModel(), "the cat sat on the mat", options);
    const core::Trace& first = *trace.layers[0];
    EXPECT_EQ(valueWeightedAttention(first, 1).cwiseAbs().maxCoeff(), 0.0f);
    // The output minus b_O is the sum over heads and keys of alpha_ij f(x_j): its norm is at most
    // the sum of their norms, and not by accident when only the bias is left out.
    const core::Trace& second = *trace.layers[1];
    Mat total = Mat::Zero(second.queryLen(), second.keyLen()); // N x N
    for (int h = 0; h < second.attention.heads; ++h) total += valueWeightedAttention(second, h);
    for (int i = 0; i < second.queryLen(); ++i) {
        const float outputNorm = (second.attention.output.row(i) - second.weights->bO).norm();
        EXPECT_LE(outputNorm, total.row(i).sum() * 1.0001f + 1e-6f) << "token " << i;
    }
    EXPECT_THROW(valueWeightedAttention(first, 4), std::invalid_argument);
}

TEST(NormalizedRows, MakeEachRowSumToOneAndKeepAZeroRow) {
    Mat m(2, 3); // 2 x 3
    m << 1, 3, 4, 0, 0, 0;
    const Mat r = normalizedRows(m); // 2 x 3
    EXPECT_FLOAT_EQ(r(0, 1), 3.0f / 8.0f);
    EXPECT_FLOAT_EQ(r.row(0).sum(), 1.0f);
    EXPECT_EQ(r.row(1).cwiseAbs().maxCoeff(), 0.0f);
}

TEST(LogitLens, HasOneEntryPerLayerAndTheLastIsTheModelsPrediction) {
    RealTraceOptions options;
    options.topK = 3;
    const RealTrace trace = traceRealModel(fixtureModel(), "the cat sat on the mat", options);
    const int n = int(trace.ids.size());
    for (int position : {0, n - 1}) {
        const auto lens = logitLens(fixtureModel(), trace, position, 3);
        ASSERT_EQ(lens.size(), trace.layers.size());
        for (const auto& layer : lens) EXPECT_EQ(layer.size(), 3u);
        const auto& expected = trace.predictions[std::size_t(position)];
        for (std::size_t r = 0; r < 3; ++r) {
            EXPECT_EQ(lens.back()[r].id, expected[r].id);
            EXPECT_NEAR(lens.back()[r].probability, expected[r].probability, 1e-5);
        }
    }
    EXPECT_THROW(logitLens(fixtureModel(), trace, n, 3), std::invalid_argument);
    EXPECT_THROW(logitLens(fixtureModel(), trace, -1, 3), std::invalid_argument);
}

TEST(DetectHeadsOnRepeatedTokens, ScoresEveryHeadOfTheFixtureOnBosAndTheRepeatedTokens) {
    const RealModel& model = fixtureModel();
    const auto scores = detectHeadsOnRepeatedTokens(model, 12, 5);
    ASSERT_EQ(scores.size(), 4u);
    const int L = model.config().layers, H = model.config().heads;
    for (const HeadDetectorScores& s : scores) {
        EXPECT_EQ(s.scores.rows(), L);
        EXPECT_EQ(s.scores.cols(), H);
        EXPECT_GE(s.scores.minCoeff(), 0.0f);
        EXPECT_LE(s.scores.maxCoeff(), 1.0f);
        EXPECT_FALSE(s.explanation.empty());
    }
    // The same sequence, run by hand, gives the same induction score.
    const std::vector<int> ids =
        repeatedRandomTokens(model.tokenizer->vocabSize(), 12, 5, model.tokenizer->startId());
    ASSERT_EQ(model.tokenizer->readable(ids.front()), "<|endoftext|>");
    const CollectedForward forward = collectForward(*model.net, ids);
    EXPECT_NEAR(named(scores, "induction").scores(1, 2),
                detectionScore(headAttention(forward.layers[1], 2), inductionPattern(ids)), 1e-6);
    EXPECT_EQ(named(scores, "first_token").scores,
              detectHeadsOnRepeatedTokens(model, 12, 5)[3].scores);
    EXPECT_THROW(detectHeadsOnRepeatedTokens(model, 32, 5), std::invalid_argument); // 65 > 64
}

} // namespace
