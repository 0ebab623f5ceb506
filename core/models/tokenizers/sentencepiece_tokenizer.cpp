// SentencePiece's EncodeAsIds over a model file, and T5's / Marian's </s> after it
// (sentencepiece_tokenizer.h).
#include "models/tokenizers/sentencepiece_tokenizer.h"

#include "models/tokenizers/byte_level_bpe.h"
#include "text/utf8.h"

#include <algorithm>
#include <stdexcept>

namespace core::models {

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::open(const std::string& path) {
    return std::make_unique<SentencePieceTokenizer>(openSentencePieceModel(path));
}

// The pieces as the Viterbi walk sees them: CONTROL, UNKNOWN and BYTE pieces are not in it.
UnigramModel SentencePieceTokenizer::unigramOf(const SentencePieceModel& model) {
    std::vector<std::string> texts;
    std::vector<double> scores;
    std::vector<UnigramPieceKind> kinds;
    int unk = -1;
    for (std::size_t id = 0; id < model.pieces.size(); ++id) {
        const SpmPiece& p = model.pieces[id];
        texts.push_back(p.text);
        scores.push_back(double(p.score));
        kinds.push_back(p.type == SpmPieceType::Normal        ? UnigramPieceKind::Normal
                        : p.type == SpmPieceType::UserDefined ? UnigramPieceKind::UserDefined
                        : p.type == SpmPieceType::Unused      ? UnigramPieceKind::Unused
                                                              : UnigramPieceKind::Reserved);
        if (p.type == SpmPieceType::Unknown) unk = int(id);
    }
    return UnigramModel(std::move(texts), std::move(scores), std::move(kinds), unk,
                        model.byteFallback, UnigramFlavor::SentencePiece);
}

// </s> by its text, as the transformers tokenizers find it; else trainer_spec's eos_id.
SentencePieceTokenizer::SentencePieceTokenizer(SentencePieceModel model)
    : model_(std::move(model)), normalizer_(model_), unigram_(unigramOf(model_)) {
    eos_ = unigram_.idOf("</s>"); // T5Tokenizer's and MarianTokenizer's eos_token
    if (eos_ < 0 && model_.eosId >= 0 && model_.eosId < unigram_.size()) eos_ = model_.eosId;
}

// Valid UTF-8 only (as every tokenizer of the app), normalized, then walked.
SentencePieceTokenizer::Run SentencePieceTokenizer::run(std::string_view text) const {
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        throw std::invalid_argument("the text is not valid UTF-8 (byte " + std::to_string(bad) +
                                    ")");
    Run r{normalizer_.normalize(text), {}};
    unigram_.encode(r.normalized.text, r.tokens);
    return r;
}

// Each token with the bytes of the text its normalized bytes came from.
std::vector<SentencePieceTokenizer::Piece>
SentencePieceTokenizer::pieces(std::string_view text) const {
    const Run r = run(text);
    const std::vector<std::uint32_t>& at = r.normalized.toInput;
    std::vector<Piece> out;
    out.reserve(r.tokens.size());
    for (const UnigramToken& t : r.tokens)
        out.push_back({t.id, at[t.begin], std::max(at[t.begin], at[t.end])});
    return out;
}

std::vector<std::string> SentencePieceTokenizer::encodePieces(std::string_view text) const {
    const Run r = run(text);
    std::vector<std::string> out;
    for (const UnigramToken& t : r.tokens)
        out.push_back(t.id == unigram_.unkId() || !model_.byteFallback
                          ? r.normalized.text.substr(t.begin, t.end - t.begin)
                          : unigram_.pieceOf(t.id));
    return out;
}

std::vector<int> SentencePieceTokenizer::encodeIds(std::string_view text) const {
    std::vector<int> ids;
    for (const Piece& p : pieces(text)) ids.push_back(p.id);
    return ids;
}

// The ids, cut to leave room for </s>, then </s> at the end of the text.
Encoding SentencePieceTokenizer::encode(std::string_view text, const std::string* pair,
                                        int maxTokens) const {
    if (pair)
        throw std::invalid_argument("a sentence pair is for encoders (BERT, RoBERTa); this "
                                    "model reads one text");
    std::vector<Piece> all = pieces(text);
    const std::size_t specials = eos_ >= 0 ? 1 : 0;
    const std::size_t room = std::size_t(std::max(maxTokens, 0));
    Encoding e;
    e.tokens.text = std::string(text);
    if (all.size() + specials > room) {
        if (room < specials + 1)
            throw std::invalid_argument("the model's " + std::to_string(maxTokens) +
                                        " positions hold no text");
        e.warnings.push_back("the text has " + std::to_string(all.size() + specials) +
                             " tokens; kept the first " + std::to_string(maxTokens) +
                             " (the model's context)");
        all.resize(room - specials);
    }
    for (const Piece& p : all) {
        e.ids.push_back(p.id), e.types.push_back(0), e.special.push_back(0);
        e.tokens.tokens.push_back({readable(p.id), p.begin, p.end});
    }
    if (eos_ >= 0) {
        const std::uint32_t at = all.empty() ? 0 : all.back().end;
        e.ids.push_back(eos_), e.types.push_back(0), e.special.push_back(1);
        e.tokens.tokens.push_back({readable(eos_), at, at});
    }
    return e;
}

std::string SentencePieceTokenizer::readable(int id) const {
    if (id < 0 || id >= unigram_.size())
        throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary");
    const SpmPiece& p = model_.pieces[std::size_t(id)];
    if (p.type == SpmPieceType::Control || p.type == SpmPieceType::Unknown ||
        p.type == SpmPieceType::UserDefined)
        return sanitizeUtf8(p.text); // as typed: </s>, <unk>
    if (p.type == SpmPieceType::Byte && p.text.size() == 6 && p.text.rfind("<0x", 0) == 0)
        return readableBytes(std::string(1, char(std::stoi(p.text.substr(3, 2), nullptr, 16))));
    std::string bytes; // ▁ is a space, shown as the other tokenizers show one
    for (std::size_t at = 0; at < p.text.size();) {
        const bool mark = p.text.compare(at, 3, "\xe2\x96\x81") == 0;
        bytes += mark ? ' ' : p.text[at];
        at += mark ? 3 : 1;
    }
    return readableBytes(bytes);
}

std::vector<int> SentencePieceTokenizer::specialIds() const {
    return eos_ >= 0 ? std::vector<int>{eos_} : std::vector<int>{};
}

std::string SentencePieceTokenizer::describe() const {
    const std::string name =
        model_.normalizer.name.empty() ? "no normalizer" : model_.normalizer.name;
    return std::string(model_.byteFallback ? "any text" : "text") + ": SentencePiece Unigram (" +
           name + ", " + std::to_string(unigram_.size()) + " pieces" +
           (model_.byteFallback ? ", byte fallback" : "") + ")" + (eos_ >= 0 ? ", text </s>" : "");
}

} // namespace core::models
