#include "engine/weights.h"

#include "base/prng.h"

#include <cmath>

namespace core {

namespace {

Mat glorotUniform(std::uint64_t streamSeed, int d_model) {
    SplitMix64 rng(streamSeed);
    const float limit = std::sqrt(3.0f / float(d_model));
    Mat w(d_model, d_model); // d_model x d_model
    for (int r = 0; r < d_model; ++r)
        for (int c = 0; c < d_model; ++c) w(r, c) = rng.symmetric(limit);
    return w;
}

} // namespace

Weights randomWeights(std::uint64_t seed, int d_model, int kvColumns) {
    constexpr std::uint64_t kStream = 0x6D68612D76697A00ull; // "mha-viz\0"
    const int kv = kvColumns > 0 && kvColumns < d_model ? kvColumns : d_model;
    Weights w; // no biases
    w.wQ = glorotUniform(seed ^ (kStream + 0), d_model);
    w.wK = glorotUniform(seed ^ (kStream + 1), d_model).leftCols(kv); // d_model x (H_kv*d_head)
    w.wV = glorotUniform(seed ^ (kStream + 2), d_model).leftCols(kv); // d_model x (H_kv*d_head)
    w.wO = glorotUniform(seed ^ (kStream + 3), d_model);
    return w;
}

} // namespace core
