// The tokenizer.json engine's parts (core/models/tokenizers/tokenizer_json.h) on hand-made
// files, for what the real files do not exercise: each normalizer, pre-tokenizer behaviour,
// BPE option, added-token flag and post-processor, the regex subset and its refusals, the byte
// ranges and readable pieces, and the one-line errors. The expected values follow Hugging
// Face's tokenizers (docs/real-models.md, "The tokenizer.json engine").
#include "models/tokenizers/code_point_regex.h"
#include "models/tokenizers/text_pipeline.h"
#include "models/tokenizers/tokenizer_json.h"

#include "text/utf8.h"
#include "thrown_message.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

using json = nlohmann::json;
using core::models::CodePointRegex;
using core::models::PreTokenizer;
using core::models::TextNormalizer;
using core::models::TokenizerJson;
using testing_support::thrownMessage;

// A character-level BPE file: every character of `alphabet` an entry (ids in order), then
// `words` (each a merge of its first character and the rest, which must be entries).
json charFile(const std::u32string& alphabet, const std::vector<std::string>& words = {}) {
    json vocab = json::object(), merges = json::array();
    for (char32_t cp : alphabet) {
        std::string s;
        core::appendUtf8(s, cp);
        if (!vocab.contains(s)) vocab[s] = vocab.size();
    }
    for (const std::string& w : words) {
        vocab[w] = vocab.size();
        const std::size_t first = core::utf8Length(w, 0);
        merges.push_back(json::array({w.substr(0, first), w.substr(first)}));
    }
    return {{"model", {{"type", "BPE"}, {"vocab", vocab}, {"merges", merges}}}};
}

std::vector<std::string> pieces(const json& pre, const std::string& text) {
    std::vector<std::string> out;
    for (const auto& piece : PreTokenizer::read(pre).apply(core::models::unitsOf(text)))
        out.push_back(core::models::utf8Of(piece));
    return out;
}

std::string normalized(const json& spec, const std::string& text) {
    core::models::UnitText units = core::models::unitsOf(text);
    TextNormalizer::read(spec).apply(units);
    return core::models::utf8Of(units);
}

std::vector<std::pair<std::size_t, std::size_t>> matches(const std::string& pattern,
                                                         const std::string& text) {
    return CodePointRegex(pattern).findAll(core::decodeUtf8(text));
}

std::vector<std::string> matchedTexts(const std::string& pattern, const std::string& text) {
    const std::u32string cps = core::decodeUtf8(text);
    std::vector<std::string> out;
    for (const auto& [b, e] : CodePointRegex(pattern).findAll(cps)) {
        std::string s;
        for (std::size_t i = b; i < e; ++i) core::appendUtf8(s, cps[i]);
        out.push_back(s);
    }
    return out;
}

using Strings = std::vector<std::string>;

TEST(CodePointRegex, Llama3PatternSplitsAsOniguruma) {
    const std::string llama3 =
        R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
    EXPECT_EQ(matchedTexts(llama3, "I CAN'T 12345 ok!!\n\n  x"),
              (Strings{"I", " CAN", "'T", " ", "123", "45", " ok", "!!\n\n", " ", " x"}));
    EXPECT_EQ(matchedTexts(llama3, "it'S 'ſ"), (Strings{"it", "'S", " '", "ſ"}));
    EXPECT_EQ(matchedTexts(llama3, "a   b"), (Strings{"a", "  ", " b"}));
    EXPECT_EQ(matchedTexts(llama3, "\u65e5\u672c 2024"),
              (Strings{"\u65e5\u672c", " ", "202", "4"}));
}

