// Views derived from the heads' attention maps: the mean over heads, the difference of two
// heads, and per-row statistics (entropy, where the maximum sits). The window draws them and
// the exporters write them from these same numbers.
#pragma once

#include "engine/trace.h"
#include "figures/attention_map.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace core {

// Mean of every head's weights (switched-off heads included: their weights are still
// computed). Rows still sum to 1; masked cells stay kMaskedCell.
AttentionMap meanAttentionMap(const Trace& trace, int batchIndex,
                              PairView pairView = PairView::All);

// Head a minus head b, cell by cell, in [-1, 1]; maxWeight holds the largest |difference|.
AttentionMap headDifferenceMap(const Trace& trace, int batchIndex, int headA, int headB,
                               PairView pairView = PairView::All);
// Head a of `trace` minus head b of `other`: the same layer of another model run on the same
// text (the A-B tab across two models). Both traces must have the same queries and keys.
AttentionMap headDifferenceMap(const Trace& trace, int headA, const Trace& other, int headB,
                               int batchIndex, PairView pairView = PairView::All);

// The colour scale's end for a difference map whose largest |value| is maxAbs: symmetric, so
// white is "no difference", rounded up to 0.05 and at least 0.05, so noise does not look loud.
inline float differenceExtent(float maxAbs) {
    return std::ceil(std::max(maxAbs, 0.05f) * 20.0f) / 20.0f;
}

struct RowStatistics {
    double entropyBits = 0; // of the row over the keys it may see; 0 when all are masked
    int argmaxKey = -1;     // key with the largest weight; -1 when every key is masked
    float maxWeight = 0;
};

struct HeadStatistics {
    std::vector<RowStatistics> rows; // N, one per query
    double meanEntropyBits = 0;      // over rows that see at least one key
    double maxEntropyBits = 0;       // log2 of the most keys a row sees: a uniform row
    // Where the maximum usually sits, as an offset from the query (key - query): the most
    // common one, and the share of rows whose maximum sits there.
    int typicalOffset = 0;
    double typicalShare = 0;
    // The same for a fixed key (an attention sink such as the first token).
    int typicalKey = -1;
    double typicalKeyShare = 0;
};

HeadStatistics headStatistics(const Trace& trace, int batchIndex, int head);

// Row entropy of every head and query of one sentence, as a map: the Stats tab draws it and
// entropyFigure exports it, from these same numbers.
struct EntropyMap {
    // rows: H heads (labelled with trace.headNames), cols: N queries (their tokens); bits,
    // kMaskedCell where a query sees no key; maxWeight: the largest log2(keys seen), 0 when
    // every row sees one key at most.
    AttentionMap map;
    std::vector<HeadStatistics> heads; // H: what the map was made from (argmax, typical offset)
};

EntropyMap entropyMap(const Trace& trace, int batchIndex);

// "self", "previous token", "3 back", "next token", "2 ahead": an offset in words.
std::string describeOffset(int offset);

// Where a head's maximum usually sits, in words: the offset or the fixed key that explains
// more rows, e.g. "previous token (91% of rows)" or "key 1 'The' (100% of rows)".
std::string describeMaximum(const HeadStatistics& stats, const std::vector<std::string>& keyLabels);

} // namespace core
