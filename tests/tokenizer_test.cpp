#include "text/tokenizer.h"

#include "text/utf8.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace {

using Texts = std::vector<std::string>;

Texts tokenTexts(const core::Tokenized& result) {
    Texts texts;
    for (const core::Token& token : result.tokens) {
        texts.push_back(token.text);
    }
    return texts;
}

Texts tok(std::string_view text) {
    return tokenTexts(core::tokenize(text));
}

TEST(Tokenizer, DemoSentenceSplitsIntoWordsAndFinalPeriod) {
    EXPECT_EQ(
        tok("The cat sat on the mat because it was tired."),
        (Texts{"The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired", "."}));
}

TEST(Tokenizer, EmptyInputGivesNoTokens) {
    const core::Tokenized result = core::tokenize("");
    EXPECT_TRUE(result.tokens.empty());
    EXPECT_EQ(result.droppedTokens, 0u);
}

TEST(Tokenizer, WhitespaceOnlyInputGivesNoTokens) {
    // Space, tab, newline, NBSP, ideographic space, BOM, ZWSP, word joiner, RLM, a C1 control.
    EXPECT_TRUE(tok(" \t\r\n\u00A0\u3000\uFEFF\u200B\u2060\u200F\u0085").empty());
}

TEST(Tokenizer, UnicodeSpacesSeparateWords) {
    EXPECT_EQ(tok("a\u00A0b\u2003c\u202Fd\u3000e\ufeffF"), (Texts{"a", "b", "c", "d", "e", "F"}));
}

TEST(Tokenizer, NegatedContractionsSplitBeforeN) {
    EXPECT_EQ(tok("don't can't won't isn't"),
              (Texts{"do", "n't", "ca", "n't", "wo", "n't", "is", "n't"}));
}

TEST(Tokenizer, PronounContractionsSplitAtApostrophe) {
    EXPECT_EQ(tok("it's I'm they're we've I'll I'd"),
              (Texts{"it", "'s", "I", "'m", "they", "'re", "we", "'ve", "I", "'ll", "I", "'d"}));
}

TEST(Tokenizer, PossessiveSplitsOff) {
    EXPECT_EQ(tok("the cat's toy"), (Texts{"the", "cat", "'s", "toy"}));
}

TEST(Tokenizer, ChainedContractionsSplitEachSuffix) {
    EXPECT_EQ(tok("I'd've"), (Texts{"I", "'d", "'ve"}));
}

TEST(Tokenizer, CurlyApostropheSplitsLikeStraightOne) {
    EXPECT_EQ(tok("don\u2019t it\u2019s"), (Texts{"do", "n\u2019t", "it", "\u2019s"}));
}

TEST(Tokenizer, ContractionsPreserveCase) {
    EXPECT_EQ(tok("DON'T IT'S We'Re"), (Texts{"DO", "N'T", "IT", "'S", "We", "'Re"}));
}

TEST(Tokenizer, QuotingApostrophesArePunctuation) {
    EXPECT_EQ(tok("'hello'"), (Texts{"'", "hello", "'"}));
    EXPECT_EQ(tok("rock 'n' roll"), (Texts{"rock", "'", "n", "'", "roll"}));
    EXPECT_EQ(tok("dogs' bowls"), (Texts{"dogs", "'", "bowls"}));
}

TEST(Tokenizer, ApostropheBetweenLettersThatIsNotAContractionStaysInWord) {
    EXPECT_EQ(tok("O'Brien at five o'clock"), (Texts{"O'Brien", "at", "five", "o'clock"}));
}

TEST(Tokenizer, NumbersKeepDecimalAndThousandsSeparators) {
    EXPECT_EQ(tok("pi is 3.14, about 1,000,000 or 2.5 times"),
              (Texts{"pi", "is", "3.14", ",", "about", "1,000,000", "or", "2.5", "times"}));
}

TEST(Tokenizer, SeparatorNotFollowedByDigitEndsNumber) {
    EXPECT_EQ(tok("It costs 2.5. Then 7, 8"),
              (Texts{"It", "costs", "2.5", ".", "Then", "7", ",", "8"}));
}

TEST(Tokenizer, DigitsAndLettersFormOneToken) {
    EXPECT_EQ(tok("mp3 B2B 10km"), (Texts{"mp3", "B2B", "10km"}));
}

