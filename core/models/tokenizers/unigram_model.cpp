// The Unigram model's Viterbi walk and its trie of pieces (unigram_model.h).
#include "models/tokenizers/unigram_model.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace core::models {
namespace {

// SentencePiece's OneCharLen: a UTF-8 character's length from its first byte (a stray
// continuation byte counts as one).
std::size_t oneCharLen(char c) {
    const auto b = static_cast<unsigned char>(c);
    return b < 0xc0 ? 1 : b < 0xe0 ? 2 : b < 0xf0 ? 3 : 4;
}

} // namespace

// A node per distinct prefix, its edges contiguous and sorted by byte (the keys are sorted);
// built with a stack, not recursion, since a key may be long.
void PieceTrie::build(std::vector<std::pair<std::string_view, int>> keys) {
    std::stable_sort(keys.begin(), keys.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    nodes_.assign(1, Node{});
    edges_.clear();
    struct Todo {
        std::uint32_t node;
        std::size_t lo, hi, depth;
    };
    std::vector<Todo> stack = {{0, 0, keys.size(), 0}};
    while (!stack.empty()) {
        Todo t = stack.back();
        stack.pop_back();
        while (t.lo < t.hi && keys[t.lo].first.size() == t.depth)
            nodes_[t.node].id = keys[t.lo++].second; // a key given twice: the last id wins
        nodes_[t.node].firstEdge = std::uint32_t(edges_.size());
        for (std::size_t lo = t.lo; lo < t.hi;) {
            const auto byte = static_cast<unsigned char>(keys[lo].first[t.depth]);
            std::size_t hi = lo;
            while (hi < t.hi && static_cast<unsigned char>(keys[hi].first[t.depth]) == byte) ++hi;
            const auto child = std::uint32_t(nodes_.size());
            nodes_.push_back(Node{});
            edges_.push_back({byte, child});
            stack.push_back({child, lo, hi, t.depth + 1});
            lo = hi;
        }
        nodes_[t.node].edges = std::uint32_t(edges_.size()) - nodes_[t.node].firstEdge;
    }
}

// Binary search of the node's sorted edges.
std::uint32_t PieceTrie::childOf(const Node& node, unsigned char byte) const {
    const Edge* first = edges_.data() + node.firstEdge;
    const Edge* last = first + node.edges;
    const Edge* e = std::lower_bound(first, last, byte,
                                     [](const Edge& x, unsigned char b) { return x.byte < b; });
    return e != last && e->byte == byte ? e->child : 0;
}

// The trie of the pieces in the walk, the look-up of all, the score bounds and <0xXX> ids.
UnigramModel::UnigramModel(std::vector<std::string> pieces, std::vector<double> scores,
                           std::vector<UnigramPieceKind> kinds, int unkId, bool byteFallback,
                           UnigramFlavor flavor)
    : pieces_(std::move(pieces)), scores_(std::move(scores)), kinds_(std::move(kinds)), unk_(unkId),
      byteFallback_(byteFallback), flavor_(flavor) {
    if (unk_ < 0 || unk_ >= size() || scores_.size() != pieces_.size() ||
        kinds_.size() != pieces_.size())
        throw std::invalid_argument("the unknown piece's id is not a piece");
    const bool spm = flavor_ == UnigramFlavor::SentencePiece;
    minScore_ = spm ? FLT_MAX : HUGE_VAL;
    maxScore_ = FLT_MIN; // as sentencepiece starts it: the top is never below this
    std::vector<std::pair<std::string_view, int>> keys;
    index_.reserve(pieces_.size());
    for (std::size_t id = 0; id < pieces_.size(); ++id) {
        index_.set(pieces_[id], int(id));
        if (kinds_[id] != UnigramPieceKind::Reserved) keys.emplace_back(pieces_[id], int(id));
        if (!spm || kinds_[id] == UnigramPieceKind::Normal) {
            minScore_ = std::min(minScore_, scores_[id]);
            maxScore_ = std::max(maxScore_, scores_[id]);
        }
    }
    trie_.build(std::move(keys));
    for (int b = 0; b < 256; ++b) {
        char name[8];
        std::snprintf(name, sizeof name, "<0x%02X>", b);
        byteIds_[b] = idOf(name);
    }
}

int UnigramModel::idOf(std::string_view piece) const {
    return index_.find(piece);
}

// The best path ending at each byte; `Sum` is the type the original sums scores in.
template <class Sum>
void UnigramModel::walk(std::string_view text, std::vector<Best>& best) const {
    const std::size_t size = text.size();
    best.assign(size + 1, Best{});
    const bool spm = flavor_ == UnigramFlavor::SentencePiece;
    const Sum unkScore = Sum(minScore_) - Sum(10);
    for (std::size_t start = 0; start < size;) {
        const Sum till = Sum(best[start].score);
        const std::size_t mblen = std::min(oneCharLen(text[start]), size - start);
        bool single = false;
        const auto offer = [&](std::size_t end, int id, double candidate) {
            Best& target = best[end];
            if (target.from < 0 || candidate > target.score)
                target = {id, int(start), double(Sum(candidate))};
        };
        trie_.prefixes(text.substr(start), [&](std::size_t length, int id) {
            if (kinds_[std::size_t(id)] == UnigramPieceKind::Unused) return;
            if (spm && kinds_[std::size_t(id)] == UnigramPieceKind::UserDefined)
                offer(start + length, id,
                      double(float(length) * float(maxScore_)) - 0.1 + double(till));
            else
                offer(start + length, id, double(Sum(Sum(scores_[std::size_t(id)]) + till)));
            if (length == mblen) single = true;
        });
        if (!single) offer(start + mblen, unk_, double(Sum(unkScore + till)));
        start += mblen;
    }
}

// Back from the end along the best path; then runs of unknowns merged, or their bytes.
void UnigramModel::emit(std::string_view text, const std::vector<Best>& best,
                        std::vector<UnigramToken>& out) const {
    std::vector<UnigramToken> path;
    for (std::size_t end = text.size(); end > 0;) {
        const Best& b = best[end];
        if (b.from < 0) break; // unreachable: every character start is reached
        path.push_back({b.id, std::uint32_t(b.from), std::uint32_t(end)});
        end = std::size_t(b.from);
    }
    std::reverse(path.begin(), path.end());
    bool prevUnknown = false;
    for (const UnigramToken& t : path) {
        const bool unknown = t.id == unk_;
        if (unknown && byteFallback_) {
            for (std::uint32_t k = t.begin; k < t.end; ++k) {
                const int id = byteIds_[static_cast<unsigned char>(text[k])];
                out.push_back({id >= 0 ? id : unk_, k, k + 1}); // each its own byte
            }
        } else if (unknown && prevUnknown) {
            out.back().end = t.end;
        } else {
            out.push_back(t);
        }
        prevUnknown = unknown;
    }
}

// The walk in the flavour's arithmetic, then the path read back.
void UnigramModel::encode(std::string_view normalized, std::vector<UnigramToken>& out) const {
    if (normalized.empty()) return;
    std::vector<Best> best;
    if (flavor_ == UnigramFlavor::SentencePiece)
        walk<float>(normalized, best);
    else
        walk<double>(normalized, best);
    emit(normalized, best, out);
}

} // namespace core::models
