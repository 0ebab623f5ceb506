// GPT-2's forward against PyTorch: the fixtures of make_gpt2_fixtures.py (random weights in the
// Hugging Face layout, F32 / F16 / BF16, with and without "transformer.", one file and shards,
// tied and untied heads) and the reference attention and logits computed on them in float32.
#include "models/families/gpt2_model.h"

#include "build_facts.h"
#include "engine/simd.h"
#include "model_reference.h"
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

const fs::path kDir = fs::path(build_facts::fixtureDir()) / "gpt2";

const json& reference() {
    static const json r = [] {
        std::ifstream in(kDir / "reference.json");
        return json::parse(in);
    }();
    return r;
}

Gpt2Model openVariant(const std::string& variant) {
    const ModelLocation where = locateModel((kDir / variant).string());
    const HfFiles files = hfFiles(where);
    return Gpt2Model(loadGpt2Weights(readModelConfig(files.config), files));
}

class Gpt2Reference : public testing_support::OnEveryPathNamed {};

TEST_P(Gpt2Reference, EveryLayersAttentionAndTheLogitsMatchPyTorchTo1e4) {
    const std::string variant = std::get<0>(GetParam());
    const Gpt2Model w = openVariant(variant);
    EXPECT_TRUE(w.warnings().empty());
    for (const json& c : reference()["variants"][variant]) {
        const std::vector<int> ids = c["ids"];
        const CollectedForward out = collectForward(w, ids);
        ASSERT_EQ(out.layers.size(), 2u);
        EXPECT_LT(worstAttention(out, c["attention"]), 1e-4) << variant;
        EXPECT_LT(worstLogit(out.result.logits, c["logits"]), 1e-4) << variant;
    }
}

TEST_P(Gpt2Reference, SwitchedOffHeadsAreZeroedBeforeCProj) {
    const std::string variant = std::get<0>(GetParam());
    const Gpt2Model w = openVariant(variant);
    ForwardOptions options;
    options.ablated = {{1}, {0, 3}}; // reference.json's "ablated"
    const json& c = reference()["variants"][variant][0];
    const CollectedForward out = collectForward(w, c["ids"].get<std::vector<int>>(), {}, options);
    EXPECT_LT(worstLogit(out.result.logits, c["ablated_logits"]), 1e-4) << variant;
    EXPECT_GT(worstLogit(out.result.logits, c["logits"]), 1e-3) << "the ablation changed nothing";
}

INSTANTIATE_TEST_SUITE_P(Variants, Gpt2Reference,
                         ::testing::Combine(::testing::Values("f32", "f32_unprefixed_shards", "f16",
                                                              "bf16_shards", "untied"),
                                            ::testing::ValuesIn(core::availableSimdLevels())),
                         testing_support::namedPathName);

TEST(Gpt2Weights, TheUntiedHeadIsLmHeadAndTheTiedOneIsWte) {
    const Gpt2Model tied = openVariant("f32");
    EXPECT_TRUE(tied.weights().tiedHead);
    EXPECT_EQ(tied.weights().lmHead, tied.weights().wte);
    EXPECT_EQ(tied.weights().prefix, "transformer.");
    const Gpt2Model untied = openVariant("untied");
    EXPECT_FALSE(untied.weights().tiedHead);
    EXPECT_EQ(untied.weights().prefix, "");
}

TEST(Gpt2Weights, HalfPrecisionStaysHalfInTheMapping) {
    EXPECT_EQ(openVariant("f16").weights().store.commonDtype(), Dtype::F16);
    EXPECT_EQ(openVariant("bf16_shards").weights().store.commonDtype(), Dtype::BF16);
}

TEST(Gpt2Forward, RefusesWhatTheModelCannotTake) {
    const Gpt2Model w = openVariant("f32");
    auto message = [&](const std::vector<int>& ids) {
        try {
            collectForward(w, ids);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message({}), "the sentence has no tokens");
    EXPECT_NE(message({283}).find("outside the vocabulary (283)"), std::string::npos);
    EXPECT_NE(message(std::vector<int>(65, 1)).find("more than the model's 64 positions"),
              std::string::npos);
}

TEST(HalfFloats, ConvertExactly) {
    EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
    EXPECT_EQ(halfToFloat(0xc000), -2.0f);
    EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24)); // the smallest subnormal
    EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
    EXPECT_TRUE(std::isinf(halfToFloat(0x7c00)));
    EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
    EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
    EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
    EXPECT_EQ(bfloat16ToFloat(0xc0a0), -5.0f);
}

} // namespace
