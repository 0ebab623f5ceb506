// A small regular expression matcher over code points, for the Split pre-tokenizers of
// tokenizer.json files (GPT-2's, Llama 3's, Qwen's ... patterns), with the meaning Oniguruma
// gives them (Hugging Face's `tokenizers` runs Oniguruma): leftmost match, alternatives tried
// in order, greedy quantifiers unless followed by `?`.
//
// The subset: literals and escapes (\t \n \r \f \v \e \0, \xHH, \x{H..}, \uHHHH, escaped
// punctuation), `.` (anything but \n), classes [...] with ranges, negation and the escapes
// below inside, \s \S \d \D \w \W, \p{..} / \P{..} / \p{^..} / \pL for General
// Categories (L, Lu, Ll, Lt, Lm, Lo, M, Mn, Mc, Me, N, Nd, Nl, No, P*, S*, Z*, C*, their long
// names) and Alphabetic / White_Space, groups ( ), (?: ), (?i: ), (?i), alternation |,
// quantifiers ? * + {m} {m,} {m,n} (and lazy ??, *?, +?, {..}?), lookahead (?= ) and (?! ).
// \s is White_Space, \d Nd, \w Alphabetic, M, Nd, Pc and Join_Control; (?i) compares simple
// case foldings (so 'S and 'ſ match 's). Anything else (anchors, lookbehind, backreferences,
// named groups, possessive quantifiers, scripts such as \p{Han}) is refused with
// std::invalid_argument naming the construct.
//
// Matching backtracks with a memory of (instruction, position) states already tried, so no
// pattern takes more than (program size x text length) steps and none recurses on the stack
// per character. A compiled regex is immutable: several threads may match with it at once.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace core::models {

// \w: Alphabetic, M, Nd, Pc or Join_Control (Oniguruma's and Rust regex's word characters).
bool isWordCharacter(char32_t cp);

class CodePointRegex {
  public:
    explicit CodePointRegex(std::string_view pattern);

    // Every match of the text, left to right, as [begin, end) code point indices. After an
    // empty match the search moves on one code point, and an empty match right where the last
    // match ended is skipped (as Rust's find_iter).
    std::vector<std::pair<std::size_t, std::size_t>> findAll(std::u32string_view text) const;

    struct Item { // one member of a class
        enum Kind : unsigned char { Range, Categories, WhiteSpace, Word, Alphabetic } kind;
        bool negated = false;
        char32_t low = 0, high = 0;   // Range
        std::uint32_t categories = 0; // Categories: bit i for GeneralCategory i
    };
    struct CharSet {
        std::vector<Item> items;
        bool negated = false, caseless = false;
        std::uint64_t ascii[2] = {0, 0}; // the answer for code points below 128, precomputed
        bool matches(char32_t cp) const;
        bool matchesUncached(char32_t cp) const;
    };
    struct Instruction {
        enum Op : unsigned char { Char, Split, Jump, Look, Match } op;
        bool negated = false;       // Look: (?!...)
        std::uint32_t a = 0, b = 0; // Char: set; Split: first, second; Jump: a; Look: body, next
    };

  private:
    std::vector<CharSet> sets_;
    std::vector<Instruction> program_; // starts at 0; a lookahead's body (ending in Match) inline

    friend class RegexCompiler;
    friend class RegexRun;
};

} // namespace core::models
