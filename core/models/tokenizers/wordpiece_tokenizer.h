// BERT's tokenizer, id for id the same as Hugging Face's BertTokenizerFast (the `tokenizers`
// library's BertNormalizer, BertPreTokenizer and WordPiece), also DistilBERT's:
//   1. special tokens typed in the text ([CLS], [SEP], [MASK], ... exactly as written; "[mask]"
//      is three pieces) are split out first, leftmost and then longest, and kept whole;
//   2. clean: NUL, U+FFFD and control characters (General Category C*, not tab, newline or
//      carriage return) are removed, whitespace becomes a space;
//   3. CJK ideographs get a space on each side, so each is a word;
//   4. accents stripped (NFD, then every non-spacing mark dropped) when strip_accents says so,
//      or, when it is unset, when the model lower-cases; then lower-cased (uncased models);
//   5. split on whitespace, each punctuation character (P*, or any ASCII symbol) a word;
//   6. WordPiece: a word longer than 100 characters is [UNK]; else the longest vocabulary entry
//      that starts it, then "##" + the longest that continues it, and so on; a word with a part
//      no entry matches is one [UNK].
// encode adds [CLS] A [SEP] (B [SEP]), token types 0 for A's part and 1 for B's. The Unicode
// classes, case and decompositions come from wordpiece_unicode.h. Loading failures are
// std::invalid_argument with one line naming the file; a loaded tokenizer is immutable.
#pragma once

#include "models/formats/model_folder.h"
#include "models/tokenizers/model_tokenizer.h"

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace core::models {

struct WordPieceOptions {
    bool cleanText = true;
    bool chineseChars = true;         // tokenize_chinese_chars / handle_chinese_chars
    bool lowercase = true;            // do_lower_case
    std::optional<bool> stripAccents; // unset: as lowercase
    int maxInputChars = 100;
    std::string prefix = "##";
    std::string unk = "[UNK]", cls = "[CLS]", sep = "[SEP]", mask = "[MASK]", pad = "[PAD]";
    bool tokenTypes = true; // false for DistilBERT, which the types are not fed to
};

class WordPieceTokenizer final : public ModelTokenizer {
  public:
    // vocab.txt (one token a line, the line number its id) or tokenizer.json (a WordPiece model,
    // a BertNormalizer), with tokenizer_config.json's switches and token strings over both, as
    // BertTokenizerFast takes them. The vocabulary must hold [CLS], [SEP], [UNK] and [MASK].
    static std::unique_ptr<WordPieceTokenizer> open(const HfFiles& files, bool tokenTypes);
    // From a vocabulary in id order (tests; vocab.txt's lines).
    static std::unique_ptr<WordPieceTokenizer> fromVocab(std::vector<std::string> vocab,
                                                         WordPieceOptions options,
                                                         const std::string& where = "vocab");

    // The ids of a text without [CLS] / [SEP] around it (typed special tokens kept).
    std::vector<int> encodeText(std::string_view utf8) const;

    Encoding encode(std::string_view text, const std::string* pair, int maxTokens) const override;
    std::string readable(int id) const override;
    int vocabSize() const override { return int(tokens_.size()); }
    bool takesPairs() const override { return true; }
    int startId() const override { return cls_; }
    int maskId() const override { return mask_; }
    std::vector<int> specialIds() const override { return {cls_, sep_}; }
    std::string describe() const override;
    const WordPieceOptions& options() const { return options_; }

  private:
    struct Piece {
        int id;
        std::size_t begin, end; // bytes of the text it came from
    };
    struct Char {
        char32_t cp;
        std::size_t begin, end;
    };

    WordPieceTokenizer(std::vector<std::string> vocab, WordPieceOptions options,
                       const std::string& where);
    void tokenize(std::string_view text, std::vector<Piece>& out) const;
    void normalize(std::string_view text, std::size_t base, std::vector<Char>& out) const;
    void wordPieces(const std::vector<Char>& word, std::vector<Piece>& out) const;
    int idOf(const std::string& token) const;

    std::vector<std::string> tokens_;                // id -> token
    std::unordered_map<std::string, int> ids_;       // token -> id (the last line wins)
    std::vector<std::pair<std::string, int>> added_; // split out of the text, longest first
    WordPieceOptions options_;
    int cls_ = -1, sep_ = -1, unk_ = -1, mask_ = -1;
};

} // namespace core::models
