// The merges of a SentencePiece vocabulary (sentencepiece_merges.h).
#include "models/tokenizers/sentencepiece_merges.h"

#include "models/tokenizers/flat_tables.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace core::models {
namespace {

struct Candidate {
    float score;
    std::uint32_t leftLength, rightLength; // code points
    int piece, left, right;
};

// transformers' order: score, then left length, then right length, all descending; ties keep
// the vocabulary's order (the piece's id, then the parts' ids).
bool ranksBefore(const Candidate& a, const Candidate& b) {
    if (a.score != b.score) return a.score > b.score;
    if (a.leftLength != b.leftLength) return a.leftLength > b.leftLength;
    if (a.rightLength != b.rightLength) return a.rightLength > b.rightLength;
    if (a.piece != b.piece) return a.piece < b.piece;
    return a.left != b.left ? a.left < b.left : a.right < b.right;
}

bool startsCharacter(char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
}

// Every cut of `piece` into two entries of `index`.
void cutsOf(const std::string& piece, int id, float score, const TokenIndex& index,
            std::vector<Candidate>& out) {
    std::uint32_t total = 0;
    for (char c : piece) total += startsCharacter(c) ? 1 : 0;
    std::uint32_t left = 0;
    for (std::size_t at = 1; at < piece.size(); ++at) {
        if (startsCharacter(piece[at - 1])) ++left;
        if (!startsCharacter(piece[at])) continue;
        const std::string_view text(piece);
        const int l = index.find(text.substr(0, at)), r = index.find(text.substr(at));
        if (l >= 0 && r >= 0) out.push_back({score, left, total - left, id, l, r});
    }
}

} // namespace

std::vector<std::pair<std::string, std::string>>
sentencePieceMerges(const std::vector<std::string>& pieces, const std::vector<float>& scores) {
    TokenIndex index;
    index.reserve(pieces.size());
    for (std::size_t id = 0; id < pieces.size(); ++id)
        if (!pieces[id].empty() && index.find(pieces[id]) < 0) index.set(pieces[id], int(id));
    std::vector<Candidate> candidates;
    for (std::size_t id = 0; id < pieces.size(); ++id) {
        if (pieces[id].empty() || index.find(pieces[id]) != int(id)) continue;
        const float score =
            std::isnan(scores[id]) ? -std::numeric_limits<float>::infinity() : scores[id];
        cutsOf(pieces[id], int(id), score, index, candidates);
    }
    std::sort(candidates.begin(), candidates.end(), ranksBefore);
    std::vector<std::pair<std::string, std::string>> merges;
    merges.reserve(candidates.size());
    for (const Candidate& c : candidates)
        merges.emplace_back(pieces[std::size_t(c.left)], pieces[std::size_t(c.right)]);
    return merges;
}

} // namespace core::models
