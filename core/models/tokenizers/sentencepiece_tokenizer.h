// A SentencePiece model file as a model's tokenizer (T5's spiece.model, Marian's source.spm and
// target.spm), run as sentencepiece's EncodeAsIds runs it: the normalizer (spm_normalizer.h),
// then the Unigram model (unigram_model.h) over the whole normalized text; CONTROL pieces
// (</s>, <pad>) never come from text, USER_DEFINED ones always do where typed, a run of
// unknown characters is one <unk> (or its <0xXX> bytes with byte_fallback). encode() then
// appends </s> and no start token, as T5Tokenizer and MarianTokenizer do; a text too long is
// cut before the </s>. Immutable once built.
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
    // A model already read (sentencepiece_model.h).
    explicit SentencePieceTokenizer(SentencePieceModel model);

    // EncodeAsIds: the ids alone, no </s>. Throws for invalid UTF-8.
    std::vector<int> encodeIds(std::string_view text) const;
    // EncodeAsPieces: each token's piece, an unknown run as its normalized text (Marian maps
    // these strings through its vocab.json, not the ids).
    std::vector<std::string> encodePieces(std::string_view text) const;

    Encoding encode(std::string_view text, const std::string* pair, int maxTokens) const override;
    // ▁ as ␣ and byte pieces as their byte, shown as the other tokenizers show them.
    std::string readable(int id) const override;
    int vocabSize() const override { return unigram_.size(); }
    bool takesPairs() const override { return false; }
    int startId() const override { return -1; }
    int maskId() const override { return -1; }
    std::vector<int> specialIds() const override;
    std::string describe() const override;
    int eosId() const { return eos_; } // the </s> appended, -1 when the model has none

  private:
    struct Piece {
        int id;
        std::uint32_t begin, end; // bytes of the text
    };
    struct Run { // the normalized text and its tokens
        SpmNormalized normalized;
        std::vector<UnigramToken> tokens;
    };
    Run run(std::string_view text) const;
    std::vector<Piece> pieces(std::string_view text) const;
    static UnigramModel unigramOf(const SentencePieceModel& model);

    SentencePieceModel model_;
    SpmNormalizer normalizer_;
    UnigramModel unigram_;
    int eos_ = -1;
};

} // namespace core::models
