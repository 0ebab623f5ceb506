// The BERT family's forward against PyTorch: the fixtures of make_bert_fixtures.py (random
// weights in the Hugging Face layout of BERT, DistilBERT and RoBERTa; F32 / F16 / BF16, with
// and without the family's prefix, old LayerNorm gamma / beta names, one file and shards, the
// MLM head tied, untied or absent) and the reference attention and logits computed on them in
// float32, on every SIMD path of this machine. The tokenizers give the reference's ids first.
#include "models/families/bert_model.h"
#include "models/real_model.h"

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

const fs::path kDir = fs::path(build_facts::fixtureDir()) / "bert";

const json& reference() {
    static const json r = [] {
        std::ifstream in(kDir / "reference.json");
        return json::parse(in);
    }();
    return r;
}

const RealModel& model(const std::string& variant) {
    static std::map<std::string, std::unique_ptr<RealModel>> opened;
    auto& m = opened[variant];
    if (!m) m = openRealModel((kDir / variant).string());
    return *m;
}

class BertReference : public testing_support::OnEveryPathNamed {};

TEST_P(BertReference, TheTokenizerGivesTheIdsAndTypesTheReferenceWasFed) {
    const std::string variant = std::get<0>(GetParam());
    const RealModel& m = model(variant);
    for (const json& c : reference()["variants"][variant]) {
        const std::string text = c["text"], pair = c["pair"];
        const Encoding e =
            m.tokenizer->encode(text, pair.empty() ? nullptr : &pair, m.config().nPositions);
        EXPECT_EQ(e.ids, c["ids"].get<std::vector<int>>()) << variant << ": " << text;
        if (m.family == "bert") EXPECT_EQ(e.types, c["types"].get<std::vector<int>>()) << text;
    }
}

TEST_P(BertReference, EveryLayersAttentionAndTheMlmLogitsMatchPyTorchTo1e4) {
    const std::string variant = std::get<0>(GetParam());
    const RealModel& m = model(variant);
    EXPECT_TRUE(m.net->warnings().empty());
    EXPECT_TRUE(m.isEncoder());
    for (const json& c : reference()["variants"][variant]) {
        const std::vector<int> ids = c["ids"];
        std::vector<int> types = c["types"];
        if (m.config().typeVocabSize == 0) types.clear(); // DistilBERT is fed no types
        const CollectedForward out = collectForward(*m.net, ids, types);
        ASSERT_EQ(out.layers.size(), 2u);
        EXPECT_LT(worstAttention(out, c["attention"]), 1e-4) << variant;
        EXPECT_EQ(m.net->hasHead(), c.contains("logits")) << variant;
        if (c.contains("logits")) EXPECT_LT(worstLogit(out.result.logits, c["logits"]), 1e-4);
    }
}

// The variants with an MLM head: switching heads off moves the logits as PyTorch's do.
class BertHeadReference : public BertReference {};

TEST_P(BertHeadReference, SwitchedOffHeadsAreZeroedBeforeTheOutputDense) {
    const std::string variant = std::get<0>(GetParam());
    const RealModel& m = model(variant);
    const json& c = reference()["variants"][variant][0];
    ASSERT_TRUE(c.contains("logits"));
    ForwardOptions options;
    options.ablated = {{1}, {0, 3}}; // reference.json's "ablated"
    std::vector<int> types = c["types"];
    if (m.config().typeVocabSize == 0) types.clear();
    const CollectedForward out = collectForward(*m.net, c["ids"], types, options);
    EXPECT_LT(worstLogit(out.result.logits, c["ablated_logits"]), 1e-4) << variant;
    EXPECT_GT(worstLogit(out.result.logits, c["logits"]), 1e-3) << "the ablation changed nothing";
}

INSTANTIATE_TEST_SUITE_P(Variants, BertReference,
                         ::testing::Combine(::testing::Values("bert_f32", "bert_f16_gamma_shards",
                                                              "bert_bare_bf16", "distilbert_f32",
                                                              "distilbert_bare_f16", "roberta_f32",
                                                              "roberta_bf16_shards"),
                                            ::testing::ValuesIn(core::availableSimdLevels())),
                         testing_support::namedPathName);

