// The BPE model of a tokenizer.json (tokenizer_json.h), as Hugging Face's `tokenizers` runs it
// on one pre-token: with ignore_merges a pre-token that is a whole vocabulary entry is that
// token; otherwise each character is its entry (a continuing_subword_prefix before all but the
// first, an end_of_word_suffix after the last), else with byte_fallback its UTF-8 bytes as
// <0xXX> entries, else the unk_token (runs of unknown characters fused into one with
// fuse_unk), else it is dropped; then the merges apply, the adjacent pair of lowest rank first
// (leftmost among equal ranks), each merge making the pairs around it anew. dropout is refused
// (ids would be random). Immutable once built.
#pragma once

#include "models/tokenizers/flat_tables.h"
#include "models/tokenizers/tokenizer_json_reader.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace core::models {

struct BpeToken {
    int id;
    std::uint32_t begin, end; // bytes of the pre-token it covers
};

class BpeModel {
  public:
    // model.vocab and model.merges of the file, its settings from the model object. Throws
    // std::invalid_argument "PATH: ..." in one line: a vocabulary that is not token -> id
    // (ids 0 .. 2^24), a merge that is not two entries whose join is an entry, dropout.
    static BpeModel read(TokenizerJsonFile& file, const nlohmann::json& model);

    void tokenize(std::string_view word, std::vector<BpeToken>& out) const;
    int idOf(std::string_view token) const; // -1 when not an entry
    // The entry's text ("" for an id the vocabulary does not have).
    const std::string& tokenOf(int id) const;
    int size() const { return int(tokens_.size()); } // largest id + 1
    bool byteFallback() const { return byteFallback_; }

  private:
    using Merge = PairTable::Value;
    struct Symbol {
        int id, prev, next;
        std::uint32_t begin, end;
    };

    void readVocab(const TokenizerJsonFile& file);
    void readMerges(TokenizerJsonFile& file);
    void characters(std::string_view word, std::vector<Symbol>& symbols) const;
    void addUnknown(std::vector<Symbol>& symbols, std::optional<Symbol>& unk) const;
    void mergeAll(std::vector<Symbol>& symbols) const;
    const Merge* mergeOf(int left, int right) const;

    TokenIndex ids_;
    std::vector<std::string> tokens_; // id -> entry
    PairTable merges_;
    std::optional<std::string> unk_;
    std::string prefix_, suffix_;
    bool fuseUnk_ = false, byteFallback_ = false, ignoreMerges_ = false;
    int byteIds_[256]; // <0xXX> entries, -1 when absent
};

} // namespace core::models
