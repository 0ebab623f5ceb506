// The byte-level BPE of GPT-2, id for id the same as the reference (OpenAI's encoder.py,
// Hugging Face's GPT2Tokenizer, tiktoken "gpt2") on any valid UTF-8 text. Also reads the
// other byte-level BPE vocabularies stored the same way (RoBERTa, GPT-J ...). A tokenizer.json
// goes to the tokenizer.json engine (tokenizer_json.h) instead.
//
// encode: added tokens (`<|endoftext|>`) typed in the text are split out first and kept as
// their ids; each stretch between them is cut into pre-tokens by GPT-2's pattern
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
// (a hand-written scanner, byte_level_bpe.cpp), each pre-token's UTF-8 bytes become one symbol
// per byte and the merges apply lowest rank first, every occurrence left to right.
//
// Loading follows Hugging Face's `tokenizers`: a merge whose parts or result are not in the
// vocabulary is an error, a later duplicate of a merge line takes its rank. Every failure is
// std::invalid_argument with one line naming the file; an id outside the vocabulary given to
// bytesOf / readable / decodeTokens is std::out_of_range. A loaded tokenizer is immutable, so
// it may be used from several threads at once.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace core::models {

// A token split out of the text before pre-tokenization, kept as its id. lstrip / rstrip: the
// whitespace before / after it goes with it (RoBERTa's <mask>), as in Hugging Face's
// AddedToken.
struct AddedToken {
    std::string text;
    bool lstrip = false, rstrip = false;
};

class ByteLevelBpe {
  public:
    // vocab.json (token -> id) and merges.txt ("#version" line, then one "a b" pair a line).
    // `added`: the special tokens, which must be in vocab.json (<|endoftext|> always is when
    // the vocabulary has it).
    static ByteLevelBpe fromVocabAndMerges(const std::string& vocabJsonPath,
                                           const std::string& mergesPath,
                                           const std::vector<AddedToken>& added = {});

    // Throws std::invalid_argument "the text is not valid UTF-8 (byte N)", N counted from 0.
    std::vector<int> encode(std::string_view utf8) const;
    // The token's raw bytes (may be part of a UTF-8 character); an added token's text.
    std::string bytesOf(int id) const;
    // For display: each space as "␣" (U+2423: no text uses it, where "·" is a real letter in
    // Catalan), newline, tab and carriage return as \n \t \r, other control bytes and bytes
    // that are not a whole UTF-8 character as <E2><80>.
    std::string readable(int id) const;
    int vocabSize() const { return static_cast<int>(bytes_.size()); } // largest id + 1
    int endOfTextId() const { return endOfText_; }                    // -1 if absent
    int idOf(std::string_view token) const; // an added token's or a whole entry's id, else -1
    bool isAdded(int id) const { return id >= 0 && id < vocabSize() && special_[id]; }
    // A space before each stretch of text that does not start with one (RoBERTa's option).
    void setAddPrefixSpace(bool on) { addPrefixSpace_ = on; }

  private:
    struct Merge {
        int rank;
        int result;
    };
    struct Special {
        std::string text;
        int id;
        bool lstrip = false, rstrip = false;
    };
    struct Builder;

    void encodeOrdinary(std::string_view text, std::vector<int>& ids) const;
    void applyMerges(std::vector<int>& word, std::vector<Merge>& pairs) const;
    Merge mergeOf(int left, int right) const;
    const std::string& entry(int id) const;

    std::vector<std::string> bytes_; // id -> raw bytes
    std::vector<char> present_;      // id -> 1 when the vocabulary has it (ids may have gaps)
    std::vector<char> special_;      // id -> 1 for an added token
    std::array<int, 256> byteIds_{}; // byte -> id of its one-byte token
    std::unordered_map<std::uint64_t, Merge> merges_; // (left id << 32 | right id) -> merge
    std::vector<Special> specials_;                   // longest first
    int endOfText_ = -1;
    bool addPrefixSpace_ = false;
};

// A token or line as quoted in a loading message: at most 40 bytes, control bytes as '?', so
// the message stays one line.
std::string quotedToken(std::string_view text);

// A token's bytes for display: each space as "␣" (U+2423: no text uses it, where "·" is a real
// letter in Catalan), newline, tab and carriage return as \n \t \r, other control bytes and
// bytes that are not a whole UTF-8 character as <E2><80> (every tokenizer shows them so).
// A tokenizer's JSON file (vocab.json: megabytes), read under the tokenizer files' cap; throws
// std::invalid_argument "PATH: ..." for a file that cannot be read or is not JSON.
nlohmann::json readTokenizerJson(const std::string& path);

std::string readableBytes(std::string_view bytes);

// The text of a run of ids, decoded (byte pieces joined, invalid UTF-8 replaced by U+FFFD).
std::string decodeTokens(const ByteLevelBpe& tokenizer, const std::vector<int>& ids);

} // namespace core::models
