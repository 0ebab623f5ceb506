// A byte-level BPE (byte_level_bpe.h) as a ModelTokenizer (model_tokenizer.h), with the marks a
// family puts around a text: none (GPT-2: what is typed is what the model reads,
// <|endoftext|> included), or sentence marks (RoBERTa: `<s> A </s>`, or `<s> A </s></s> B </s>`
// for a pair, all of token type 0, and its <mask> takes the whitespace before it (lstrip), as
// RobertaTokenizer sets it up). The family's registry entry (architectures.cpp) chooses.
#pragma once

#include "models/formats/model_folder.h"
#include "models/tokenizers/byte_level_bpe.h"
#include "models/tokenizers/model_tokenizer.h"

#include <memory>

namespace core::models {

class ByteLevelTokenizer final : public ModelTokenizer {
  public:
    enum class Marks { None, Sentence };

    // vocab.json + merges.txt (tokenizer_config.json's add_prefix_space and special tokens are
    // read for sentence marks); a folder with only tokenizer.json gets the tokenizer.json
    // engine (tokenizer_json.h) with the same marks where the file has no post-processor.
    // Throws std::invalid_argument naming the file and the problem, or the special token
    // sentence marks need that the vocabulary lacks.
    static std::unique_ptr<ModelTokenizer> open(const HfFiles& files, Marks marks);

    Encoding encode(std::string_view text, const std::string* pair, int maxTokens) const override;
    std::string readable(int id) const override { return bpe_.readable(id); }
    int vocabSize() const override { return bpe_.vocabSize(); }
    bool takesPairs() const override { return marks_ == Marks::Sentence; }
    int startId() const override { return marks_ == Marks::None ? bpe_.endOfTextId() : bos_; }
    int maskId() const override { return mask_; }
    std::vector<int> specialIds() const override;
    std::string describe() const override;
    const ByteLevelBpe& bpe() const { return bpe_; }

  private:
    ByteLevelTokenizer(ByteLevelBpe bpe, Marks marks);
    void addPieces(std::string_view text, std::size_t offset, const std::vector<int>& ids,
                   Encoding& out, int type) const;

    ByteLevelBpe bpe_;
    Marks marks_;
    int bos_ = -1, eos_ = -1, mask_ = -1;
};

} // namespace core::models