TEST(CodePointRegex, QuantifiersGroupsClassesAndLookahead) {
    EXPECT_EQ(matchedTexts("a{2,3}", "aaaaaaa"), (Strings{"aaa", "aaa"}));
    EXPECT_EQ(matchedTexts("a{2}", "aaaaa"), (Strings{"aa", "aa"}));
    EXPECT_EQ(matchedTexts("a+?", "aaa"), (Strings{"a", "a", "a"}));
    EXPECT_EQ(matchedTexts("(?:ab)+c?", "ababcab"), (Strings{"ababc", "ab"}));
    EXPECT_EQ(matchedTexts("[a-c]+|[^a-c\\s]+", "abxyz cab"), (Strings{"ab", "xyz", "cab"}));
    EXPECT_EQ(matchedTexts("x(?=y)", "xxyx"), (Strings{"x"}));
    EXPECT_EQ(matchedTexts("\\p{Lu}\\p{Ll}*", "Hello World"), (Strings{"Hello", "World"}));
    EXPECT_EQ(matchedTexts("(?i)hello", "HeLLo hello"), (Strings{"HeLLo", "hello"}));
    EXPECT_EQ(matchedTexts("\\x41\\u0042\\x{43}", "ABC"), (Strings{"ABC"}));
    EXPECT_EQ(matchedTexts("a{,2}b", "aaab"), (Strings{"aab"}));
    EXPECT_EQ(matchedTexts("a{x", "a{x"), (Strings{"a{x"})); // not an interval: literal
    EXPECT_EQ(matches("a*", "ba"), (std::vector<std::pair<std::size_t, std::size_t>>{
                                       {0, 0}, {1, 2}}));         // empty, then none right after
    EXPECT_EQ(matchedTexts("(?:a*)*b", "aab"), (Strings{"aab"})); // an empty loop ends
}

TEST(CodePointRegex, LongRunsTakeLinearTime) {
    const std::string spaces(200000, ' ');
    EXPECT_EQ(matches("\\s+(?!\\S)|\\s+", spaces + "x").size(), 2u);
    EXPECT_EQ(matches("(a|aa)*c", std::string(5000, 'a')).size(), 0u); // no exponential blow-up
}

TEST(CodePointRegex, UnsupportedConstructsAreNamed) {
    const auto refusal = [](const std::string& p) {
        return thrownMessage([&] { CodePointRegex{p}; });
    };
    EXPECT_EQ(refusal("(?<=a)b"), "the regex \"(?<=a)b\" uses a lookbehind, which this "
                                  "tokenizer cannot run");
    EXPECT_NE(refusal("^a").find("the anchor ^"), std::string::npos);
    EXPECT_NE(refusal("\\bword").find("the escape \\b"), std::string::npos);
    EXPECT_NE(refusal("(a)\\1").find("the escape \\1"), std::string::npos);
    EXPECT_NE(refusal("\\p{Han}").find("the property \\p{Han}"), std::string::npos);
    EXPECT_NE(refusal("a++").find("possessive"), std::string::npos);
    EXPECT_NE(refusal("(?<name>a)").find("the group"), std::string::npos);
    EXPECT_NE(refusal("[[:alpha:]]").find("POSIX"), std::string::npos);
    EXPECT_NE(refusal("a{2000}").find("more than 1000"), std::string::npos);
    EXPECT_NE(refusal("(a").find("unclosed"), std::string::npos);
    EXPECT_NE(refusal("*a").find("nothing before it"), std::string::npos);
}

TEST(TokenizerJsonNormalizers, EachTypeAsTokenizers) {
    EXPECT_EQ(normalized({{"type", "NFC"}}, "e\u0301 A\u030a \u1100\u1161\u11a8"),
              "\u00e9 \u00c5 \uac01");
    EXPECT_EQ(normalized({{"type", "NFD"}}, "\u00e9\uac00"), "e\u0301\u1100\u1161");
    EXPECT_EQ(normalized({{"type", "NFKC"}}, "\ufb01 \uff21 \u2460 \u00bd"), "fi A 1 1\u20442");
    EXPECT_EQ(normalized({{"type", "NFKD"}}, "\u00e9\ufb01"), "e\u0301fi");
    EXPECT_EQ(normalized({{"type", "NFC"}}, "a\u0323\u0307 a\u0307\u0323"),
              "\u1ea1\u0307 \u1ea1\u0307");
    EXPECT_EQ(normalized({{"type", "Lowercase"}}, "ABC \u0130 \u03a3"), "abc i\u0307 \u03c3");
    EXPECT_EQ(normalized({{"type", "Strip"}, {"strip_left", true}, {"strip_right", false}},
                         " \t a b \u3000"),
              "a b \u3000");
    EXPECT_EQ(normalized({{"type", "StripAccents"}}, "e\u0301a\u0308"), "ea");
    EXPECT_EQ(normalized({{"type", "Prepend"}, {"prepend", "\u2581"}}, "hi"), "\u2581hi");
    EXPECT_EQ(normalized({{"type", "Prepend"}, {"prepend", "\u2581"}}, ""), "");
    EXPECT_EQ(
        normalized({{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}},
                   "a b  c"),
        "a\u2581b\u2581\u2581c");
    EXPECT_EQ(normalized({{"type", "Replace"}, {"pattern", {{"Regex", " {2,}"}}}, {"content", " "}},
                         "a    b c"),
              "a b c");
    EXPECT_EQ(normalized({{"type", "Sequence"},
                          {"normalizers", {{{"type", "NFKC"}}, {{"type", "Lowercase"}}}}},
                         "\uff21B"),
              "ab");
    EXPECT_EQ(thrownMessage([] {
                  TextNormalizer::read({{"type", "Nmt"}});
              }),
              "normalizer \"Nmt\" is not supported");
}

