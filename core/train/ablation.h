// How much each head matters (the lesson's "you can often prune 20-40% of heads"): the held-out
// loss with each head switched off alone, and a pruning curve, heads removed one by one, least
// harmful first. A head is switched off as the explorer's --ablate does it: its output is zeroed
// before W_O.
#pragma once

#include "train/model.h"
#include "train/tasks.h"

#include <functional>
#include <vector>

namespace core::train {

struct HeadRef {
    int layer = 0, head = 0; // 0-based
};

struct AblationPoint {
    HeadRef head;           // the head switched off (pruning: the one removed at this step)
    double heldoutLoss = 0; // on the probe set's task sequences
    double accuracy = 0;    // the task's accuracy (agreement accuracy for agreement)
};

struct AblationReport {
    int totalHeads = 0;                 // L * H
    AblationPoint baseline;             // nothing off (head is meaningless)
    std::vector<AblationPoint> single;  // L * H: layer by layer, head by head
    std::vector<AblationPoint> pruning; // L * H: after removing 1, 2, ... heads
    bool greedy = true;                 // false: pruned in the order of `single` (many heads)
};

// Greedy up to this many heads (each step tries every remaining head: (L*H)^2 / 2 forward
// passes); above it, heads are removed in the order of their single-head loss, L*H passes.
inline constexpr int kMaxGreedyHeads = 64;

// The probe set's held-out loss and task accuracy with the given heads off.
AblationPoint probeWithout(const ModelConfig& config, const Params& params, const ProbeSet& probe,
                           const HeadLists& ablated);

// progress(done, total) after each forward pass, for a caller that shows it.
AblationReport measureAblation(const ModelConfig& config, const Params& params,
                               const ProbeSet& probe,
                               const std::function<void(int, int)>& progress = {});

} // namespace core::train
