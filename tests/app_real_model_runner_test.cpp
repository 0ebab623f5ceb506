// app::ModelRunner with a real checkpoint (the random GPT-2 of tests/fixtures/gpt2/f32),
// without a window: the worker's trace and the analyses beside it, heads switched off with the
// loss they change and the loss with every head on, and the logit lens of a chosen token.
#include "build_facts.h"
#include "explorer/model_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <thread>

namespace {

namespace models = core::models;

const std::string kFixture =
    (std::filesystem::path(build_facts::fixtureDir()) / "gpt2" / "f32").string();
const std::vector<std::string> kSentence = {"The cat sat on the mat"};

// Calls update until the worker's trace is taken, as the frame loop does.
void updateUntilIdle(app::ModelRunner& runner, const std::vector<std::string>& sentences,
                     const core::train::HeadLists& ablated = {}, const std::string& pair = {}) {
    runner.update(sentences, 0, ablated, pair);
    while (runner.computing()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        runner.update(sentences, 0, ablated, pair);
    }
}

// The same with the rollout view on screen: it asks for the rollout every frame.
void updateShowingRollout(app::ModelRunner& runner, const std::vector<std::string>& sentences) {
    runner.requestRollout();
    runner.update(sentences, 0);
    while (runner.computing() || !runner.rolloutReady()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        runner.requestRollout();
        runner.update(sentences, 0);
    }
}

class AppRealModelRunner : public testing::Test {
  protected:
    static void SetUpTestSuite() { model_ = models::openRealModel(kFixture); }
    static void TearDownTestSuite() { model_.reset(); }
    static std::shared_ptr<const models::RealModel> model_;
};
std::shared_ptr<const models::RealModel> AppRealModelRunner::model_;

TEST_F(AppRealModelRunner, TheAnalysesAreTheCoreOnesOfTheShownTrace) {
    app::ModelRunner runner;
    runner.openReal(model_);
    updateUntilIdle(runner, kSentence);
    ASSERT_TRUE(runner.hasTrace()) << runner.status().sceneError;
    EXPECT_FALSE(runner.rolloutReady()) << "made only while its view is shown";
    updateShowingRollout(runner, kSentence);
    const auto& layers = runner.trace().layers;
    const app::RealAnalyses& a = runner.analyses();
    const int heads = model_->config().heads;
    ASSERT_EQ(a.rollout.size(), layers.size());
    EXPECT_FALSE(runner.valueWeightedReady()) << "made only when the view asks for it";
    while (!runner.valueWeightedReady()) {
        runner.requestValueWeighted();
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_EQ(a.valueWeighted.size(), layers.size() * std::size_t(heads));
    const core::Mat expected = models::attentionRollout(models::layerMeans(layers), 2); // N x N
    EXPECT_LT((a.rollout[1] - expected).cwiseAbs().maxCoeff(), 1e-6);
    const core::Mat weighted = // N x N
        models::normalizedRows(models::valueWeightedAttention(*layers[1], 3));
    EXPECT_LT((a.valueWeighted[std::size_t(heads) + 3] - weighted).cwiseAbs().maxCoeff(), 1e-6);
    // A sentence's rows are distributions: the rollout's and the rescaled value-weighted ones.
    for (Eigen::Index i = 0; i < expected.rows(); ++i) {
        EXPECT_NEAR(a.rollout[1].row(i).sum(), 1.0, 1e-5);
        EXPECT_NEAR(weighted.row(i).sum(), 1.0, 1e-5);
    }
}

TEST_F(AppRealModelRunner, SwitchingHeadsOffChangesTheLossAndKeepsTheAllHeadsBaseline) {
    app::ModelRunner runner;
    runner.openReal(model_);
    updateUntilIdle(runner, kSentence);
    const double all = runner.outcome().loss;
    ASSERT_TRUE(std::isfinite(all));
    EXPECT_EQ(runner.baseline().loss, all);

    const core::train::HeadLists off = {{0, 2}, {1}};
    updateUntilIdle(runner, kSentence, off);
    models::RealTraceOptions options;
    options.ablated = off;
    const models::RealTrace direct = models::traceRealModel(*model_, kSentence[0], options);
    EXPECT_NEAR(runner.outcome().loss, direct.loss, 1e-9);
    EXPECT_GT(std::abs(runner.outcome().loss - all), 1e-6) << "three heads off change the loss";
    EXPECT_EQ(runner.baseline().loss, all) << "the baseline is every head on";
    EXPECT_TRUE(runner.trace().layers[0]->attention.headAblated.at(2));

    // Another sentence with the heads still off: its own baseline is computed beside it.
    const std::vector<std::string> other = {"A dog ran"};
    updateUntilIdle(runner, other, off);
    EXPECT_NEAR(runner.baseline().loss, models::traceRealModel(*model_, other[0]).loss, 1e-9);
    ASSERT_EQ(runner.outcome().next.size(), 5u);
}

TEST_F(AppRealModelRunner, TheLogitLensOfTheChosenTokenEndsWithTheModelsOwnGuess) {
    app::ModelRunner runner;
    runner.openReal(model_);
    updateUntilIdle(runner, kSentence);
    const int position = 2;
    runner.requestLens(position);
    while (runner.lensComputing()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        runner.requestLens(position);
    }
    const app::LensRows& lens = runner.lens();
    ASSERT_TRUE(lens.error.empty()) << lens.error;
    EXPECT_EQ(lens.position, position);
    EXPECT_EQ(lens.generation, runner.generation());
    ASSERT_EQ(lens.layers.size(), std::size_t(model_->config().layers));
    const models::RealTrace direct = models::traceRealModel(*model_, kSentence[0], {5, {}, false});
    for (std::size_t k = 0; k < 5; ++k) {
        EXPECT_EQ(lens.layers.back()[k].id, direct.predictions[position][k].id);
        EXPECT_NEAR(lens.layers.back()[k].probability, direct.predictions[position][k].probability,
                    1e-5);
    }
}

TEST_F(AppRealModelRunner, ALayerTheTraceDidNotKeepIsMadeOnAWorkerAsTheForwardMadeIt) {
    app::ModelRunner runner;
    runner.setLayerBudget(0); // keep only layer 1 whole
    runner.openReal(model_);
    updateUntilIdle(runner, kSentence);
    ASSERT_TRUE(runner.hasTrace());
    EXPECT_NE(runner.trace().layers[0], nullptr);
    EXPECT_EQ(runner.trace().layers[1], nullptr);
    EXPECT_EQ(runner.layerTrace(0), runner.trace().layers[0]);
    std::shared_ptr<const core::Trace> made = runner.layerTrace(1); // asks the worker
    while (!made) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        made = runner.layerTrace(1);
    }
    const models::RealTrace direct = models::traceRealModel(*model_, kSentence[0]);
    EXPECT_EQ(made->attention.attention, direct.layers[1]->attention.attention);
    EXPECT_EQ(runner.realTrace()->thumbnails.size(), 2u * 4u) << "every head in the model view";
}

TEST(AppRealEncoderRunner, APairAndItsMaskFillsAndTheDetectorsOfTheSentenceShown) {
    const std::shared_ptr<const models::RealModel> bert = models::openRealModel(
        (std::filesystem::path(build_facts::fixtureDir()) / "bert" / "bert_f32").string());
    app::ModelRunner runner;
    runner.openReal(bert);
    const std::vector<std::string> text = {"The cat sat on the [MASK]."};
    updateUntilIdle(runner, text, {}, "It was tired!");
    ASSERT_TRUE(runner.hasTrace()) << runner.status().sceneError;
    app::ModelView view;
    app::describeModel(runner, view);
    EXPECT_TRUE(view.encoder);
    EXPECT_EQ(view.pairStart, 9);
    ASSERT_EQ(view.maskFills.size(), 1u);
    EXPECT_EQ(view.maskFills[0].position, 6);
    EXPECT_EQ(view.maskFills[0].top.size(), 5u);
    EXPECT_EQ(app::lensPositionShown(view, 14), 6) << "an encoder's lens reads its mask";
    ASSERT_EQ(runner.detectors().size(), 5u);
    EXPECT_EQ(runner.detectors()[3].name, "cls");
    const core::Mat onThePair = runner.detectors()[4].scores; // sep
    updateUntilIdle(runner, text); // the pair gone: the scores are of this sentence
    EXPECT_NE(runner.detectors()[4].scores, onThePair);
    app::describeModel(runner, view);
    EXPECT_EQ(view.pairStart, -1);
    EXPECT_TRUE(std::isnan(runner.outcome().loss));
    EXPECT_EQ(runner.outcome().next.size(), 5u) << "what ablation moves: the mask's guesses";
}

} // namespace

