// The one cost model (core/engine/cost_model.h): FLOPs and values per step of the forward,
// for the Cost tab, the window's worker-thread decision and the benchmark.
#include "engine/attention.h"
#include "engine/cost_model.h"
#include "engine/scene.h"
#include "engine/trace.h"
#include "text/tokenizer.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <string_view>

namespace {

using core::CostStep;

core::CostShape shape(double b, double n, double m, double d, double h, bool outProjection = true) {
    return {b, n, m, d, h, outProjection};
}

TEST(ForwardCost, StepsFollowTheirFormulas) {
    const double B = 2, N = 5, M = 7, d = 64, H = 8, d_head = d / H;
    const core::ForwardCost c = core::forwardCost(shape(B, N, M, d, H));
    EXPECT_DOUBLE_EQ(c[CostStep::Projections].flops, 2 * B * (N + 2 * M) * d * d);
    EXPECT_DOUBLE_EQ(c[CostStep::Scores].flops, 2 * B * H * N * M * d_head);
    EXPECT_DOUBLE_EQ(c[CostStep::Softmax].flops, 0);
    EXPECT_DOUBLE_EQ(c[CostStep::WeightedValues].flops, 2 * B * H * N * M * d_head);
    EXPECT_DOUBLE_EQ(c[CostStep::Merge].flops, 0);
    EXPECT_DOUBLE_EQ(c[CostStep::OutProjection].flops, 2 * B * N * d * d);
    double sum = 0;
    for (const core::StepCost& step : c.steps) sum += step.flops;
    EXPECT_DOUBLE_EQ(c.flops, sum);
}

// Grouped-query attention: K and V projected to H_kv heads, W_O and the scores as MHA's.
TEST(ForwardCost, FewerKvHeadsSaveOnlyTheKAndVProjections) {
    const double B = 2, N = 5, M = 7, d = 64, H = 8, Hkv = 2, d_head = 8;
    core::CostShape s = shape(B, N, M, d, H);
    s.kvHeads = Hkv;
    const core::ForwardCost gqa = core::forwardCost(s);
    const core::ForwardCost mha = core::forwardCost(shape(B, N, M, d, H));
    EXPECT_DOUBLE_EQ(gqa[CostStep::Projections].flops, 2 * B * (N * H + 2 * M * Hkv) * d_head * d);
    EXPECT_DOUBLE_EQ(gqa[CostStep::Projections].values, B * (N * H + 2 * M * Hkv) * d_head);
    EXPECT_STREQ(gqa[CostStep::Projections].formula, "2 B (N H + 2 M H_kv) d_head d");
    EXPECT_STREQ(mha[CostStep::Projections].formula, "2 B (N + 2M) d^2");
    for (CostStep step : {CostStep::Scores, CostStep::Softmax, CostStep::WeightedValues,
                          CostStep::Merge, CostStep::OutProjection})
        EXPECT_DOUBLE_EQ(gqa[step].flops, mha[step].flops) << int(step);
    EXPECT_DOUBLE_EQ(mha.flops - gqa.flops, 2 * B * 2 * M * (H - Hkv) * d_head * d);
}

TEST(ForwardCost, StepsAreInPipelineOrder) {
    const core::ForwardCost c = core::forwardCost(shape(1, 4, 4, 16, 2));
    for (int k = 0; k < core::kCostSteps; ++k) EXPECT_EQ(int(c.steps[std::size_t(k)].step), k);
}

TEST(ForwardCost, TotalIsForwardFlopsWithTheOutProjection) {
    for (const auto& [b, n, m, d] :
         {std::tuple{1, 10, 10, 64}, std::tuple{3, 7, 12, 32}, std::tuple{1, 1024, 1024, 1024}})
        EXPECT_DOUBLE_EQ(core::forwardCost(shape(b, n, m, d, 4)).flops,
                         core::forwardFlops(b, n, m, d));
}

TEST(ForwardCost, HeadCountChangesNoFlopsOnlyTheMapsKept) {
    const core::ForwardCost one = core::forwardCost(shape(2, 9, 9, 64, 1));
    const core::ForwardCost eight = core::forwardCost(shape(2, 9, 9, 64, 8));
    EXPECT_DOUBLE_EQ(one.flops, eight.flops);
    for (int k = 0; k < core::kCostSteps; ++k)
        EXPECT_DOUBLE_EQ(one.steps[std::size_t(k)].flops, eight.steps[std::size_t(k)].flops);
    EXPECT_DOUBLE_EQ(one.attentionWeights(), 2.0 * 9 * 9);
    EXPECT_DOUBLE_EQ(eight.attentionWeights(), 8 * one.attentionWeights());
}

TEST(ForwardCost, NoOutProjectionNoWOFlops) {
    const core::ForwardCost with = core::forwardCost(shape(1, 6, 6, 32, 4, true));
    const core::ForwardCost without = core::forwardCost(shape(1, 6, 6, 32, 4, false));
    EXPECT_DOUBLE_EQ(without[CostStep::OutProjection].flops, 0);
    EXPECT_DOUBLE_EQ(with.flops - without.flops, 2.0 * 6 * 32 * 32);
}

TEST(ForwardCost, ValuesAreTheTensorsTheTraceKeeps) {
    core::Scene scene;
    scene.sentences = {"The cat sat on the mat .", "A dog barked ."};
    scene.sources = {"Le chat s'est assis ."};
    scene.d_model = 32, scene.heads = 4;
    const core::Trace t = core::run(scene);
    const core::Attention& a = t.attention;
    const core::ForwardCost c = core::forwardCost(core::costShape(a));
    EXPECT_DOUBLE_EQ(c[CostStep::Projections].values, double(a.q.size() + a.k.size() + a.v.size()));
    EXPECT_DOUBLE_EQ(c[CostStep::Scores].values, double(a.scores.size()));
    EXPECT_DOUBLE_EQ(c[CostStep::Softmax].values, double(a.attention.size()));
    EXPECT_DOUBLE_EQ(c[CostStep::WeightedValues].values, double(a.headOutputs.size()));
    EXPECT_DOUBLE_EQ(c[CostStep::Merge].values, double(a.concat.size()));
    EXPECT_DOUBLE_EQ(c[CostStep::OutProjection].values, double(a.output.size()));
    double bytes = 0;
    for (const core::StepCost& step : c.steps) {
        EXPECT_DOUBLE_EQ(step.bytes(), step.values * sizeof(core::Scalar));
        bytes += step.bytes();
    }
    EXPECT_DOUBLE_EQ(c.bytes, bytes);
}

TEST(ForwardCost, GroupedValuesAreTheTensorsTheTraceKeeps) {
    core::Scene scene;
    scene.sentences = {"The cat sat on the mat .", "A dog barked ."};
    core::setKvHeads(scene, 2);
    const core::Trace t = core::run(scene);
    const core::Attention& a = t.attention;
    const core::CostShape s = core::costShape(a);
    EXPECT_EQ(s.kvHeads, 2);
    EXPECT_EQ(s.d_head, 8);
    const core::ForwardCost c = core::forwardCost(s);
    EXPECT_DOUBLE_EQ(c[CostStep::Projections].values, double(a.q.size() + a.k.size() + a.v.size()));
    EXPECT_DOUBLE_EQ(c[CostStep::Merge].values, double(a.concat.size()));
}

TEST(CostShape, IsTheShapeTheForwardRan) {
    core::Scene scene;
    scene.outProjection = false;
    const core::Trace t = core::run(scene);
    const core::CostShape s = core::costShape(t.attention);
    EXPECT_EQ(s.batch, 1);
    EXPECT_EQ(s.queryLen, t.queryLen());
    EXPECT_EQ(s.keyLen, t.keyLen());
    EXPECT_EQ(s.d_model, scene.d_model);
    EXPECT_EQ(s.heads, scene.heads);
    EXPECT_FALSE(s.outProjection);
}

TEST(EstimatedForwardFlops, BoundsTheRealCostFromTheTextLengths) {
    core::Scene scene;
    scene.sentences = {"The cat sat on the mat.", "A dog."};
    const core::Trace t = core::run(scene);
    const double n = double(scene.sentences[0].size()); // one token per byte at most
    EXPECT_DOUBLE_EQ(core::estimatedForwardFlops(scene), core::forwardFlops(2, int(n), int(n), 64));
    EXPECT_GE(core::estimatedForwardFlops(scene),
              core::forwardCost(core::costShape(t.attention)).flops);
}

TEST(EstimatedForwardFlops, CrossAttentionUsesTheLongestSourceAndTheTokenCap) {
    core::Scene scene;
    scene.sentences = {std::string(5000, 'a'), "b"};
    scene.sources = {"short", "a longer source"};
    const double B = 2, n = double(core::kMaxTokens), m = 15, d = 64;
    EXPECT_DOUBLE_EQ(core::estimatedForwardFlops(scene),
                     2 * B * (n + 2 * m) * d * d + 4 * B * n * m * d + 2 * B * n * d * d);
}

} // namespace

