// core::rotaryTables: the cos and sin of position x theta_j that the toy scenes (and any model
// with plain RoPE) hand the engine's Rotation.
#include "engine/reference.h"
#include "engine/rotary_positions.h"
#include "engine/weights.h"

#include <gtest/gtest.h>

#include <cmath>

namespace {

TEST(RotaryTables, AreCosAndSinOfPositionTimesThetaJ) {
    const core::Rotation r = core::rotaryTables(5, 8, 10000.0);
    ASSERT_EQ(r.cos.rows(), 5);
    ASSERT_EQ(r.cos.cols(), 4); // r/2 pairs
    EXPECT_EQ(r.dims(), 8);
    EXPECT_FALSE(r.interleaved);
    for (int p = 0; p < 5; ++p)
        for (int j = 0; j < 4; ++j) {
            const double angle = p * std::pow(10000.0, -2.0 * j / 8);
            EXPECT_FLOAT_EQ(r.cos(p, j), float(std::cos(angle))) << p << "," << j;
            EXPECT_FLOAT_EQ(r.sin(p, j), float(std::sin(angle))) << p << "," << j;
        }
    EXPECT_DOUBLE_EQ(core::rotaryFrequency(0, 8, 10000.0), 1.0);
    EXPECT_DOUBLE_EQ(core::rotaryFrequency(2, 8, 10000.0), 0.01);
}

TEST(RotaryTables, NothingToTurnGivesAnEmptyRotation) {
    EXPECT_TRUE(core::rotaryTables(5, 0, 10000.0).empty());
    EXPECT_TRUE(core::rotaryTables(0, 8, 10000.0).empty());
    EXPECT_EQ(core::rotaryDims(8), 8);
    EXPECT_EQ(core::rotaryDims(5), 4); // the last dimension has no partner
    EXPECT_EQ(core::rotaryDims(1), 0);
}

// RoFormer's point, with the engine's own turn: q_i . k_j after turning depends only on i - j.
TEST(RotaryTables, TurnedDotProductsDependOnlyOnTheDistance) {
    const core::Rotation r = core::rotaryTables(16, 8, 10000.0);
    core::reference::MatD q = core::reference::MatD::Random(16, 8); // one head, token p in row p
    core::reference::MatD k = q;
    for (int p = 0; p < 16; ++p) q.row(p) = q.row(3), k.row(p) = k.row(9); // the same vectors
    core::reference::rotate(q, r, 16, 1);
    core::reference::rotate(k, r, 16, 1);
    for (int shift = 1; shift + 7 < 16; ++shift)
        EXPECT_NEAR(q.row(7 + shift).dot(k.row(2 + shift)), q.row(7).dot(k.row(2)), 1e-6)
            << "shift " << shift;
    EXPECT_GT(std::abs(q.row(7).dot(k.row(2)) - q.row(7).dot(k.row(5))), 1e-3); // distance matters
}

} // namespace
