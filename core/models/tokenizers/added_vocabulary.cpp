// Added tokens split out of the text (added_vocabulary.h).
#include "models/tokenizers/added_vocabulary.h"

#include "models/tokenizers/code_point_regex.h"
#include "models/tokenizers/tokenizer_unicode.h"
#include "text/utf8.h"

#include <algorithm>

namespace core::models {

void AddedVocabulary::insert(Trie& trie, std::u32string_view cps, int token) {
    std::uint32_t node = 0;
    for (char32_t cp : cps) {
        const std::uint64_t key = (std::uint64_t(node) << 21) | cp;
        const auto found = trie.edges.find(key);
        if (found != trie.edges.end()) {
            node = found->second;
            continue;
        }
        trie.token.push_back(-1);
        node = trie.edges[key] = std::uint32_t(trie.token.size() - 1);
    }
    trie.token[node] = token;
}

void AddedVocabulary::add(const AddedTokenSpec& token, const UnitText& normalizedForm) {
    if (token.content.empty()) return; // as tokenizers: ignored
    int index;
    if (const auto found = byContent_.find(token.content); found != byContent_.end()) {
        index = found->second; // listed again: the later entry
        tokens_[std::size_t(index)] = token;
    } else {
        index = int(tokens_.size());
        tokens_.push_back(token);
        byContent_[token.content] = index;
    }
    byId_[token.id] = index;
    if (!token.normalized) {
        insert(raw_, decodeUtf8(token.content), index);
    } else if (!normalizedForm.empty()) {
        insert(normalized_, codePointsOf(normalizedForm), index);
    }
}

const AddedTokenSpec* AddedVocabulary::find(int id) const {
    const auto found = byId_.find(id);
    return found == byId_.end() ? nullptr : &tokens_[std::size_t(found->second)];
}

int AddedVocabulary::idOf(const std::string& content) const {
    const auto found = byContent_.find(content);
    return found == byContent_.end() ? -1 : tokens_[std::size_t(found->second)].id;
}

// Leftmost, then longest, without overlaps: what daachorse's LeftmostLongest finds.
std::vector<AddedVocabulary::Match> AddedVocabulary::matches(const Trie& trie,
                                                             const UnitText& text) const {
    std::vector<Match> found;
    if (trie.edges.empty()) return found;
    for (std::size_t start = 0; start < text.size();) {
        std::uint32_t node = 0;
        Match best{start, start, -1};
        for (std::size_t i = start; i < text.size(); ++i) {
            const auto edge = trie.edges.find((std::uint64_t(node) << 21) | text[i].cp);
            if (edge == trie.edges.end()) break;
            node = edge->second;
            if (trie.token[node] >= 0) best = {start, i + 1, trie.token[node]};
        }
        if (best.token < 0) {
            ++start;
            continue;
        }
        found.push_back(best);
        start = best.end;
    }
    return found;
}

void AddedVocabulary::split(std::vector<TextPiece>& pieces, bool normalizedTokens) const {
    const Trie& trie = normalizedTokens ? normalized_ : raw_;
    if (trie.edges.empty()) return;
    std::vector<TextPiece> out;
    for (TextPiece& piece : pieces) {
        if (piece.id >= 0) {
            out.push_back(std::move(piece));
            continue;
        }
        const UnitText& t = piece.text;
        std::size_t done = 0;
        for (Match m : matches(trie, t)) {
            const AddedTokenSpec& token = tokens_[std::size_t(m.token)];
            if (token.singleWord && ((m.begin > 0 && isWordCharacter(t[m.begin - 1].cp)) ||
                                     (m.end < t.size() && isWordCharacter(t[m.end].cp))))
                continue;
            if (token.lstrip)
                while (m.begin > done && isWhiteSpace(t[m.begin - 1].cp)) --m.begin;
            if (token.rstrip)
                while (m.end < t.size() && isWhiteSpace(t[m.end].cp)) ++m.end;
            m.begin = std::max(m.begin, done);
            if (m.begin >= m.end) continue;
            if (done < m.begin)
                out.push_back({UnitText(t.begin() + std::ptrdiff_t(done),
                                        t.begin() + std::ptrdiff_t(m.begin)),
                               -1});
            out.push_back(
                {UnitText(t.begin() + std::ptrdiff_t(m.begin), t.begin() + std::ptrdiff_t(m.end)),
                 token.id});
            done = m.end;
        }
        if (done < t.size())
            out.push_back({UnitText(t.begin() + std::ptrdiff_t(done), t.end()), -1});
    }
    pieces = std::move(out);
}

} // namespace core::models