TEST(TokenizerJsonPreTokenizers, SplitBehaviorsAndInvert) {
    const auto split = [](const char* behavior, bool invert = false) {
        return json{{"type", "Split"},
                    {"pattern", {{"String", "-"}}},
                    {"behavior", behavior},
                    {"invert", invert}};
    };
    const std::string text = "a-b--c-";
    EXPECT_EQ(pieces(split("Removed"), text), (Strings{"a", "b", "c"}));
    EXPECT_EQ(pieces(split("Isolated"), text), (Strings{"a", "-", "b", "-", "-", "c", "-"}));
    EXPECT_EQ(pieces(split("MergedWithPrevious"), text), (Strings{"a-", "b-", "-", "c-"}));
    EXPECT_EQ(pieces(split("MergedWithNext"), text), (Strings{"a", "-b", "-", "-c", "-"}));
    EXPECT_EQ(pieces(split("Contiguous"), text), (Strings{"a", "-", "b", "--", "c", "-"}));
    EXPECT_EQ(pieces(split("Removed", true), text), (Strings{"-", "-", "-", "-"})); // one a match
    EXPECT_EQ(pieces({{"type", "Split"},
                      {"pattern", {{"Regex", "\\d+"}}},
                      {"behavior", "Isolated"},
                      {"invert", false}},
                     "ab12cd3"),
              (Strings{"ab", "12", "cd", "3"}));
}

TEST(TokenizerJsonPreTokenizers, MetaspaceDigitsByteLevelWhitespace) {
    const auto meta = [](const char* scheme, bool split) {
        return json{{"type", "Metaspace"},
                    {"replacement", "\u2581"},
                    {"prepend_scheme", scheme},
                    {"split", split}};
    };
    EXPECT_EQ(pieces(meta("always", true), "hi there  x"),
              (Strings{"\u2581hi", "\u2581there", "\u2581", "\u2581x"}));
    EXPECT_EQ(pieces(meta("never", false), "hi there"), (Strings{"hi\u2581there"}));
    EXPECT_EQ(pieces(meta("first", false), "hi"), (Strings{"\u2581hi"}));
    EXPECT_EQ(pieces({{"type", "Digits"}, {"individual_digits", true}}, "a123b"),
              (Strings{"a", "1", "2", "3", "b"}));
    EXPECT_EQ(pieces({{"type", "Digits"}, {"individual_digits", false}}, "a123b4"),
              (Strings{"a", "123", "b", "4"}));
    EXPECT_EQ(
        pieces({{"type", "ByteLevel"}, {"add_prefix_space", true}, {"use_regex", true}}, "hi you"),
        (Strings{"\u0120hi", "\u0120you"}));
    EXPECT_EQ(pieces({{"type", "ByteLevel"}, {"add_prefix_space", false}, {"use_regex", false}},
                     "a \u00e9"),
              (Strings{"a\u0120\u00c3\u00a9"}));
    EXPECT_EQ(pieces({{"type", "Whitespace"}}, "it's ok"), (Strings{"it", "'", "s", "ok"}));
    EXPECT_EQ(pieces({{"type", "WhitespaceSplit"}}, " a\tb "), (Strings{"a", "b"}));
    EXPECT_EQ(thrownMessage([] {
                  PreTokenizer::read({{"type", "Punctuation"}});
              }),
              "pre_tokenizer \"Punctuation\" is not supported");
    EXPECT_EQ(thrownMessage([] {
                  PreTokenizer::read({{"type", "Split"},
                                      {"pattern", {{"String", "-"}}},
                                      {"behavior", "Sideways"}});
              }),
              "pre_tokenizer \"Split\": \"behavior\" \"Sideways\" is not one of Removed, "
              "Isolated, MergedWithPrevious, MergedWithNext, Contiguous");
}

std::unique_ptr<TokenizerJson> load(const json& root, const std::string& config = "",
                                    core::models::TokenizerJsonOptions options = {}) {
    return TokenizerJson::fromText(root.dump(), config, options);
}

