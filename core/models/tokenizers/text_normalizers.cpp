// tokenizer.json's normalizers (text_pipeline.h).
#include "io/json_fields.h"
#include "models/tokenizers/text_pipeline.h"
#include "models/tokenizers/tokenizer_unicode.h"
#include "text/utf8.h"

#include <algorithm>
#include <stdexcept>

namespace core::models {
namespace {

std::u32string codePoints(const std::string& utf8, const JsonFields& fields, const char* name) {
    if (firstInvalidUtf8(utf8) != std::string::npos)
        fields.bad(std::string(name) + " is not UTF-8");
    return decodeUtf8(utf8);
}

// Where the extended grapheme cluster (UAX #29) starting at `i` ends, as far as Precompiled
// needs it: CR LF is one; a control (Cc, Cf, Zl, Zp) stands alone; anything else takes the
// Extend, ZWJ and SpacingMark characters after it (combining marks, ZWNJ / ZWJ, emoji
// modifiers, tags, the halfwidth sound marks). Prepend, Hangul syllable, emoji ZWJ and flag
// rules are left out: what they join is 6 bytes or more, which Precompiled reads per character.
std::size_t graphemeEnd(const UnitText& text, std::size_t i) {
    const auto extends = [](char32_t cp) {
        const GeneralCategory c = generalCategory(cp);
        return c == GeneralCategory::Mn || c == GeneralCategory::Me || c == GeneralCategory::Mc ||
               cp == 0x200C || cp == 0x200D || (cp >= 0x1F3FB && cp <= 0x1F3FF) ||
               (cp >= 0xE0020 && cp <= 0xE007F) || cp == 0xFF9E || cp == 0xFF9F;
    };
    const char32_t cp = text[i].cp;
    if (cp == U'\r' && i + 1 < text.size() && text[i + 1].cp == U'\n') return i + 2;
    const GeneralCategory c = generalCategory(cp);
    if (!extends(cp) && (c == GeneralCategory::Cc || c == GeneralCategory::Cf ||
                         c == GeneralCategory::Zl || c == GeneralCategory::Zp))
        return i + 1;
    std::size_t end = i + 1;
    while (end < text.size() && extends(text[end].cp)) ++end;
    return end;
}

} // namespace

std::string typeOfPart(const nlohmann::json& spec, const char* part) {
    if (!spec.is_object() || !spec.contains("type") || !spec["type"].is_string())
        throw std::invalid_argument(std::string("a ") + part + " without a \"type\"");
    return spec["type"].get<std::string>();
}

void readPattern(const JsonFields& fields, std::u32string& literal,
                 std::shared_ptr<const CodePointRegex>& regex) {
    const nlohmann::json& pattern = fields.at("pattern");
    if (pattern.is_object() && pattern.contains("String") && pattern["String"].is_string()) {
        literal = codePoints(pattern["String"].get<std::string>(), fields, "the pattern");
        if (literal.empty()) fields.bad("the pattern is empty");
    } else if (pattern.is_object() && pattern.contains("Regex") && pattern["Regex"].is_string()) {
        regex = std::make_shared<CodePointRegex>(pattern["Regex"].get<std::string>());
    } else {
        fields.bad("\"pattern\" is neither {\"String\": ...} nor {\"Regex\": ...}");
    }
}

// Where `literal` (or else `regex`) matches `text`: leftmost, not overlapping, as [begin, end).
std::vector<std::pair<std::size_t, std::size_t>> patternMatches(const std::u32string& literal,
                                                                const CodePointRegex* regex,
                                                                std::u32string_view text) {
    if (regex) return regex->findAll(text);
    std::vector<std::pair<std::size_t, std::size_t>> found;
    for (std::size_t at = text.find(literal); at != std::u32string_view::npos;
         at = text.find(literal, at + literal.size()))
        found.emplace_back(at, at + literal.size());
    return found;
}

TextNormalizer TextNormalizer::read(const nlohmann::json& spec) {
    return read(spec, 0);
}

TextNormalizer TextNormalizer::read(const nlohmann::json& spec, int depth) {
    TextNormalizer n;
    if (spec.is_null()) return n;
    const std::string type = typeOfPart(spec, "normalizer");
    const JsonFields fields(spec, "normalizer \"" + type + "\": ");
    if (type == "Sequence") {
        n.kind_ = Kind::Sequence;
        if (depth >= 32) fields.bad("Sequences nest more than 32 deep");
        const nlohmann::json& steps = fields.at("normalizers");
        if (!steps.is_array()) fields.bad("\"normalizers\" is not a list");
        for (const nlohmann::json& step : steps) n.steps_.push_back(read(step, depth + 1));
    } else if (type == "NFC" || type == "NFD" || type == "NFKC" || type == "NFKD") {
        n.kind_ = Kind::Unicode;
        n.form_ = type == "NFC"    ? NormalForm::NFC
                  : type == "NFD"  ? NormalForm::NFD
                  : type == "NFKC" ? NormalForm::NFKC
                                   : NormalForm::NFKD;
    } else if (type == "Lowercase") {
        n.kind_ = Kind::Lowercase;
    } else if (type == "StripAccents") {
        n.kind_ = Kind::StripAccents;
    } else if (type == "Strip") {
        n.kind_ = Kind::Strip;
        n.left_ = fields.boolean("strip_left", false),
        n.right_ = fields.boolean("strip_right", false);
    } else if (type == "Prepend") {
        n.kind_ = Kind::Prepend;
        n.text_ = codePoints(fields.string("prepend", ""), fields, "\"prepend\"");
    } else if (type == "Replace") {
        n.kind_ = Kind::Replace;
        readPattern(fields, n.text_, n.regex_);
        if (!fields.at("content").is_string()) fields.bad("\"content\" is not a string");
        n.content_ = codePoints(fields.string("content", ""), fields, "\"content\"");
    } else if (type == "Precompiled") {
        n.kind_ = Kind::Precompiled;
        if (!fields.at("precompiled_charsmap").is_string())
            fields.bad("\"precompiled_charsmap\" is not a string");
        try {
            const std::string blob = decodeBase64(fields.string("precompiled_charsmap", ""));
            n.charsmap_ = std::make_shared<const PrecompiledCharsmap>(
                blob.empty() ? PrecompiledCharsmap() : PrecompiledCharsmap(blob));
        } catch (const std::invalid_argument& e) {
            fields.bad(e.what());
        }
    } else {
        throw std::invalid_argument("normalizer \"" + type + "\" is not supported");
    }
    return n;
}

// Each match becomes the content, its code points standing for the bytes the match stood for.
void TextNormalizer::replace(UnitText& text) const {
    UnitText out;
    std::size_t done = 0;
    for (const auto& [begin, end] : patternMatches(text_, regex_.get(), codePointsOf(text))) {
        out.insert(out.end(), text.begin() + std::ptrdiff_t(done),
                   text.begin() + std::ptrdiff_t(begin));
        const std::uint32_t at = begin < text.size() ? text[begin].begin
                                 : text.empty()      ? 0
                                                     : text.back().end;
        const std::uint32_t to = begin < end ? text[end - 1].end : at;
        for (char32_t cp : content_) out.push_back({cp, at, to});
        done = end;
    }
    out.insert(out.end(), text.begin() + std::ptrdiff_t(done), text.end());
    text = std::move(out);
}

// Each grapheme cluster under 6 bytes that a key starts becomes the string of the shortest such
// key, whole; else each of its characters that is a key becomes its string (Hugging Face's
// Precompiled; sentencepiece itself takes the longest key anywhere: spm_normalizer.h). Every
// code point of a replacement stands for the bytes it replaced.
void TextNormalizer::precompiled(UnitText& text) const {
    UnitText out;
    const auto replace = [&](std::size_t from, std::size_t to) {
        const std::string bytes = utf8Of(text, from, to);
        const PrecompiledCharsmap::Match m = charsmap_->shortest(bytes);
        if (m.length == 0) return false;
        for (char32_t cp : decodeUtf8(sanitizeUtf8(m.output)))
            out.push_back({cp, text[from].begin, text[to - 1].end});
        return true;
    };
    for (std::size_t i = 0; i < text.size();) {
        const std::size_t end = graphemeEnd(text, i);
        if (utf8Of(text, i, end).size() >= 6 || !replace(i, end))
            for (std::size_t k = i; k < end; ++k)
                if (!replace(k, k + 1)) out.push_back(text[k]);
        i = end;
    }
    text = std::move(out);
}

void TextNormalizer::apply(UnitText& text) const {
    switch (kind_) {
    case Kind::None:
        return;
    case Kind::Sequence:
        for (const TextNormalizer& step : steps_) step.apply(text);
        return;
    case Kind::Unicode:
        return normalizeUnicode(text, form_);
    case Kind::Lowercase:
        return lowercaseUnits(text);
    case Kind::StripAccents:
        std::erase_if(text, [](const TextUnit& u) {
            const GeneralCategory c = generalCategory(u.cp);
            return c == GeneralCategory::Mn || c == GeneralCategory::Mc || c == GeneralCategory::Me;
        });
        return;
    case Kind::Strip: {
        std::size_t begin = 0, end = text.size();
        while (left_ && begin < end && isWhiteSpace(text[begin].cp)) ++begin;
        while (right_ && end > begin && isWhiteSpace(text[end - 1].cp)) --end;
        text = UnitText(text.begin() + std::ptrdiff_t(begin), text.begin() + std::ptrdiff_t(end));
        return;
    }
    case Kind::Prepend:
        if (!text.empty()) {
            UnitText prefixed = insertedUnits(text_, text.front().begin);
            prefixed.insert(prefixed.end(), text.begin(), text.end());
            text = std::move(prefixed);
        }
        return;
    case Kind::Replace:
        return replace(text);
    case Kind::Precompiled:
        return precompiled(text);
    }
}

} // namespace core::models
