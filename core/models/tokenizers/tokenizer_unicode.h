// What the tokenizer.json engine (tokenizer_json.h) needs to know of a code point: its General
// Category and properties for the regex classes, its case folding for case-insensitive groups,
// and the compatibility decompositions and compositions of the NFC / NFKC normalizers. The
// tables are generated at build time from the machine's Unicode data
// (cmake/tokenizer_unicode.py, Debian's unicode-data), so the repository holds no copy of them
// and the app needs no ICU. Canonical decompositions and combining classes are
// wordpiece_unicode.h's.
#pragma once

#include <string>

namespace core::models {

// Unicode's General Category values, unassigned code points Cn.
enum class GeneralCategory : unsigned char {
    Lu,
    Ll,
    Lt,
    Lm,
    Lo,
    Mn,
    Mc,
    Me,
    Nd,
    Nl,
    No,
    Pc,
    Pd,
    Ps,
    Pe,
    Pi,
    Pf,
    Po,
    Sm,
    Sc,
    Sk,
    So,
    Zs,
    Zl,
    Zp,
    Cc,
    Cf,
    Cs,
    Co,
    Cn
};

GeneralCategory generalCategory(char32_t cp);
bool isWhiteSpace(char32_t cp); // the White_Space property (\s, Rust's char::is_whitespace)
bool isAlphabetic(char32_t cp); // the Alphabetic property (part of \w)

// CaseFolding.txt's simple folding (status C and S): 'S' -> 's', U+017F (long s) -> 's'.
char32_t simpleCaseFold(char32_t cp);
// Every code point that folds as cp does (cp's folding first), for classes under (?i).
void appendCaseVariants(char32_t cp, std::u32string& out);

// The full compatibility decomposition (NFKD) of cp, appended; false (nothing appended) when
// it is the canonical one (appendDecomposition) or none. Hangul syllables are computed.
bool appendCompatibilityDecomposition(char32_t cp, std::u32string& out);
// The primary composite of two code points (canonical, not excluded), or 0.
char32_t composePair(char32_t first, char32_t second);
// cp is the second code point of some primary composite (NFC_QC = Maybe).
bool composesWithPrevious(char32_t cp);

// The Unicode data file the tables came from, e.g. "DerivedCoreProperties-15.0.0.txt".
const char* tokenizerUnicodeVersion();

} // namespace core::models
