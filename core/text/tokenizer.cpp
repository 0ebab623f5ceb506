#include "text/tokenizer.h"

#include "text/utf8.h"

#include <utility>

namespace core {
namespace {

// What a code point does to token boundaries; see the contract in tokenizer.h.
enum class CharClass {
    Space,  // separates, dropped
    Joiner, // ZWNJ/ZWJ/soft hyphen: kept only inside words (or emoji sequences)
    Letter,
    Digit,  // ASCII 0-9
    Attach, // combining marks, variation selectors, skin tones, tags, keycap
    AsciiPunct,
    Single, // non-ASCII punctuation, symbols, CJK: one code point per token
    Emoji,
    RegionalIndicator,
    Replacement, // U+FFFD
};

constexpr bool inRange(char32_t c, char32_t low, char32_t high) {
    return c >= low && c <= high;
}

constexpr bool isAsciiDigit(char32_t c) {
    return inRange(c, U'0', U'9');
}

constexpr bool isAsciiLetter(char32_t c) {
    return inRange(c, U'a', U'z') || inRange(c, U'A', U'Z');
}

constexpr bool isApostrophe(char32_t c) {
    return c == U'\'' || c == 0x2019;
}

bool isSpace(char32_t c) {
    return c <= 0x20 || inRange(c, 0x7F, 0xA0) || c == 0x1680 || c == 0x180E ||
           inRange(c, 0x2000, 0x200B) || inRange(c, 0x200E, 0x200F) || inRange(c, 0x2028, 0x202F) ||
           inRange(c, 0x205F, 0x206F) || c == 0x3000 || c == 0xFEFF;
}

bool isAttach(char32_t c) {
    return inRange(c, 0x0300, 0x036F) || inRange(c, 0x1AB0, 0x1AFF) || inRange(c, 0x1DC0, 0x1DFF) ||
           inRange(c, 0x20D0, 0x20FF) || inRange(c, 0x3099, 0x309A) || inRange(c, 0xFE00, 0xFE0F) ||
           inRange(c, 0xFE20, 0xFE2F) || inRange(c, 0x1F3FB, 0x1F3FF) ||
           inRange(c, 0xE0000, 0xE007F) || inRange(c, 0xE0100, 0xE01EF);
}

bool isEmoji(char32_t c) {
    return inRange(c, 0x1F000, 0x1FAFF) || inRange(c, 0x2300, 0x23FF) ||
           inRange(c, 0x2600, 0x27BF) || inRange(c, 0x2B00, 0x2BFF);
}

bool isPunctOrSymbol(char32_t c) {
    if (inRange(c, 0xA1, 0xBF)) {
        return c != 0xAA && c != 0xB5 && c != 0xBA; // ª µ º are letters
    }
    return c == 0xD7 || c == 0xF7 || c == 0x037E || c == 0x0387 || inRange(c, 0x055A, 0x055F) ||
           inRange(c, 0x0589, 0x058A) || c == 0x05BE || c == 0x05C0 || c == 0x05C3 || c == 0x05C6 ||
           c == 0x060C || c == 0x061B || c == 0x061F || c == 0x066A || c == 0x066D || c == 0x06D4 ||
           inRange(c, 0x0964, 0x0965) || inRange(c, 0x2010, 0x2027) || inRange(c, 0x2030, 0x205E) ||
           inRange(c, 0x20A0, 0x20CF)    // currency
           || inRange(c, 0x2100, 0x25FF) // letterlike, number forms, arrows, math, box, shapes
           || inRange(c, 0x27C0, 0x2AFF) // supplemental math and arrows
           || inRange(c, 0x2E00, 0x2E7F) // supplemental punctuation
           || inRange(c, 0x3000, 0x303F) // CJK punctuation
           || inRange(c, 0xFE10, 0xFE1F) || inRange(c, 0xFE30, 0xFE6F) ||
           inRange(c, 0xFF01, 0xFF0F) || inRange(c, 0xFF1A, 0xFF20) || inRange(c, 0xFF3B, 0xFF40) ||
           inRange(c, 0xFF5B, 0xFF65) || inRange(c, 0xFFE0, 0xFFEE) || inRange(c, 0xFFF0, 0xFFFC);
}

bool isCjk(char32_t c) {
    return inRange(c, 0x3040, 0x312F)    // kana, bopomofo
           || inRange(c, 0x31A0, 0x31FF) // bopomofo ext, strokes, katakana ext
           || inRange(c, 0x3400, 0x4DBF) || inRange(c, 0x4E00, 0x9FFF) ||
           inRange(c, 0xF900, 0xFAFF) || inRange(c, 0xFF66, 0xFF9F) // halfwidth katakana
           || inRange(c, 0x20000, 0x3FFFF);
}

CharClass classify(char32_t c) {
    if (c < 0x80) {
        if (isAsciiLetter(c)) {
            return CharClass::Letter;
        }
        if (isAsciiDigit(c)) {
            return CharClass::Digit;
        }
        return isSpace(c) ? CharClass::Space : CharClass::AsciiPunct;
    }
    // Order matters where ranges overlap (U+3000 is a space inside CJK punctuation, skin tones
    // and regional indicators sit inside the emoji block, the keycap inside combining marks).
    if (c == kReplacementChar) {
        return CharClass::Replacement;
    }
    if (c == 0x200C || c == 0x200D || c == 0xAD) {
        return CharClass::Joiner;
    }
    if (isSpace(c)) {
        return CharClass::Space;
    }
    if (isAttach(c)) {
        return CharClass::Attach;
    }
    if (inRange(c, 0x1F1E6, 0x1F1FF)) {
        return CharClass::RegionalIndicator;
    }
    if (isEmoji(c)) {
        return CharClass::Emoji;
    }
    if (isPunctOrSymbol(c) || isCjk(c)) {
        return CharClass::Single;
    }
    return CharClass::Letter;
}

// Repeats of these stay one token ("...", "--"); brackets and quotes are paired delimiters, so
// each one is kept separate.
constexpr bool isRunnablePunct(char32_t c) {
    for (char32_t d : U"()[]{}<>\"'`") {
        if (c == d) {
            return false;
        }
    }
    return true;
}

char32_t asciiLower(char32_t c) {
    return inRange(c, U'A', U'Z') ? c + (U'a' - U'A') : c;
}

struct Contraction {
    bool found = false;
    std::size_t begin = 0;   // first code point of the split-off token ("'s" or "n't")
    std::size_t bodyEnd = 0; // end of its letters
};

class Scanner {
  public:
    Scanner(std::u32string cps, std::size_t maxTokens, Tokenized& out)
        : cps_(std::move(cps)), n_(cps_.size()), maxTokens_(maxTokens), out_(out) {
        classes_.reserve(n_);
        byteOffsets_.reserve(n_ + 1);
        std::size_t offset = 0;
        for (char32_t c : cps_) {
            classes_.push_back(classify(c));
            byteOffsets_.push_back(offset);
            offset += encodedLength(c);
        }
        byteOffsets_.push_back(offset);
    }

