// The modern decoders' forward against PyTorch: the fixtures of make_llama_fixtures.py (random
// weights in the Hugging Face layout of Llama 3 and 2, Mistral, Qwen 2 and 3, Gemma 1 to 3,
// Phi-3 and OLMo 2: GQA, MQA and MHA, F32 / F16 / BF16, one file and shards, every RoPE
// scaling, windows, soft caps, QK-norm) and the reference attention and logits computed on
// them in float32.
#include "models/families/llama_model.h"

#include "build_facts.h"
#include "engine/simd.h"
#include "model_reference.h"
#include "models/architectures.h"
#include "simd_paths.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

namespace {

using nlohmann::json;
namespace fs = std::filesystem;
using namespace core::models;
using testing_support::worstAttention;
using testing_support::worstLogit;

const fs::path kDir = fs::path(build_facts::fixtureDir()) / "llama";

const json& reference() {
    static const json r = [] {
        std::ifstream in(kDir / "reference.json");
        return json::parse(in);
    }();
    return r;
}

std::unique_ptr<LlamaModel> openVariant(const std::string& variant) {
    const ModelLocation where = locateModel((kDir / variant).string());
    const HfFiles files = hfFiles(where);
    return std::make_unique<LlamaModel>(loadLlamaWeights(readModelConfig(files.config), files));
}

const std::vector<std::string>& variantNames() {
    static const std::vector<std::string> names = [] {
        std::vector<std::string> out;
        for (const auto& [name, value] : reference()["variants"].items()) out.push_back(name);
        return out;
    }();
    return names;
}

class LlamaReference : public testing_support::OnEveryPathNamed {};

TEST_P(LlamaReference, EveryLayersAttentionAndTheLogitsMatchPyTorchTo1e4) {
    const std::string variant = std::get<0>(GetParam());
    const auto model = openVariant(variant);
    EXPECT_TRUE(model->warnings().empty());
    for (const json& c : reference()["variants"][variant]["cases"]) {
        const std::vector<int> ids = c["ids"];
        const CollectedForward out = collectForward(*model, ids);
        ASSERT_EQ(out.layers.size(), 2u);
        EXPECT_LT(worstAttention(out, c["attention"]), 1e-4) << variant << ", " << ids.size();
        EXPECT_LT(worstLogit(out.result.logits, c["logits"]), 1e-4)
            << variant << ", " << ids.size();
    }
}

TEST_P(LlamaReference, SwitchedOffQueryHeadsAreZeroedBeforeOProj) {
    const std::string variant = std::get<0>(GetParam());
    const auto model = openVariant(variant);
    ForwardOptions options;
    options.ablated = {{1}, {0, 3}}; // reference.json's "ablated"
    const json& c = reference()["variants"][variant]["cases"][0];
    const CollectedForward out =
        collectForward(*model, c["ids"].get<std::vector<int>>(), {}, options);
    EXPECT_LT(worstAttention(out, c["ablated_attention"]), 1e-4) << variant;
    EXPECT_LT(worstLogit(out.result.logits, c["ablated_logits"]), 1e-4) << variant;
    EXPECT_GT(worstLogit(out.result.logits, c["logits"]), 1e-3) << "the ablation changed nothing";
}

// The cache: the long case's last tokens after its first ones give the whole forward's rows.
TEST_P(LlamaReference, TheKeyValueCacheGivesTheWholeForwardsRows) {
    const std::string variant = std::get<0>(GetParam());
    const auto model = openVariant(variant);
    const std::vector<int> ids = reference()["variants"][variant]["cases"][1]["ids"];
    const CollectedForward whole = collectForward(*model, ids);
    const int P = 12, n = int(ids.size()) - P;
    const CollectedForward first =
        collectForward(*model, std::vector<int>(ids.begin(), ids.begin() + P));
    std::vector<core::Mat> keys, values;
    for (const core::Attention& a : first.layers) keys.push_back(a.k), values.push_back(a.v);
    const core::Mat tail = model->embed(ids, {}).bottomRows(n);
    std::vector<core::Attention> layers;
    const ForwardResult after = runForwardAfter(
        *model, tail, ids, keys, values, {},
        [&](int, core::Attention&& a, core::Mat&&) { layers.push_back(std::move(a)); });
    for (std::size_t l = 0; l < layers.size(); ++l)
        for (int h = 0; h < layers[l].heads; ++h) {
            const core::Mat fresh = layers[l].attention.middleRows(layers[l].headRow(0, h), n);
            const core::Mat full =
                whole.layers[l].attention.middleRows(whole.layers[l].headRow(0, h, P), n);
            EXPECT_LT((fresh - full).cwiseAbs().maxCoeff(), 1e-5) << variant << " layer " << l;
        }
    EXPECT_LT((after.logits - whole.result.logits.bottomRows(n)).cwiseAbs().maxCoeff(), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(Variants, LlamaReference,
                         ::testing::Combine(::testing::ValuesIn(variantNames()),
                                            ::testing::ValuesIn(core::availableSimdLevels())),
                         testing_support::namedPathName);

TEST(LlamaWeights, HalfPrecisionStaysHalfAndFusedTensorsAreViewsIntoTheMapping) {
    EXPECT_EQ(openVariant("llama2_mha_bf16_shards")->weights().store.commonDtype(), Dtype::BF16);
    EXPECT_EQ(openVariant("mistral_mqa_f16")->weights().store.commonDtype(), Dtype::F16);
    const auto phi3 = openVariant("phi3_longrope");
    const LlamaBlock& b = phi3->weights().blocks[0];
    const TensorView* qkv = phi3->weights().store.find("model.layers.0.self_attn.qkv_proj.weight");
    ASSERT_NE(qkv, nullptr);
    EXPECT_EQ(b.q.data, qkv->data);
    EXPECT_EQ(b.k.data, qkv->data + 32 * 32 * 4); // after H*hd = 32 rows of d = 32 floats
}

TEST(LlamaConfig, ReadsEachFamilysVariants) {
    const auto config = [](const std::string& v) {
        return readModelConfig((kDir / v / "config.json").string());
    };
    const ModelConfig gemma3 = config("gemma3_multimodal");
    EXPECT_EQ(gemma3.family, "Gemma 3");
    EXPECT_TRUE(gemma3.decoder.multimodal);
    EXPECT_EQ(gemma3.decoder.window, (std::vector<int>{3, 0}));
    EXPECT_EQ(gemma3.decoder.localRope.theta, 10000);
    EXPECT_EQ(gemma3.decoder.rope.theta, 1e6);
    EXPECT_EQ(gemma3.decoder.rope.type, "linear");
    const ModelConfig qwen2 = config("qwen2_yarn_unprefixed");
    EXPECT_EQ(qwen2.decoder.window, (std::vector<int>{0, 3})); // from max_window_layers
    EXPECT_EQ(qwen2.kvHeadCount(), 2);
    const ModelConfig mistral = config("mistral_mqa_f16");
    EXPECT_EQ(mistral.kvHeadCount(), 1);
    EXPECT_EQ(mistral.headSize(), 16);                       // head_dim, not d / H = 8
    EXPECT_EQ(config("phi3_longrope").decoder.rope.dims, 4); // partial_rotary_factor 0.5
    EXPECT_EQ(config("phi3_longrope").decoder.rope.originalMax, 8);
}

} // namespace

// transformers 5 writes rope_parameters (per layer type for Gemma 3) instead of rope_theta,
// rope_scaling and rope_local_base_freq: the same model, the same numbers.
TEST(LlamaConfig, RopeParametersReadAsTheOlderFields) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-llama-rope-parameters";
    fs::remove_all(dir);
    fs::copy(kDir / "gemma3_text", dir);
    json config = json::parse(std::ifstream(dir / "config.json"));
    config["rope_parameters"] = {
        {"full_attention", {{"rope_type", "linear"}, {"factor", 8.0}, {"rope_theta", 1e6}}},
        {"sliding_attention", {{"rope_type", "default"}, {"rope_theta", 10000.0}}}};
    for (const char* old : {"rope_theta", "rope_scaling", "rope_local_base_freq"})
        config.erase(old);
    std::ofstream(dir / "config.json") << config.dump();
    const HfFiles files = hfFiles(locateModel(dir.string()));
    const LlamaModel model(loadLlamaWeights(readModelConfig(files.config), files));
    const json& c = reference()["variants"]["gemma3_text"]["cases"][1];
    const CollectedForward out = collectForward(model, c["ids"].get<std::vector<int>>());
    EXPECT_LT(worstAttention(out, c["attention"]), 1e-4);
    EXPECT_LT(worstLogit(out.result.logits, c["logits"]), 1e-4);
    fs::remove_all(dir);
}
