#include "figures/attention_map.h"

#include "text/utf8.h"

#include <algorithm>

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

AttentionMap attentionMap(const Trace& trace, int b, int h) {
    const Attention& a = trace.attention;
    AttentionMap map;
    map.rows = a.queryLen, map.cols = a.keyLen;
    map.values.resize(std::size_t(map.rows) * std::size_t(map.cols));
    for (int i = 0; i < map.rows; ++i) {
        const auto row = a.attention.row(a.headRow(b, h, i)); // 1 x M
        for (int j = 0; j < map.cols; ++j) {
            const bool masked = a.masked(b, i, j);
            map.values[std::size_t(i) * std::size_t(map.cols) + std::size_t(j)] =
                masked ? kMaskedCell : row[j];
            if (!masked) map.maxWeight = std::max(map.maxWeight, row[j]);
        }
    }
    map.queryLabels = labels(trace.sentences[std::size_t(b)], map.rows);
    map.keyLabels = labels(trace.keySide(b), map.cols);
    return map;
}

} // namespace core
