#include "engine/attention_stats.h"

#include <cmath>
#include <limits>

namespace core {

namespace {

// Entropy of one row and whether any of its keys is visible. Masked weights are exactly 0
// (the trace contract), so they drop out with the other zeros: 0 * log(FLT_MIN) is 0, and a
// weight under FLT_MIN adds about 1e-36 at most. The logs run vectorised in float (Eigen's select
// is not, and left a scalar logf per cell: 1 ms per trace at N 128, H 16): the window
// recomputes this over every head's rows for each new trace, and shows it to two decimals.
double entropyOfRow(const Attention& a, int b, int h, int i, bool& anyVisible) {
    anyVisible = false;
    for (int j = 0; j < a.keyLen && !anyVisible; ++j) anyVisible = !a.masked(b, i, j);
    if (!anyVisible) return 0;
    const auto p = a.attention.row(a.headRow(b, h, i)).array(); // 1 x M
    return -double((p * p.max(std::numeric_limits<Scalar>::min()).log()).sum());
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
