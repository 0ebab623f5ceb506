#include "figures/head_views.h"

#include "engine/attention_stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

namespace core {

AttentionMap meanAttentionMap(const Trace& trace, int b, PairView pairView) {
    const Attention& a = trace.attention;
    AttentionMap mean = attentionMap(trace, b, 0, pairView); // labels and mask
    const int heads = a.heads;
    std::vector<double> sum(mean.values.size(), 0.0); // double: H may be large
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < a.queryLen; ++i) {
            const auto row = a.attention.row(a.headRow(b, h, i)); // 1 x M
            for (int j = 0; j < a.keyLen; ++j) sum[std::size_t(i) * a.keyLen + j] += row[j];
        }
    mean.maxWeight = 0;
    for (std::size_t c = 0; c < sum.size(); ++c) {
        if (mean.values[c] == kMaskedCell) continue; // the mask is the same in every head
        mean.values[c] = float(sum[c] / double(std::max(heads, 1)));
        mean.maxWeight = std::max(mean.maxWeight, mean.values[c]);
    }
    return mean;
}

AttentionMap headDifferenceMap(const Trace& trace, int b, int headA, int headB, PairView pairView) {
    return headDifferenceMap(trace, headA, trace, headB, b, pairView);
}

AttentionMap headDifferenceMap(const Trace& trace, int headA, const Trace& otherTrace, int headB,
                               int b, PairView pairView) {
    AttentionMap diff = attentionMap(trace, b, headA, pairView);
    const AttentionMap other = attentionMap(otherTrace, b, headB, pairView);
    if (other.rows != diff.rows || other.cols != diff.cols)
        throw std::invalid_argument("the two maps differ in shape: " + std::to_string(diff.rows) +
                                    " x " + std::to_string(diff.cols) + " against " +
                                    std::to_string(other.rows) + " x " +
                                    std::to_string(other.cols));
    diff.maxWeight = 0;
    for (std::size_t c = 0; c < diff.values.size(); ++c) {
        if (diff.values[c] == kMaskedCell) continue;
        if (other.values[c] == kMaskedCell) { // a cell only one sees has no difference
            diff.values[c] = kMaskedCell;
            continue;
        }
        diff.values[c] -= other.values[c];
        diff.maxWeight = std::max(diff.maxWeight, std::abs(diff.values[c]));
    }
    return diff;
}

HeadStatistics headStatistics(const Trace& trace, int b, int h) {
    const Attention& a = trace.attention;
    HeadStatistics stats;
    std::map<int, int> offsets, keys; // offset or key -> rows whose maximum sits there
    int rowsSeeing = 0;
    for (int i = 0; i < a.queryLen; ++i) {
        const auto row = a.attention.row(a.headRow(b, h, i)); // 1 x M
        RowStatistics r;
        int visible = 0;
        for (int j = 0; j < a.keyLen; ++j) {
            if (a.masked(b, i, j)) continue;
            ++visible;
            if (r.argmaxKey < 0 || row[j] > r.maxWeight) r.argmaxKey = j, r.maxWeight = row[j];
        }
        if (visible > 0) { // the engine's one entropy, in bits for this view
            r.entropyBits = natsToBits(rowEntropy(a, b, h, i));
            ++rowsSeeing;
            stats.meanEntropyBits += r.entropyBits;
            stats.maxEntropyBits =
                std::max(stats.maxEntropyBits, natsToBits(uniformEntropy(visible)));
            ++offsets[r.argmaxKey - i];
            ++keys[r.argmaxKey];
        }
        stats.rows.push_back(r);
    }
    if (rowsSeeing > 0) {
        stats.meanEntropyBits /= rowsSeeing;
        const auto typical = std::max_element( // ties: the offset nearest the query wins
            offsets.begin(), offsets.end(), [](const auto& x, const auto& y) {
                return x.second != y.second ? x.second < y.second
                                            : std::abs(x.first) > std::abs(y.first);
            });
        stats.typicalOffset = typical->first;
        stats.typicalShare = double(typical->second) / rowsSeeing;
        const auto key = std::max_element( // ties: the earlier key
            keys.begin(), keys.end(),
            [](const auto& x, const auto& y) { return x.second < y.second; });
        stats.typicalKey = key->first;
        stats.typicalKeyShare = double(key->second) / rowsSeeing;
    }
    return stats;
}

EntropyMap entropyMap(const Trace& trace, int b) {
    EntropyMap entropy;
    AttentionMap& map = entropy.map;
    map.rows = trace.attention.heads, map.cols = trace.queryLen();
    map.keyLabels = attentionMap(trace, b, 0).queryLabels; // the columns are queries
    for (int h = 0; h < map.rows; ++h) {
        entropy.heads.push_back(headStatistics(trace, b, h));
        const HeadStatistics& stats = entropy.heads.back();
        map.queryLabels.push_back(trace.headNames[std::size_t(h)]);
        for (const RowStatistics& row : stats.rows)
            map.values.push_back(row.argmaxKey < 0 ? kMaskedCell : float(row.entropyBits));
        map.maxWeight = std::max(map.maxWeight, float(stats.maxEntropyBits));
    }
    return entropy;
}

std::string describeOffset(int offset) {
    if (offset == 0) return "self";
    if (offset == -1) return "previous token";
    if (offset == 1) return "next token";
    return offset < 0 ? std::to_string(-offset) + " back" : std::to_string(offset) + " ahead";
}

std::string describeMaximum(const HeadStatistics& s, const std::vector<std::string>& keyLabels) {
    if (s.typicalKey < 0) return "every key masked";
    const bool byKey = s.typicalKeyShare > s.typicalShare && s.typicalKey < int(keyLabels.size());
    const std::string where = byKey ? "key " + std::to_string(s.typicalKey + 1) + " '" +
                                          keyLabels[std::size_t(s.typicalKey)] + "'"
                                    : describeOffset(s.typicalOffset);
    const double share = byKey ? s.typicalKeyShare : s.typicalShare;
    return where + " (" + std::to_string(int(std::lround(100.0 * share))) + "% of rows)";
}

} // namespace core
