// tokenizer.json's pre-tokenizers (text_pipeline.h).
#include "io/json_fields.h"
#include "models/tokenizers/text_pipeline.h"
#include "models/tokenizers/tokenizer_unicode.h"
#include "text/utf8.h"

#include <array>
#include <cstdint>
#include <functional>
#include <stdexcept>

namespace core::models {
namespace {

using Matches = std::vector<std::pair<std::size_t, std::size_t>>;

// GPT-2's pattern, which ByteLevel's use_regex splits with (tokenizers' byte_level.rs).
const CodePointRegex& gpt2Pattern() {
    static const CodePointRegex regex(
        R"('s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+)");
    return regex;
}

const CodePointRegex& wordsPattern() { // Whitespace's: words, and runs of other non-spaces
    static const CodePointRegex regex(R"(\w+|[^\w\s]+)");
    return regex;
}

Matches charMatches(const UnitText& text, const std::function<bool(char32_t)>& is) {
    Matches found;
    for (std::size_t i = 0; i < text.size(); ++i)
        if (is(text[i].cp)) found.emplace_back(i, i + 1);
    return found;
}

// The pieces of `text` as tokenizers' NormalizedString::split cuts them: the matches and the
// stretches between them, grouped by the behavior; empty pieces are dropped.
void cut(const UnitText& text, const Matches& matches, SplitBehavior behavior, bool invert,
         std::vector<UnitText>& out) {
    struct Part {
        std::size_t begin, end;
        bool match;
    };
    std::vector<Part> parts;
    std::size_t done = 0;
    for (const auto& [begin, end] : matches) {
        if (done < begin) parts.push_back({done, begin, invert});
        parts.push_back({begin, end, !invert});
        done = end;
    }
    if (done < text.size()) parts.push_back({done, text.size(), invert});
    std::vector<Part> grouped;
    const auto extendLast = [&](const Part& p) {
        if (grouped.empty())
            grouped.push_back(p);
        else
            grouped.back().end = p.end;
    };
    std::size_t pending = SIZE_MAX; // MergedWithNext: where the match before this part began
    for (std::size_t k = 0; k < parts.size(); ++k) {
        Part p = parts[k];
        const bool previousMatch = k > 0 && parts[k - 1].match;
        if (behavior == SplitBehavior::Removed) {
            if (!p.match) grouped.push_back(p);
        } else if (behavior == SplitBehavior::Isolated) {
            grouped.push_back(p);
        } else if (behavior == SplitBehavior::Contiguous) {
            if (p.match == previousMatch)
                extendLast(p);
            else
                grouped.push_back(p);
        } else if (behavior == SplitBehavior::MergedWithPrevious) {
            if (p.match && !previousMatch)
                extendLast(p);
            else
                grouped.push_back(p);
        } else if (p.match && k + 1 < parts.size() && !parts[k + 1].match) {
            pending = p.begin; // MergedWithNext: the match starts the piece after it
        } else {
            if (pending != SIZE_MAX) p.begin = pending, pending = SIZE_MAX;
            grouped.push_back(p);
        }
    }
    for (const Part& p : grouped)
        if (p.begin < p.end)
            out.emplace_back(text.begin() + std::ptrdiff_t(p.begin),
                             text.begin() + std::ptrdiff_t(p.end));
}

SplitBehavior behaviorOf(const JsonFields& fields) {
    const std::string name = fields.string("behavior", "");
    static const std::pair<const char*, SplitBehavior> kNames[] = {
        {"Removed", SplitBehavior::Removed},
        {"Isolated", SplitBehavior::Isolated},
        {"MergedWithPrevious", SplitBehavior::MergedWithPrevious},
        {"MergedWithNext", SplitBehavior::MergedWithNext},
        {"Contiguous", SplitBehavior::Contiguous}};
    for (const auto& [n, b] : kNames)
        if (name == n) return b;
    fields.bad("\"behavior\" \"" + name +
               "\" is not one of Removed, Isolated, "
               "MergedWithPrevious, MergedWithNext, Contiguous");
}

bool isNumeric(char32_t cp) { // Rust's char::is_numeric: Nd, Nl, No
    const GeneralCategory c = generalCategory(cp);
    return c == GeneralCategory::Nd || c == GeneralCategory::Nl || c == GeneralCategory::No;
}

} // namespace

char32_t byteLevelChar(unsigned char byte) {
    static const std::array<char32_t, 256> table = [] {
        std::array<char32_t, 256> t{};
        char32_t next = 0x100;
        for (int b = 0; b < 256; ++b) {
            const bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || b >= 0xAE;
            t[std::size_t(b)] = printable ? char32_t(b) : next++;
        }
        return t;
    }();
    return table[byte];
}

int byteLevelByte(char32_t cp) {
    static const std::array<int, 0x144> table = [] {
        std::array<int, 0x144> t;
        t.fill(-1);
        for (int b = 0; b < 256; ++b) t[byteLevelChar(static_cast<unsigned char>(b))] = b;
        return t;
    }();
    return cp < table.size() ? table[cp] : -1;
}

PreTokenizer PreTokenizer::read(const nlohmann::json& spec) {
    return read(spec, 0);
}

PreTokenizer PreTokenizer::read(const nlohmann::json& spec, int depth) {
    PreTokenizer p;
    if (spec.is_null()) return p;
    const std::string type = typeOfPart(spec, "pre_tokenizer");
    const JsonFields fields(spec, "pre_tokenizer \"" + type + "\": ");
    if (type == "Sequence") {
        p.kind_ = Kind::Sequence;
        if (depth >= 32) fields.bad("Sequences nest more than 32 deep");
        const nlohmann::json& steps = fields.at("pretokenizers");
        if (!steps.is_array()) fields.bad("\"pretokenizers\" is not a list");
        for (const nlohmann::json& step : steps) p.steps_.push_back(read(step, depth + 1));
    } else if (type == "ByteLevel") {
        p.kind_ = Kind::ByteLevel;
        p.prefixSpace_ = fields.boolean("add_prefix_space", true);
        p.useRegex_ = fields.boolean("use_regex", true);
    } else if (type == "Split") {
        p.kind_ = Kind::Split;
        readPattern(fields, p.literal_, p.regex_);
        p.behavior_ = behaviorOf(fields);
        p.invert_ = fields.boolean("invert", false);
    } else if (type == "Metaspace") {
        p.kind_ = Kind::Metaspace;
        readMetaspace(fields, p);
    } else if (type == "Digits") {
        p.kind_ = Kind::Digits;
        p.individual_ = fields.boolean("individual_digits", false);
    } else if (type == "Whitespace" || type == "WhitespaceSplit") {
        p.kind_ = type == "Whitespace" ? Kind::Whitespace : Kind::WhitespaceSplit;
    } else {
        throw std::invalid_argument("pre_tokenizer \"" + type + "\" is not supported");
    }
    return p;
}

void PreTokenizer::readMetaspace(const JsonFields& fields, PreTokenizer& p) {
    const std::u32string replacement = decodeUtf8(fields.string("replacement", "\u2581"));
    if (replacement.size() != 1) fields.bad("\"replacement\" is not one character");
    p.replacement_ = replacement[0];
    const std::string scheme = fields.string("prepend_scheme", "always");
    if (scheme != "always" && scheme != "first" && scheme != "never")
        fields.bad("\"prepend_scheme\" is not always, first or never");
    p.prepend_ = scheme == "always"  ? Prepend::Always
                 : scheme == "first" ? Prepend::First
                                     : Prepend::Never;
    if (fields.has("add_prefix_space") && !fields.at("add_prefix_space").is_null() &&
        !fields.boolean("add_prefix_space", true)) { // the older spelling of "never"
        if (p.prepend_ != Prepend::Never)
            fields.bad("add_prefix_space does not match declared prepend_scheme");
        p.prepend_ = Prepend::Never;
    }
    p.split_ =
        fields.has("split") && fields.at("split").is_null() ? true : fields.boolean("split", true);
}

std::vector<UnitText> PreTokenizer::apply(UnitText text) const {
    std::vector<UnitText> pieces;
    if (!text.empty()) pieces.push_back(std::move(text));
    run(pieces);
    return pieces;
}

void PreTokenizer::run(std::vector<UnitText>& pieces) const {
    std::vector<UnitText> out;
    const auto each = [&](const std::function<void(const UnitText&)>& f) {
        for (const UnitText& piece : pieces) f(piece);
        pieces = std::move(out);
    };
    switch (kind_) {
    case Kind::None:
        return;
    case Kind::Sequence:
        for (const PreTokenizer& step : steps_) step.run(pieces);
        return;
    case Kind::ByteLevel:
        return splitByteLevel(pieces);
    case Kind::Metaspace:
        return splitMetaspace(pieces);
    case Kind::Split:
        return each([&](const UnitText& t) {
            cut(t, patternMatches(literal_, regex_.get(), codePointsOf(t)), behavior_, invert_,
                out);
        });
    case Kind::Digits:
        return each([&](const UnitText& t) {
            cut(t, charMatches(t, isNumeric),
                individual_ ? SplitBehavior::Isolated : SplitBehavior::Contiguous, false, out);
        });
    case Kind::Whitespace:
        return each([&](const UnitText& t) {
            cut(t, wordsPattern().findAll(codePointsOf(t)), SplitBehavior::Removed, true, out);
        });
    case Kind::WhitespaceSplit:
        return each([&](const UnitText& t) {
            cut(t, charMatches(t, isWhiteSpace), SplitBehavior::Removed, false, out);
        });
    }
}

// A space before each piece that does not start with one (add_prefix_space), GPT-2's pattern
// (use_regex), then each byte of each piece a character of the byte-level alphabet: a byte of
// a character left as the text had it stands for that byte, else for the whole character.
void PreTokenizer::splitByteLevel(std::vector<UnitText>& pieces) const {
    std::vector<UnitText> split;
    for (UnitText& piece : pieces) {
        if (prefixSpace_ && piece.front().cp != U' ')
            piece.insert(piece.begin(), TextUnit{U' ', piece.front().begin, piece.front().begin});
        if (useRegex_)
            cut(piece, gpt2Pattern().findAll(codePointsOf(piece)), SplitBehavior::Isolated, false,
                split);
        else
            split.push_back(std::move(piece));
    }
    pieces.clear();
    for (const UnitText& piece : split) {
        UnitText bytes;
        std::string utf8;
        for (const TextUnit& u : piece) {
            utf8.clear();
            appendUtf8(utf8, u.cp);
            const bool exact = u.end - u.begin == utf8.size();
            for (std::size_t k = 0; k < utf8.size(); ++k)
                bytes.push_back({byteLevelChar(static_cast<unsigned char>(utf8[k])),
                                 exact ? u.begin + std::uint32_t(k) : u.begin,
                                 exact ? u.begin + std::uint32_t(k + 1) : u.end});
        }
        pieces.push_back(std::move(bytes));
    }
}

// Spaces become the replacement, which starts the piece (prepend_scheme; "first" only for the
// piece at the text's start) and, with split, each word.
void PreTokenizer::splitMetaspace(std::vector<UnitText>& pieces) const {
    std::vector<UnitText> out;
    for (UnitText& piece : pieces) {
        for (TextUnit& u : piece)
            if (u.cp == U' ') u.cp = replacement_;
        const bool prepend =
            prepend_ == Prepend::Always || (prepend_ == Prepend::First && piece.front().begin == 0);
        if (prepend && piece.front().cp != replacement_)
            piece.insert(piece.begin(),
                         TextUnit{replacement_, piece.front().begin, piece.front().begin});
        if (split_)
            cut(piece, charMatches(piece, [&](char32_t cp) { return cp == replacement_; }),
                SplitBehavior::MergedWithNext, false, out);
        else
            out.push_back(std::move(piece));
    }
    pieces = std::move(out);
}

bool PreTokenizer::byteLevel() const {
    if (kind_ == Kind::ByteLevel) return true;
    for (const PreTokenizer& step : steps_)
        if (step.byteLevel()) return true;
    return false;
}

void PreTokenizer::setAddPrefixSpace(bool on) {
    if (kind_ == Kind::ByteLevel) prefixSpace_ = on;
    for (PreTokenizer& step : steps_) step.setAddPrefixSpace(on);
}

char32_t PreTokenizer::metaspace() const {
    if (kind_ == Kind::Metaspace) return replacement_;
    for (const PreTokenizer& step : steps_)
        if (const char32_t r = step.metaspace()) return r;
    return 0;
}

} // namespace core::models