TEST(TokenizerJsonBpe, MergesLowestRankFirstThenLeftmost) {
    // "bc" ranks before "ab": "abc" is a + bc; two "aa" merges on "aaa" take the left pair.
    json root = charFile(U"abc", {"bc", "ab", "aa"});
    EXPECT_EQ(load(root)->encodeIds("abc"), (std::vector<int>{0, 3}));
    EXPECT_EQ(load(root)->encodeIds("aaa"), (std::vector<int>{5, 0}));
    root["model"]["merges"].push_back("a bc"); // a later merge made of a merge's result
    root["model"]["vocab"]["abc"] = 6;
    EXPECT_EQ(load(root)->encodeIds("abc"), (std::vector<int>{6}));
}

TEST(TokenizerJsonBpe, ByteFallbackUnknownAndIgnoreMerges) {
    json root = charFile(U"ab", {"ab"});
    root["model"]["vocab"]["<unk>"] = 3;
    root["model"]["unk_token"] = "<unk>";
    EXPECT_EQ(load(root)->encodeIds("axyb"), (std::vector<int>{0, 3, 3, 1}));
    root["model"]["fuse_unk"] = true;
    EXPECT_EQ(load(root)->encodeIds("axyb"), (std::vector<int>{0, 3, 1}));
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        root["model"]["vocab"][name] = 10 + b;
    }
    root["model"]["byte_fallback"] = true;
    const auto t = load(root);
    EXPECT_EQ(t->encodeIds("a\u00e9"), (std::vector<int>{0, 10 + 0xC3, 10 + 0xA9}));
    EXPECT_EQ(t->readable(10 + 0x0A), "\\n");
    EXPECT_EQ(t->readable(10 + 0xC3), "<C3>");
    root["model"]["vocab"]["aab"] = 300;
    EXPECT_EQ(load(root)->encodeIds("aab"), (std::vector<int>{0, 2}));
    root["model"]["ignore_merges"] = true; // the whole pre-token is an entry
    EXPECT_EQ(load(root)->encodeIds("aab"), (std::vector<int>{300}));
}

TEST(TokenizerJsonBpe, SubwordPrefixAndSuffix) {
    json root = {{"model",
                  {{"type", "BPE"},
                   {"vocab", {{"a", 0}, {"##b", 1}, {"##c</w>", 2}, {"ab", 3}, {"c</w>", 4}}},
                   {"merges", json::array({json::array({"a", "##b"})})},
                   {"continuing_subword_prefix", "##"},
                   {"end_of_word_suffix", "</w>"}}},
                 {"pre_tokenizer", {{"type", "WhitespaceSplit"}}}};
    EXPECT_EQ(load(root)->encodeIds("abc c"), (std::vector<int>{3, 2, 4}));
}

