// The post-processor of a tokenizer.json (tokenizer_json.h): which special tokens go around a
// text (or a pair) and the token types, as Hugging Face's `tokenizers` adds them with
// add_special_tokens. TemplateProcessing (single / pair templates of SpecialToken and Sequence
// pieces, each with its type id; a special token may stand for several ids), RobertaProcessing
// (<s> A </s> or <s> A </s></s> B </s>, types 0), BertProcessing ([CLS] A [SEP] B [SEP], B's
// part type 1), ByteLevel (offsets only: no tokens), Sequence (each in turn); null: A then B,
// B's type 1. Another type is refused in one line naming it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace core::models {

// One stretch of the final ids: a special token's ids, or sequence A (0) or B (1).
struct LayoutPart {
    int sequence = -1; // -1: the special token `ids`; 0: A; 1: B
    int type = 0;      // the token type of every id of the part
    std::vector<int> ids;
    std::string token; // the special token's name (TemplateProcessing's id)
};
using Layout = std::vector<LayoutPart>;

class PostProcessor {
  public:
    PostProcessor() = default; // none
    static PostProcessor read(const nlohmann::json& spec);
    // LlamaTokenizerFast's template: bos (if any) A:0 eos (if any), the pair's B:1 likewise.
    static PostProcessor bosEos(const std::string& bos, int bosId, const std::string& eos,
                                int eosId);

    Layout layout(bool pair) const;
    int added(bool pair) const; // the special ids the layout adds
    bool none() const { return steps_.empty(); }

  private:
    struct Step {
        enum Kind { Template, ByteLevel } kind = Template;
        Layout single, pair; // Template (RobertaProcessing and BertProcessing made into one)
    };
    static Step readStep(const nlohmann::json& spec);
    std::vector<Step> steps_;
};

} // namespace core::models
