// SentencePiece's EncodeAsIds over a model file, and T5's / Marian's </s> after it
// (sentencepiece_tokenizer.h).
#include "models/tokenizers/sentencepiece_tokenizer.h"

#include "models/tokenizers/byte_level_bpe.h"
#include "models/tokenizers/tokenizer_unicode.h"
#include "text/utf8.h"

#include <algorithm>
#include <stdexcept>

namespace core::models {

namespace {

// Python's str.isspace, what T5Tokenizer's strip of a sentinel's neighbours uses: the White_Space
// property and the separators U+001C..U+001F.
bool pythonSpace(char32_t cp) {
    return isWhiteSpace(cp) || (cp >= 0x1c && cp <= 0x1f);
}

// The first byte of [from, to) of valid UTF-8 that does not start whitespace (str.lstrip).
std::size_t skipSpaceForward(std::string_view s, std::size_t from, std::size_t to) {
    while (from < to) {
        const std::size_t n = utf8Length(s, from);
        if (!pythonSpace(codePointAt(s, from, n))) break;
        from += n;
    }
    return from;
}

// The end of [from, to) of valid UTF-8 without its trailing whitespace (str.rstrip).
std::size_t skipSpaceBackward(std::string_view s, std::size_t from, std::size_t to) {
    while (to > from) {
        std::size_t start = to - 1;
        while (start > from && (std::uint8_t(s[start]) & 0xC0) == 0x80) --start;
        if (!pythonSpace(codePointAt(s, start, to - start))) break;
        to = start;
    }
    return to;
}

} // namespace

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::open(const std::string& path) {
    return std::make_unique<SentencePieceTokenizer>(openSentencePieceModel(path));
}

std::unique_ptr<SentencePieceTokenizer> SentencePieceTokenizer::openT5(const std::string& path,
                                                                       int extraIds) {
    return std::make_unique<SentencePieceTokenizer>(openSentencePieceModel(path),
                                                    std::max(extraIds, 0));
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

// </s> by its text, as the transformers tokenizers find it; else trainer_spec's eos_id. As
// T5Tokenizer: its eos, pad and unk tokens (where the model has them) and the sentinels are the
// added tokens typed text is split at.
SentencePieceTokenizer::SentencePieceTokenizer(SentencePieceModel model, int extraIds)
    : model_(std::move(model)), normalizer_(model_), unigram_(unigramOf(model_)) {
    eos_ = unigram_.idOf("</s>"); // T5Tokenizer's and MarianTokenizer's eos_token
    if (eos_ < 0 && model_.eosId >= 0 && model_.eosId < unigram_.size()) eos_ = model_.eosId;
    if (extraIds < 0) return;
    extraIds_ = extraIds;
    for (const char* special : {"</s>", "<pad>", "<unk>"})
        if (const int id = unigram_.idOf(special); id >= 0) added_.push_back({special, id, false});
    for (int n = 0; n < extraIds; ++n)
        added_.push_back(
            {"<extra_id_" + std::to_string(n) + ">", unigram_.size() + extraIds - 1 - n, true});
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

std::vector<int> SentencePieceTokenizer::textIds(std::string_view text) const {
    std::vector<int> ids;
    for (const Piece& p : splitPieces(text)) ids.push_back(p.id);
    return ids;
}

// The added token typed at text[at], the longest of those that start there (Trie.split's
// choice); null when none does.
const SentencePieceTokenizer::Added* SentencePieceTokenizer::addedAt(std::string_view text,
                                                                     std::size_t at) const {
    const Added* best = nullptr;
    for (const Added& a : added_)
        if (text[at] == a.text[0] && text.compare(at, a.text.size(), a.text) == 0 &&
            (!best || a.text.size() > best->text.size()))
            best = &a;
    return best;
}

// EncodeAsIds of the stretch [from, to) alone, its pieces' bytes counted in the whole text.
void SentencePieceTokenizer::piecesOf(std::string_view text, std::size_t from, std::size_t to,
                                      std::vector<Piece>& out) const {
    if (from >= to) return;
    for (Piece p : pieces(text.substr(from, to - from))) {
        p.begin += std::uint32_t(from), p.end += std::uint32_t(from);
        out.push_back(p);
    }
}

// T5Tokenizer's tokenize: the typed special tokens split out (leftmost first), a sentinel's
// neighbouring whitespace dropped, each stretch between them through SentencePiece alone.
std::vector<SentencePieceTokenizer::Piece>
SentencePieceTokenizer::splitPieces(std::string_view text) const {
    if (added_.empty()) return pieces(text);
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        throw std::invalid_argument("the text is not valid UTF-8 (byte " + std::to_string(bad) +
                                    ")");
    std::vector<Piece> out;
    std::size_t from = 0;    // the stretch not yet encoded starts here
    bool stripFront = false; // the token before it takes its leading whitespace
    for (std::size_t at = 0; at < text.size();) {
        const Added* a = addedAt(text, at);
        if (!a) {
            ++at;
            continue;
        }
        const std::size_t begin = stripFront ? skipSpaceForward(text, from, at) : from;
        piecesOf(text, begin, a->strip ? skipSpaceBackward(text, begin, at) : at, out);
        out.push_back({a->id, std::uint32_t(at), std::uint32_t(at + a->text.size()), true});
        from = at += a->text.size();
        stripFront = a->strip;
    }
    piecesOf(text, stripFront ? skipSpaceForward(text, from, text.size()) : from, text.size(), out);
    return out;
}

// The ids, cut to leave room for </s>, then </s> at the end of the text.
Encoding SentencePieceTokenizer::encode(std::string_view text, const std::string* pair,
                                        int maxTokens) const {
    if (pair)
        throw std::invalid_argument("a sentence pair is for encoders (BERT, RoBERTa); this "
                                    "model reads one text");
    std::vector<Piece> all = splitPieces(text);
    // _add_eos_if_not_present: a text ending with a typed </s> gets no second one
    const auto addsEos = [&] {
        return eos_ >= 0 && (added_.empty() || all.empty() || all.back().id != eos_);
    };
    std::size_t specials = addsEos() ? 1 : 0;
    const std::size_t room = std::size_t(std::max(maxTokens, 0));
    Encoding e;
    e.tokens.text = std::string(text);
    if (all.size() + specials > room) {
        specials = eos_ >= 0 ? 1 : 0; // cut: room for the </s> after the text
        if (room < specials + 1)
            throw std::invalid_argument("the model's " + std::to_string(maxTokens) +
                                        " positions hold no text");
        e.warnings.push_back("the text has " + std::to_string(all.size() + specials) +
                             " tokens; kept the first " + std::to_string(maxTokens) +
                             " (the model's context)");
        all.resize(room - specials);
    }
    for (const Piece& p : all) {
        e.ids.push_back(p.id), e.types.push_back(0), e.special.push_back(p.typed ? 1 : 0);
        e.tokens.tokens.push_back({readable(p.id), p.begin, p.end});
    }
    if (addsEos()) {
        const std::uint32_t at = all.empty() ? 0 : all.back().end;
        e.ids.push_back(eos_), e.types.push_back(0), e.special.push_back(1);
        e.tokens.tokens.push_back({readable(eos_), at, at});
    }
    return e;
}

std::string SentencePieceTokenizer::readable(int id) const {
    if (id < 0 || id >= vocabSize())
        throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary");
    if (id >= unigram_.size()) // T5Tokenizer's sentinel, counted down from the last id
        return "<extra_id_" + std::to_string(vocabSize() - 1 - id) + ">";
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
           (model_.byteFallback ? ", byte fallback" : "") +
           (extraIds_ > 0 ? ", " + std::to_string(extraIds_) + " sentinels <extra_id_N>" : "") +
           ")" + (eos_ >= 0 ? ", text </s>" : "");
}

} // namespace core::models