TEST(Tokenizer, PunctuationOnlyInputSplitsButKeepsSameCharRuns) {
    EXPECT_EQ(tok("?!..."), (Texts{"?", "!", "..."}));
    EXPECT_EQ(tok("Wait -- what!!"), (Texts{"Wait", "--", "what", "!!"}));
}

TEST(Tokenizer, BracketsAndQuotesAreNeverMerged) {
    EXPECT_EQ(tok("((a)) \"\"b"), (Texts{"(", "(", "a", ")", ")", "\"", "\"", "b"}));
}

TEST(Tokenizer, HyphenatedWordsSplit) {
    EXPECT_EQ(tok("a well-known fact"), (Texts{"a", "well", "-", "known", "fact"}));
}

TEST(Tokenizer, NonAsciiPunctuationAndSymbolsAreSingleTokens) {
    EXPECT_EQ(tok("\u00BFQu\u00E9? \u201Cyes\u201D\u2014no \u20AC5 \u2265 3\u2026"),
              (Texts{"\u00BF", "Qu\u00E9", "?", "\u201C", "yes", "\u201D", "\u2014", "no", "\u20AC",
                     "5", "\u2265", "3", "\u2026"}));
}

TEST(Tokenizer, EmojiAreSeparateTokens) {
    EXPECT_EQ(tok("hi\U0001F600\U0001F600!"), (Texts{"hi", "\U0001F600", "\U0001F600", "!"}));
}

TEST(Tokenizer, ZwjFamilyIsOneToken) {
    const std::string family = "\U0001F468\u200D\U0001F469\u200D\U0001F467";
    EXPECT_EQ(tok("my " + family + " family"), (Texts{"my", family, "family"}));
}

TEST(Tokenizer, ZwjNotFollowedByPictographIsDropped) {
    EXPECT_EQ(tok("\U0001F600\u200D x"), (Texts{"\U0001F600", "x"}));
}

TEST(Tokenizer, SkinToneAndVariationSelectorsAttach) {
    const std::string thumbs = "\U0001F44D\U0001F3FD";
    const std::string heart = "\u2764\uFE0F";
    const std::string rainbowFlag = "\U0001F3F3\uFE0F\u200D\U0001F308";
    EXPECT_EQ(tok(thumbs + heart + rainbowFlag), (Texts{thumbs, heart, rainbowFlag}));
}

TEST(Tokenizer, RegionalIndicatorsPairIntoFlags) {
    const std::string france = "\U0001F1EB\U0001F1F7";
    const std::string germany = "\U0001F1E9\U0001F1EA";
    EXPECT_EQ(tok(france + germany), (Texts{france, germany}));
    // An odd one out stays on its own.
    EXPECT_EQ(tok(france + "\U0001F1EB"), (Texts{france, "\U0001F1EB"}));
}

TEST(Tokenizer, TagSequenceFlagIsOneToken) {
    const std::string scotland =
        "\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F";
    EXPECT_EQ(tok("go " + scotland), (Texts{"go", scotland}));
}

TEST(Tokenizer, KeycapSequenceIsOneToken) {
    EXPECT_EQ(tok("1\uFE0F\u20E3 #\uFE0F\u20E3"), (Texts{"1\uFE0F\u20E3", "#\uFE0F\u20E3"}));
}

TEST(Tokenizer, CombiningMarkStaysWithPrecedingCharacters) {
    EXPECT_EQ(tok("cafe\u0301 e\u0301te\u0301"), (Texts{"cafe\u0301", "e\u0301te\u0301"}));
    EXPECT_EQ(tok("?\u0301"), (Texts{"?\u0301"}));
}

TEST(Tokenizer, LeadingCombiningMarkIsItsOwnToken) {
    EXPECT_EQ(tok("\u0301abc x \u0308\u0301"), (Texts{"\u0301", "abc", "x", "\u0308\u0301"}));
}

TEST(Tokenizer, GreekAndCyrillicWordsAreWordRuns) {
    EXPECT_EQ(tok("Καλημέρα κόσμε; Привет, мир!"),
              (Texts{"Καλημέρα", "κόσμε", ";", "Привет", ",", "мир", "!"}));
    // The Greek question mark U+037E is punctuation even though it looks like ';'.
    EXPECT_EQ(tok("τι\u037E"), (Texts{"τι", "\u037E"}));
}

