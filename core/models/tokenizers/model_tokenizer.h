// What a real model's tokenizer is to the rest of the app: a text (or a sentence pair) in,
// exactly the ids the model is fed out, with their token types and readable pieces. GPT-2's and
// RoBERTa's byte-level BPE (byte_level_tokenizer.h) and BERT's WordPiece (wordpiece_tokenizer.h)
// implement it.
#pragma once

#include "text/tokenizer.h"

#include <string>
#include <string_view>
#include <vector>

namespace core::models {

struct Encoding {
    std::vector<int> ids;      // exactly what the model is fed, its special tokens included
    std::vector<int> types;    // per id: 0, or 1 for sentence B of an encoder's pair
    Tokenized tokens;          // per id the readable piece; byte ranges into the text it came from
    std::vector<char> special; // per id: 1 for a special token the tokenizer added or kept
    int pairStart = -1;        // the first id of sentence B, -1 without a pair
    std::vector<std::string> warnings; // e.g. a text cut to the model's context
};

class ModelTokenizer {
  public:
    virtual ~ModelTokenizer() = default;

    // The ids of `text` (and `pair`, for an encoder) with the model's special tokens, at most
    // `maxTokens` of them: a single text longer than that is cut with a warning (an encoder
    // keeps its closing special token); a pair that does not fit is refused. Throws
    // std::invalid_argument for invalid UTF-8 ("the text is not valid UTF-8 (byte N)"), a pair
    // given to a model that reads one text, and a pair too long.
    virtual Encoding encode(std::string_view text, const std::string* pair,
                            int maxTokens) const = 0;
    // For display (GPT-2: a space as "␣", byte pieces as <E2><80>; BERT: "##ing").
    virtual std::string readable(int id) const = 0;
    virtual int vocabSize() const = 0; // largest id + 1
    virtual bool takesPairs() const = 0;
    // The token every sequence of the model starts with (the head detectors' random sequence
    // begins with it): <|endoftext|>, [CLS], <s>; -1 when none.
    virtual int startId() const = 0;
    // [MASK] / <mask>, -1 for a decoder's tokenizer.
    virtual int maskId() const = 0;
    // The special tokens the model adds around a text (for the detectors: [CLS], [SEP]).
    virtual std::vector<int> specialIds() const = 0;
    // One line for the window: what text the tokenizer reads and how.
    virtual std::string describe() const = 0;
};

} // namespace core::models
