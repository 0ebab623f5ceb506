#include "engine/attention_stats.h"

#include "engine/attention_kernel.h"

#include <cmath>

namespace core {

// On this CPU's SIMD path (attention_stats_kernel.cpp), like the forward pass.
double rowEntropy(const Attention& a, int b, int h, int i) {
    return kernel::active().rowEntropy(a, b, h, i);
}

double uniformEntropy(int keys) {
    return keys > 0 ? std::log(double(keys)) : 0.0;
}

double meanRowEntropy(const Attention& a) {
    return kernel::active().meanRowEntropy(a);
}

} // namespace core
