// The trace JSON contract (docs/trace-json.md): every key, every shape, exact floats.
#include "io/trace_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace {

std::vector<std::size_t> shapeOf(const json& j) {
    std::vector<std::size_t> shape;
    const json* level = &j;
    while (level->is_array()) {
        shape.push_back(level->size());
        if (level->empty()) break;
        level = &(*level)[0];
    }
    return shape;
}

using Shape = std::vector<std::size_t>;

} // namespace

TEST(TraceJson, SelfAttentionHasEveryKeyWithItsShape) {
    core::Scene s;
    s.sentences = {"the cat sat", "a dog"};
    s.d_model = 16;
    s.heads = 4;
    s.mask = core::MaskKind::Causal;
    const json j = json::parse(core::traceJson(core::run(s)));
    EXPECT_EQ(j["format"], "mha-trace");
    EXPECT_EQ(j["version"], 1);
    const json& c = j["config"];
    EXPECT_EQ(c["d_model"], 16);
    EXPECT_EQ(c["heads"], 4);
    EXPECT_EQ(c["d_head"], 4);
    EXPECT_EQ(c["mask"], "causal");
    EXPECT_EQ(c["scale"], "sqrt_d_head");
    EXPECT_EQ(c["seed"], 1);
    EXPECT_EQ(c["weights"], "random");
    EXPECT_EQ(c["positional"], true);
    EXPECT_EQ(c["cross"], false);
    EXPECT_EQ(c["out_proj"], true);
    EXPECT_EQ(c["ablate"], json::array());
    EXPECT_EQ(c["reshape_bug"], false);
    EXPECT_FALSE(j.contains("output_shift")); // only when some head is ablated
    EXPECT_EQ(j["head_names"].size(), 4u);
    EXPECT_EQ(j["sentences"][1]["tokens"], json({"a", "dog"}));
    EXPECT_FALSE(j.contains("sources"));
    EXPECT_FALSE(j.contains("x_source"));
    const std::size_t B = 2, N = 3, H = 4, d = 16;
    EXPECT_EQ(shapeOf(j["x"]), Shape({B, N, d}));
    for (const char* w : {"w_q", "w_k", "w_v", "w_o"}) EXPECT_EQ(shapeOf(j[w]), Shape({d, d})) << w;
    EXPECT_EQ(shapeOf(j["key_padding"]), Shape({B, N}));
    EXPECT_EQ(j["key_padding"][1][2], true);
    for (const char* m : {"q", "k", "v", "concat", "output"})
        EXPECT_EQ(shapeOf(j[m]), Shape({B, N, d})) << m;
    EXPECT_EQ(shapeOf(j["scores"]), Shape({B, H, N, N}));
    EXPECT_EQ(shapeOf(j["attention"]), Shape({B, H, N, N}));
    EXPECT_EQ(shapeOf(j["head_outputs"]), Shape({B, H, N, d / H}));
}

// Grouped-query attention: kv_heads, and K, V, W_K and W_V H_kv*d_head wide; rotary
// positions: "rope" with its theta, dims and layout (null without).
TEST(TraceJson, KvHeadsNarrowKAndVAndRotaryIsRecorded) {
    core::Scene s;
    s.sentences = {"the cat sat", "a dog"};
    s.d_model = 16;
    s.heads = 4;
    core::setKvHeads(s, 2);
    s.positional = core::PositionalKind::Rotary;
    const json j = json::parse(core::traceJson(core::run(s)));
    const json& c = j["config"];
    EXPECT_EQ(c["heads"], 4);
    EXPECT_EQ(c["kv_heads"], 2);
    EXPECT_EQ(c["positional"], false);
    EXPECT_EQ(c["rope"], json({{"theta", 10000}, {"dims", 4}, {"layout", "rotate_half"}}));
    const std::size_t B = 2, N = 3, H = 4, d = 16, kv = 2 * 4;
    EXPECT_EQ(shapeOf(j["w_q"]), Shape({d, d}));
    EXPECT_EQ(shapeOf(j["w_o"]), Shape({d, d}));
    for (const char* w : {"w_k", "w_v"}) EXPECT_EQ(shapeOf(j[w]), Shape({d, kv})) << w;
    EXPECT_EQ(shapeOf(j["q"]), Shape({B, N, d}));
    for (const char* m : {"k", "v"}) EXPECT_EQ(shapeOf(j[m]), Shape({B, N, kv})) << m;
    EXPECT_EQ(shapeOf(j["attention"]), Shape({B, H, N, N}));
    core::Scene plain;
    const json p = json::parse(core::traceJson(core::run(plain)));
    EXPECT_EQ(p["config"]["kv_heads"], 8);
    EXPECT_TRUE(p["config"]["rope"].is_null());
}

