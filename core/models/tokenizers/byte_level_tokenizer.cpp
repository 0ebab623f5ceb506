// A byte-level BPE as a ModelTokenizer (byte_level_tokenizer.h).
#include "models/tokenizers/byte_level_tokenizer.h"

#include "models/tokenizers/tokenizer_config.h"
#include "models/tokenizers/tokenizer_json.h"

#include <algorithm>
#include <stdexcept>

namespace core::models {
namespace {

ByteLevelBpe readBpe(const HfFiles& files, const std::vector<AddedToken>& added) {
    return ByteLevelBpe::fromVocabAndMerges(files.vocabJson, files.merges, added);
}

// GPT2TokenizerFast's and RobertaTokenizerFast's reading of a tokenizer.json: the ByteLevel
// add_prefix_space from tokenizer_config.json (default false); GPT-2 starts with
// <|endoftext|>, RoBERTa's sentences get <s> A </s> when the file has no post-processor.
std::unique_ptr<ModelTokenizer> openJson(const HfFiles& files, ByteLevelTokenizer::Marks marks) {
    TokenizerJsonOptions options;
    options.encoder = options.sentenceMarks = marks == ByteLevelTokenizer::Marks::Sentence;
    if (!options.encoder) options.defaultStartToken = "<|endoftext|>";
    options.prefixSpaceFromConfig = true;
    return TokenizerJson::open(files, options);
}

} // namespace

ByteLevelTokenizer::ByteLevelTokenizer(ByteLevelBpe bpe, Marks marks)
    : bpe_(std::move(bpe)), marks_(marks) {}

std::unique_ptr<ModelTokenizer> ByteLevelTokenizer::open(const HfFiles& files, Marks marks) {
    if (files.vocabJson.empty() || files.merges.empty()) {
        if (!files.tokenizerJson.empty()) return openJson(files, marks);
        throw std::invalid_argument("no byte-level BPE tokenizer: the folder needs vocab.json "
                                    "and merges.txt, or tokenizer.json");
    }
    if (marks == Marks::None)
        return std::unique_ptr<ByteLevelTokenizer>(
            new ByteLevelTokenizer(readBpe(files, {}), marks));
    const TokenizerConfig config = readTokenizerConfig(files.tokenizerConfig);
    const std::string bos = config.token("bos_token", "<s>"),
                      eos = config.token("eos_token", "</s>");
    const std::string mask = config.token("mask_token", "<mask>");
    std::vector<AddedToken> added = {{bos},
                                     {eos},
                                     {config.token("unk_token", "<unk>")},
                                     {config.token("pad_token", "<pad>")},
                                     {mask, true, false}};
    auto t =
        std::unique_ptr<ByteLevelTokenizer>(new ByteLevelTokenizer(readBpe(files, added), marks));
    const std::string& where = files.vocabJson;
    const auto require = [&](const std::string& token) {
        const int id = t->bpe_.idOf(token);
        if (id < 0)
            throw std::invalid_argument(where + ": the sentence mark " + token + " is not in it");
        return id;
    };
    t->bos_ = require(bos), t->eos_ = require(eos), t->mask_ = require(mask);
    if (config.addPrefixSpace) t->bpe_.setAddPrefixSpace(*config.addPrefixSpace);
    return t;
}

// Readable pieces of `ids` (one stretch of `text`) with their bytes, back to back.
void ByteLevelTokenizer::addPieces(std::string_view text, std::size_t offset,
                                   const std::vector<int>& ids, Encoding& out, int type) const {
    std::size_t at = offset;
    for (int id : ids) {
        const std::size_t length = bpe_.bytesOf(id).size();
        const std::size_t end = std::min(at + length, offset + text.size());
        out.ids.push_back(id);
        out.types.push_back(type);
        out.tokens.tokens.push_back({bpe_.readable(id), std::min(at, end), end});
        out.special.push_back(bpe_.isAdded(id) ? 1 : 0);
        at = end;
    }
}

Encoding ByteLevelTokenizer::encode(std::string_view text, const std::string* pair,
                                    int maxTokens) const {
    if (pair && marks_ == Marks::None)
        throw std::invalid_argument("a sentence pair is for encoders (BERT, RoBERTa); this model "
                                    "reads one text");
    std::vector<int> a = bpe_.encode(text), b;
    if (pair) b = bpe_.encode(*pair);
    Encoding e;
    e.tokens.text = std::string(text);
    const std::size_t specials = marks_ == Marks::None ? 0 : pair ? 4 : 2;
    const std::size_t total = a.size() + b.size() + specials;
    const std::size_t room = std::size_t(std::max(maxTokens, 0));
    if (total > room) {
        if (pair || room < specials + 1)
            throw std::invalid_argument("the pair has " + std::to_string(total) +
                                        " tokens with <s> and </s>, more than the model's " +
                                        std::to_string(maxTokens) + " positions");
        e.warnings.push_back("the text has " + std::to_string(total) + " tokens; kept the first " +
                             std::to_string(maxTokens) + " (the model's context)");
        a.resize(room - specials);
    }
    const auto special = [&](int id) {
        addPieces({}, marks_ == Marks::None ? 0 : text.size(), {id}, e, 0);
        e.tokens.tokens.back().begin = e.tokens.tokens.back().end;
        e.special.back() = 1;
    };
    if (marks_ == Marks::Sentence) special(bos_);
    addPieces(text, 0, a, e, 0);
    if (marks_ == Marks::Sentence) special(eos_);
    if (pair) {
        special(eos_);
        e.pairStart = int(e.ids.size());
        addPieces(*pair, 0, b, e, 0);
        special(eos_);
    }
    return e;
}

std::vector<int> ByteLevelTokenizer::specialIds() const {
    if (marks_ == Marks::None) return {bpe_.endOfTextId()};
    return {bos_, eos_};
}

std::string ByteLevelTokenizer::describe() const {
    return marks_ == Marks::None ? "any text: the byte-level BPE reads every character"
                                 : "any text: byte-level BPE, <s> text </s>";
}

} // namespace core::models
