// Arbitrary bytes -> core::sanitizeUtf8 / decodeUtf8 / appendUtf8 and core::tokenize.
// The tokenizer contract (core/text/tokenizer.h) promises it never fails; here we check the
// promises that can be checked on any input.
#include "fuzz_check.h"

#include "text/tokenizer.h"
#include "text/utf8.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>

namespace {

bool isScalarValue(char32_t cp) {
    return cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF);
}

bool sameToken(const core::Token& a, const core::Token& b) {
    return a.text == b.text && a.begin == b.begin && a.end == b.end;
}

void checkUtf8(std::string_view bytes) {
    const std::string clean = core::sanitizeUtf8(bytes);
    FUZZ_CHECK(fuzz::isValidUtf8(clean));
    FUZZ_CHECK(core::sanitizeUtf8(clean) == clean);           // idempotent
    if (fuzz::isValidUtf8(bytes)) FUZZ_CHECK(clean == bytes); // valid text passes unchanged
    const std::u32string codePoints = core::decodeUtf8(bytes);
    FUZZ_CHECK(core::countCodePoints(clean) == codePoints.size());
    for (char32_t cp : codePoints) FUZZ_CHECK(isScalarValue(cp));

    // appendUtf8 on raw 32-bit values taken from the input: decodes back to itself, or to
    // U+FFFD for what is not a scalar value.
    for (std::size_t i = 0; i + 4 <= bytes.size() && i < 64; i += 4) {
        char32_t cp;
        std::memcpy(&cp, bytes.data() + i, 4);
        std::string encoded;
        core::appendUtf8(encoded, cp);
        FUZZ_CHECK(fuzz::isValidUtf8(encoded));
        const std::u32string back = core::decodeUtf8(encoded);
        FUZZ_CHECK(back.size() == 1);
        FUZZ_CHECK(back[0] == (isScalarValue(cp) ? cp : core::kReplacementChar));
    }
}

void checkTokens(std::string_view bytes, std::size_t smallCap) {
    const core::Tokenized full = core::tokenize(bytes);
    FUZZ_CHECK(full.text == core::sanitizeUtf8(bytes));
    FUZZ_CHECK(full.tokens.size() <= core::kMaxTokens);
    if (full.droppedTokens > 0) FUZZ_CHECK(full.tokens.size() == core::kMaxTokens);
    std::size_t previousEnd = 0;
    for (const core::Token& t : full.tokens) {
        FUZZ_CHECK(!t.text.empty());
        FUZZ_CHECK(t.begin >= previousEnd && t.begin < t.end && t.end <= full.text.size());
        FUZZ_CHECK(full.text.compare(t.begin, t.end - t.begin, t.text) == 0);
        FUZZ_CHECK(fuzz::isValidUtf8(t.text));
        FUZZ_CHECK(t.text.find_first_of(" \t\n\r\f\v") == std::string::npos); // whitespace splits
        previousEnd = t.end;
    }

    // A smaller cap keeps a prefix of the same tokens and counts the rest.
    const std::size_t total = full.tokens.size() + full.droppedTokens;
    const core::Tokenized capped = core::tokenize(bytes, smallCap);
    FUZZ_CHECK(capped.tokens.size() == std::min(smallCap, total));
    FUZZ_CHECK(capped.tokens.size() + capped.droppedTokens == total);
    for (std::size_t i = 0; i < capped.tokens.size(); ++i)
        FUZZ_CHECK(sameToken(capped.tokens[i], full.tokens[i]));

    // The tokenizer sanitizes first, so the sanitized text tokenizes identically.
    const core::Tokenized again = core::tokenize(full.text);
    FUZZ_CHECK(again.text == full.text && again.tokens.size() == full.tokens.size() &&
               again.droppedTokens == full.droppedTokens);
    for (std::size_t i = 0; i < full.tokens.size(); ++i)
        FUZZ_CHECK(sameToken(again.tokens[i], full.tokens[i]));
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    checkUtf8(bytes);
    checkTokens(bytes, size > 0 ? data[size - 1] % 16 : 0); // last byte: small caps incl. 0
    return 0;
}
