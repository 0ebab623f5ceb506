// The SentencePiece tokenizer (sentencepiece_tokenizer.h) and the tokenizer.json engine's Unigram
// model with its Precompiled normalizer, against the ids sentencepiece itself gives for models
// tests/make_spm_fixtures.py trains (MHA_SPM_DIR); and the model reader's refusals.
#include "models/tokenizers/sentencepiece_model.h"
#include "models/tokenizers/sentencepiece_tokenizer.h"
#include "models/tokenizers/tokenizer_json.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

using namespace core::models;

namespace {

std::string fixtureDir() {
    const char* dir = std::getenv("MHA_SPM_DIR");
    return dir ? dir : "";
}

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

struct Case {
    std::string text;
    std::vector<int> ids;
    std::vector<std::string> pieces;
};

std::vector<Case> casesOf(const std::string& name) {
    const nlohmann::json j = nlohmann::json::parse(slurp(fixtureDir() + "/" + name + ".json"));
    std::vector<Case> cases;
    for (const auto& c : j["cases"]) cases.push_back({c["text"], c["ids"], c["pieces"]});
    return cases;
}

std::string show(const std::vector<int>& ids) {
    std::string s;
    for (int id : ids) s += std::to_string(id) + " ";
    return s;
}

// Every case's ids from `encode`, the mismatches counted and the first few shown.
template <class Encode>
void expectAllMatch(const std::vector<Case>& cases, Encode encode, const std::string& what) {
    int wrong = 0;
    for (const Case& c : cases) {
        const std::vector<int> got = encode(c.text);
        if (got == c.ids) continue;
        if (++wrong <= 5)
            ADD_FAILURE() << what << ": \"" << c.text << "\": got " << show(got) << "want "
                          << show(c.ids);
    }
    EXPECT_EQ(wrong, 0) << what << ": " << wrong << " of " << cases.size() << " texts differ";
}

class SpmFixtures : public ::testing::TestWithParam<std::string> {
  protected:
    void SetUp() override {
        if (fixtureDir().empty()) GTEST_SKIP() << "MHA_SPM_DIR is not set";
    }
};

} // namespace

TEST_P(SpmFixtures, EncodeAsIdsMatchesSentencePiece) {
    const auto tok = SentencePieceTokenizer::open(fixtureDir() + "/" + GetParam() + ".model");
    const std::vector<Case> cases = casesOf(GetParam());
    ASSERT_GT(cases.size(), 2000u);
    expectAllMatch(
        cases, [&](const std::string& t) { return tok->encodeIds(t); }, GetParam());
}

TEST_P(SpmFixtures, EncodeAsPiecesMatchesSentencePiece) {
    const auto tok = SentencePieceTokenizer::open(fixtureDir() + "/" + GetParam() + ".model");
    int wrong = 0;
    for (const Case& c : casesOf(GetParam()))
        if (tok->encodePieces(c.text) != c.pieces && ++wrong <= 5)
            ADD_FAILURE() << GetParam() << ": the pieces of \"" << c.text << "\" differ";
    EXPECT_EQ(wrong, 0);
}

INSTANTIATE_TEST_SUITE_P(Models, SpmFixtures,
                         ::testing::Values("nmt", "identity", "bytes", "user", "rules"));