TEST(TraceJson, CrossAttentionAddsSourcesAndXSource) {
    core::Scene s;
    s.sentences = {"le chat"};
    s.sources = {"the black cat"};
    const json j = json::parse(core::traceJson(core::run(s)));
    EXPECT_EQ(j["config"]["cross"], true);
    EXPECT_EQ(j["sources"][0]["tokens"], json({"the", "black", "cat"}));
    EXPECT_EQ(shapeOf(j["x_source"]), Shape({1, 3, 64}));
    EXPECT_EQ(shapeOf(j["attention"]), Shape({1, 8, 2, 3}));
    EXPECT_EQ(shapeOf(j["k"]), Shape({1, 3, 64}));
}

TEST(TraceJson, FloatsRoundTripExactly) {
    const core::Trace t = core::run(core::Scene{});
    const json j = json::parse(core::traceJson(t));
    const core::Attention& a = t.attention;
    for (int h = 0; h < a.heads; ++h)
        for (int i = 0; i < a.queryLen; ++i)
            for (int k = 0; k < a.keyLen; ++k)
                ASSERT_EQ(j["attention"][0][h][i][k].get<float>(),
                          a.attention(a.headRow(0, h, i), k));
    EXPECT_EQ(j["w_o"][5][7].get<float>(), t.weights->wO(5, 7));
}

TEST(TraceJson, TextIsEscaped) {
    core::Scene s;
    s.sentences = {"say \"hi\"\\ now\ttab"};
    const json j = json::parse(core::traceJson(core::run(s)));
    EXPECT_EQ(j["sentences"][0]["text"], "say \"hi\"\\ now\ttab");
}

TEST(TraceJson, CutTokensAreReported) {
    std::string text;
    for (int i = 0; i < 520; ++i) text += "x ";
    core::Scene s;
    s.sentences = {text};
    s.d_model = 8;
    s.heads = 2;
    const json j = json::parse(core::traceJson(core::run(s)));
    EXPECT_EQ(j["sentences"][0]["tokens"].size(), 512u);
    EXPECT_EQ(j["sentences"][0]["dropped_tokens"], 8);
    EXPECT_EQ(j["warnings"].size(), 1u);
}

TEST(TraceJson, PitfallSwitchesAreInTheConfigAndTheShiftIsPerToken) {
    core::Scene s;
    s.sentences = {"the cat sat", "a dog"};
    s.d_model = 16;
    s.heads = 8;
    s.outProjection = false;
    s.ablatedHeads = {1, 4}; // 0-based in the Scene, numbered from 1 in the JSON
    s.reshapeBug = true;
    const core::Trace t = core::run(s);
    const json j = json::parse(core::traceJson(t));
    const json& c = j["config"];
    EXPECT_EQ(c["out_proj"], false);
    EXPECT_EQ(c["ablate"], json({2, 5}));
    EXPECT_EQ(c["reshape_bug"], true);
    EXPECT_EQ(shapeOf(j["w_o"]), Shape({16, 16})); // kept even when it is not applied
    EXPECT_EQ(shapeOf(j["output_shift"]), Shape({2, 3}));
    const core::Attention& a = t.attention;
    for (int b = 0; b < 2; ++b)
        for (int i = 0; i < 3; ++i)
            EXPECT_EQ(j["output_shift"][b][i].get<float>(), a.outputShift[b * 3 + i]);
    EXPECT_EQ(j["output"], j["concat"]); // no W_O
}
