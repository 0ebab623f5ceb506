// core::train::traceModel: a trained model on typed sentences, one explorer Trace per layer,
// checked against the training engine's forwardPass on the same checkpoint, read back from a
// run folder; and the words the model does not know.
#include "io/trace_json.h"
#include "io/trained_run.h"
#include "train/model_trace.h"

#include "thrown_message.h"
#include "tiny_run.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

namespace {

namespace train = core::train;
using nlohmann::json;
using testing_support::thrownMessage;

constexpr float kTolerance = 1e-5f; // float rounding: the same engine on other batch shapes

// A batch of one sequence for forwardPass (which needs a loss position).
train::Batch batchOf(const std::vector<int>& ids) {
    train::Batch batch;
    batch.tokens = {ids};
    batch.lossMask = {std::vector<bool>(ids.size(), false)};
    batch.lossMask[0][0] = true;
    return batch;
}

// Rows [row0, row0 + rows) of a and all of b agree within the tolerance.
void expectRowsNear(const core::Mat& a, Eigen::Index row0, const core::Mat& b, const char* what) {
    ASSERT_EQ(a.cols(), b.cols()) << what;
    EXPECT_LE((a.middleRows(row0, b.rows()) - b).cwiseAbs().maxCoeff(), kTolerance) << what;
}

class ModelTrace : public testing::Test {
  protected:
    static void SetUpTestSuite() {
        dir_ = testing_support::freshRunDir("trace");
        testing_support::writeTinyRun(dir_, testing_support::tinyRunSettings());
    }
    static void TearDownTestSuite() { std::filesystem::remove_all(dir_); }
    static std::string dir_;
};
std::string ModelTrace::dir_;

} // namespace

TEST_F(ModelTrace, EveryLayerIsForwardPassOnTheSameCheckpoint) {
    const core::TrainedRun run = core::loadTrainedRun(dir_);
    EXPECT_EQ(run.step, 6);
    EXPECT_EQ(run.steps, std::vector<int>({0, 6}));
    const train::ModelConfig config = run.model.config;
    const train::Params params =
        core::readCheckpoint(dir_ + "/" + core::checkpointFileName(6), config);
    const core::ModelTrace trace = train::traceModel(run.model, {"t3 t9 t3 t9 t1 T3"});
    const std::vector<int> ids = {3, 9, 3, 9, 1, 3}; // "T3" is t3: case is forgiven
    ASSERT_EQ(trace.sentences[0].ids, ids);
    const train::ForwardPass pass = train::forwardPass(config, params, batchOf(ids));
    ASSERT_EQ(int(trace.layers.size()), config.layers);
    for (int l = 0; l < config.layers; ++l) {
        const core::Trace& t = *trace.layers[std::size_t(l)];
        SCOPED_TRACE("layer " + std::to_string(l + 1));
        expectRowsNear(t.input.x, 0, pass.residual[std::size_t(l)], "x = residual entering");
        expectRowsNear(t.attention.attention, 0, pass.heads[std::size_t(l)].attention, "weights");
        expectRowsNear(t.attention.output, 0, pass.heads[std::size_t(l)].output, "output");
        EXPECT_EQ(t.weights->wQ, params.layers[std::size_t(l)].wQ);
        EXPECT_EQ(t.weights->wO, params.layers[std::size_t(l)].wO);
        // The explorer's intermediates, which training leaves out, are all there.
        EXPECT_EQ(t.attention.scores.rows(), 4 * 6);
        EXPECT_EQ(t.attention.headOutputs.cols(), 4);
        EXPECT_EQ(t.scene.mask, core::MaskKind::Causal);
        EXPECT_EQ(t.scene.scale, core::ScaleKind::SqrtDHead);
        EXPECT_EQ(t.headNames, std::vector<std::string>({"head 1", "head 2", "head 3", "head 4"}));
    }
    expectRowsNear(trace.logits, 0, pass.logits, "logits");
    for (std::size_t t = 0; t < ids.size(); ++t) { // the top prediction is the logits' argmax
        Eigen::Index best = 0;
        pass.logits.row(Eigen::Index(t)).maxCoeff(&best);
        EXPECT_EQ(trace.sentences[0].predictions[t].token, int(best)) << t;
    }
}

TEST_F(ModelTrace, ABatchPadsWithoutChangingAnySentence) {
    const core::TrainedRun run = core::loadTrainedRun(dir_);
    const train::Params params =
        core::readCheckpoint(dir_ + "/" + core::checkpointFileName(6), run.model.config);
    const core::ModelTrace trace =
        train::traceModel(run.model, {"t1 t2 t3 t4 t5 t6 t7", "t8 t9 t10"});
    const int N = 7;
    const core::Trace& last = *trace.layers.back();
    EXPECT_EQ(last.queryLen(), N);
    EXPECT_TRUE(last.input.keyPadding(1, 3) && !last.input.keyPadding(1, 2));
    EXPECT_EQ(last.input.x.middleRows(N + 3, 4).cwiseAbs().maxCoeff(), 0.0f); // padded rows: 0
    const train::ForwardPass alone =
        train::forwardPass(run.model.config, params, batchOf({8, 9, 10}));
    for (int l = 0; l < run.model.config.layers; ++l) {
        const core::Attention& a = trace.layers[std::size_t(l)]->attention;
        expectRowsNear(trace.layers[std::size_t(l)]->input.x, N, alone.residual[std::size_t(l)],
                       "x of sentence 2");
        for (int h = 0; h < a.heads; ++h) // sentence 2, head h: its 3 real rows and keys
            EXPECT_LE((a.attention.block(a.headRow(1, h), 0, 3, 3) -
                       alone.heads[std::size_t(l)].attention.block(Eigen::Index(h) * 3, 0, 3, 3))
                          .cwiseAbs()
                          .maxCoeff(),
                      kTolerance);
    }
}

