// What the window and the CLI say of a real model's attention (models/model_description.h), on
// the random fixtures of make_gpt2_fixtures.py, make_bert_fixtures.py and
// make_llama_fixtures.py: the query heads sharing K/V heads, the "Fixed by the model" text of
// each family (positions, norms, scale, windows, soft cap, QK-norm, biases only where the file
// has them), the shapes line and the attention's parameter count, checked against the tensors
// the checkpoint holds.
#include "models/model_description.h"

#include "build_facts.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>

namespace {

using namespace core::models;
namespace fs = std::filesystem;

const fs::path kFixtures = build_facts::fixtureDir();

const RealModel& fixture(const std::string& path) {
    static std::map<std::string, std::unique_ptr<RealModel>> opened;
    std::unique_ptr<RealModel>& model = opened[path];
    if (!model) model = openRealModel((kFixtures / path).string());
    return *model;
}

bool has(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// The parameters of layer 1's attention as the safetensors header lists them: every tensor
// whose name has `layerPrefix` and one of `parts` (the projections, their biases, QK-norms).
long long tensorElements(const std::string& path, const std::string& layerPrefix,
                         const std::vector<std::string>& parts) {
    long long total = 0;
    for (const auto& entry : fs::directory_iterator(kFixtures / path)) {
        if (entry.path().extension() != ".safetensors") continue;
        std::ifstream in(entry.path(), std::ios::binary);
        std::uint64_t size = 0;
        in.read(reinterpret_cast<char*>(&size), 8);
        std::string header(size, '\0');
        in.read(header.data(), std::streamsize(size));
        const nlohmann::json tensors = nlohmann::json::parse(header); // kept while iterated
        for (const auto& [name, tensor] : tensors.items()) {
            if (name == "__metadata__" || !has(name, layerPrefix)) continue;
            bool part = false;
            for (const std::string& p : parts) part = part || has(name, p);
            if (!part) continue;
            long long n = 1;
            for (const auto& d : tensor["shape"]) n *= d.get<long long>();
            total += n;
        }
    }
    return total;
}

} // namespace

TEST(KvGroups, SayWhichQueryHeadsShareAKvHead) {
    const KvGroups gqa{32, 8};
    EXPECT_TRUE(gqa.shared());
    EXPECT_EQ(gqa.perGroup(), 4);
    EXPECT_EQ(gqa.groupOf(4), 1); // query head 5 reads K/V head 2
    EXPECT_EQ(std::string(kvGroupsKind(gqa)), "GQA");
    EXPECT_EQ(kvGroupsLegend(gqa), "4 query heads per K/V head (GQA)");
    EXPECT_EQ(kvGroupNote(gqa, 4),
              "query head 5 \xC2\xB7 K/V head 2 of 8 (shared with heads 5\xE2\x80\x93"
              "8)");
    const KvGroups mqa{8, 1};
    EXPECT_EQ(std::string(kvGroupsKind(mqa)), "MQA");
    EXPECT_EQ(kvGroupsLegend(mqa), "all 8 query heads share one K/V head (MQA)");
    EXPECT_EQ(kvGroupNote(mqa, 2), "query head 3 \xC2\xB7 K/V head 1 of 1 (shared by all 8 heads, "
                                   "MQA)");
    for (const KvGroups mha : {KvGroups{12, 12}, KvGroups{12, 0}, KvGroups{8, 3}, KvGroups{0, 0}}) {
        EXPECT_FALSE(mha.shared()) << mha.heads << "/" << mha.kvHeads; // nothing shown as shared
        EXPECT_EQ(kvGroupsLegend(mha), "");
        EXPECT_EQ(kvGroupNote(mha, 1), "");
        EXPECT_EQ(mha.perGroup(), 1);
    }
    EXPECT_EQ(kvGroupNote(gqa, 32), "") << "a head past the model";
    EXPECT_EQ(kvGroupNote(gqa, -1), "");
}

TEST(FixedByTheModel, Gpt2IsCausalLearnedLayerNormWithEveryBias) {
    const std::string text = fixedByModelText(fixture("gpt2/f32"));
    EXPECT_EQ(text.rfind("Fixed by the model: causal mask; learned positions; LayerNorm before "
                         "each sublayer; scale 1/sqrt(d_head) = 1/sqrt(8); its weights.",
                         0),
              0u)
        << text;
    EXPECT_TRUE(has(text, "x of a layer is ln_1 of the residual stream")) << text;
    EXPECT_TRUE(has(text, "q, k, v and c_proj add their biases")) << text;
    EXPECT_FALSE(has(text, "K/V")) << "MHA says nothing of shared heads";
    EXPECT_EQ(attentionCaptionLine(fixture("gpt2/f32")), "");
}

TEST(FixedByTheModel, AnEncoderHasNoMaskAndItsNormAfterEachSublayer) {
    const std::string bert = fixedByModelText(fixture("bert/bert_f32"));
    EXPECT_TRUE(has(bert, "no mask (every token sees every token); learned positions; LayerNorm "
                          "after each sublayer"))
        << bert;
    EXPECT_TRUE(has(bert, "q, k, v and the output dense add their biases")) << bert;
    EXPECT_TRUE(has(fixedByModelText(fixture("bert/roberta_f32")), "counted from the padding id"));
}

TEST(FixedByTheModel, Llama3HasRopeWithItsScalingRmsNormAndGroupedQueries) {
    const RealModel& model = fixture("llama/llama3_gqa_f32");
    const std::string text = fixedByModelText(model);
    EXPECT_TRUE(has(text, "causal mask; rotary positions (RoPE, theta 500000, llama3 scaling x8 "
                          "from 16 positions); RMSNorm before each sublayer; scale 1/sqrt(d_head) "
                          "= 1/sqrt(8); grouped-query attention: 2 query heads per K/V head (GQA)"))
        << text;
    EXPECT_TRUE(has(text, "no projection adds a bias")) << text;
    EXPECT_FALSE(has(text, "window")) << text;
    EXPECT_FALSE(has(text, "learned positions")) << text;
    EXPECT_EQ(attentionCaptionLine(model),
              "attention: RoPE theta 500000 (llama3 scaling x8 from 16 positions), RMSNorm, "
              "scale 1/sqrt(d_head) = 1/sqrt(8)");
}

TEST(FixedByTheModel, MistralHasItsWindowOnEveryLayerAndOneKvHead) {
    const std::string text = fixedByModelText(fixture("llama/mistral_mqa_f16"));
    EXPECT_TRUE(has(text, "a sliding window of 4 tokens on every layer (a token sees itself and "
                          "the 3 before it)"))
        << text;
    EXPECT_TRUE(has(text, "multi-query attention: all 4 query heads share one K/V head (MQA)"));
    EXPECT_TRUE(has(text, "1/sqrt(16)")) << "head_dim 16, not d_model / H = 8: " << text;
    EXPECT_TRUE(
        has(attentionCaptionLine(fixture("llama/mistral_mqa_f16")), "window 4 on every layer"));
}

TEST(FixedByTheModel, GemmaSaysItsQueryScalarSoftCapNormsAndLocalLayers) {
    const std::string gemma2 = fixedByModelText(fixture("llama/gemma2_bf16"));
    EXPECT_TRUE(has(gemma2, "scale 1/sqrt(query_pre_attn_scalar) = 1/sqrt(24)")) << gemma2;
    EXPECT_TRUE(has(gemma2, "scores soft-capped, cap x tanh(score / cap) with cap 3")) << gemma2;
    EXPECT_TRUE(has(gemma2, "RMSNorm (times 1 + w) before and after each sublayer")) << gemma2;
    EXPECT_TRUE(has(gemma2, "a sliding window of 3 tokens on layer 1")) << gemma2;
    const std::string gemma3 = fixedByModelText(fixture("llama/gemma3_text"));
    EXPECT_TRUE(has(gemma3, "theta 1000000, linear scaling x8, theta 10000 on the windowed layers"))
        << gemma3;
    EXPECT_TRUE(has(gemma3, "QK-norm (RMSNorm of each head's q and k)")) << gemma3;
    EXPECT_TRUE(has(gemma3, "on layer 1 (a token sees itself and the 2 before it), the other "
                            "layers every earlier token"))
        << gemma3;
}

TEST(FixedByTheModel, QwenPhiAndOlmoSayTheirOwnVariants) {
    const std::string qwen2 = fixedByModelText(fixture("llama/qwen2_yarn_unprefixed"));
    EXPECT_TRUE(has(qwen2, "yarn scaling x4 from 16 positions")) << qwen2;
    EXPECT_TRUE(has(qwen2, "a sliding window of 3 tokens on layer 2")) << "max_window_layers 1";
    EXPECT_TRUE(has(qwen2, "q, k and v add biases, o_proj none")) << qwen2;
    const std::string phi3 = fixedByModelText(fixture("llama/phi3_longrope"));
    EXPECT_TRUE(has(phi3, "on 4 of 8 dimensions per head, longrope scaling from 8 positions"))
        << phi3;
    EXPECT_TRUE(has(phi3, "a sliding window of 5 tokens on every layer")) << phi3;
    const std::string olmo2 = fixedByModelText(fixture("llama/olmo2"));
    EXPECT_TRUE(has(olmo2, "RMSNorm on each sublayer's output, x + norm(f(x))")) << olmo2;
    EXPECT_TRUE(has(olmo2, "QK-norm (RMSNorm over the whole q and the whole k)")) << olmo2;
    EXPECT_TRUE(has(fixedByModelText(fixture("llama/llama2_mha_bf16_shards")),
                    "q, k, v and o_proj add their biases"))
        << "attention_bias: true";
}

TEST(RealShapes, NameHKvOnlyWhereItDiffersAndTheHeadsOwnWidth) {
    EXPECT_EQ(realShapePieces(fixture("llama/gemma3_text").config(), 12),
              (std::vector<std::string>{"B=1", "N=12", "M=12", "d_model=32", "H=4", "H_kv=2",
                                        "d_head=16"}));
    EXPECT_EQ(realShapePieces(fixture("gpt2/f32").config(), 5),
              (std::vector<std::string>{"B=1", "N=5", "M=5", "d_model=32", "H=4", "d_head=8"}));
}

TEST(AttentionParameters, CountEveryTensorOfALayersAttentionInTheFile) {
    const std::vector<std::string> llama = {"q_proj",   "k_proj", "v_proj", "o_proj",
                                            "qkv_proj", "q_norm", "k_norm"};
    for (const char* path : {"llama/llama3_gqa_f32", "llama/mistral_mqa_f16", "llama/gemma3_text",
                             "llama/qwen2_yarn_unprefixed", "llama/qwen3_bf16", "llama/olmo2",
                             "llama/phi3_longrope", "llama/llama2_mha_bf16_shards"}) {
        const AttentionParameterCount p = attentionParameters(fixture(path));
        EXPECT_EQ(p.count, tensorElements(path, "layers.0.self_attn.", llama)) << path;
    }
    const AttentionParameterCount gpt2 = attentionParameters(fixture("gpt2/f32"));
    EXPECT_EQ(gpt2.count, tensorElements("gpt2/f32", "h.0.attn.", {"c_attn", "c_proj"}));
    EXPECT_EQ(gpt2.count, 4 * 32 * 32 + 4 * 32);
    EXPECT_EQ(gpt2.formula, "4 x d_model^2 + biases") << "MHA says it as before";
    const AttentionParameterCount gqa = attentionParameters(fixture("llama/llama3_gqa_f32"));
    EXPECT_EQ(gqa.count, 2 * 32 * 8 * (4 + 2)); // d x H hd twice, d x H_kv hd twice
    EXPECT_EQ(gqa.formula, "2 x d_model x d_head x (H + H_kv)");
    EXPECT_EQ(gqa.terms, "W_Q 32 x 32, W_K and W_V 32 x 16 each, W_O 32 x 32");
    EXPECT_EQ(attentionParameters(fixture("llama/qwen3_bf16")).formula,
              "2 x d_model x d_head x (H + H_kv) + QK-norm");
    EXPECT_EQ(attentionParameters(fixture("llama/llama2_mha_bf16_shards")).formula,
              "4 x d_model^2 + biases");
}

TEST(AttentionParameters, MhaWhoseHeadsAreWiderThanTheModelSaysSo) {
    ModelConfig c; // Gemma 7B's shape: 16 heads of 256 on a 3072 stream
    c.dModel = 3072, c.heads = 16, c.kvHeads = 16, c.headDim = 256;
    const AttentionParameterCount p = attentionParameters(c, {});
    EXPECT_EQ(p.formula, "4 x d_model x H x d_head");
    EXPECT_EQ(p.count, 4LL * 3072 * 16 * 256);
    EXPECT_EQ(groupedDigits(p.count), "50,331,648");
    EXPECT_EQ(groupedDigits(0), "0");
    EXPECT_EQ(groupedDigits(999), "999");
    EXPECT_EQ(groupedDigits(-1234), "-1,234");
}
