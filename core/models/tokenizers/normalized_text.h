// The text inside the tokenizer.json engine (tokenizer_json.h): code points, each with the byte
// range of the original text it came from, so that every step (a normalizer replacing,
// composing or prepending, ByteLevel turning bytes into characters) keeps where each token
// came from. Hugging Face's NormalizedString keeps the same alignment, per byte.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace core::models {

struct TextUnit {
    char32_t cp;
    std::uint32_t begin, end; // bytes of the original text; begin == end for inserted text
};
using UnitText = std::vector<TextUnit>;

// The code points of valid UTF-8 text, their ranges counted from `base`.
UnitText unitsOf(std::string_view validUtf8, std::size_t base = 0);
// UTF-8 of units [from, to).
std::string utf8Of(const UnitText& text, std::size_t from, std::size_t to);
inline std::string utf8Of(const UnitText& text) {
    return utf8Of(text, 0, text.size());
}
// The code points alone.
std::u32string codePointsOf(const UnitText& text);
// Units of `text` inserted before (or in place of) `at`: empty ranges at its start.
UnitText insertedUnits(std::u32string_view text, std::uint32_t at);

// Unicode normalization forms (UAX #15): canonical (NFD, NFC) or compatibility (NFKD, NFKC)
// decomposition, canonical ordering, then composition for NFC / NFKC. The text is normalized
// in stretches that start where nothing before can combine with what follows; each code point
// of a stretch's result takes the whole stretch's range (a character left alone keeps its own).
enum class NormalForm { NFD, NFC, NFKD, NFKC };
void normalizeUnicode(UnitText& text, NormalForm form);
// The full canonical decomposition (NFD) of one code point, appended: Hangul syllables by the
// algorithm of Unicode's chapter 3.12, the rest from the table (wordpiece_unicode.h).
void appendCanonicalDecomposition(char32_t cp, std::u32string& out);

// Rust's char::to_lowercase on each code point (İ gives two), as Hugging Face's Lowercase.
void lowercaseUnits(UnitText& text);

} // namespace core::models
