// Encoding with a tokenizer.json (tokenizer_json.h): the pipeline on a text, the special
// tokens around it, the cut to the model's context, the readable pieces.
#include "models/tokenizers/byte_level_bpe.h"
#include "models/tokenizers/tokenizer_json.h"
#include "text/utf8.h"

#include <algorithm>
#include <stdexcept>

namespace core::models {
namespace {

void requireUtf8(std::string_view text) {
    if (const std::size_t bad = firstInvalidUtf8(text); bad != std::string_view::npos)
        throw std::invalid_argument("the text is not valid UTF-8 (byte " + std::to_string(bad) +
                                    ")");
}

// The bytes of the text that units [first, last] stand for; one unit cut in parts (a byte
// token of a character left as typed) gives those bytes of it.
std::pair<std::uint32_t, std::uint32_t> rangeOf(const UnitText& units,
                                                const std::vector<std::uint32_t>& offsets,
                                                std::uint32_t begin, std::uint32_t end) {
    const auto unitAt = [&](std::uint32_t byte) {
        return std::size_t(std::upper_bound(offsets.begin(), offsets.end(), byte) -
                           offsets.begin()) -
               1;
    };
    const std::size_t first = unitAt(begin), last = unitAt(end - 1);
    std::uint32_t from = units[first].begin, to = units[first].end;
    for (std::size_t k = first; k <= last; ++k)
        from = std::min(from, units[k].begin), to = std::max(to, units[k].end);
    const std::uint32_t width = offsets[first + 1] - offsets[first];
    if (first == last && units[first].end - units[first].begin == width)
        return {units[first].begin + (begin - offsets[first]),
                units[first].begin + (end - offsets[first])};
    return {from, to};
}

} // namespace

// One pre-token through the model, each token with the bytes of the text it stands for.
void TokenizerJson::modelPieces(const UnitText& pre, std::vector<Piece>& out) const {
    std::string word;
    std::vector<std::uint32_t> offsets; // each unit's first byte in `word`, then its size
    for (const TextUnit& u : pre) {
        offsets.push_back(std::uint32_t(word.size()));
        appendUtf8(word, u.cp);
    }
    offsets.push_back(std::uint32_t(word.size()));
    const auto place = [&](int id, std::uint32_t from, std::uint32_t to) {
        const auto [begin, end] = rangeOf(pre, offsets, from, to);
        out.push_back({id, begin, end});
    };
    if (unigram_) {
        std::vector<UnigramToken> tokens;
        unigram_->encode(word, tokens);
        for (const UnigramToken& t : tokens) place(t.id, t.begin, t.end);
        return;
    }
    std::vector<BpeToken> tokens;
    model_.tokenize(word, tokens);
    for (const BpeToken& t : tokens) place(t.id, t.begin, t.end);
}

const std::string& TokenizerJson::modelToken(int id) const {
    static const std::string none;
    if (unigram_) return id >= 0 && id < unigram_->size() ? unigram_->pieceOf(id) : none;
    return model_.tokenOf(id);
}

std::vector<TokenizerJson::Piece> TokenizerJson::pieces(std::string_view text) const {
    requireUtf8(text);
    std::vector<TextPiece> stretches = {{unitsOf(text), -1}};
    added_.split(stretches, false);
    for (TextPiece& s : stretches)
        if (s.id < 0) normalizer_.apply(s.text);
    added_.split(stretches, true);
    std::vector<Piece> out;
    for (TextPiece& s : stretches) {
        if (s.id >= 0) {
            out.push_back({s.id, s.text.empty() ? 0 : s.text.front().begin,
                           s.text.empty() ? 0 : s.text.back().end});
            continue;
        }
        if (s.text.empty()) continue;
        for (const UnitText& pre : preTokenizer_.apply(std::move(s.text))) modelPieces(pre, out);
    }
    std::uint32_t done = 0; // ranges in order and apart, whatever a normalizer moved
    for (Piece& p : out) {
        p.begin = std::max(p.begin, done), p.end = std::max(p.end, p.begin);
        done = p.end;
    }
    return out;
}

std::vector<int> TokenizerJson::encodeIds(std::string_view text) const {
    std::vector<int> ids;
    for (const Piece& p : pieces(text)) ids.push_back(p.id);
    return ids;
}

void TokenizerJson::place(const std::vector<Piece>& pieces, std::string_view text, int type,
                          Encoding& e) const {
    (void)text;
    for (const Piece& p : pieces) {
        e.ids.push_back(p.id);
        e.types.push_back(type);
        e.tokens.tokens.push_back({readable(p.id), p.begin, p.end});
        const AddedTokenSpec* added = added_.find(p.id);
        e.special.push_back(added && added->special ? 1 : 0);
    }
}

Encoding TokenizerJson::encode(std::string_view text, const std::string* pair,
                               int maxTokens) const {
    if (pair && !options_.encoder)
        throw std::invalid_argument("a sentence pair is for encoders (BERT, RoBERTa); this model "
                                    "reads one text");
    std::vector<Piece> a = pieces(text), b;
    if (pair) b = pieces(*pair);
    const Layout layout = post_.layout(pair != nullptr);
    const std::size_t specials = std::size_t(post_.added(pair != nullptr));
    const std::size_t total = a.size() + b.size() + specials;
    const std::size_t room = std::size_t(std::max(maxTokens, 0));
    Encoding e;
    e.tokens.text = std::string(text);
    if (total > room) {
        if (pair || room < specials + 1)
            throw std::invalid_argument((pair ? "the pair has " : "the text has ") +
                                        std::to_string(total) +
                                        " tokens with its special tokens, more than the model's " +
                                        std::to_string(maxTokens) + " positions");
        e.warnings.push_back("the text has " + std::to_string(total) + " tokens; kept the first " +
                             std::to_string(maxTokens) + " (the model's context)");
        a.resize(room - specials);
    }
    std::uint32_t at = 0; // where a special token shows: after what came before it
    for (const LayoutPart& part : layout) {
        if (part.sequence < 0) {
            for (int id : part.ids) {
                e.ids.push_back(id), e.types.push_back(part.type), e.special.push_back(1);
                e.tokens.tokens.push_back({readable(id), at, at});
            }
            continue;
        }
        const std::vector<Piece>& s = part.sequence == 0 ? a : b;
        if (part.sequence == 1) e.pairStart = int(e.ids.size()), at = 0;
        place(s, part.sequence == 0 ? text : std::string_view(*pair), part.type, e);
        if (!s.empty()) at = s.back().end;
    }
    return e;
}

std::string TokenizerJson::bytesOf(int id) const {
    if (const AddedTokenSpec* added = added_.find(id)) return added->content;
    const std::string& token = modelToken(id);
    if (token.empty() && !(id >= 0 && id < modelSize() && modelIdOf("") == id))
        throw std::out_of_range("token id " + std::to_string(id) + " is not in the vocabulary");
    if (decoding_.byteFallback && token.size() == 6 && token.rfind("<0x", 0) == 0 &&
        token[5] == '>') {
        const int byte = std::stoi(token.substr(3, 2), nullptr, 16);
        return std::string(1, char(byte));
    }
    std::u32string cps = decodeUtf8(token);
    for (const auto& [from, to] : decoding_.replace)
        for (std::size_t at = cps.find(from); !from.empty() && at != std::u32string::npos;
             at = cps.find(from, at + to.size()))
            cps.replace(at, from.size(), to);
    std::string out;
    if (decoding_.byteLevel) {
        for (char32_t cp : cps) {
            const int byte = byteLevelByte(cp);
            if (byte < 0) return token; // not of the alphabet: the entry's own text
            out += char(byte);
        }
        return out;
    }
    for (char32_t cp : cps) appendUtf8(out, cp);
    return out;
}

std::string TokenizerJson::readable(int id) const {
    if (added_.find(id)) return bytesOf(id);
    return readableBytes(bytesOf(id));
}

std::vector<int> TokenizerJson::specialIds() const {
    std::vector<int> ids;
    for (const LayoutPart& part : post_.layout(false))
        for (int id : part.ids)
            if (std::find(ids.begin(), ids.end(), id) == ids.end()) ids.push_back(id);
    if (ids.empty() && start_ >= 0) ids.push_back(start_);
    return ids;
}

std::string TokenizerJson::describe() const {
    const bool byteLevel = preTokenizer_.byteLevel();
    std::string marks;
    for (const LayoutPart& part : post_.layout(false))
        marks +=
            (marks.empty() ? "" : " ") + (part.sequence < 0 ? part.token : std::string("text"));
    const std::string model = unigram_ ? "Unigram" : "BPE";
    const std::string kind = byteLevel             ? "byte-level BPE"
                             : modelByteFallback() ? model + " with byte fallback"
                                                   : model;
    return std::string(byteLevel || modelByteFallback() ? "any text" : "text") + ": " + kind +
           " (tokenizer.json, " + std::to_string(vocabSize_) + " tokens)" +
           (marks == "text" ? "" : ", " + marks);
}

} // namespace core::models
