// SentencePiece's normalizer (normalizer.cc), for the SentencePiece tokenizer
// (sentencepiece_tokenizer.h). The text is read a prefix at a time: a user-defined symbol that
// starts here is taken as typed (the longest one); else the precompiled charsmap's longest key
// gives its string; else one character is itself. Then, as the spec says: remove_extra_whitespaces
// drops leading spaces, collapses each run of spaces into one and drops trailing ones;
// add_dummy_prefix puts a space first (last with treat_whitespace_as_suffix); escape_whitespaces
// writes each space as U+2581. Every byte of the result keeps the byte of the input it came from.
#pragma once

#include "models/tokenizers/precompiled_charsmap.h"
#include "models/tokenizers/sentencepiece_model.h"
#include "models/tokenizers/unigram_model.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace core::models {

struct SpmNormalized {
    std::string text;
    std::vector<std::uint32_t> toInput; // per byte of text, then one for its end
};

class SpmNormalizer {
  public:
    // Throws std::invalid_argument "PATH: ..." for a broken charsmap.
    explicit SpmNormalizer(const SentencePieceModel& model);
    SpmNormalized normalize(std::string_view input) const; // input: valid UTF-8

  private:
    struct Prefix {
        std::string_view out;
        std::size_t consumed;
    };
    Prefix prefix(std::string_view input) const;
    void append(SpmNormalized& n, std::string_view piece, std::uint32_t at) const;

    SpmNormalizerSpec spec_;
    bool suffix_ = false;
    PrecompiledCharsmap charsmap_;
    PieceTrie userDefined_;
};

} // namespace core::models
