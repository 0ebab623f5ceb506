// The Unigram model of SentencePiece (sentencepiece_tokenizer.h) and of a tokenizer.json
// (tokenizer_json.h): the best-scoring split of a normalized text into pieces, by the Viterbi
// walk sentencepiece's EncodeOptimized and Hugging Face's encode_optimized both do. At each
// character every piece that starts there is a candidate, scored by the path before it plus its
// score; a character no single-character piece covers is the unknown piece, scored the lowest
// piece score minus 10. Runs of unknown characters come out as one unknown id, or, with byte
// fallback, as the <0xXX> pieces of their bytes.
// The two flavours differ only where the originals do: SentencePiece sums in float, leaves
// CONTROL, UNKNOWN and BYTE pieces out of the walk, never takes UNUSED ones, scores a
// USER_DEFINED piece length x the top NORMAL score - 0.1 (so it always wins), and takes the
// lowest score over NORMAL pieces; Hugging Face sums in double over every entry.
// Immutable once built.
#pragma once

#include "models/tokenizers/flat_tables.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace core::models {

// Keys (byte strings) -> ids, walked byte by byte for every key that is a prefix of a text.
class PieceTrie {
  public:
    void build(std::vector<std::pair<std::string_view, int>> keys);
    // Calls visit(length, id) for each key that is a prefix of `text`, shortest first.
    template <class Visit>
    void prefixes(std::string_view text, Visit&& visit) const;

  private:
    struct Node {
        std::uint32_t firstEdge = 0, edges = 0;
        int id = -1;
    };
    struct Edge {
        unsigned char byte;
        std::uint32_t child;
    };
    std::uint32_t childOf(const Node& node, unsigned char byte) const; // 0: none
    std::vector<Node> nodes_;
    std::vector<Edge> edges_;
};

template <class Visit>
void PieceTrie::prefixes(std::string_view text, Visit&& visit) const {
    if (nodes_.empty()) return;
    std::uint32_t at = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        at = childOf(nodes_[at], static_cast<unsigned char>(text[i]));
        if (at == 0) return;
        if (nodes_[at].id >= 0) visit(i + 1, nodes_[at].id);
    }
}

struct UnigramToken {
    int id;
    std::uint32_t begin, end; // bytes of the normalized text (a fallback byte: that byte)
};

enum class UnigramPieceKind : std::uint8_t { Normal, UserDefined, Unused, Reserved };
enum class UnigramFlavor { SentencePiece, HuggingFace };

class UnigramModel {
  public:
    UnigramModel() = default;
    // pieces[id] with scores[id] and kinds[id] (Reserved: not in the walk); unkId must be an id.
    UnigramModel(std::vector<std::string> pieces, std::vector<double> scores,
                 std::vector<UnigramPieceKind> kinds, int unkId, bool byteFallback,
                 UnigramFlavor flavor);

    void encode(std::string_view normalized, std::vector<UnigramToken>& out) const;
    int idOf(std::string_view piece) const; // -1 when absent
    const std::string& pieceOf(int id) const { return pieces_[std::size_t(id)]; }
    int size() const { return int(pieces_.size()); }
    bool byteFallback() const { return byteFallback_; }
    int unkId() const { return unk_; }

  private:
    struct Best {
        int id = -1, from = -1; // from: where the piece ending here starts (-1: unreached)
        double score = 0;
    };
    template <class Sum>
    void walk(std::string_view text, std::vector<Best>& best) const;
    void emit(std::string_view text, const std::vector<Best>& best,
              std::vector<UnigramToken>& out) const;

    std::vector<std::string> pieces_;
    std::vector<double> scores_;
    std::vector<UnigramPieceKind> kinds_;
    PieceTrie trie_;
    TokenIndex index_;
    int unk_ = 0;
    bool byteFallback_ = false;
    UnigramFlavor flavor_ = UnigramFlavor::SentencePiece;
    double minScore_ = 0, maxScore_ = 0;
    int byteIds_[256];
};

} // namespace core::models
