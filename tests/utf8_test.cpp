#include "text/utf8.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

namespace {

using core::decodeUtf8;
using core::sanitizeUtf8;

constexpr char32_t kFffd = 0xFFFD;

// Independent strict validator (per RFC 3629 table) so the fuzz test doesn't trust the decoder.
bool isValidUtf8(const std::string& s) {
    std::size_t i = 0;
    while (i < s.size()) {
        const auto b0 = static_cast<unsigned char>(s[i]);
        std::size_t len = 0;
        unsigned char lo = 0x80;
        unsigned char hi = 0xBF;
        if (b0 <= 0x7F) {
            len = 1;
        } else if (b0 >= 0xC2 && b0 <= 0xDF) {
            len = 2;
        } else if (b0 >= 0xE0 && b0 <= 0xEF) {
            len = 3;
            lo = b0 == 0xE0 ? 0xA0 : 0x80;
            hi = b0 == 0xED ? 0x9F : 0xBF;
        } else if (b0 >= 0xF0 && b0 <= 0xF4) {
            len = 4;
            lo = b0 == 0xF0 ? 0x90 : 0x80;
            hi = b0 == 0xF4 ? 0x8F : 0xBF;
        } else {
            return false;
        }
        if (i + len > s.size()) {
            return false;
        }
        for (std::size_t k = 1; k < len; ++k) {
            const auto b = static_cast<unsigned char>(s[i + k]);
            if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xBF)) {
                return false;
            }
        }
        i += len;
    }
    return true;
}

std::u32string fffd(std::size_t count) {
    return std::u32string(count, kFffd);
}

TEST(Utf8Decode, EmptyInputGivesEmptyOutput) {
    EXPECT_TRUE(decodeUtf8("").empty());
    EXPECT_EQ(sanitizeUtf8(""), "");
}

TEST(Utf8Decode, AsciiPassesThrough) {
    EXPECT_EQ(decodeUtf8("Hello, world!"), U"Hello, world!");
}

TEST(Utf8Decode, DecodesEachSequenceLength) {
    EXPECT_EQ(decodeUtf8("\x24\xC2\xA2\xE2\x82\xAC\xF0\x90\x8D\x88"),
              U"\u0024\u00A2\u20AC\U00010348");
}

TEST(Utf8Decode, DecodesBoundaryScalarValues) {
    EXPECT_EQ(decodeUtf8("\x7F"), U"\u007F");
    EXPECT_EQ(decodeUtf8("\xC2\x80"), U"\u0080");
    EXPECT_EQ(decodeUtf8("\xDF\xBF"), U"\u07FF");
    EXPECT_EQ(decodeUtf8("\xE0\xA0\x80"), U"\u0800");
    EXPECT_EQ(decodeUtf8("\xED\x9F\xBF"), U"\uD7FF");
    EXPECT_EQ(decodeUtf8("\xEE\x80\x80"), U"\uE000");
    EXPECT_EQ(decodeUtf8("\xEF\xBF\xBF"), U"\uFFFF");
    EXPECT_EQ(decodeUtf8("\xF0\x90\x80\x80"), U"\U00010000");
    EXPECT_EQ(decodeUtf8("\xF4\x8F\xBF\xBF"), U"\U0010FFFF");
}

TEST(Utf8Decode, LoneContinuationByteIsOneReplacement) {
    EXPECT_EQ(decodeUtf8("\x80"), fffd(1));
    EXPECT_EQ(decodeUtf8("a\xBF"
                         "b"),
              U"a\uFFFDb");
}

TEST(Utf8Decode, EveryStrayContinuationIsReplacedSeparately) {
    EXPECT_EQ(decodeUtf8("\x80\x81\xBF"), fffd(3));
}

TEST(Utf8Decode, OverlongTwoByteSlashIsTwoReplacements) {
    EXPECT_EQ(decodeUtf8("\xC0\xAF"), fffd(2));
}

TEST(Utf8Decode, OverlongThreeByteSlashIsThreeReplacements) {
    EXPECT_EQ(decodeUtf8("\xE0\x80\xAF"), fffd(3));
}

TEST(Utf8Decode, OverlongFourByteSlashIsFourReplacements) {
    EXPECT_EQ(decodeUtf8("\xF0\x80\x80\xAF"), fffd(4));
}

TEST(Utf8Decode, EncodedSurrogateIsRejected) {
    EXPECT_EQ(decodeUtf8("\xED\xA0\x80"), fffd(3));
    EXPECT_EQ(decodeUtf8("\xED\xBF\xBF"), fffd(3));
    // A surrogate pair encoded as two CESU-8 sequences.
    EXPECT_EQ(decodeUtf8("\xED\xA0\xBD\xED\xB8\x80"), fffd(6));
}

TEST(Utf8Decode, CodePointAboveMaximumIsRejected) {
    EXPECT_EQ(decodeUtf8("\xF4\x90\x80\x80"), fffd(4));
}

