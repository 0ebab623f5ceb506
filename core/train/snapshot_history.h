// The Train view's timeline: a snapshot of the model every `spacing` steps. Past `capacity`
// every other one is dropped (the first stays) and the spacing doubles, so a run of any length
// keeps an even timeline in bounded memory.
#pragma once

#include "train/probe_maps.h"

#include <vector>

namespace core::train {

// The most snapshots a timeline keeps (fewer for large models: historyCapacity).
inline constexpr int kMaxSnapshots = 150;

class SnapshotHistory {
  public:
    explicit SnapshotHistory(int spacing = 20, int capacity = kMaxSnapshots);

    bool due(int step) const { return step % spacing_ == 0; }
    // Keeps `snapshot` when it is due (steps ascending); one at the same step is replaced.
    void add(TrainSnapshot snapshot);
    void clear(int spacing);
    void setCapacity(int capacity) { capacity_ = capacity < 2 ? 2 : capacity; }

    const std::vector<TrainSnapshot>& all() const { return snapshots_; }
    int spacing() const { return spacing_; }
    int capacity() const { return capacity_; }
    bool empty() const { return snapshots_.empty(); }
    // The last snapshot at or before `step`; -1 when none.
    int indexAtOrBefore(int step) const;

  private:
    std::vector<TrainSnapshot> snapshots_;
    int spacing_, capacity_;
};

// How many snapshots of a model of this size fit the timeline's memory (512 MB), 8 to
// kMaxSnapshots.
int historyCapacity(const Params& params);

} // namespace core::train
