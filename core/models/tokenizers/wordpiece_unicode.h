// What BERT's normalizer and pre-tokenizer need to know of a code point (wordpiece_tokenizer.h).
// The tables are generated at build time from the machine's Unicode data
// (cmake/wordpiece_unicode.py, Debian's unicode-data), so the repository holds no copy of them
// and the app needs no ICU.
#pragma once

#include <string>

namespace core::models {

// Control: General Category C* (Cc, Cf, Co, Cs, unassigned), not tab, newline or carriage
// return, which are Whitespace; Whitespace: the White_Space property but for its controls
// (\v, \f, U+0085: removed, as control characters are); Punctuation: P*, and
// every ASCII character that is not a letter or digit; Mark: Mn; Other: the rest.
enum class WordPieceCharKind : unsigned char { Other, Control, Whitespace, Punctuation, Mark };

WordPieceCharKind wordPieceCharKind(char32_t cp);

// The lower-case form (one code point, or U+0130's two), as Rust's char::to_lowercase.
void appendLowercase(char32_t cp, std::u32string& out);

// The full canonical decomposition of cp (not Hangul, whose is computed), appended; false (and
// nothing appended) when cp has none.
bool appendDecomposition(char32_t cp, std::u32string& out);

// The canonical combining class (0 for a starter).
int combiningClass(char32_t cp);

// The Unicode data file the tables came from, e.g. "PropList-15.0.0.txt".
const char* wordPieceUnicodeVersion();

} // namespace core::models
