// The Train view's timeline (train/snapshot_history.h): bounded and evenly spaced however long
// the run, and found by step.
#include "train/snapshot_history.h"

#include <gtest/gtest.h>

#include <vector>

namespace {

TEST(SnapshotHistory, StaysBoundedAndEven) {
    core::train::SnapshotHistory history(1, 4);
    for (int step = 0; step <= 20; ++step) history.add({step, nullptr, {}});
    ASSERT_LE(history.all().size(), 4u);
    EXPECT_EQ(history.spacing(), 8);
    std::vector<int> steps;
    for (const core::train::TrainSnapshot& s : history.all()) steps.push_back(s.step);
    EXPECT_EQ(steps, (std::vector<int>{0, 8, 16}));
    history.add({21, nullptr, {}}); // not due at the new spacing
    EXPECT_EQ(history.all().size(), 3u);
    EXPECT_EQ(history.indexAtOrBefore(15), 1);
    EXPECT_EQ(history.indexAtOrBefore(16), 2);
    EXPECT_EQ(history.indexAtOrBefore(1000), 2);
    EXPECT_EQ(history.indexAtOrBefore(-1), -1);
}

TEST(SnapshotHistory, CapacityFollowsTheModelsSize) {
    core::train::ModelConfig small;
    small.vocab = 64, small.d_model = 16, small.heads = 2, small.layers = 1, small.seq = 8;
    EXPECT_EQ(core::train::historyCapacity(core::train::zeroParams(small)), 150);
    core::train::ModelConfig large = small;
    large.d_model = 1024, large.layers = 8, large.seq = 1024; // ~37 M floats: 150 MB a snapshot
    EXPECT_EQ(core::train::historyCapacity(core::train::zeroParams(large)), 8);
}

} // namespace