TEST_F(ModelTrace, V2JsonHoldsEveryLayerAsAV1TraceWithTheSameNumbers) {
    const core::TrainedRun run = core::loadTrainedRun(dir_, 0);
    const core::ModelTrace trace = train::traceModel(run.model, {"t5 t6 cat t5"});
    const json j = json::parse(core::modelTraceJson(trace, run));
    EXPECT_EQ(j["format"], "mha-trace");
    EXPECT_EQ(j["version"], 2);
    EXPECT_EQ(j["model"]["task"], "induction");
    EXPECT_EQ(j["model"]["step"], 0);
    EXPECT_EQ(j["model"]["layers"], 2);
    EXPECT_EQ(j["model"]["vocab_size"], 64);
    EXPECT_EQ(j["model"]["run"], dir_);
    EXPECT_EQ(j["sentences"][0]["tokens"], json({"t5", "t6", "t5"}));
    EXPECT_EQ(j["sentences"][0]["token_ids"], json({5, 6, 5}));
    EXPECT_EQ(j["sentences"][0]["unknown"], json({"cat"}));
    EXPECT_EQ(j["sentences"][0]["predictions"].size(), 3u);
    EXPECT_EQ(j["logits"].size(), 1u);
    EXPECT_EQ(j["logits"][0][2].size(), 64u);
    ASSERT_EQ(j["layers"].size(), 2u);
    for (int l = 0; l < 2; ++l) {
        const json& layer = j["layers"][std::size_t(l)];
        const core::Trace& t = *trace.layers[std::size_t(l)];
        EXPECT_EQ(layer, json::parse(core::traceJson(t))); // exactly the v1 writer's object
        EXPECT_EQ(layer["version"], 1);
        for (int h = 0; h < 4; ++h)
            for (int i = 0; i < 3; ++i)
                for (int k = 0; k < 3; ++k)
                    EXPECT_EQ(layer["attention"][0][h][i][k].get<float>(),
                              t.attention.attention(t.attention.headRow(0, h, i), k));
        EXPECT_EQ(layer["x"][0][2][7].get<float>(), t.input.x(2, 7));
    }
}

TEST(ModelTokens, UnknownWordsAreKeptAsideAndNotFed) {
    const std::vector<std::string> vocab = {".", "the", "cat", "cats", "runs"};
    std::vector<std::string> warnings;
    const core::ModelSentence s =
        train::tokenizeForModel("The big cat runs fast.", vocab, 16, 0, warnings);
    std::vector<std::string> tokens;
    for (const core::Token& t : s.tokens.tokens) tokens.push_back(t.text);
    EXPECT_EQ(tokens, std::vector<std::string>({"The", "cat", "runs", "."}));
    EXPECT_EQ(s.ids, std::vector<int>({1, 2, 4, 0}));
    EXPECT_EQ(s.unknown, std::vector<std::string>({"big", "fast"}));
    EXPECT_EQ(s.tokens.text.substr(s.tokens.tokens[1].begin, 3), "cat"); // offsets into the text
    EXPECT_TRUE(warnings.empty());
}

TEST(ModelTokens, LongSentencesAreCutAtSeqWithAWarning) {
    const std::vector<std::string> vocab = {"a", "b"};
    std::vector<std::string> warnings;
    const core::ModelSentence s = train::tokenizeForModel("a b x a b a b", vocab, 4, 1, warnings);
    EXPECT_EQ(s.ids, std::vector<int>({0, 1, 0, 1}));
    EXPECT_EQ(s.tokens.droppedTokens, 2u);
    EXPECT_EQ(s.unknown, std::vector<std::string>({"x"}));
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "sentence 2 has 6 words the model knows; kept the first 4 (the "
                           "model's seq)");
}

TEST(ModelTokens, NoKnownWordOrNothingAtAllIsOneLine) {
    const std::vector<std::string> vocab = {"t0", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"};
    std::vector<std::string> warnings;
    EXPECT_EQ(thrownMessage([&] { train::tokenizeForModel("foo bar", vocab, 8, 0, warnings); }),
              "sentence 1 has no word in the model's vocabulary (t0 t1 t2 t3 t4 t5 t6 t7 ... t8)");
    EXPECT_EQ(thrownMessage([&] { train::tokenizeForModel("  ", vocab, 8, 2, warnings); }),
              "sentence 3 is empty");
}

TEST(ModelTokens, TheDefaultSentencesAreInTheirTasksVocabulary) {
    for (train::TaskKind task :
         {train::TaskKind::Induction, train::TaskKind::PreviousToken, train::TaskKind::Agreement}) {
        std::vector<std::string> warnings;
        const core::ModelSentence s = train::tokenizeForModel(
            train::defaultModelSentence(task), train::Task(task).vocab(), 32, 0, warnings);
        EXPECT_TRUE(s.unknown.empty()) << core::toString(task);
        EXPECT_GE(s.ids.size(), 7u);
    }
}