INSTANTIATE_TEST_SUITE_P(Variants, BertHeadReference,
                         ::testing::Combine(::testing::Values("bert_f32", "bert_f16_gamma_shards",
                                                              "distilbert_f32", "roberta_f32",
                                                              "roberta_bf16_shards"),
                                            ::testing::ValuesIn(core::availableSimdLevels())),
                         testing_support::namedPathName);

const BertWeights& weightsOf(const std::string& variant) {
    return dynamic_cast<const BertModel&>(*model(variant).net).weights();
}

TEST(BertWeights, PrefixesOldNamesAndTheDecoderAreReadAsTheFileHasThem) {
    EXPECT_EQ(weightsOf("bert_f32").prefix, "bert.");
    EXPECT_TRUE(weightsOf("bert_f32").tiedDecoder);
    EXPECT_EQ(weightsOf("bert_f32").decoder, weightsOf("bert_f32").wordEmbeddings);
    EXPECT_EQ(weightsOf("bert_f16_gamma_shards").prefix, "");
    EXPECT_FALSE(weightsOf("bert_f16_gamma_shards").tiedDecoder); // its own copy in the file
    EXPECT_EQ(weightsOf("distilbert_f32").prefix, "distilbert.");
    EXPECT_EQ(weightsOf("distilbert_f32").typeEmbeddings, nullptr);
    EXPECT_EQ(weightsOf("roberta_f32").prefix, "roberta.");
    EXPECT_EQ(weightsOf("roberta_f32").mlmActivation, "gelu");
    EXPECT_EQ(weightsOf("bert_bare_bf16").mlmDense, nullptr);
    EXPECT_EQ(model("bert_bare_bf16").dtype(), "BF16");
    EXPECT_EQ(model("roberta_f32").config().nPositions, 64); // 66 rows, from pad + 1 = 2
    EXPECT_EQ(model("roberta_f32").config().positionRows, 66);
}

TEST(BertTrace, PredictionsFillTheMaskAndAPairMarksWhereBStarts) {
    const RealModel& m = model("bert_f32");
    const RealTrace t = traceRealModel(m, "The cat sat on the [MASK].", {.topK = 5});
    EXPECT_EQ(t.maskPositions(), (std::vector<int>{6}));
    ASSERT_EQ(t.predictions.size(), t.ids.size()); // the MLM head's guess at every position
    ASSERT_EQ(t.predictions[6].size(), 5u);
    EXPECT_TRUE(std::isnan(t.loss)) << "an encoder has no next-token loss";
    RealTraceOptions pair;
    pair.pair = "It was tired!";
    const RealTrace p = traceRealModel(m, "The cat sat.", pair);
    EXPECT_EQ(p.pairStart, 6); // [CLS] the cat sat . [SEP] | it ...
    EXPECT_EQ(p.types, (std::vector<int>{0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1}));
    EXPECT_TRUE(traceRealModel(model("bert_bare_bf16"), "the cat").predictions.empty());
}

TEST(BertTrace, BadInputIsOneLine) {
    const auto message = [](const std::function<void()>& f) {
        try {
            f();
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    RealTraceOptions longPair;
    longPair.pair = std::string(200, 'a') + " " + std::string(200, 'b');
    std::string words;
    for (int i = 0; i < 40; ++i) words += "the cat ";
    longPair.pair = words;
    EXPECT_EQ(message([&] { traceRealModel(model("bert_f32"), words, longPair); }),
              "the pair has 163 tokens with [CLS] and [SEP], more than the model's 64 positions");
    RealTraceOptions toGpt2;
    toGpt2.pair = "b";
    EXPECT_EQ(message([&] { traceRealModel(model("bert_f32"), "\xC3", {}); }),
              "the text is not valid UTF-8 (byte 0)");
    const RealTrace cut = traceRealModel(model("bert_f32"), words);
    EXPECT_EQ(cut.ids.size(), 64u);
    EXPECT_EQ(cut.ids.back(), 3) << "[SEP] stays at the end";
    ASSERT_EQ(cut.warnings.size(), 1u);
}

} // namespace
