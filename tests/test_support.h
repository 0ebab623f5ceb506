// Small helpers shared by the unit tests: random inputs from the portable PRNG.
#pragma once

#include "base/prng.h"
#include "engine/attention.h"
#include "engine/weights.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace testing_support {

inline core::Mat randomMatrix(Eigen::Index rows, Eigen::Index cols, std::uint64_t seed) {
    core::SplitMix64 rng(seed);
    core::Mat m(rows, cols); // rows x cols
    for (Eigen::Index r = 0; r < rows; ++r)
        for (Eigen::Index c = 0; c < cols; ++c) m(r, c) = rng.symmetric(1.7f);
    return m;
}

// B sentences of the given lengths, padded to the longest, as the app builds them.
inline core::AttentionInput paddedInput(const std::vector<int>& lengths, int d_model, int heads,
                                        std::uint64_t seed) {
    core::AttentionInput in;
    in.batch = int(lengths.size());
    in.queryLen = in.keyLen = *std::max_element(lengths.begin(), lengths.end());
    in.heads = heads;
    in.x = randomMatrix(Eigen::Index(in.batch) * in.queryLen, d_model, seed); // (B*N) x d_model
    in.keyPadding.setConstant(in.batch, in.keyLen, false);                    // B x M
    for (int b = 0; b < in.batch; ++b)
        for (int j = lengths[b]; j < in.keyLen; ++j) {
            in.x.row(Eigen::Index(b) * in.queryLen + j).setZero();
            in.keyPadding(b, j) = true;
        }
    return in;
}

// Largest |engine - expected| over all attention weights and all outputs.
struct WorstError {
    double weight = 0, output = 0;
};

template <class WeightFn, class OutputFn>
WorstError worstError(const core::Attention& a, WeightFn expectedWeight, OutputFn expectedOutput) {
    WorstError worst;
    for (int b = 0; b < a.batch; ++b) {
        for (int h = 0; h < a.heads; ++h)
            for (int i = 0; i < a.queryLen; ++i)
                for (int j = 0; j < a.keyLen; ++j)
                    worst.weight =
                        std::max(worst.weight, std::abs(a.attention(a.headRow(b, h, i), j) -
                                                        expectedWeight(b, h, i, j)));
        for (int i = 0; i < a.queryLen; ++i)
            for (int c = 0; c < a.d_model; ++c)
                worst.output =
                    std::max(worst.output, std::abs(a.output(Eigen::Index(b) * a.queryLen + i, c) -
                                                    expectedOutput(b, i, c)));
    }
    return worst;
}

} // namespace testing_support