TEST(TokenizerJsonAddedTokens, StripSingleWordNormalizedAndLongestFirst) {
    json root = charFile(U"abx <>|\u2581");
    root["added_tokens"] = {
        {{"id", 50}, {"content", "<x>"}, {"special", true}, {"lstrip", true}, {"rstrip", true}},
        {{"id", 51}, {"content", "<x>|"}, {"special", true}},
        {{"id", 52}, {"content", "ab"}, {"single_word", true}, {"normalized", false}},
        {{"id", 53}, {"content", "b b"}, {"normalized", true}}};
    root["normalizer"] = {
        {"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}};
    const auto t = load(root);
    EXPECT_EQ(t->encodeIds("a <x> b"), (std::vector<int>{0, 50, 1}));
    EXPECT_EQ(t->encodeIds("<x>|"), (std::vector<int>{51}));
    EXPECT_EQ(t->encodeIds("ab xab ab"), (std::vector<int>{52, 7, 2, 0, 1, 7, 52}));
    // normalized: matched on the normalized text, where its space is already ▁.
    EXPECT_EQ(t->encodeIds("b b"), (std::vector<int>{53}));
    EXPECT_TRUE(t->isAdded(50));
    const core::models::Encoding e = t->encode("a <x> b", nullptr, 100);
    ASSERT_EQ(e.tokens.tokens.size(), 3u);
    EXPECT_EQ(e.tokens.tokens[1].begin, 1u); // the stripped spaces go with <x>
    EXPECT_EQ(e.tokens.tokens[1].end, 6u);
    EXPECT_EQ(e.special, (std::vector<char>{0, 1, 0}));
}

json withTemplate(json root) {
    root["model"]["vocab"]["<s>"] = 90, root["model"]["vocab"]["</s>"] = 91;
    root["post_processor"] = {
        {"type", "TemplateProcessing"},
        {"single", json::array({{{"SpecialToken", {{"id", "<s>"}, {"type_id", 0}}}},
                                {{"Sequence", {{"id", "A"}, {"type_id", 0}}}}})},
        {"pair", json::array({"<s>", "$A", "</s>:1", "$B:1", "</s>:1"})},
        {"special_tokens",
         {{"<s>", {{"id", "<s>"}, {"ids", {90}}, {"tokens", {"<s>"}}}},
          {"</s>", {{"id", "</s>"}, {"ids", {91}}, {"tokens", {"</s>"}}}}}}};
    return root;
}

TEST(TokenizerJsonPostProcessors, TemplatePairTypesAndCut) {
    core::models::TokenizerJsonOptions encoder;
    encoder.encoder = true;
    json root = withTemplate(charFile(U"ab"));
    root["model"]["vocab"]["<mask>"] = 92;
    const auto t = load(root, "", encoder);
    const std::string b = "b";
    const core::models::Encoding e = t->encode("ab", &b, 100);
    EXPECT_EQ(e.ids, (std::vector<int>{90, 0, 1, 91, 1, 91}));
    EXPECT_EQ(e.types, (std::vector<int>{0, 0, 0, 1, 1, 1}));
    EXPECT_EQ(e.pairStart, 4);
    EXPECT_EQ(t->startId(), 90);
    EXPECT_EQ(t->maskId(), 92);
    const core::models::Encoding cut = t->encode("abab", nullptr, 3);
    EXPECT_EQ(cut.ids, (std::vector<int>{90, 0, 1}));
    EXPECT_EQ(cut.warnings.at(0), "the text has 5 tokens; kept the first 3 (the model's context)");
    EXPECT_EQ(thrownMessage([&] { t->encode("abab", &b, 5); }),
              "the pair has 8 tokens with its special tokens, more than the model's 5 positions");
}

TEST(TokenizerJsonPostProcessors, RobertaBertSequenceAndLlamaConfig) {
    json root = withTemplate(charFile(U"ab"));
    core::models::TokenizerJsonOptions encoder;
    encoder.encoder = true;
    root["model"]["vocab"]["<mask>"] = 92;
    const std::string b = "b";
    root["post_processor"] = {
        {"type", "RobertaProcessing"}, {"cls", {"<s>", 90}}, {"sep", {"</s>", 91}}};
    EXPECT_EQ(load(root, "", encoder)->encode("a", &b, 99).ids,
              (std::vector<int>{90, 0, 91, 91, 1, 91}));
    root["post_processor"] = {
        {"type", "BertProcessing"}, {"cls", {"<s>", 90}}, {"sep", {"</s>", 91}}};
    EXPECT_EQ(load(root, "", encoder)->encode("a", &b, 99).types,
              (std::vector<int>{0, 0, 0, 1, 1}));
    const json templ = withTemplate(charFile(U"ab"))["post_processor"];
    root["post_processor"] = {
        {"type", "Sequence"},
        {"processors", {{{"type", "ByteLevel"}, {"trim_offsets", false}}, templ}}};
    EXPECT_EQ(load(root)->encode("a", nullptr, 99).ids, (std::vector<int>{90, 0}));
    // LlamaTokenizerFast rebuilds the template from add_bos_token / add_eos_token.
    const auto llama =
        load(root, R"({"tokenizer_class": "LlamaTokenizerFast", "add_bos_token": false,
                                      "add_eos_token": true, "bos_token": "<s>", "eos_token": "</s>"})");
    EXPECT_EQ(llama->encode("a", nullptr, 99).ids, (std::vector<int>{0, 91}));
    EXPECT_EQ(load(root, R"({"tokenizer_class": "LlamaTokenizer"})")->encode("a", nullptr, 99).ids,
              (std::vector<int>{90, 0}));
    root.erase("post_processor");
    EXPECT_EQ(load(root, R"({"bos_token": "</s>"})")->startId(), 91); // no template: the config's
    EXPECT_EQ(load(root)->startId(), -1);
    EXPECT_EQ(load(root)->encode("a", nullptr, 99).ids, (std::vector<int>{0}));
}

TEST(TokenizerJsonEncoding, RangesAndReadablePieces) {
    // Llama 2's pipeline: Prepend ▁, spaces as ▁, byte fallback.
    json root = charFile(U"\u2581helo", {"\u2581h"});
    root["model"]["vocab"]["\u2581he"] = 50;
    root["model"]["merges"].push_back(json::array({"\u2581h", "e"}));
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        root["model"]["vocab"][name] = 100 + b;
    }
    root["model"]["byte_fallback"] = true;
    root["normalizer"] = {
        {"type", "Sequence"},
        {"normalizers",
         {{{"type", "Prepend"}, {"prepend", "\u2581"}},
          {{"type", "Replace"}, {"pattern", {{"String", " "}}}, {"content", "\u2581"}}}}};
    root["decoder"] = {
        {"type", "Sequence"},
        {"decoders",
         {{{"type", "Replace"}, {"pattern", {{"String", "\u2581"}}}, {"content", " "}},
          {{"type", "ByteFallback"}},
          {{"type", "Fuse"}}}}};
    const auto t = load(root);
    const core::models::Encoding e = t->encode("he \u00e9", nullptr, 99);
    std::vector<std::string> texts;
    for (const auto& token : e.tokens.tokens) texts.push_back(token.text);
    EXPECT_EQ(texts, (Strings{"\u2423he", "\u2423", "<C3>", "<A9>"}));
    ASSERT_EQ(e.tokens.tokens.size(), 4u);
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    for (const auto& token : e.tokens.tokens) ranges.emplace_back(token.begin, token.end);
    EXPECT_EQ(ranges,
              (std::vector<std::pair<std::size_t, std::size_t>>{{0, 2}, {2, 3}, {3, 4}, {4, 5}}));
    EXPECT_EQ(t->bytesOf(100 + 0xC3), "\xC3");
    EXPECT_NE(t->describe().find("BPE with byte fallback"), std::string::npos) << t->describe();
}

