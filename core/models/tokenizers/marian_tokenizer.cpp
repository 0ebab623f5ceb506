// Marian's tokenizer (marian_tokenizer.h).
#include "models/tokenizers/marian_tokenizer.h"

#include "models/tokenizers/byte_level_bpe.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <stdexcept>

namespace core::models {
namespace {

nlohmann::json readVocab(const std::string& path) {
    nlohmann::json vocab = readTokenizerJson(path);
    if (!vocab.is_object()) throw std::invalid_argument(path + ": not a JSON object of ids");
    return vocab;
}

// MarianTokenizer.remove_language_code: ">>.+<<" (greedy) is taken out of the text; at its
// start it is the code, a token of its own.
std::pair<std::string, std::string> languageCode(std::string_view text) {
    const std::size_t open = text.find(">>");
    const std::size_t close = open == std::string_view::npos ? open : text.rfind("<<");
    if (open == std::string_view::npos || close == std::string_view::npos || close < open + 3)
        return {std::string(), std::string(text)};
    std::string code(text.substr(open, close + 2 - open));
    std::string rest = std::string(text.substr(0, open)) + std::string(text.substr(close + 2));
    return {open == 0 ? code : std::string(), rest};
}

} // namespace

std::unique_ptr<MarianTokenizer> MarianTokenizer::open(const std::string& spmPath,
                                                       const std::string& vocabJsonPath) {
    auto t = std::unique_ptr<MarianTokenizer>(new MarianTokenizer());
    t->spm_ = SentencePieceTokenizer::open(spmPath);
    t->spmName_ = std::filesystem::path(spmPath).filename().string();
    const nlohmann::json vocab = readVocab(vocabJsonPath); // items() must not outlive it
    for (const auto& [piece, id] : vocab.items()) {
        if (!id.is_number_integer() || id.get<long long>() < 0 || id.get<long long>() > (1 << 24))
            throw std::invalid_argument(vocabJsonPath + ": the id of \"" + piece +
                                        "\" is not a whole number from 0");
        const int value = id.get<int>();
        t->ids_[piece] = value;
        if (int(t->pieces_.size()) <= value) t->pieces_.resize(std::size_t(value) + 1);
        t->pieces_[std::size_t(value)] = piece;
    }
    for (const char* needed : {"</s>", "<unk>"})
        if (!t->ids_.count(needed))
            throw std::invalid_argument(vocabJsonPath + ": no " + needed +
                                        " (Marian's vocabulary has both)");
    t->eos_ = t->ids_.at("</s>"), t->unk_ = t->ids_.at("<unk>");
    return t;
}

Encoding MarianTokenizer::encode(std::string_view text, const std::string* pair,
                                 int maxTokens) const {
    if (pair)
        throw std::invalid_argument("a sentence pair is for encoders (BERT, RoBERTa); this "
                                    "model reads one text");
    auto [code, rest] = languageCode(text);
    std::vector<std::string> pieces = spm_->encodePieces(rest);
    if (!code.empty()) pieces.insert(pieces.begin(), code);
    Encoding e;
    e.tokens.text = std::string(text);
    const std::size_t room = std::size_t(std::max(maxTokens, 1)) - 1; // </s> always ends it
    if (pieces.size() > room) {
        e.warnings.push_back("the text has " + std::to_string(pieces.size() + 1) +
                             " tokens; kept the first " + std::to_string(maxTokens) +
                             " (the model's context)");
        pieces.resize(room);
    }
    for (const std::string& piece : pieces) {
        const auto found = ids_.find(piece);
        const int id = found == ids_.end() ? unk_ : found->second;
        e.ids.push_back(id), e.types.push_back(0), e.special.push_back(0);
        e.tokens.tokens.push_back({readable(id), 0, 0});
    }
    e.ids.push_back(eos_), e.types.push_back(0), e.special.push_back(1);
    e.tokens.tokens.push_back({readable(eos_), 0, 0});
    return e;
}

std::string MarianTokenizer::readable(int id) const {
    if (id < 0 || id >= int(pieces_.size()))
        throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary");
    const std::string& piece = pieces_[std::size_t(id)];
    if (piece.size() > 1 && piece.front() == '<' && piece.back() == '>') return piece; // </s>
    std::string bytes; // ▁ is a space, shown as the other tokenizers show one
    for (std::size_t at = 0; at < piece.size();) {
        const bool mark = piece.compare(at, 3, "\xe2\x96\x81") == 0;
        bytes += mark ? ' ' : piece[at];
        at += mark ? 3 : 1;
    }
    return readableBytes(bytes);
}

std::string MarianTokenizer::describe() const {
    return "any text: SentencePiece (" + spmName_ + ") pieces looked up in vocab.json (" +
           std::to_string(ids_.size()) + " tokens), text </s>";
}

} // namespace core::models
