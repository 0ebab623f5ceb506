// SentencePiece's normalizer (spm_normalizer.h), step for step as normalizer.cc does it.
#include "models/tokenizers/spm_normalizer.h"

#include <algorithm>
#include <stdexcept>

namespace core::models {
namespace {

constexpr std::string_view kSpaceMark = "\xe2\x96\x81"; // U+2581

// A UTF-8 character's length from its first byte, within the text.
std::size_t charLength(std::string_view s) {
    const auto b = static_cast<unsigned char>(s[0]);
    const std::size_t n = b < 0xc0 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
    return std::min(n, s.size());
}

} // namespace

// The charsmap decoded once; the user-defined pieces as a trie for the prefix match.
SpmNormalizer::SpmNormalizer(const SentencePieceModel& model)
    : spec_(model.normalizer), suffix_(model.treatWhitespaceAsSuffix) {
    if (!spec_.precompiledCharsmap.empty()) {
        try {
            charsmap_ = PrecompiledCharsmap(spec_.precompiledCharsmap);
        } catch (const std::invalid_argument& e) {
            throw std::invalid_argument(model.path + ": " + e.what());
        }
    }
    std::vector<std::pair<std::string_view, int>> symbols;
    for (std::size_t id = 0; id < model.pieces.size(); ++id)
        if (model.pieces[id].type == SpmPieceType::UserDefined)
            symbols.emplace_back(model.pieces[id].text, int(id));
    userDefined_.build(std::move(symbols));
}

// normalizer.cc's NormalizePrefix: a user-defined symbol as typed, else the charsmap's
// longest key, else one character.
SpmNormalizer::Prefix SpmNormalizer::prefix(std::string_view input) const {
    std::size_t longest = 0;
    userDefined_.prefixes(input, [&](std::size_t length, int) { longest = length; });
    if (longest > 0) return {input.substr(0, longest), longest};
    if (const PrecompiledCharsmap::Match m = charsmap_.longest(input); m.length > 0)
        return {m.output, m.length};
    const std::size_t n = charLength(input);
    return {input.substr(0, n), n};
}

// Bytes of the result, each spaces as the mark when escaping, all from input byte `at`.
void SpmNormalizer::append(SpmNormalized& n, std::string_view piece, std::uint32_t at) const {
    for (const char c : piece) {
        const std::string_view add =
            spec_.escapeWhitespaces && c == ' ' ? kSpaceMark : std::string_view(&c, 1);
        n.text += add;
        n.toInput.insert(n.toInput.end(), add.size(), at);
    }
}

// normalizer.cc's Normalize: leading spaces, the dummy prefix, each prefix with runs of spaces
// squeezed, trailing spaces, each output byte keeping its input byte.
SpmNormalized SpmNormalizer::normalize(std::string_view input) const {
    SpmNormalized n;
    std::uint32_t consumed = 0;
    const bool squeeze = spec_.removeExtraWhitespaces;
    while (squeeze && !input.empty()) { // leading spaces
        const Prefix p = prefix(input);
        if (p.out != " ") break;
        input.remove_prefix(p.consumed), consumed += std::uint32_t(p.consumed);
    }
    if (input.empty()) {
        n.toInput.push_back(consumed);
        return n;
    }
    if (!suffix_ && spec_.addDummyPrefix) append(n, " ", consumed);
    bool prevSpace = squeeze;
    while (!input.empty()) {
        const Prefix p = prefix(input);
        std::string_view out = p.out;
        while (prevSpace && !out.empty() && out.front() == ' ') out.remove_prefix(1);
        if (!out.empty()) {
            append(n, out, consumed);
            prevSpace = out.back() == ' ';
        }
        consumed += std::uint32_t(p.consumed);
        input.remove_prefix(p.consumed);
        if (!squeeze) prevSpace = false;
    }
    if (squeeze) { // trailing spaces
        const std::string_view space = spec_.escapeWhitespaces ? kSpaceMark : " ";
        while (n.text.size() >= space.size() &&
               std::string_view(n.text).substr(n.text.size() - space.size()) == space) {
            const std::size_t length = n.text.size() - space.size();
            consumed = n.toInput[length];
            n.text.resize(length), n.toInput.resize(length);
        }
    }
    if (suffix_ && spec_.addDummyPrefix) append(n, " ", consumed);
    n.toInput.push_back(consumed);
    return n;
}

} // namespace core::models