    void run() {
        std::size_t i = 0;
        while (i < n_) {
            switch (classes_[i]) {
            case CharClass::Space:
            case CharClass::Joiner:
                ++i;
                break;
            case CharClass::Letter:
            case CharClass::Digit:
                i = scanWords(i);
                break;
            case CharClass::AsciiPunct: {
                std::size_t end = i + 1;
                if (isRunnablePunct(cps_[i])) {
                    while (end < n_ && cps_[end] == cps_[i]) {
                        ++end;
                    }
                }
                i = emit(i, skipAttachments(end));
                break;
            }
            case CharClass::Emoji:
                i = emit(i, emojiEnd(i));
                break;
            case CharClass::RegionalIndicator: {
                std::size_t end = i + 1;
                if (end < n_ && classes_[end] == CharClass::RegionalIndicator) {
                    ++end; // two indicators form one flag
                }
                i = emit(i, skipAttachments(end));
                break;
            }
            case CharClass::Attach: // leading attachment: nothing to attach to
            case CharClass::Single:
            case CharClass::Replacement:
                i = emit(i, skipAttachments(i + 1));
                break;
            }
        }
    }

  private:
    static std::size_t encodedLength(char32_t c) {
        // The input is sanitized, so every code point is a valid scalar encoded minimally.
        return c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
    }

