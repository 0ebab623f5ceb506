// SentencePiece's precompiled character map (normalizer_spec.precompiled_charsmap; Hugging
// Face's `Precompiled` normalizer carries the same bytes in base64): a little-endian 32-bit size,
// that many bytes of a darts-clone double-array trie over UTF-8 keys, then the normalized
// strings, each ended by a NUL, that the trie's values point into. The text is normalized by
// taking, at each position, the longest key that is a prefix of the rest and writing its string
// (sentencepiece's normalizer.cc). Every walk is bounds-checked: a damaged trie matches less,
// it never reads outside the blob.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace core::models {

class PrecompiledCharsmap {
  public:
    PrecompiledCharsmap() = default; // empty: matches nothing
    // Throws std::invalid_argument ("the precompiled charsmap is ...") for a blob too short
    // for its size field or a trie size past its end; the caller names the file.
    explicit PrecompiledCharsmap(std::string_view blob);

    struct Match {
        std::size_t length = 0;  // bytes of the input the key covers; 0: no key matches
        std::string_view output; // what they become
    };
    // The longest key that is a prefix of `input` (sentencepiece's choice).
    Match longest(std::string_view input) const { return search(input, true); }
    // The shortest one (Hugging Face's Precompiled takes it for a whole grapheme cluster).
    Match shortest(std::string_view input) const { return search(input, false); }
    bool empty() const { return units_.empty(); }

  private:
    Match search(std::string_view input, bool longest) const;

    std::vector<std::uint32_t> units_; // the double array
    std::string normalized_;           // the NUL-ended strings
};

// The standard base64 alphabet (with '=' padding), as tokenizer.json stores the charsmap.
// Throws std::invalid_argument "not base64" for any other character.
std::string decodeBase64(std::string_view text);

} // namespace core::models