TEST(TokenizerJsonErrors, OneLineNamingTheFileAndTheProblem) {
    const auto error = [](const std::string& text) {
        return thrownMessage([&] { TokenizerJson::fromText(text, "", {}, "t.json"); });
    };
    json root = charFile(U"ab");
    EXPECT_EQ(error("{\"model\": "), "t.json: not JSON (error at byte 11)");
    EXPECT_EQ(error("[1]"), "t.json: not a JSON object");
    root["normalizer"] = {{"type", "Precompiled"}, {"precompiled_charsmap", "AAAA!"}};
    EXPECT_EQ(error(root.dump()), "t.json: normalizer \"Precompiled\": not base64");
    root["normalizer"] = {{"type", "Precompiled"}, {"precompiled_charsmap", "/wAAAGFiYw=="}};
    EXPECT_EQ(error(root.dump()), "t.json: normalizer \"Precompiled\": the precompiled "
                                  "charsmap's trie size (255 bytes) runs past its end");
    root["normalizer"] = nullptr;
    root["pre_tokenizer"] = {
        {"type", "Split"}, {"pattern", {{"Regex", "(?<!x)y"}}}, {"behavior", "Isolated"}};
    EXPECT_EQ(error(root.dump()),
              "t.json: the regex \"(?<!x)y\" uses a lookbehind, which this tokenizer cannot run");
    root["pre_tokenizer"] = nullptr;
    root["post_processor"] = {{"type", "Magic"}};
    EXPECT_EQ(error(root.dump()), "t.json: post_processor \"Magic\" is not supported");
    root["post_processor"] = nullptr;
    root["model"]["dropout"] = 0.1;
    EXPECT_NE(error(root.dump()).find("dropout"), std::string::npos);
    root["model"]["dropout"] = nullptr;
    root["model"]["merges"] = json::array({"a c"});
    EXPECT_EQ(error(root.dump()), "t.json: merge 1: \"c\" is not in the vocabulary");
    root["model"]["merges"] = json::array({"a b"});
    EXPECT_EQ(error(root.dump()), "t.json: merge 1: \"ab\" is not in the vocabulary");
    root["model"]["merges"] = json::array();
    root["model"]["vocab"]["z"] = -1;
    EXPECT_EQ(error(root.dump()), "t.json: model.vocab: \"z\" has id -1, outside 0..16777215");
    const auto t = load(charFile(U"ab"));
    EXPECT_EQ(thrownMessage([&] { t->encode("a\xC3", nullptr, 9); }),
              "the text is not valid UTF-8 (byte 1)");
    const std::string pair = "b";
    EXPECT_EQ(thrownMessage([&] { t->encode("a", &pair, 9); }),
              "a sentence pair is for encoders (BERT, RoBERTa); this model reads one text");
    EXPECT_EQ(thrownMessage([&] { t->bytesOf(7); }), "token id 7 is not in the vocabulary");
}

} // namespace
