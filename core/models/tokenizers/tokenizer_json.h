// One tokenizer.json engine: a model folder's tokenizer.json run as Hugging Face's `tokenizers`
// runs it (what transformers' AutoTokenizer gives with those files), for Llama 2 and 3,
// Mistral, Qwen 2.5 / 3, Gemma 2 / 3, SmolLM2, Phi-3, OLMo 2, and GPT-2's and RoBERTa's
// tokenizer.json. encode:
//   1. added tokens with normalized: false are split out of the text as typed
//      (added_vocabulary.h);
//   2. each stretch between them is normalized (text_pipeline.h), then the added tokens with
//      normalized: true are split out of it;
//   3. each remaining stretch is cut into pre-tokens (text_pipeline.h), each pre-token goes
//      through the BPE model (bpe_model.h) or the Unigram model (unigram_model.h: T5's, with
//      a [piece, score] vocabulary, unk_id and byte_fallback);
//   4. the post-processor puts the special tokens around the ids (post_processor.h); for the
//      classes LlamaTokenizer(Fast), CodeLlamaTokenizer(Fast) and GemmaTokenizer(Fast)
//      tokenizer_config.json's add_bos_token (default true) and add_eos_token (default false)
//      rebuild it, as transformers does.
// Every token keeps the bytes of the text it came from (normalized_text.h). Each failure to
// load is std::invalid_argument with one line naming the file: not JSON, a normalizer,
// pre-tokenizer, model or post-processor type it does not run (named), a regex it cannot run,
// a malformed vocabulary or merge. A loaded tokenizer is immutable: several threads may encode
// with it at once.
#pragma once

#include "models/formats/model_folder.h"
#include "models/tokenizers/added_vocabulary.h"
#include "models/tokenizers/bpe_model.h"
#include "models/tokenizers/model_tokenizer.h"
#include "models/tokenizers/post_processor.h"
#include "models/tokenizers/text_pipeline.h"
#include "models/tokenizers/unigram_model.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace core::models {

struct TokenizerJsonOptions {
    bool encoder = false; // takes sentence pairs and has a mask token; else a causal LM's
    // What the family's tokenizer class does where the files are silent: GPT-2's start token
    // (<|endoftext|>), RoBERTa's <s> A </s> marks when tokenizer.json has no post_processor.
    std::string defaultStartToken;
    bool sentenceMarks = false;
    // GPT2TokenizerFast and RobertaTokenizerFast set the ByteLevel pre-tokenizer's
    // add_prefix_space to tokenizer_config.json's (default false).
    bool prefixSpaceFromConfig = false;
};

class TokenizerJson final : public ModelTokenizer {
  public:
    // files.tokenizerJson, with files.tokenizerConfig when there is one.
    static std::unique_ptr<TokenizerJson> open(const HfFiles& files,
                                               const TokenizerJsonOptions& options = {});
    // From the files' text (tests, fuzzers); `config` may be "" (none). `path` names it.
    static std::unique_ptr<TokenizerJson> fromText(const std::string& tokenizerJson,
                                                   const std::string& config,
                                                   const TokenizerJsonOptions& options = {},
                                                   const std::string& path = "tokenizer.json");
    // From a file already in memory (the GGUF tokenizer builds one: gguf_vocab.h); its path
    // names it in messages, `config` as in fromText.
    static std::unique_ptr<TokenizerJson> fromFile(TokenizerJsonFile file,
                                                   const std::string& config,
                                                   const TokenizerJsonOptions& options = {});

    // encode(text, add_special_tokens=False): the ids alone. Throws for invalid UTF-8.
    std::vector<int> encodeIds(std::string_view text) const;

    Encoding encode(std::string_view text, const std::string* pair, int maxTokens) const override;
    std::string readable(int id) const override;
    int vocabSize() const override { return vocabSize_; }
    bool takesPairs() const override { return options_.encoder; }
    int startId() const override { return start_; }
    int maskId() const override { return mask_; }
    std::vector<int> specialIds() const override;
    std::string describe() const override;

    // The token's bytes as the decoder gives them (ByteLevel characters, ▁ as a space,
    // <0xXX> as its byte); an added token's content. std::out_of_range for an unknown id.
    std::string bytesOf(int id) const;
    int idOf(std::string_view token) const; // an added token's or an entry's id, else -1
    bool isAdded(int id) const { return added_.find(id) != nullptr; }

  private:
    struct Piece {
        int id;
        std::uint32_t begin, end; // bytes of the text
    };
    struct Decoding { // what the decoder does to one token's text
        bool byteLevel = false, byteFallback = false;
        std::vector<std::pair<std::u32string, std::u32string>> replace;
    };

    TokenizerJson() = default;
    void load(TokenizerJsonFile& file, const std::string& configPath,
              const std::string& configText);
    void readAddedTokens(const nlohmann::json& list, const std::string& path);
    void readDecoding(const nlohmann::json& decoder);
    void applyConfig(const std::string& configPath, const std::string& configText,
                     const std::string& path);
    void finish(const std::string& path);
    std::vector<Piece> pieces(std::string_view text) const;
    // The model's, BPE's or Unigram's.
    int modelIdOf(std::string_view token) const {
        return unigram_ ? unigram_->idOf(token) : model_.idOf(token);
    }
    int modelSize() const { return unigram_ ? unigram_->size() : model_.size(); }
    bool modelByteFallback() const {
        return unigram_ ? unigram_->byteFallback() : model_.byteFallback();
    }
    const std::string& modelToken(int id) const;
    void modelPieces(const UnitText& pre, std::vector<Piece>& out) const;
    void place(const std::vector<Piece>& pieces, std::string_view text, int type,
               Encoding& e) const;

    TokenizerJsonOptions options_;
    TextNormalizer normalizer_;
    PreTokenizer preTokenizer_;
    BpeModel model_;
    std::shared_ptr<const UnigramModel> unigram_; // set for a Unigram model (then model_ is empty)
    AddedVocabulary added_;
    PostProcessor post_;
    Decoding decoding_;
    int vocabSize_ = 0, start_ = -1, mask_ = -1;
};

// The registry's call for a family whose tokenizer is tokenizer.json: `decoder` for a causal
// LM (no pairs, no mask; startId the BOS the post-processor adds, else tokenizer_config.json's
// bos_token, else -1).
std::unique_ptr<ModelTokenizer> openTokenizerJson(const HfFiles& files, bool decoder = true);

} // namespace core::models
