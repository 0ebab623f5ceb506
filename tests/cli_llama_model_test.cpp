// `mha-viz --model DIR` with the modern decoders' fixtures (make_llama_fixtures.py), as users
// meet them: the v2 trace with the contract's new model fields (kv_heads, head_dim, rope,
// sliding_window), the ids from tokenizer.json with the model's start token, every layer's
// attention matching PyTorch's, and one line with exit 2 for each bad input the contract names.
#include "build_facts.h"
#include "cli_fixtures.h"
#include "process_runner.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>

using nlohmann::json;
using testing_support::expectBadInput;
using testing_support::ProcessResult;
using testing_support::runMhaViz;
using testing_support::traceOf;
namespace fs = std::filesystem;

namespace {

const fs::path kFixtures = fs::path(build_facts::fixtureDir()) / "llama";

// A scratch copy of a fixture folder, to break.
fs::path copyOf(const std::string& variant, const std::string& name) {
    return testing_support::scratchCopy(kFixtures / variant, "llama-" + name);
}

// config.json of `dir`, changed by `edit`.
template <class Edit>
void editConfig(const fs::path& dir, Edit edit) {
    std::ifstream in(dir / "config.json");
    json config = json::parse(in);
    edit(config);
    std::ofstream(dir / "config.json") << config.dump();
}

const json& reference() {
    static const json r = [] {
        std::ifstream in(kFixtures / "reference.json");
        return json::parse(in);
    }();
    return r;
}

} // namespace

TEST(CliLlamaModel, TheTraceSaysHowTheHeadsSplitAndWhereTheyTurn) {
    const json j = traceOf({"--model", (kFixtures / "gemma3_text").string(), "--sentence",
                            "the cat sat on the mat", "--json", "-", "--json-attention-only"});
    const json& m = j["model"];
    EXPECT_EQ(m["family"], "gemma3_text");
    EXPECT_EQ(m["heads"], 4);
    EXPECT_EQ(m["kv_heads"], 2);
    EXPECT_EQ(m["head_dim"], 16); // Gemma's own, not d_model / heads = 8
    EXPECT_EQ(m["rope"]["theta"], 1e6);
    EXPECT_EQ(m["rope"]["scaling"], "linear");
    EXPECT_EQ(m["sliding_window"], json::array({3, 0}));
    const json& s = j["sentences"][0];
    EXPECT_EQ(s["tokens"][0], "<bos>"); // the post-processor's start token
    EXPECT_EQ(s["token_ids"][0], 1);
    const json& attention = j["layers"][0]["attention"][0]; // [H][N][N] of sentence 0
    ASSERT_EQ(attention.size(), 4u);                        // one map per query head
    const int n = int(s["token_ids"].size());
    // Layer 1 slides: query 5 sees keys 3, 4, 5 only.
    for (int k = 0; k < n; ++k)
        EXPECT_EQ(attention[0][5][k].get<double>() > 0, k >= 3 && k <= 5) << k;
    EXPECT_TRUE(j["model"]["rope"].is_object());
    const json gpt2 =
        traceOf({"--model", (fs::path(build_facts::fixtureDir()) / "gpt2" / "f32").string(),
                 "--sentence", "the cat", "--json", "-", "--json-attention-only"});
    EXPECT_TRUE(gpt2["model"]["rope"].is_null());
    EXPECT_TRUE(gpt2["model"]["sliding_window"].is_null());
    EXPECT_EQ(gpt2["model"]["kv_heads"], 4);
}

// reference.json's text, typed: the tokenizer.json engine's ids with the start token, and
// PyTorch's attention on them, through the CLI; for each family's tokenizer layout.
TEST(CliLlamaModel, ATypedTextGivesTheReferenceIdsAndAttention) {
    for (const auto& [variant, v] : reference()["variants"].items()) {
        const json& expected = v["text"];
        const json j = traceOf({"--model", (kFixtures / variant).string(), "--sentence",
                                expected["text"], "--json", "-", "--json-attention-only"});
        const std::vector<int> ids = j["sentences"][0]["token_ids"];
        ASSERT_EQ(ids, expected["ids"].get<std::vector<int>>()) << variant;
        double worst = 0;
        for (std::size_t l = 0; l < expected["attention"].size(); ++l)
            for (std::size_t h = 0; h < expected["attention"][l].size(); ++h)
                for (std::size_t i = 0; i < ids.size(); ++i)
                    for (std::size_t k = 0; k < ids.size(); ++k)
                        worst = std::max(
                            worst, std::abs(j["layers"][l]["attention"][0][h][i][k].get<double>() -
                                            expected["attention"][l][h][i][k].get<double>()));
        EXPECT_LT(worst, 1e-4) << variant;
    }
}