TEST(SentencePieceTokenizer, AppendsEosAndCutsBeforeIt) {
    if (fixtureDir().empty()) GTEST_SKIP() << "MHA_SPM_DIR is not set";
    const auto tok = SentencePieceTokenizer::open(fixtureDir() + "/nmt.model");
    const std::vector<int> ids = tok->encodeIds("Hello world");
    ASSERT_GE(tok->eosId(), 0);
    EXPECT_EQ(tok->readable(tok->eosId()), "</s>");
    EXPECT_EQ(tok->readable(tok->encodeIds("Hello")[0]).rfind("\u2423", 0), 0u); // ▁ as ␣
    EXPECT_THROW(tok->readable(tok->vocabSize()), std::out_of_range);
    const auto bytes = SentencePieceTokenizer::open(fixtureDir() + "/bytes.model");
    const std::vector<int> emoji = bytes->encodeIds("\xea\x99\xae"); // ꙮ: unknown, as bytes
    ASSERT_EQ(emoji.size(), 4u);
    EXPECT_EQ(bytes->readable(emoji[1]), "<EA>");
    // As sentencepiece places them: the last byte piece covers the character, the others none.
    const Encoding e3 = bytes->encode("\xea\x99\xae", nullptr, 512);
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    for (const auto& t : e3.tokens.tokens) ranges.emplace_back(t.begin, t.end);
    EXPECT_EQ(ranges, (std::vector<std::pair<std::size_t, std::size_t>>{
                          {0, 0}, {0, 0}, {0, 0}, {0, 3}, {3, 3}}));
    const Encoding e = tok->encode("Hello world", nullptr, 512);
    std::vector<int> want = ids;
    want.push_back(tok->eosId());
    EXPECT_EQ(e.ids, want);
    EXPECT_EQ(e.special.back(), 1);
    const Encoding cut = tok->encode("Hello world", nullptr, 3);
    EXPECT_EQ(cut.ids, (std::vector<int>{ids[0], ids[1], tok->eosId()}));
    EXPECT_EQ(cut.warnings.size(), 1u);
    EXPECT_THROW(tok->encodeIds("bad \xff byte"), std::invalid_argument);
    // Each token covers the bytes of the text it came from: "Hello" starts at 0.
    EXPECT_EQ(e.tokens.tokens.front().begin, 0u);
    EXPECT_EQ(e.tokens.tokens[e.ids.size() - 2].end, 11u);
}

TEST(SentencePieceTokenizer, TokenizerJsonUnigramMatchesSentencePiece) {
    if (fixtureDir().empty()) GTEST_SKIP() << "MHA_SPM_DIR is not set";
    const auto tok = TokenizerJson::fromText(slurp(fixtureDir() + "/tokenizer.json"), "");
    expectAllMatch(
        casesOf("nmt"), [&](const std::string& t) { return tok->encodeIds(t); }, "tokenizer.json");
    const auto spm = SentencePieceTokenizer::open(fixtureDir() + "/nmt.model");
    EXPECT_EQ(tok->encode("Hello world", nullptr, 512).ids,
              spm->encode("Hello world", nullptr, 512).ids); // "$A </s>"
    EXPECT_NE(tok->describe().find("Unigram"), std::string::npos);
    const auto bytes = TokenizerJson::fromText(slurp(fixtureDir() + "/tokenizer_bytes.json"), "");
    expectAllMatch(
        casesOf("bytes"), [&](const std::string& t) { return bytes->encodeIds(t); },
        "tokenizer_bytes.json");
}

// The older converters' normalizer, Sequence[Precompiled, Replace(" {2,}", " ")], has no Strip:
// trailing whitespace comes out as one more "▁" where sentencepiece drops it; elsewhere the ids
// are sentencepiece's.
TEST(SentencePieceTokenizer, LegacyTokenizerJsonKeepsATrailingSpace) {
    if (fixtureDir().empty()) GTEST_SKIP() << "MHA_SPM_DIR is not set";
    const auto legacy = TokenizerJson::fromText(slurp(fixtureDir() + "/tokenizer_legacy.json"), "");
    const auto spm = SentencePieceTokenizer::open(fixtureDir() + "/nmt.model");
    for (const char* text : {"Hello world", "  leading", "a  b   c", "ﬁnance ｆｕｌｌ"})
        EXPECT_EQ(legacy->encodeIds(text), spm->encodeIds(text)) << text;
    std::vector<int> want = spm->encodeIds("trailing");
    want.push_back(legacy->idOf("\xe2\x96\x81"));
    EXPECT_EQ(legacy->encodeIds("trailing  "), want);
}

