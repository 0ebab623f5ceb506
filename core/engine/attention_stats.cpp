#include "engine/attention_stats.h"

#include <cmath>

namespace core {

namespace {

// Entropy of one row and whether any of its keys is visible.
double entropyOfRow(const Attention& a, int b, int h, int i, bool& anyVisible) {
    const auto row = a.attention.row(a.headRow(b, h, i)); // 1 x M
    double entropy = 0;
    anyVisible = false;
    for (int j = 0; j < a.keyLen; ++j) {
        if (a.masked(b, i, j)) continue;
        anyVisible = true;
        const double p = row[j];
        if (p > 0) entropy -= p * std::log(p); // 0 * log 0 = 0 (underflowed weights)
    }
    return entropy;
}

} // namespace

double rowEntropy(const Attention& a, int b, int h, int i) {
    bool anyVisible = false;
    return entropyOfRow(a, b, h, i, anyVisible);
}

double meanRowEntropy(const Attention& a) {
    double sum = 0;
    long long rows = 0;
    for (int b = 0; b < a.batch; ++b)
        for (int h = 0; h < a.heads; ++h)
            for (int i = 0; i < a.queryLen; ++i) {
                bool anyVisible = false;
                const double entropy = entropyOfRow(a, b, h, i, anyVisible);
                if (!anyVisible) continue;
                sum += entropy;
                ++rows;
            }
    return rows > 0 ? sum / double(rows) : 0.0;
}

} // namespace core
