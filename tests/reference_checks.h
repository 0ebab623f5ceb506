// GoogleTest checks of the engine against the readable double-precision reference
// (engine/reference.h), shared by the unit tests of the forward pass and of the pitfall switches.
#pragma once

#include "engine/attention.h"
#include "engine/reference.h"
#include "test_support.h"

#include <gtest/gtest.h>

namespace testing_support {

inline constexpr double kReferenceTolerance = 1e-5;

inline core::Attention runForward(const core::AttentionInput& in, const core::Weights& w) {
    core::Attention out;
    core::forward(in, w, out);
    return out;
}

// Attention weights and outputs of `a` (computed from `in`, `w`) against the reference.
inline void expectWeightsAndOutputMatch(const core::Attention& a,
                                        const core::reference::Forward& ref) {
    const auto worst = worstError(
        a, [&](int b, int h, int i, int j) { return ref.attention(ref.headRow(b, h, i), j); },
        [&](int b, int i, int c) { return ref.output(Eigen::Index(b) * ref.queryLen + i, c); });
    EXPECT_LE(worst.weight, kReferenceTolerance);
    EXPECT_LE(worst.output, kReferenceTolerance);
}

} // namespace testing_support