// Typing while a forward runs: the superseded run stops (it is not shown) and the text typed
// last is what the maps, the rollout and the predictions show; a character added at the end
// resumes the shown trace (its prefix's rows reused) and equals a whole forward.
TEST_F(AppRealModelRunner, TypingDropsSupersededWorkAndResumesAfterTheSharedStart) {
    app::ModelRunner runner;
    runner.openReal(model_);
    std::string text = "The cat sat on the mat because it was tired";
    updateShowingRollout(runner, {text}); // the rollout view on screen while typing
    ASSERT_TRUE(runner.analysesReady());
    for (const char c : std::string(" and")) { // no waiting between the keys
        text += c;
        runner.requestRollout();
        runner.update({text}, 0);
    }
    updateShowingRollout(runner, {text});
    const auto& shown = runner.realTrace();
    ASSERT_NE(shown, nullptr);
    EXPECT_EQ(shown->text, text);
    EXPECT_GT(shown->reusedRows, 0) << "the earlier text's rows are taken";
    ASSERT_TRUE(runner.analysesReady());
    const models::RealTrace whole = models::traceRealModel(*model_, text);
    const std::vector<core::Mat> rollout = models::attentionRollouts(whole.meanAttention);
    ASSERT_EQ(runner.analyses().rollout.size(), rollout.size());
    for (std::size_t l = 0; l < rollout.size(); ++l)
        EXPECT_LT((runner.analyses().rollout[l] - rollout[l]).cwiseAbs().maxCoeff(), 1e-5);
    EXPECT_NEAR(runner.outcome().loss, whole.loss, 1e-5);
    EXPECT_EQ(runner.trace().sentences.at(0).ids, whole.ids);
}