TEST(Tokenizer, HebrewAndArabicKeepLogicalOrder) {
    EXPECT_EQ(tok("שלום עולם"), (Texts{"שלום", "עולם"}));
    EXPECT_EQ(tok("مرحبا، بالعالم؟"), (Texts{"مرحبا", "،", "بالعالم", "؟"}));
}

TEST(Tokenizer, BidiControlsAreIgnored) {
    EXPECT_EQ(tok("\u202Babc\u202C \u200Fשלום\u200E"), (Texts{"abc", "שלום"}));
}

TEST(Tokenizer, CjkIdeographsAndKanaAreSingleTokens) {
    EXPECT_EQ(tok("我爱你"), (Texts{"我", "爱", "你"}));
    EXPECT_EQ(tok("日本語です。"), (Texts{"日", "本", "語", "で", "す", "。"}));
    EXPECT_EQ(tok("AI是"), (Texts{"AI", "是"}));
}

TEST(Tokenizer, HangulFormsWordRuns) {
    EXPECT_EQ(tok("안녕하세요 세계"), (Texts{"안녕하세요", "세계"}));
}

TEST(Tokenizer, ZeroWidthNonJoinerStaysInsideWordOnly) {
    EXPECT_EQ(tok("می\u200Cخواهم \u200Cx"), (Texts{"می\u200Cخواهم", "x"}));
}

TEST(Tokenizer, InvalidUtf8BecomesReplacementToken) {
    const core::Tokenized result = core::tokenize("ab\xFF"
                                                  "cd \xC0\xAF");
    EXPECT_EQ(tokenTexts(result), (Texts{"ab", "\uFFFD", "cd", "\uFFFD", "\uFFFD"}));
    EXPECT_EQ(result.text, "ab\uFFFDcd \uFFFD\uFFFD");
}

TEST(Tokenizer, OffsetsMatchTokenTextForEveryToken) {
    const core::Tokenized result = core::tokenize(
        "  Don't stop\xE2\x82 \u00BFcafe\u0301? 3.14 \U0001F468\u200D\U0001F469 日本 "
        "\U0001F1EB\U0001F1F7 שלום \xFF end...");
    ASSERT_GE(result.tokens.size(), 15u);
    std::size_t previousEnd = 0;
    for (const core::Token& token : result.tokens) {
        ASSERT_LT(token.begin, token.end);
        ASSERT_LE(token.end, result.text.size());
        EXPECT_GE(token.begin, previousEnd) << "tokens must be ordered and not overlap";
        EXPECT_EQ(result.text.substr(token.begin, token.end - token.begin), token.text);
        previousEnd = token.end;
    }
}

TEST(Tokenizer, CapKeepsFirstTokensAndCountsDropped) {
    std::string text;
    for (int i = 0; i < 5000; ++i) {
        text += "word" + std::to_string(i) + " ";
    }
    const core::Tokenized result = core::tokenize(text);
    ASSERT_EQ(result.tokens.size(), core::kMaxTokens);
    EXPECT_EQ(result.droppedTokens, 4488u);
    EXPECT_EQ(result.tokens.front().text, "word0");
    EXPECT_EQ(result.tokens.back().text, "word511");
}

TEST(Tokenizer, ZeroCapGivesNoTokensButCountsThem) {
    const core::Tokenized result = core::tokenize("one two, three", 0);
    EXPECT_TRUE(result.tokens.empty());
    EXPECT_EQ(result.droppedTokens, 4u);
}

TEST(Tokenizer, LargePasteTokenizesInLinearTime) {
    // 50,000 characters with a mix of every token kind.
    const std::string unit = "Don't 3.14 caf\u00E9, \U0001F600 日本! ";
    std::string text;
    std::size_t chars = 0;
    std::size_t units = 0;
    while (chars < 50000) {
        text += unit;
        chars += core::countCodePoints(unit);
        ++units;
    }
    const auto started = std::chrono::steady_clock::now();
    const core::Tokenized result = core::tokenize(text);
    const auto elapsed = std::chrono::steady_clock::now() - started;

    // Per unit: "Do" "n't" "3.14" "café" "," "😀" "日" "本" "!" = 9 tokens.
    EXPECT_EQ(result.tokens.size() + result.droppedTokens, units * 9);
    EXPECT_EQ(result.tokens.size(), core::kMaxTokens);
    EXPECT_LT(std::chrono::duration_cast<std::chrono::seconds>(elapsed).count(), 2);
}

} // namespace