// Hugging Face's Precompiled looks each grapheme cluster up alone (the shortest key that starts
// it); sentencepiece takes the longest key anywhere, so the rule "123" -> "one" is sentencepiece's
// only. A single character's key is the same in both.
TEST(SentencePieceTokenizer, TokenizerJsonPrecompiledGoesByGraphemeClusters) {
    if (fixtureDir().empty()) GTEST_SKIP() << "MHA_SPM_DIR is not set";
    const auto json = TokenizerJson::fromText(slurp(fixtureDir() + "/tokenizer_rules.json"), "");
    const auto spm = SentencePieceTokenizer::open(fixtureDir() + "/rules.model");
    EXPECT_EQ(spm->encodeIds("123"), spm->encodeIds("one"));
    EXPECT_NE(json->encodeIds("123"), spm->encodeIds("123"));
    EXPECT_EQ(json->encodeIds("x\xef\xac\x81 A"), spm->encodeIds("x\xef\xac\x81 A")); // ﬁ, A
}

namespace {

std::string varint(std::uint64_t v) {
    std::string s;
    for (; v >= 0x80; v >>= 7) s += char((v & 0x7f) | 0x80);
    return s + char(v);
}
std::string field(int number, const std::string& bytes) {
    return varint(std::uint64_t(number) << 3 | 2) + varint(bytes.size()) + bytes;
}
std::string piece(const std::string& text, int type) {
    return field(1, text) + varint(3 << 3) + varint(std::uint64_t(type));
}
std::string refusal(const std::string& bytes) {
    try {
        readSentencePieceModel(bytes, "m.model");
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(SentencePieceModel, RefusesBrokenFilesInOneLine) {
    const std::string unk = field(1, piece("<unk>", 2)), a = field(1, piece("a", 1));
    EXPECT_NE(refusal("").find("m.model: the model has no pieces"), std::string::npos);
    EXPECT_NE(refusal("\x0a").find("a varint runs past the end"), std::string::npos);
    EXPECT_NE(refusal("\x0a\x05"
                      "ab")
                  .find("a length runs past the end"),
              std::string::npos);
    EXPECT_NE(refusal(std::string(11, '\xff')).find("longer than 10 bytes"), std::string::npos);
    EXPECT_NE(refusal("\x4b").find("wire type 3"), std::string::npos);
    EXPECT_NE(refusal("\x0d").find("field pieces has the wrong wire type"), std::string::npos);
    const std::string bpe = unk + a + field(2, varint(3 << 3) + varint(2));
    EXPECT_NE(refusal(bpe).find("the model type is BPE (2); only UNIGRAM"), std::string::npos);
    EXPECT_NE(refusal(a).find("no unknown piece"), std::string::npos);
    EXPECT_NE(refusal(unk + a + a).find("\"a\" is defined twice"), std::string::npos);
    EXPECT_NE(refusal(unk + field(1, piece("", 1))).find("piece 1 is empty"), std::string::npos);
    const std::string charsmap = field(3, field(2, std::string("\xff\xff\x00\x00xyz", 7)));
    EXPECT_THROW(SentencePieceTokenizer(readSentencePieceModel(unk + a + charsmap, "m.model")),
                 std::invalid_argument);
    for (const std::string& message : {refusal(""), refusal("\x0a"), refusal(bpe)})
        EXPECT_EQ(message.find('\n'), std::string::npos);
    // A good one, with a field this reader does not know skipped.
    const auto m = readSentencePieceModel(unk + a + field(9, "extra"), "m.model");
    EXPECT_EQ(m.pieces.size(), 2u);
    EXPECT_EQ(SentencePieceTokenizer(m).encodeIds("aa"), (std::vector<int>{0, 1, 1}));
}

TEST(SentencePieceModel, TruncatedRealModelIsRefused) {
    if (fixtureDir().empty()) GTEST_SKIP() << "MHA_SPM_DIR is not set";
    const std::string bytes = slurp(fixtureDir() + "/nmt.model");
    for (std::size_t keep : {std::size_t(1), std::size_t(7), bytes.size() / 2, bytes.size() - 3})
        EXPECT_THROW(readSentencePieceModel(bytes.substr(0, keep), "nmt.model"),
                     std::invalid_argument)
            << keep;
}
