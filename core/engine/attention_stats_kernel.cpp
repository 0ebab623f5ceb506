// The entropy sums behind attention_stats.h, compiled with the other kernels once per SIMD level
// (attention_kernel.h): the window recomputes the mean over every row of every head for each
// new trace (B*H*N*M logs: 1.2 ms at N 128, H 16 on the baseline path, a third of that on
// AVX-512), and the logs are most of it.
//
// Map: each step of the math, the function here that computes it, and its readable version in
// engine/reference.h (core::reference: in double, straight loops).
//   entropy of a row: -sum p ln p             entropyOfRow, rowEntropy      entropy
//   mean over rows with a visible key         meanRowEntropy                (a mean of entropy)
// The call: core::rowEntropy and core::meanRowEntropy (attention_stats.cpp) call
// kernel::active().rowEntropy and .meanRowEntropy, the entries of the active SIMD level's
// MhaEngineKernel table (attention_kernel.h), which simd.cpp fills with this file's functions:
// the built-in copy, or the one in lib/mha-viz/libmha_engine_<level>.so that it loads with dlopen.
#include "engine/attention_kernel.h"

#include <limits>

namespace core::kernel {

namespace {

// Entropy of one row and whether any of its keys is visible. Masked weights are exactly 0
// (the trace contract), so they drop out with the other zeros: 0 * log(FLT_MIN) is 0, and a
// weight under FLT_MIN adds about 1e-36 at most. The logs run vectorised in float (Eigen's
// select is not, and left a scalar logf per cell); the UI shows the result to two decimals.
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

} // namespace core::kernel
