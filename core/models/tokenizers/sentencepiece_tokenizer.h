// A SentencePiece model file as a model's tokenizer (T5's spiece.model, Marian's source.spm and
// target.spm), run as sentencepiece's EncodeAsIds runs it: the normalizer (spm_normalizer.h),
// then the Unigram model (unigram_model.h) over the whole normalized text; CONTROL pieces
// (</s>, <pad>) never come from text, USER_DEFINED ones always do where typed, a run of
// unknown characters is one <unk> (or its <0xXX> bytes with byte_fallback). encode() then
// appends </s> and no start token, as T5Tokenizer and MarianTokenizer do; a text too long is
// cut before the </s>. Immutable once built.
//
// openT5 runs the file as transformers' T5Tokenizer does in its default (legacy) mode:
// `extraIds` sentinels after the pieces (<extra_id_0> the last id, <extra_id_N> = pieces +
// extraIds - 1 - N), and the special tokens typed in the text (the sentinels, </s>, <pad>,
// <unk>) split out of it before SentencePiece sees it, each one id: the leftmost match, the
// longest there; a sentinel takes the whitespace on both sides with it (lstrip and rstrip), the
// others none; each stretch between them is encoded alone (its own dummy prefix); </s> is not
// appended again after a text that ends with a typed </s>.
#pragma once

#include "models/tokenizers/model_tokenizer.h"
#include "models/tokenizers/sentencepiece_model.h"
#include "models/tokenizers/spm_normalizer.h"
#include "models/tokenizers/unigram_model.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace core::models {

class SentencePieceTokenizer final : public ModelTokenizer {
  public:
    // The file at `path`; std::invalid_argument "PATH: ..." when it cannot be used.
    static std::unique_ptr<SentencePieceTokenizer> open(const std::string& path);
    // A model already read (sentencepiece_model.h); with `extraIds` >= 0, as T5Tokenizer.
    explicit SentencePieceTokenizer(SentencePieceModel model, int extraIds = -1);
    // The file as T5Tokenizer runs it (above); std::invalid_argument as open().
    static std::unique_ptr<SentencePieceTokenizer> openT5(const std::string& path, int extraIds);

    // EncodeAsIds: the ids alone, no </s>, no typed special token split out. Throws for
    // invalid UTF-8.
    std::vector<int> encodeIds(std::string_view text) const;
    // EncodeAsPieces: each token's piece, an unknown run as its normalized text (Marian maps
    // these strings through its vocab.json, not the ids).
    std::vector<std::string> encodePieces(std::string_view text) const;

    Encoding encode(std::string_view text, const std::string* pair, int maxTokens) const override;
    // ▁ as ␣ and byte pieces as their byte, shown as the other tokenizers show them.
    std::string readable(int id) const override;
    int vocabSize() const override { return unigram_.size() + extraIds_; }
    bool takesPairs() const override { return false; }
    int startId() const override { return -1; }
    int maskId() const override { return -1; }
    std::vector<int> specialIds() const override;
    std::string describe() const override;
    int eosId() const { return eos_; } // the </s> appended, -1 when the model has none
    int extraIds() const { return extraIds_; }
    // encode's ids without the </s> it appends: T5Tokenizer's split of typed special tokens,
    // then EncodeAsIds on each stretch between them (encodeIds without openT5).
    std::vector<int> textIds(std::string_view text) const;

  private:
    struct Piece {
        int id;
        std::uint32_t begin, end; // bytes of the text
        bool typed = false;       // an added token split out of the text
    };
    struct Run { // the normalized text and its tokens
        SpmNormalized normalized;
        std::vector<UnigramToken> tokens;
    };
    struct Added { // a special token split out of typed text (T5Tokenizer's added tokens)
        std::string text;
        int id;
        bool strip; // lstrip and rstrip: the whitespace on both sides goes with it
    };
    Run run(std::string_view text) const;
    std::vector<Piece> pieces(std::string_view text) const;
    std::vector<Piece> splitPieces(std::string_view text) const;
    void piecesOf(std::string_view text, std::size_t from, std::size_t to,
                  std::vector<Piece>& out) const;
    const Added* addedAt(std::string_view text, std::size_t at) const;
    static UnigramModel unigramOf(const SentencePieceModel& model);

    SentencePieceModel model_;
    SpmNormalizer normalizer_;
    UnigramModel unigram_;
    int eos_ = -1;
    int extraIds_ = 0;
    std::vector<Added> added_; // empty: the plain SentencePiece run
};

} // namespace core::models