// An encoder's detectors are of the sentence shown: typed while they are made, they follow the
// last text (a run stopped by the next key never leaves the grid without scores).
TEST(AppRealEncoderRunner, DetectorsFollowTheLastTextTyped) {
    const std::shared_ptr<const models::RealModel> bert = models::openRealModel(
        (std::filesystem::path(build_facts::fixtureDir()) / "bert" / "bert_f32").string());
    app::ModelRunner runner;
    runner.openReal(bert);
    std::string text = "the cat";
    updateUntilIdle(runner, {text});
    for (const std::string pair : {"P", "Pa", "Par", "Pari", "Paris"}) {
        runner.update({text}, 0, {}, pair);
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    updateUntilIdle(runner, {text}, {}, "Paris");
    EXPECT_TRUE(runner.analysesReady());
    ASSERT_EQ(runner.detectors().size(), 5u);
    EXPECT_EQ(runner.realTrace()->pair, "Paris");
}

// A grouped-query model in the window: the panels' facts say how its query heads share K/V
// heads and what its config fixes, from the core's words (model_description.h); the sink shares
// are of the text shown, and the detectors grid, its CSV and Export all end with them.
TEST(AppRealGqaRunner, TheViewSaysTheKvGroupsTheConfigAndTheSinksOfTheTextShown) {
    const std::shared_ptr<const models::RealModel> llama = models::openRealModel(
        (std::filesystem::path(build_facts::fixtureDir()) / "llama" / "llama3_gqa_f32").string());
    app::ModelRunner runner;
    runner.openReal(llama);
    const std::vector<std::string> text = {"When Mary and John went to the store"};
    updateUntilIdle(runner, text);
    ASSERT_TRUE(runner.hasTrace()) << runner.status().sceneError;
    app::ModelView view;
    app::describeModel(runner, view);
    EXPECT_EQ(view.kvGroups.heads, 4);
    EXPECT_EQ(view.kvGroups.groups(), 2);
    EXPECT_EQ(view.kvLegend, "2 query heads per K/V head (GQA)");
    EXPECT_EQ(view.fixedText, models::fixedByModelText(*llama));
    EXPECT_NE(view.fixedText.find("rotary positions (RoPE, theta 500000"), std::string::npos);
    const int tokens = int(runner.realTrace()->ids.size());
    EXPECT_EQ(view.shapes, models::realShapePieces(llama->config(), tokens));
    EXPECT_NE(std::find(view.shapes.begin(), view.shapes.end(), "H_kv=2"), view.shapes.end());
    EXPECT_EQ(view.parameters,
              "3,072 parameters per layer's attention (2 x d_model x d_head x (H + H_kv))");
    const core::Mat sinks = models::attentionSinkShares(models::traceRealModel(*llama, text[0]));
    ASSERT_EQ(view.sinkShares.rows(), 2);
    EXPECT_LT((view.sinkShares - sinks).cwiseAbs().maxCoeff(), 1e-6);
    EXPECT_EQ(view.firstToken, runner.realTrace()->tokens.tokens.front().text);
    const std::vector<models::HeadDetectorScores> shown = runner.detectorsShown();
    ASSERT_EQ(shown.size(), runner.detectors().size() + 1);
    EXPECT_EQ(shown.back().name, "first_token_on_sentence");
    EXPECT_EQ(shown.back().scores, runner.sinkShares());

    updateUntilIdle(runner, {text[0] + ", John gave a drink to"}); // the sinks follow the text
    app::describeModel(runner, view);
    const core::Mat longer = models::attentionSinkShares(
        models::traceRealModel(*llama, text[0] + ", John gave a drink to"));
    EXPECT_LT((view.sinkShares - longer).cwiseAbs().maxCoeff(), 1e-5);
    EXPECT_GT((view.sinkShares - sinks).cwiseAbs().maxCoeff(), 1e-4);
    EXPECT_EQ(runner.detectorsShown().back().scores, runner.sinkShares());
}

// GPT-2 in the window reads as before: no groups, the parameters as 4 x d_model^2 + biases.
TEST_F(AppRealModelRunner, AnMhaModelHasNoGroupsAndItsParametersAsBefore) {
    app::ModelRunner runner;
    runner.openReal(model_);
    updateUntilIdle(runner, kSentence);
    app::ModelView view;
    app::describeModel(runner, view);
    EXPECT_FALSE(view.kvGroups.shared());
    EXPECT_EQ(view.kvLegend, "");
    EXPECT_EQ(view.parameters, "4,224 parameters per layer's attention (4 x d_model^2 + biases)");
    EXPECT_EQ(std::find(view.shapes.begin(), view.shapes.end(), "H_kv=4"), view.shapes.end());
}
