// A tokenizer.json's added tokens (tokenizer_json.h), split out of the text before it is
// pre-tokenized, as Hugging Face's AddedVocabulary does: first the tokens with normalized:
// false on the text as typed, then (each stretch between them normalized) the tokens with
// normalized: true on the normalized text. Leftmost match, the longest of those that start
// there; single_word: only where no word character (\w) touches it; lstrip / rstrip: the
// whitespace before / after it goes with it.
#pragma once

#include "models/tokenizers/normalized_text.h"

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace core::models {

struct AddedTokenSpec {
    std::string content;
    int id = -1;
    bool special = false, lstrip = false, rstrip = false, normalized = false, singleWord = false;
};

// A stretch of the text: an added token's (id >= 0) or text still to be tokenized.
struct TextPiece {
    UnitText text;
    int id = -1;
};

class AddedVocabulary {
  public:
    // `normalizedForm`: each token's content through the file's normalizer (for those with
    // normalized: true).
    void add(const AddedTokenSpec& token, const UnitText& normalizedForm);
    // Cuts the pieces without an id at the tokens of one kind (normalized or not).
    void split(std::vector<TextPiece>& pieces, bool normalizedTokens) const;
    const AddedTokenSpec* find(int id) const;
    int idOf(const std::string& content) const; // -1 when not added
    const std::vector<AddedTokenSpec>& tokens() const { return tokens_; }

  private:
    struct Trie { // code point tries, one per kind: (node << 21 | cp) -> child node
        std::unordered_map<std::uint64_t, std::uint32_t> edges;
        std::vector<int> token{-1}; // node -> index into tokens_, -1
    };
    struct Match {
        std::size_t begin, end;
        int token;
    };
    void insert(Trie& trie, std::u32string_view cps, int token);
    std::vector<Match> matches(const Trie& trie, const UnitText& text) const;

    std::vector<AddedTokenSpec> tokens_;
    std::unordered_map<std::string, int> byContent_; // content -> index into tokens_
    std::unordered_map<int, int> byId_;              // id -> index into tokens_
    Trie raw_, normalized_;
};

} // namespace core::models
