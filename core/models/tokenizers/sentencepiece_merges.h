// The merges a SentencePiece BPE vocabulary implies, as transformers writes them into the
// tokenizer.json it makes from a tokenizer.model (convert_slow_tokenizer's
// SentencePieceExtractor): every way to cut a piece into two pieces of the vocabulary is a
// merge, ranked by the score of the piece it makes (highest first), then the longer left part,
// then the longer right part (in code points), then by the piece's id and the parts' ids. The
// BPE model (bpe_model.h) run with these merges gives the ids SentencePiece's own
// highest-score-first merging gives (llama.cpp's "llama" tokenizer runs that).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace core::models {

// `pieces[id]` ("" for an id the vocabulary leaves out) and `scores[id]` (same size; NaN ranks
// lowest). A piece given twice takes the lower id.
std::vector<std::pair<std::string, std::string>>
sentencePieceMerges(const std::vector<std::string>& pieces, const std::vector<float>& scores);

} // namespace core::models