namespace {

// The Cost tab's parameter count is the real weights' (4 d_model^2, no biases).
TEST(LayerParameters, AreWhatRealWeightsHold) {
    for (int d : {2, 64, 512}) {
        EXPECT_EQ(core::layerParameters(d), double(core::randomWeights(1, d).parameterCount()));
        EXPECT_EQ(core::layerParameters(d), 4.0 * d * d);
    }
    EXPECT_EQ(core::layerParameters(12288), 603979776.0); // GPT-3 175B's one attention layer
}

} // namespace

namespace {

TEST(LayerParameters, WithKvHeadsAreWhatRealWeightsHold) {
    EXPECT_EQ(core::layerParameters(64, 8, 2, 8),
              double(core::randomWeights(1, 64, 2 * 8).parameterCount()));
    EXPECT_EQ(core::layerParameters(64, 8, 8, 8), core::layerParameters(64));
    EXPECT_EQ(core::layerParameters(4096, 32, 8, 128), 41943040.0); // Llama-3-8B's one layer
}

// 2 (K and V) x layers x H_kv x d_head x bytes: the published figures.
TEST(KvCache, BytesPerTokenOfTheSeedsModels) {
    auto config = [](std::string_view name) {
        for (const core::ModelConfig& c : core::kModelConfigs)
            if (name == c.name) return c;
        throw std::logic_error("no model " + std::string(name));
    };
    EXPECT_EQ(config("LLaMA-2-7B").kvCacheBytesPerToken(), 512.0 * 1024); // 0.5 MiB
    EXPECT_EQ(config("Llama-3-8B").kvCacheBytesPerToken(), 128.0 * 1024);
    EXPECT_EQ(config("Gemma-2B (MQA)").kvCacheBytesPerToken(), 18.0 * 1024);
    EXPECT_EQ(config("LLaMA-2-7B").kvCacheBytesPerToken() * 4096, 2.0 * (1 << 30)); // 2 GiB
    EXPECT_EQ(config("Llama-3-8B").kvCacheBytesPerToken() * 8192, 1.0 * (1 << 30)); // 1 GiB
    EXPECT_EQ(config("Llama-3-8B").context, 8192);
    EXPECT_EQ(config("Gemma-2B (MQA)").kvHeads, 1);
    EXPECT_FALSE(config("BERT-base").decoder);
    EXPECT_EQ(core::kvCacheBytesPerToken(1, 2, 8, 4), 128.0); // a toy scene, FP32
    for (const core::ModelConfig& c : core::kModelConfigs) {
        EXPECT_EQ(c.heads % c.kvHeads, 0) << c.name;
        EXPECT_LE(c.kvHeads, c.heads) << c.name;
    }
}

TEST(KvCache, BytesReadInBinaryUnits) {
    EXPECT_EQ(core::binaryBytes(128), "128 B");
    EXPECT_EQ(core::binaryBytes(18 * 1024), "18 KiB");
    EXPECT_EQ(core::binaryBytes(4.5 * 1024 * 1024), "4.5 MiB");
    EXPECT_EQ(core::binaryBytes(2.0 * (1 << 30)), "2 GiB");
    EXPECT_EQ(core::binaryBytes(1416), "1.38 KiB");
}

} // namespace
