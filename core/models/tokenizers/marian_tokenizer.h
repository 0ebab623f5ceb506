// Marian's tokenizer as transformers' MarianTokenizer runs it: a SentencePiece model for the
// side (source.spm for the encoder's text, target.spm for the decoder's) cuts the text into
// pieces, and vocab.json, shared by both sides, gives each piece its id (<unk>'s for a piece it
// lacks); a leading language code ">>de<<" (multilingual opus-mt models) is kept as one token;
// </s> ends the ids.
#pragma once

#include "models/tokenizers/model_tokenizer.h"
#include "models/tokenizers/sentencepiece_tokenizer.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace core::models {

class MarianTokenizer final : public ModelTokenizer {
  public:
    // `spmPath` the side's SentencePiece model, `vocabJsonPath` the shared vocab.json. Throws
    // std::invalid_argument naming the file for a bad one, or a vocab.json without </s> or <unk>.
    static std::unique_ptr<MarianTokenizer> open(const std::string& spmPath,
                                                 const std::string& vocabJsonPath);

    Encoding encode(std::string_view text, const std::string* pair, int maxTokens) const override;
    std::string readable(int id) const override;
    int vocabSize() const override { return int(pieces_.size()); }
    bool takesPairs() const override { return false; }
    int startId() const override { return -1; }
    int maskId() const override { return -1; }
    std::vector<int> specialIds() const override { return {eos_}; }
    std::string describe() const override;

  private:
    std::unique_ptr<SentencePieceTokenizer> spm_;
    std::map<std::string, int> ids_;  // vocab.json
    std::vector<std::string> pieces_; // by id ("" for an id vocab.json skips)
    int eos_ = 0, unk_ = 1;
    std::string spmName_;
};

} // namespace core::models
