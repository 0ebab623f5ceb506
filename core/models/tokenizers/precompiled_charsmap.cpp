// The precompiled charsmap's double-array trie walked as darts-clone walks it
// (precompiled_charsmap.h), each step checked against the array's end.
#include "models/tokenizers/precompiled_charsmap.h"

#include <stdexcept>

namespace core::models {
namespace {

// darts-clone's unit: bit 8 says a leaf hangs below, the low byte (and the top bit, set on
// leaves) is the label, a leaf's low 31 bits its value, bits 10.. the offset to the children
// (shifted left 8 more when bit 9 is set).
bool hasLeaf(std::uint32_t u) {
    return (u >> 8) & 1;
}
std::uint32_t valueOf(std::uint32_t u) {
    return u & 0x7fffffffu;
}
std::uint32_t labelOf(std::uint32_t u) {
    return u & (0x80000000u | 0xffu);
}
std::uint32_t offsetOf(std::uint32_t u) {
    return (u >> 10) << ((u & (1u << 9)) >> 6);
}

std::uint32_t littleEndian32(std::string_view bytes, std::size_t at) {
    std::uint32_t v = 0;
    for (int k = 3; k >= 0; --k)
        v = (v << 8) | static_cast<unsigned char>(bytes[at + std::size_t(k)]);
    return v;
}

} // namespace

// The size field, the trie's units (little-endian) and the strings after them.
PrecompiledCharsmap::PrecompiledCharsmap(std::string_view blob) {
    if (blob.size() <= 4) throw std::invalid_argument("the precompiled charsmap is truncated");
    const std::uint32_t trieBytes = littleEndian32(blob, 0);
    if (trieBytes > blob.size() - 4)
        throw std::invalid_argument("the precompiled charsmap's trie size (" +
                                    std::to_string(trieBytes) + " bytes) runs past its end");
    units_.resize(trieBytes / 4);
    for (std::size_t k = 0; k < units_.size(); ++k) units_[k] = littleEndian32(blob, 4 + 4 * k);
    normalized_ = std::string(blob.substr(4 + trieBytes));
}

// darts-clone's commonPrefixSearch keeping the last (longest) result, or the first.
PrecompiledCharsmap::Match PrecompiledCharsmap::search(std::string_view input, bool longest) const {
    Match best;
    if (units_.empty()) return best;
    std::size_t pos = offsetOf(units_[0]);
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < input.size(); ++i) {
        const auto byte = static_cast<unsigned char>(input[i]);
        pos ^= byte;
        if (pos >= units_.size()) break;
        const std::uint32_t unit = units_[pos];
        if (labelOf(unit) != byte) break;
        pos ^= offsetOf(unit);
        if (hasLeaf(unit)) {
            if (pos >= units_.size()) break;
            value = valueOf(units_[pos]);
            best.length = i + 1;
            if (!longest) break;
        }
    }
    if (best.length == 0) return best;
    if (value >= normalized_.size()) return Match{}; // points outside: no key
    const std::size_t end = normalized_.find('\0', value);
    best.output = std::string_view(normalized_)
                      .substr(value, end == std::string::npos ? std::string::npos : end - value);
    return best;
}

// Six bits a character, a byte out for every eight; '=' ends it.
std::string decodeBase64(std::string_view text) {
    std::string out;
    std::uint32_t bits = 0;
    int count = 0;
    for (const char c : text) {
        int v;
        if (c >= 'A' && c <= 'Z')
            v = c - 'A';
        else if (c >= 'a' && c <= 'z')
            v = c - 'a' + 26;
        else if (c >= '0' && c <= '9')
            v = c - '0' + 52;
        else if (c == '+')
            v = 62;
        else if (c == '/')
            v = 63;
        else if (c == '=')
            break;
        else
            throw std::invalid_argument("not base64");
        bits = (bits << 6) | std::uint32_t(v);
        count += 6;
        if (count >= 8) {
            count -= 8;
            out.push_back(char((bits >> count) & 0xff));
        }
    }
    return out;
}

} // namespace core::models
