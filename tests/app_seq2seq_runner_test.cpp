// app::ModelRunner with an encoder-decoder, without a window: the runner makes its traces on a
// worker as the window asks for them (the fixtures of tests/make_seq2seq_fixtures.py and their
// PyTorch references). A typed target shows the reference's cross-attention and loss; the
// decoder writes the reference's greedy tokens, played one token a step; the scrubber's first
// tokens are the rows those steps computed; a cross head switched off changes the loss and says
// what the decoder then writes; a bad target keeps the maps shown. And the core parts they rest
// on: firstTargetTokens equals a run on the prefix, the cross detectors score what they say.
#include "build_facts.h"
#include "explorer/model_runner.h"
#include "models/analyses/seq2seq_stacks.h"
#include "seq2seq_reference.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

namespace {

namespace fs = std::filesystem;
namespace models = core::models;
using json = nlohmann::json;
using models::SavedStack;

const fs::path kDir = testing_support::seq2seqFixtures();

const json& reference() {
    return testing_support::seq2seqReference();
}

std::shared_ptr<const models::Seq2SeqRealModel> open(const std::string& name) {
    const std::string dir = (kDir / name).string();
    return models::openSeq2SeqModel({models::ModelFolderKind::HuggingFace, dir, dir, "", ""});
}

// Asks like the frame loop until `done`, the clock moving a second a call (a playback ends).
template <class Done>
void pollUntil(app::ModelRunner& runner, const app::Seq2SeqRequest& request, Done done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    double now = 0;
    bool finished = false;
    while (!(finished = done()) && std::chrono::steady_clock::now() < deadline) {
        runner.updateSeq2Seq(request, now += 1.0);
        runner.playWritten(now);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_TRUE(finished) << "not within 120 s";
}

app::Seq2SeqRequest requestOf(const std::string& source, const std::string& target,
                              int maxTokens = 32) {
    app::Seq2SeqRequest r;
    r.source = source, r.target = target, r.maxTokens = maxTokens;
    return r;
}

bool settled(const app::ModelRunner& r) {
    return !r.working() && r.seq2seqTrace() != nullptr;
}

// Layer l's cross-attention of head h as shown (the stack's trace), against the reference.
void expectCrossMaps(const app::ModelRunner& runner, const json& expected, int rows) {
    const auto& layers = runner.saved().stack(SavedStack::Cross).layers;
    ASSERT_EQ(layers.size(), expected.size());
    for (std::size_t l = 0; l < layers.size(); ++l) {
        const core::Attention& a = layers[l]->attention;
        ASSERT_EQ(a.queryLen, rows);
        for (int h = 0; h < a.heads; ++h)
            for (int i = 0; i < rows; ++i)
                for (int j = 0; j < a.keyLen; ++j)
                    ASSERT_NEAR(a.attention(a.headRow(0, h, i), j),
                                expected[l][h][i][j].get<double>(), 1e-4)
                        << "layer " << l << " head " << h << " row " << i << " key " << j;
    }
}

TEST(Seq2SeqRunner, ATypedTargetShowsTheReferencesMapsAndLoss) {
    app::ModelRunner runner;
    runner.openSeq2Seq(open("bart"));
    const json& c = reference()["fixtures"]["bart"]["cases"][0];
    const app::Seq2SeqRequest request = requestOf(c["source_text"], c["target_text"]);
    pollUntil(runner, request, [&] { return settled(runner); });
    EXPECT_TRUE(runner.hasStacks() && runner.isSeq2Seq() && !runner.isSaved());
    EXPECT_NEAR(runner.seq2seqTrace()->loss, c["loss"].get<double>(), 1e-4);
    EXPECT_FALSE(runner.playing()) << "a typed target is shown whole";
    expectCrossMaps(runner, c["cross_attention"], int(c["labels"].size()));
    // Every layer of each kind is a whole trace: what the pipeline and the steps read.
    for (SavedStack which : {SavedStack::Layers, SavedStack::Encoder, SavedStack::Cross})
        for (const auto& layer : runner.saved().stack(which).layers) {
            ASSERT_TRUE(layer->weights) << "the layer's projections";
            EXPECT_EQ(layer->input.x.rows(), layer->attention.queryLen) << "what it read";
            EXPECT_EQ(layer->input.x.cols(), layer->attention.d_model);
            EXPECT_EQ(layer->weights->wK.rows(), layer->attention.d_model);
        }
}

TEST(Seq2SeqRunner, TheDecoderWritesTheReferencesTokensOneAStep) {
    app::ModelRunner runner;
    runner.openSeq2Seq(open("t5_relu"));
    const json& c = reference()["fixtures"]["t5_relu"]["cases"][0];
    const std::vector<int> ids = c["generation"]["ids"];
    const app::Seq2SeqRequest request = requestOf(c["source_text"], "", int(ids.size()));
    runner.updateSeq2Seq(request, 0.0);
    std::vector<int> shownRows; // the cross-attention's rows after each poll while it plays
    double now = 0;
    while (!runner.seq2seqTrace()) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        runner.updateSeq2Seq(request, now);
    }
    while (runner.playing()) {
        shownRows.push_back(runner.saved().stack(SavedStack::Cross).layers[0]->attention.queryLen);
        runner.playWritten(now += 0.2);
    }
    EXPECT_EQ(runner.seq2seqTrace()->labels, ids) << "the reference's greedy tokens";
    ASSERT_GE(shownRows.size(), 2u) << "it played";
    EXPECT_EQ(shownRows.front(), 1) << "the first token's row first";
    EXPECT_TRUE(std::is_sorted(shownRows.begin(), shownRows.end()));
    EXPECT_EQ(runner.writtenShown(), -1) << "then the whole text";

    ASSERT_TRUE(runner.showWritten(2)); // the scrubber: the maps as step 2 computed them
    const auto& cross = runner.saved().stack(SavedStack::Cross).layers;
    for (std::size_t l = 0; l < cross.size(); ++l)
        for (int h = 0; h < cross[l]->attention.heads; ++h)
            for (int i = 0; i < 2; ++i)
                for (int j = 0; j < cross[l]->attention.keyLen; ++j)
                    ASSERT_NEAR(
                        cross[l]->attention.attention(cross[l]->attention.headRow(0, h, i), j),
                        c["generation"]["cross_attention"][l][h][i][j].get<double>(), 1e-4);
}

TEST(Seq2SeqRunner, ACrossHeadSwitchedOffChangesTheLossAndSaysWhatItWrites) {
    app::ModelRunner runner;
    runner.openSeq2Seq(open("marian"));
    const json& c = reference()["fixtures"]["marian"]["cases"][0];
    app::Seq2SeqRequest request = requestOf(c["source_text"], c["target_text"]);
    request.ablated[std::size_t(SavedStack::Cross)] = {{0, 1, 2, 3}, {0, 1, 2, 3}};
    pollUntil(runner, request, [&] { return settled(runner) && runner.ablationEffect().valid; });
    const app::Seq2SeqAblationEffect& e = runner.ablationEffect();
    EXPECT_NEAR(e.lossOn, c["loss"].get<double>(), 1e-4) << "all heads on: the reference's";
    EXPECT_GT(std::abs(e.lossOff - e.lossOn), 1e-3) << "no cross head: the source is not read";
    EXPECT_NEAR(e.lossOff, runner.seq2seqTrace()->loss, 1e-9);
    EXPECT_FALSE(e.textOn.empty());

    // A target past the decoder's 64 positions: one line, the maps before it kept.
    const auto before = runner.seq2seqTrace();
    request.target.clear();
    for (int i = 0; i < 80; ++i) request.target += c["target_text"].get<std::string>() + " ";
    std::string error;
    pollUntil(runner, request, [&] {
        error = runner.status().sceneError;
        return !runner.working() && !error.empty();
    });
    EXPECT_NE(error.find("the decoder reads 64"), std::string::npos) << error;
    EXPECT_EQ(runner.seq2seqTrace(), before);
}

TEST(Seq2SeqStacks, FirstTargetTokensIsTheRunOfThePrefix) {
    const auto model = open("flan_t5_gated");
    const json& c = reference()["fixtures"]["flan_t5_gated"]["cases"][0];
    const models::Seq2SeqTrace whole =
        models::traceSeq2Seq(*model, c["source_text"], c["target_text"]);
    const std::vector<int> prefix(whole.labels.begin(), whole.labels.begin() + 3);
    const models::Seq2SeqTrace first = models::firstTargetTokens(whole, 3);
    const models::Seq2SeqTrace run = models::traceSeq2SeqIds(*model, c["source_text"], prefix);
    EXPECT_NEAR(first.loss, run.loss, 1e-5);
    for (std::size_t l = 0; l < run.run.cross.size(); ++l) {
        EXPECT_TRUE(first.run.cross[l].attention.isApprox(run.run.cross[l].attention, 1e-5f));
        EXPECT_TRUE(
            first.run.decoderSelf[l].attention.isApprox(run.run.decoderSelf[l].attention, 1e-5f));
        EXPECT_TRUE(first.run.decoderSelf[l].k.isApprox(run.run.decoderSelf[l].k, 1e-5f));
    }
}

// A cross layer of one head whose map is `m` (Nt x Ns), for the detectors.
std::shared_ptr<const core::Trace> crossLayer(const core::Mat& m) {
    auto t = std::make_shared<core::Trace>();
    t->attention.batch = 1, t->attention.heads = 1;
    t->attention.queryLen = int(m.rows()), t->attention.keyLen = int(m.cols());
    t->attention.attention = m;
    return t;
}

TEST(Seq2SeqStacks, CrossDetectorsScoreAMonotonicAlignmentAndItsSharpness) {
    const core::Mat diagonal = core::Mat::Identity(4, 4);    // one source token each
    const core::Mat even = core::Mat::Constant(4, 4, 0.25f); // every source token alike
    core::Mat reversed = core::Mat::Zero(4, 4);              // the last token first
    for (int i = 0; i < 4; ++i) reversed(i, 3 - i) = 1;
    const auto scores =
        models::detectCrossHeads({crossLayer(diagonal), crossLayer(even), crossLayer(reversed)});
    ASSERT_EQ(scores.size(), 2u);
    EXPECT_EQ(scores[0].name, "diagonal");
    EXPECT_NEAR(scores[0].scores(0, 0), 1.0, 1e-6);
    EXPECT_NEAR(scores[0].scores(1, 0), 0.625, 1e-6) << "ends: 2 of 4 keys near, the middle 3";
    EXPECT_NEAR(scores[0].scores(2, 0), 0.5, 1e-6) << "only the two middle rows fall near";
    EXPECT_EQ(scores[1].name, "sharp");
    EXPECT_NEAR(scores[1].scores(0, 0), 1.0, 1e-6);
    EXPECT_NEAR(scores[1].scores(1, 0), 0.0, 1e-6);
    EXPECT_NEAR(scores[1].scores(2, 0), 1.0, 1e-6);
}

} // namespace