    std::size_t emit(std::size_t begin, std::size_t end) {
        if (out_.tokens.size() < maxTokens_) {
            const std::size_t b = byteOffsets_[begin];
            const std::size_t e = byteOffsets_[end];
            out_.tokens.push_back(Token{out_.text.substr(b, e - b), b, e});
        } else {
            ++out_.droppedTokens; // keep scanning only to count: still linear
        }
        return end;
    }

    std::size_t skipAttachments(std::size_t i) const {
        while (i < n_ && classes_[i] == CharClass::Attach) {
            ++i;
        }
        return i;
    }

    std::size_t emojiEnd(std::size_t i) const {
        std::size_t end = skipAttachments(i + 1);
        while (end + 1 < n_ && cps_[end] == 0x200D && classes_[end + 1] == CharClass::Emoji) {
            end = skipAttachments(end + 2);
        }
        return end;
    }

    bool isWordPart(std::size_t i) const {
        const CharClass k = classes_[i];
        return k == CharClass::Letter || k == CharClass::Digit || k == CharClass::Attach;
    }

    // Checks whether the apostrophe at `apos` (which follows a word character) starts a
    // contraction suffix. Looks at no more than three letters, so scanning stays linear.
    Contraction contractionAt(std::size_t apos) const {
        std::size_t q = apos + 1;
        while (q < n_ && q - apos <= 3 && isAsciiLetter(cps_[q])) {
            ++q;
        }
        const std::size_t length = q - apos - 1;
        if (length == 0 || length > 2 || (q < n_ && isWordPart(q))) {
            return {};
        }
        const char32_t first = asciiLower(cps_[apos + 1]);
        const char32_t second = length == 2 ? asciiLower(cps_[apos + 2]) : 0;
        if (length == 1 && first == U't') {
            const char32_t before = asciiLower(cps_[apos - 1]);
            return before == U'n' ? Contraction{true, apos - 1, q} : Contraction{};
        }
        const bool matches = (length == 1 && (first == U's' || first == U'm' || first == U'd')) ||
                             (first == U'r' && second == U'e') ||
                             (first == U'v' && second == U'e') || (first == U'l' && second == U'l');
        return matches ? Contraction{true, apos, q} : Contraction{};
    }

    // End of the word that starts at `start`, scanning from `from`. Stops early at a contraction
    // and reports it so the caller can emit it as its own token.
    std::size_t wordEnd(std::size_t start, std::size_t from, Contraction& split) const {
        std::size_t p = from;
        while (p < n_) {
            if (isWordPart(p)) {
                ++p;
                continue;
            }
            const char32_t c = cps_[p];
            const bool letterNext = p + 1 < n_ && classes_[p + 1] == CharClass::Letter;
            const bool wordNext = letterNext || (p + 1 < n_ && classes_[p + 1] == CharClass::Digit);
            if (classes_[p] == CharClass::Joiner && wordNext) {
                ++p;
                continue;
            }
            if ((c == U'.' || c == U',') && isAsciiDigit(cps_[p - 1]) && p + 1 < n_ &&
                isAsciiDigit(cps_[p + 1])) {
                p += 2;
                continue;
            }
            if (isApostrophe(c)) {
                const Contraction found = contractionAt(p);
                if (found.found && found.begin > start) {
                    split = found;
                    return found.begin;
                }
                if (found.found) {
                    // The whole word is "n't": nothing to split off.
                    p = found.bodyEnd;
                    continue;
                }
                if (letterNext) {
                    ++p; // "O'Brien", "o'clock"
                    continue;
                }
            }
            break;
        }
        return p;
    }

    // Emits a word and any contractions chained after it ("I'd've"); returns where it stopped.
    std::size_t scanWords(std::size_t start) {
        std::size_t from = start + 1;
        for (;;) {
            Contraction split;
            const std::size_t end = wordEnd(start, from, split);
            emit(start, end);
            if (!split.found) {
                return end;
            }
            start = split.begin;
            from = split.bodyEnd;
        }
    }

    std::u32string cps_;
    std::size_t n_;
    std::size_t maxTokens_;
    Tokenized& out_;
    std::vector<CharClass> classes_;
    std::vector<std::size_t> byteOffsets_;
};

} // namespace

Tokenized tokenize(std::string_view text, std::size_t maxTokens) {
    Tokenized result;
    result.text = sanitizeUtf8(text);
    Scanner scanner(decodeUtf8(result.text), maxTokens, result);
    scanner.run();
    return result;
}

} // namespace core
