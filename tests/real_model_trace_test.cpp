// A real model's trace kept bounded (core/models/real_model.h): past the budget a layer's trace
// is not kept, and RealTrace::layer makes it again from the stream before it, bit for bit; the
// thumbnails and layer means that the model view and the rollout read are kept either way, and
// the JSON written is the same. On the GPT-2 and BERT fixtures.
#include "build_facts.h"
#include "io/trace_json.h"
#include "models/analyses/real_trace_json.h"
#include "models/real_model.h"

#include <nlohmann/json.hpp>

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

namespace {

using namespace core::models;
namespace fs = std::filesystem;

const RealModel& fixture(const std::string& path) {
    static std::map<std::string, std::unique_ptr<RealModel>> opened;
    auto& m = opened[path];
    if (!m) m = openRealModel((fs::path(build_facts::fixtureDir()) / path).string());
    return *m;
}

void expectSameLayer(const core::Trace& a, const core::Trace& b) {
    EXPECT_EQ(a.attention.attention, b.attention.attention); // bit for bit
    EXPECT_EQ(a.attention.scores, b.attention.scores);
    EXPECT_EQ(a.attention.output, b.attention.output);
    EXPECT_EQ(a.input.x, b.input.x);
    EXPECT_EQ(a.layer, b.layer);
    EXPECT_EQ(a.pairStart, b.pairStart);
    EXPECT_EQ(a.weights, b.weights);
}

class BoundedTrace : public ::testing::TestWithParam<const char*> {};

TEST_P(BoundedTrace, ALayerNotKeptIsMadeAgainBitForBit) {
    const RealModel& model = fixture(GetParam());
    const std::string text = model.isEncoder() ? "the cat sat on the mat" : "The cat sat on";
    RealTraceOptions all, none;
    all.ablated = none.ablated = {{}, {1}};
    none.keepBytes = 0;
    const RealTrace kept = traceRealModel(model, text, all);
    const RealTrace lean = traceRealModel(model, text, none);
    ASSERT_EQ(lean.layers.size(), 2u);
    EXPECT_NE(lean.layers[0], nullptr) << "the first layer is always kept";
    EXPECT_EQ(lean.layers[1], nullptr) << "past the budget";
    for (int l = 0; l < 2; ++l) expectSameLayer(*kept.layer(l), *lean.layer(l));
    EXPECT_TRUE(lean.layer(1)->attention.headAblated.at(1)) << "the switches apply again";
    EXPECT_EQ(kept.meanAttention, lean.meanAttention);
    EXPECT_EQ(kept.thumbnails, lean.thumbnails);
    std::ostringstream a, b;
    writeRealTraceJson(model, kept, {}, a);
    writeRealTraceJson(model, lean, {}, b);
    EXPECT_EQ(a.str(), b.str());
    EXPECT_THROW(lean.layer(2), std::invalid_argument);
}

// A head switched off in layer 2 reruns layers 2 to L only: layer 1 is the very trace object of
// the run it resumes, and everything equals a forward from the embedding, bit for bit.
TEST_P(BoundedTrace, ASwitchedOffHeadRerunsFromItsOwnLayer) {
    const RealModel& model = fixture(GetParam());
    const std::string text = model.isEncoder() ? "the cat sat on the [MASK]" : "The cat sat on";
    RealTraceOptions on, off;
    on.topK = off.topK = 3;
    on.keepLogits = off.keepLogits = true;
    off.ablated = {{}, {1}};
    const auto before = std::make_shared<const RealTrace>(traceRealModel(model, text, on));
    RealTraceOptions resumed = off;
    resumed.resume = before;
    const RealTrace fast = traceRealModel(model, text, resumed);
    const RealTrace full = traceRealModel(model, text, off);
    EXPECT_EQ(fast.layers.at(0), before->layers.at(0)) << "layer 1 is not run again";
    EXPECT_NE(fast.layers.at(1), before->layers.at(1));
    for (int l = 0; l < 2; ++l) expectSameLayer(*fast.layer(l), *full.layer(l));
    EXPECT_TRUE(fast.layer(1)->attention.headAblated.at(1));
    EXPECT_EQ(fast.residual, full.residual);
    EXPECT_EQ(fast.logits, full.logits);
    EXPECT_EQ(fast.meanAttention, full.meanAttention);
    EXPECT_EQ(fast.thumbnails, full.thumbnails);
    std::ostringstream a, b;
    writeRealTraceJson(model, fast, {}, a);
    writeRealTraceJson(model, full, {}, b);
    EXPECT_EQ(a.str(), b.str());
    // Back on: layer 2 from the switched-off trace's stream before it, which is unchanged.
    RealTraceOptions back = on;
    back.resume = std::make_shared<const RealTrace>(fast);
    const RealTrace again = traceRealModel(model, text, back);
    EXPECT_EQ(again.residual, before->residual);
    EXPECT_EQ(again.logits, before->logits);
    // Another text is not resumed from this one.
    RealTraceOptions other = off;
    other.resume = before;
    EXPECT_EQ(traceRealModel(model, text + " too", other).residual,
              traceRealModel(model, text + " too", off).residual);
}

// A layer's trace says whose weights it holds, not a made-up seed: its config has weights
// "model", weights_from naming the checkpoint and the layer, no seed, and the heads switched off.
TEST_P(BoundedTrace, ALayersConfigNamesTheCheckpointNotASeed) {
    const RealModel& model = fixture(GetParam());
    RealTraceOptions options;
    options.ablated = {{}, {0, 2}};
    const RealTrace t = traceRealModel(model, "the cat sat", options);
    std::ostringstream text;
    core::writeTraceJson(*t.layer(1), text);
    const nlohmann::json config = nlohmann::json::parse(text.str())["config"];
    EXPECT_EQ(config["weights"], "model");
    EXPECT_EQ(config["weights_from"], "checkpoint " + model.location.source + ", layer 2");
    EXPECT_FALSE(config.contains("seed"));
    EXPECT_FALSE(config.contains("positional"));
    EXPECT_EQ(config["ablate"], nlohmann::json::array({1, 3}));
    EXPECT_EQ(config["mask"], model.isEncoder() ? "none" : "causal");
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BoundedTrace,
                         ::testing::Values("gpt2/f32", "bert/bert_f32", "bert/roberta_f32"),
                         [](const auto& info) {
                             std::string name = info.param;
                             std::replace(name.begin(), name.end(), '/', '_');
                             return name;
                         });

TEST(Thumbnail, PoolsToAtMostTheSideKeepingEachBlocksLargestWeight) {
    core::Mat map = core::Mat::Zero(300, 300); // 300 x 300: a diagonal of 1
    for (int i = 0; i < 300; ++i) map(i, i) = 1;
    const core::Mat small = thumbnailOf(map, 128); // 3 cells a pixel each way: 100 x 100
    ASSERT_EQ(small.rows(), 100);
    ASSERT_EQ(small.cols(), 100);
    EXPECT_EQ(small.diagonal().minCoeff(), 1.0f) << "the diagonal stays visible";
    EXPECT_EQ(small(0, 1), 0.0f);
    const core::Mat fits = core::Mat::Random(40, 40); // 40 x 40
    EXPECT_EQ(thumbnailOf(fits, 128), fits);
}

} // namespace
