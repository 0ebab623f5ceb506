#include "train/snapshot_history.h"

#include <algorithm>
#include <utility>

namespace core::train {

namespace {

// The timeline's memory: snapshots of a large model are few, of the lesson's models the most.
constexpr std::size_t kHistoryBytes = std::size_t(512) << 20;

} // namespace

int historyCapacity(const Params& params) {
    const std::size_t bytes = std::size_t(params.parameterCount()) * sizeof(Scalar);
    const std::size_t fit = kHistoryBytes / std::max<std::size_t>(bytes, 1);
    return int(std::clamp<std::size_t>(fit, 8, kMaxSnapshots));
}

SnapshotHistory::SnapshotHistory(int spacing, int capacity)
    : spacing_(std::max(spacing, 1)), capacity_(std::max(capacity, 2)) {}

void SnapshotHistory::clear(int spacing) {
    snapshots_.clear();
    spacing_ = std::max(spacing, 1);
}

void SnapshotHistory::add(TrainSnapshot snapshot) {
    if (!due(snapshot.step)) return;
    if (!snapshots_.empty() && snapshots_.back().step == snapshot.step) {
        snapshots_.back() = std::move(snapshot);
        return;
    }
    if (!snapshots_.empty() && snapshots_.back().step > snapshot.step) return; // out of order
    snapshots_.push_back(std::move(snapshot));
    while (int(snapshots_.size()) > capacity_) { // thin out: keep the steps of twice the spacing
        spacing_ *= 2;
        std::erase_if(snapshots_, [&](const TrainSnapshot& s) { return s.step % spacing_ != 0; });
    }
}

int SnapshotHistory::indexAtOrBefore(int step) const {
    const auto after = std::upper_bound(snapshots_.begin(), snapshots_.end(), step,
                                        [](int s, const TrainSnapshot& t) { return s < t.step; });
    return int(after - snapshots_.begin()) - 1;
}

} // namespace core::train
