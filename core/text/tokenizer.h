#pragma once

// Word-level tokenizer that turns a pasted sentence into the labels shown on the attention grid.
// It is deterministic, linear-time and never fails: invalid UTF-8 is sanitized first.
//
// Contract (input is first passed through sanitizeUtf8; all offsets refer to that text):
//  - Whitespace separates tokens and is dropped: ASCII whitespace, other C0/C1 controls, U+00A0,
//    U+1680, U+180E, U+2000-U+200B, U+2028, U+2029, U+202F, U+205F, U+3000, U+FEFF, and invisible
//    format characters (LRM/RLM U+200E/F, bidi embeddings U+202A-U+202E, U+2060-U+206F).
//  - Words are runs of letters and digits. A "letter" is an ASCII letter or any non-ASCII code
//    point not listed below (so Latin with accents, Greek, Cyrillic, Hebrew, Arabic, Hangul,
//    Thai...). Digits inside a word stay in it ("mp3", "B2B"); a number followed by letters is
//    one token ("10km"). A "." or "," between two ASCII digits stays inside ("3.14", "1,000").
//    RTL words keep their logical (stored) order.
//  - Apostrophe ' or U+2019 after a word splits off a contraction/possessive, case preserved:
//    "don't" -> "do" "n't", "can't" -> "ca" "n't", "won't" -> "wo" "n't", "it's" -> "it" "'s",
//    "I'm", "they're", "we've", "I'll", "I'd" likewise ("'m" "'re" "'ve" "'ll" "'d").
//    Any other apostrophe between two letters stays in the word ("O'Brien", "o'clock"); at a
//    word edge it is punctuation ("'hello'" -> "'" "hello" "'", "rock 'n' roll" -> 5 tokens).
//  - Punctuation and symbols (ASCII punctuation, U+00A1-U+00BF except letters, U+00D7, U+00F7,
//    general punctuation, currency, letterlike, arrows, math, box drawing, CJK punctuation,
//    fullwidth punctuation) are one token per code point. Exception: a run of the same ASCII
//    character stays together ("...", "--", "!!"), except brackets and quotes ()[]{}<>"'`.
//    Hyphens therefore split words: "well-known" -> "well" "-" "known".
//  - CJK ideographs, kana and bopomofo are one token each (like BERT); Hangul forms word runs.
//  - Emoji (U+1F000-U+1FAFF, U+2300-U+23FF, U+2600-U+27BF, U+2B00-U+2BFF) are one token each;
//    U+200D joining two pictographs keeps the ZWJ sequence together ("👨‍👩‍👧" is one
//    token), and a pair of regional indicators is one flag token ("🇫🇷").
//  - Attachments always join the token right before them, whatever it is: combining marks
//    (U+0300-U+036F, U+1AB0-U+1AFF, U+1DC0-U+1DFF, U+20D0-U+20FF, U+FE20-U+FE2F, kana voicing
//    U+3099/U+309A), variation selectors (U+FE00-U+FE0F, U+E0100-U+E01EF), skin tones
//    (U+1F3FB-U+1F3FF), tags (U+E0000-U+E007F) and the keycap U+20E3. An attachment with no
//    token directly before it (start of text or after whitespace) forms its own token.
//  - ZWNJ U+200C, ZWJ U+200D and soft hyphen U+00AD stay inside a word when letters follow;
//    elsewhere they are dropped like whitespace (as are U+200B and U+2060).
//  - U+FFFD (what invalid bytes become) is always its own token.
//  - At most maxTokens tokens are returned (0 is a valid cap and yields none); the rest are only
//    counted in droppedTokens. Empty or whitespace-only input gives zero tokens.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace core {

inline constexpr std::size_t kMaxTokens = 512;

struct Token {
    std::string text;      // valid UTF-8
    std::size_t begin = 0; // byte range [begin, end) in Tokenized::text
    std::size_t end = 0;
};

struct Tokenized {
    std::string text;              // the input after sanitizeUtf8 (offsets refer to this)
    std::vector<Token> tokens;     // at most maxTokens
    std::size_t droppedTokens = 0; // how many tokens past the cap were cut
};

Tokenized tokenize(std::string_view text, std::size_t maxTokens = kMaxTokens);

} // namespace core
