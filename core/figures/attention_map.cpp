#include "figures/attention_map.h"

#include "text/utf8.h"

#include <algorithm>
#include <array>
#include <cstring>

namespace core {

namespace {

// A label of at most kMaxLabelCodePoints; a 4,000-letter "word" would cost every frame.
std::string shortLabel(const std::string& token) {
    if (token.size() <= std::size_t(kMaxLabelCodePoints)) return token;
    const std::u32string points = decodeUtf8(token);
    if (points.size() <= std::size_t(kMaxLabelCodePoints)) return token;
    std::string label;
    for (int k = 0; k < kMaxLabelCodePoints - 1; ++k) appendUtf8(label, points[std::size_t(k)]);
    return label + "\xE2\x80\xA6"; // ellipsis
}

std::vector<std::string> labels(const Tokenized& sentence, int length) {
    std::vector<std::string> out;
    out.reserve(std::size_t(length));
    for (int i = 0; i < length; ++i)
        out.push_back(i < int(sentence.tokens.size())
                          ? shortLabel(sentence.tokens[std::size_t(i)].text)
                          : std::string(kPadLabel));
    return out;
}

} // namespace

bool hiddenByPairView(PairView view, int pairStart, int i, int j) {
    if (view == PairView::All || pairStart < 0) return false;
    const bool aQuery = i < pairStart, aKey = j < pairStart;
    return view == PairView::AToB ? !(aQuery && !aKey) : !(!aQuery && aKey);
}

AttentionMap attentionMap(const Trace& trace, int b, int h, PairView pairView) {
    const Attention& a = trace.attention;
    AttentionMap map;
    map.rows = a.queryLen, map.cols = a.keyLen;
    map.values.resize(std::size_t(map.rows) * std::size_t(map.cols));
    // The window builds every head's map for each new trace: rows are copied whole, and only
    // a sentence with padded keys tests every key (causal masking is a row's tail).
    const bool padded = a.paddedKeys(b);
    Eigen::Map<Mat> values(map.values.data(), map.rows, map.cols); // rows x cols
    values = a.attention.middleRows(a.headRow(b, h), map.rows);
    for (int i = 0; i < map.rows; ++i) {
        auto row = values.row(i); // 1 x cols
        if (padded) {
            for (int j = 0; j < map.cols; ++j)
                if (a.masked(b, i, j)) row[j] = kMaskedCell;
        } else {
            row.tail(map.cols - a.leadingKeys(i)).setConstant(kMaskedCell);
        }
        // Masked cells are below any weight; NaN weights are passed over, as before.
        map.maxWeight = std::max(map.maxWeight, row.maxCoeff<Eigen::PropagateNumbers>());
    }
    if (pairView != PairView::All && trace.pairStart > 0) {
        map.maxWeight = 0;
        for (int i = 0; i < map.rows; ++i)
            for (int j = 0; j < map.cols; ++j) {
                float& v = map.values[std::size_t(i) * std::size_t(map.cols) + std::size_t(j)];
                if (hiddenByPairView(pairView, trace.pairStart, i, j)) v = kMaskedCell;
                if (v != kMaskedCell) map.maxWeight = std::max(map.maxWeight, v);
            }
    }
    map.pairStart = trace.pairStart;
    map.queryLabels = labels(trace.sentences[std::size_t(b)], map.rows);
    map.keyLabels = labels(trace.keySide(b), map.cols);
    return map;
}

void colorCells(const float* values, std::size_t count, ColormapId colormap, float valueMin,
                float valueMax, std::uint8_t* rgba) {
    // RGBA of the 256 entries, and a 257th for masked cells: transparent black.
    std::array<std::array<std::uint8_t, 4>, 257> entries{};
    const ColormapTable& table = colormapTable(colormap);
    for (std::size_t i = 0; i < table.size(); ++i)
        entries[i] = {table[i].r, table[i].g, table[i].b, 255};
    // In blocks: the index pass has no branch and vectorises, the lookups follow (the window
    // colours B*H*N*M cells of a new trace; per cell with branches it was 4.5 ns).
    constexpr std::size_t kBlock = 256;
    std::array<std::int32_t, kBlock> index{};
    for (std::size_t start = 0; start < count; start += kBlock) {
        const std::size_t n = std::min(kBlock, count - start);
        const float* v = values + start;
        for (std::size_t k = 0; k < n; ++k) // the figures' own position and entry
            index[k] = v[k] == kMaskedCell
                           ? 256
                           : colormapEntry(colorScalePosition(v[k], valueMin, valueMax));
        for (std::size_t k = 0; k < n; ++k)
            std::memcpy(rgba + (start + k) * 4, entries[std::size_t(index[k])].data(), 4);
    }
}

AttentionMap attentionMap(const train::ProbeMaps& maps, int layer, int head) {
    AttentionMap map;
    map.rows = map.cols = maps.length;
    map.queryLabels = map.keyLabels = maps.labels;
    const float* values = maps.map(layer, head);
    map.values.assign(values, values + std::size_t(maps.length) * maps.length);
    for (int i = 0; i < maps.length; ++i)
        for (int j = 0; j < maps.length; ++j) {
            float& cell = map.values[std::size_t(i) * maps.length + j];
            if (j > i)
                cell = kMaskedCell; // causal: the future is not seen
            else
                map.maxWeight = std::max(map.maxWeight, cell);
        }
    return map;
}

} // namespace core