TEST(CliLlamaModel, BadInputIsOneLineAndExit2) {
    const fs::path rope = copyOf("llama3_gqa_f32", "rope");
    editConfig(rope, [](json& c) {
        c["rope_scaling"] = {{"rope_type", "mrope"}, {"factor", 2.0}};
    });
    expectBadInput({"--model", rope.string(), "--json", "-"},
                   "rope type \"mrope\" is not supported");

    const fs::path quantized = copyOf("llama3_gqa_f32", "gptq");
    editConfig(quantized, [](json& c) { c["quantization_config"] = {{"quant_method", "gptq"}}; });
    expectBadInput({"--model", quantized.string(), "--json", "-"}, "quantized (gptq)");

    const fs::path kv = copyOf("llama3_gqa_f32", "kv");
    editConfig(kv, [](json& c) { c["num_key_value_heads"] = 3; });
    expectBadInput({"--model", kv.string(), "--json", "-"},
                   "num_key_value_heads 3 does not divide num_attention_heads 4");

    const fs::path shape = copyOf("llama3_gqa_f32", "shape");
    editConfig(shape, [](json& c) { c["intermediate_size"] = 48; });
    expectBadInput({"--model", shape.string(), "--json", "-"}, "config.json implies");

    const fs::path type = copyOf("llama3_gqa_f32", "type");
    editConfig(type, [](json& c) { c["model_type"] = "mamba"; });
    expectBadInput({"--model", type.string(), "--json", "-"},
                   "model_type \"mamba\" is not supported yet");

    const fs::path noTokenizer = copyOf("llama3_gqa_f32", "tokenizer");
    fs::remove(noTokenizer / "tokenizer.json");
    expectBadInput({"--model", noTokenizer.string(), "--json", "-"}, "tokenizer");
    for (const fs::path& dir : {rope, quantized, kv, shape, type, noTokenizer}) fs::remove_all(dir);
}

// --model FILE.gguf (make_gguf_fixtures.py's files): the same model as the folder it was
// converted from, once the tokenizer from GGUF metadata is there; every bad file in one line.
TEST(CliLlamaModel, AGgufFileGivesTheFoldersTrace) {
    const fs::path gguf = fs::path(build_facts::fixtureDir()) / "gguf" / "llama3_gqa_f32.gguf";
    const ProcessResult r =
        runMhaViz({"--model", gguf.string(), "--sentence", "the cat sat on the mat", "--json", "-",
                   "--json-attention-only"});
    if (r.exitCode == 2 && r.err.find("no tokenizer yet") != std::string::npos)
        GTEST_SKIP() << "the tokenizer from GGUF metadata is not merged yet";
    ASSERT_EQ(r.exitCode, 0) << r.err;
    const json g = json::parse(r.out);
    const json h = traceOf({"--model", (kFixtures / "llama3_gqa_f32").string(), "--sentence",
                            "the cat sat on the mat", "--json", "-", "--json-attention-only"});
    EXPECT_EQ(g["sentences"][0]["token_ids"], h["sentences"][0]["token_ids"]);
    EXPECT_EQ(g["model"]["family"], "llama");
    double worst = 0;
    for (std::size_t l = 0; l < h["layers"].size(); ++l) {
        const json& a = g["layers"][l]["attention"][0];
        const json& b = h["layers"][l]["attention"][0];
        for (std::size_t head = 0; head < b.size(); ++head)
            for (std::size_t i = 0; i < b[head].size(); ++i)
                for (std::size_t j = 0; j < b[head][i].size(); ++j)
                    worst = std::max(
                        worst, std::abs(a[head][i][j].get<double>() - b[head][i][j].get<double>()));
    }
    EXPECT_LT(worst, 1e-5);
}

TEST(CliLlamaModel, BadGgufFilesAreOneLineAndExitTwo) {
    const fs::path dir = fs::temp_directory_path() / "mha-viz-cli-gguf";
    fs::remove_all(dir);
    fs::create_directories(dir);
    const fs::path source = fs::path(build_facts::fixtureDir()) / "gguf" / "olmo2.gguf";
    std::ifstream in(source, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(dir / "cut.gguf", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    expectBadInput({"--model", (dir / "cut.gguf").string(), "--json", "-"}, "(a truncated file?)");
    std::ofstream(dir / "text.gguf") << "not a model";
    expectBadInput({"--model", (dir / "text.gguf").string(), "--json", "-"},
                   "not a GGUF file (it starts with \"not \", not \"GGUF\")");
    fs::create_directories(dir / "two");
    fs::copy(source, dir / "two" / "a.gguf");
    fs::copy(source, dir / "two" / "b.gguf");
    expectBadInput({"--model", (dir / "two").string(), "--json", "-"},
                   "holds 2 GGUF models (a.gguf, b.gguf); name the file to open");
    fs::remove_all(dir);
}