TEST(Utf8Decode, BytesF5ThroughFFAreEachOneReplacement) {
    for (int b = 0xF5; b <= 0xFF; ++b) {
        const std::string input{static_cast<char>(b), '\x80', 'x'};
        EXPECT_EQ(decodeUtf8(input), U"\uFFFD\uFFFDx") << "byte " << b;
    }
}

TEST(Utf8Decode, C0AndC1LeadBytesAreAlwaysInvalid) {
    EXPECT_EQ(decodeUtf8("\xC0\x80"), fffd(2));
    EXPECT_EQ(decodeUtf8("\xC1\xBF"), fffd(2));
}

TEST(Utf8Decode, TruncatedSequenceAtEndIsOneReplacement) {
    EXPECT_EQ(decodeUtf8("\xE2\x82"), fffd(1));
    EXPECT_EQ(decodeUtf8("ab\xF0\x9F\x98"), U"ab\uFFFD");
    EXPECT_EQ(decodeUtf8("\xC3"), fffd(1));
}

TEST(Utf8Decode, TruncatedSequenceDoesNotSwallowFollowingAscii) {
    EXPECT_EQ(decodeUtf8("\xE2\x82"
                         "A"),
              U"\uFFFDA");
    EXPECT_EQ(decodeUtf8("\xC3"
                         "\xC3\xA9"),
              U"\uFFFD\u00E9");
}

TEST(Utf8Decode, MaximalSubpartExampleFromUnicodeStandard) {
    // Unicode §3.9, "U+FFFD Substitution of Maximal Subparts" example.
    const std::string input = "\x61\xF1\x80\x80\xE1\x80\xC2\x62\x80\x63\x80\xBF\x64";
    EXPECT_EQ(decodeUtf8(input), U"a\uFFFD\uFFFD\uFFFDb\uFFFDc\uFFFD\uFFFDd");
}

TEST(Utf8Encode, AppendUtf8EncodesEveryLength) {
    std::string out;
    core::appendUtf8(out, U'A');
    core::appendUtf8(out, 0xE9);
    core::appendUtf8(out, 0x20AC);
    core::appendUtf8(out, 0x1F600);
    EXPECT_EQ(out, "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(Utf8Encode, AppendUtf8ReplacesNonScalarValues) {
    std::string out;
    core::appendUtf8(out, 0xD800);
    core::appendUtf8(out, 0x110000);
    EXPECT_EQ(out, "\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Utf8Sanitize, MultilingualTextRoundTripsUnchanged) {
    const std::string text = "naïve café — Ελληνικά, Русский, עברית, العربية, 日本語, 한국어 "
                             "👨‍👩‍👧 🇫🇷";
    EXPECT_EQ(sanitizeUtf8(text), text);

    std::string reencoded;
    for (char32_t cp : decodeUtf8(text)) {
        core::appendUtf8(reencoded, cp);
    }
    EXPECT_EQ(reencoded, text);
}

TEST(Utf8Sanitize, InvalidBytesBecomeEfBfBd) {
    EXPECT_EQ(sanitizeUtf8("ok\xFF"
                           "fine\xC0\xAF"),
              "ok\xEF\xBF\xBD"
              "fine\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Utf8Count, CountsCodePointsNotBytes) {
    EXPECT_EQ(core::countCodePoints(""), 0u);
    EXPECT_EQ(core::countCodePoints("abc"), 3u);
    EXPECT_EQ(core::countCodePoints("café"), 4u);
    EXPECT_EQ(core::countCodePoints("日本"), 2u);
    EXPECT_EQ(core::countCodePoints("\xF0\x9F\x98\x80!"), 2u);
}

TEST(Utf8Fuzz, RandomBytesAlwaysSanitizeToValidUtf8) {
    std::mt19937 rng(12345);
    std::uniform_int_distribution<int> lengthDist(0, 24);
    // Bias towards interesting bytes so multi-byte paths are exercised, not just ASCII.
    const unsigned char interesting[] = {0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0,
                                         0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xED,
                                         0xEF, 0xF0, 0xF1, 0xF4, 0xF5, 0xFF};
    std::uniform_int_distribution<int> pickDist(0, 2 * static_cast<int>(sizeof(interesting)) - 1);
    std::uniform_int_distribution<int> byteDist(0, 255);

    for (int iteration = 0; iteration < 10000; ++iteration) {
        std::string input;
        const int length = lengthDist(rng);
        for (int k = 0; k < length; ++k) {
            const int pick = pickDist(rng);
            const bool useInteresting = pick < static_cast<int>(sizeof(interesting));
            input.push_back(static_cast<char>(useInteresting ? interesting[pick] : byteDist(rng)));
        }

        const std::u32string decoded = decodeUtf8(input);
        const std::string clean = sanitizeUtf8(input);
        ASSERT_TRUE(isValidUtf8(clean)) << "iteration " << iteration;
        ASSERT_LE(decoded.size(), input.size());
        ASSERT_EQ(core::countCodePoints(clean), decoded.size());
        ASSERT_EQ(sanitizeUtf8(clean), clean) << "sanitize must be idempotent";
        if (isValidUtf8(input)) {
            ASSERT_EQ(clean, input) << "valid input must pass through unchanged";
        }
    }
}

} // namespace
