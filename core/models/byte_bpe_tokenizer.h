// GPT-2's and RoBERTa's tokenizer as a ModelTokenizer (model_tokenizer.h): the byte-level BPE
// of gpt2_tokenizer.h, with the special tokens each family adds around a text. GPT-2 adds none
// (what is typed is what the model reads, <|endoftext|> included); RoBERTa reads
// `<s> A </s>`, or `<s> A </s></s> B </s>` for a pair, all of token type 0, and its <mask>
// takes the whitespace before it (lstrip), as RobertaTokenizer sets it up.
#pragma once

#include "models/gpt2_tokenizer.h"
#include "models/model_folder.h"
#include "models/model_tokenizer.h"

#include <memory>

namespace core::models {

class ByteBpeTokenizer final : public ModelTokenizer {
  public:
    enum class Family { Gpt2, Roberta };

    // vocab.json + merges.txt, or tokenizer.json (tokenizer_config.json's add_prefix_space is
    // read for RoBERTa). Throws std::invalid_argument naming the file and the problem, or the
    // special token RoBERTa needs that the vocabulary lacks.
    static std::unique_ptr<ByteBpeTokenizer> open(const HfFiles& files, Family family);

    Encoding encode(std::string_view text, const std::string* pair, int maxTokens) const override;
    std::string readable(int id) const override { return bpe_.readable(id); }
    int vocabSize() const override { return bpe_.vocabSize(); }
    bool takesPairs() const override { return family_ == Family::Roberta; }
    int startId() const override { return family_ == Family::Gpt2 ? bpe_.endOfTextId() : bos_; }
    int maskId() const override { return mask_; }
    std::vector<int> specialIds() const override;
    std::string describe() const override;
    const Gpt2Tokenizer& bpe() const { return bpe_; }

  private:
    ByteBpeTokenizer(Gpt2Tokenizer bpe, Family family);
    void addPieces(std::string_view text, std::size_t offset, const std::vector<int>& ids,
                   Encoding& out, int type) const;

    Gpt2Tokenizer bpe_;
    Family family_;
    int bos_ = -1, eos_ = -1, mask_ = -1;
};

} // namespace core::models
