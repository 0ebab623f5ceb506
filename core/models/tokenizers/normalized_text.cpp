// Text as aligned code points, and its Unicode normalization (normalized_text.h).
#include "models/tokenizers/normalized_text.h"

#include "models/tokenizers/tokenizer_unicode.h"
#include "models/tokenizers/wordpiece_unicode.h"
#include "text/utf8.h"

#include <algorithm>

namespace core::models {
namespace {

// Hangul syllables are composed and decomposed by the algorithm of Unicode's chapter 3.12.
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kNCount = 588, kSCount = 11172;

bool isHangulSyllable(char32_t cp) {
    return cp >= kSBase && cp < kSBase + kSCount;
}
bool isJamoVowelOrTrail(char32_t cp) {
    return (cp >= kVBase && cp < kVBase + kVCount) || (cp > kTBase && cp < kTBase + kTCount);
}

void decompose(char32_t cp, bool compatibility, std::u32string& out) {
    std::u32string parts;
    if (compatibility && !isHangulSyllable(cp) && appendCompatibilityDecomposition(cp, parts)) {
        for (char32_t part : parts) appendCanonicalDecomposition(part, out); // a Hangul part
        return;
    }
    appendCanonicalDecomposition(cp, out);
}

char32_t compose(char32_t first, char32_t second) {
    if (first >= kLBase && first < kLBase + kLCount && second >= kVBase &&
        second < kVBase + kVCount)
        return kSBase + ((first - kLBase) * kVCount + (second - kVBase)) * kTCount;
    if (isHangulSyllable(first) && (first - kSBase) % kTCount == 0 && second > kTBase &&
        second < kTBase + kTCount)
        return first + (second - kTBase);
    return composePair(first, second);
}

// Canonical ordering: each run of non-starters sorted by combining class, stably.
void reorder(std::u32string& cps) {
    for (std::size_t i = 0; i < cps.size();) {
        std::size_t end = i;
        while (end < cps.size() && combiningClass(cps[end]) != 0) ++end;
        if (end - i > 1)
            std::stable_sort(cps.begin() + i, cps.begin() + end, [](char32_t a, char32_t b) {
                return combiningClass(a) < combiningClass(b);
            });
        i = end == i ? i + 1 : end;
    }
}

// Canonical composition (UAX #15's algorithm): each code point joins the last starter unless
// something between them blocks it.
void composeAll(std::u32string& cps) {
    if (cps.empty()) return;
    std::size_t starter = 0, kept = 1;
    int lastClass = combiningClass(cps[0]) == 0 ? 0 : 256;
    for (std::size_t i = 1; i < cps.size(); ++i) {
        const char32_t cp = cps[i];
        const int cls = combiningClass(cp);
        const char32_t composite = lastClass == 256 ? 0 : compose(cps[starter], cp);
        if (composite != 0 && (lastClass < cls || lastClass == 0)) {
            cps[starter] = composite;
            continue;
        }
        if (cls == 0) starter = kept;
        lastClass = cls;
        cps[kept++] = cp;
    }
    cps.resize(kept);
}

// Nothing before cp's decomposition can reorder or compose with it: a stretch starts there.
bool startsStretch(char32_t cp, bool compatibility) {
    if (cp < 0x80) return true;
    std::u32string parts;
    decompose(cp, compatibility, parts);
    const char32_t first = parts[0];
    return combiningClass(first) == 0 && !composesWithPrevious(first) && !isJamoVowelOrTrail(first);
}

} // namespace

void appendCanonicalDecomposition(char32_t cp, std::u32string& out) {
    if (isHangulSyllable(cp)) {
        const char32_t s = cp - kSBase;
        out += kLBase + s / kNCount;
        out += kVBase + (s % kNCount) / kTCount;
        if (s % kTCount != 0) out += kTBase + s % kTCount;
        return;
    }
    if (!appendDecomposition(cp, out)) out += cp;
}

UnitText unitsOf(std::string_view text, std::size_t base) {
    UnitText units;
    units.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        std::size_t length = utf8Length(text, i);
        if (length == 0) length = 1; // not reached for valid text; never loops
        const char32_t cp = codePointAt(text, i, length);
        units.push_back({cp, std::uint32_t(base + i), std::uint32_t(base + i + length)});
        i += length;
    }
    return units;
}

std::string utf8Of(const UnitText& text, std::size_t from, std::size_t to) {
    std::string out;
    out.reserve(to - from);
    for (std::size_t i = from; i < to; ++i) appendUtf8(out, text[i].cp);
    return out;
}

std::u32string codePointsOf(const UnitText& text) {
    std::u32string cps;
    cps.reserve(text.size());
    for (const TextUnit& u : text) cps += u.cp;
    return cps;
}

UnitText insertedUnits(std::u32string_view text, std::uint32_t at) {
    UnitText units;
    for (char32_t cp : text) units.push_back({cp, at, at});
    return units;
}

void normalizeUnicode(UnitText& text, NormalForm form) {
    const bool compatibility = form == NormalForm::NFKD || form == NormalForm::NFKC;
    const bool composed = form == NormalForm::NFC || form == NormalForm::NFKC;
    UnitText out;
    out.reserve(text.size());
    std::u32string cps;
    for (std::size_t i = 0; i < text.size();) {
        std::size_t end = i + 1;
        while (end < text.size() && !startsStretch(text[end].cp, compatibility)) ++end;
        if (end == i + 1 && text[i].cp < 0x80) { // ASCII alone: itself
            out.push_back(text[i++]);
            continue;
        }
        cps.clear();
        std::uint32_t begin = text[i].begin, last = text[i].end;
        for (std::size_t k = i; k < end; ++k) {
            decompose(text[k].cp, compatibility, cps);
            begin = std::min(begin, text[k].begin), last = std::max(last, text[k].end);
        }
        reorder(cps);
        if (composed) composeAll(cps);
        if (end == i + 1 && cps.size() == 1 && cps[0] == text[i].cp)
            out.push_back(text[i]);
        else
            for (char32_t cp : cps) out.push_back({cp, begin, last});
        i = end;
    }
    text = std::move(out);
}

void lowercaseUnits(UnitText& text) {
    UnitText out;
    out.reserve(text.size());
    std::u32string lower;
    for (const TextUnit& unit : text) {
        lower.clear();
        appendLowercase(unit.cp, lower);
        for (char32_t cp : lower) out.push_back({cp, unit.begin, unit.end});
    }
    text = std::move(out);
}

} // namespace core::models
