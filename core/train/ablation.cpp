#include "train/ablation.h"

#include "engine/scene.h"

#include "train/head_scores.h"

#include <algorithm>

namespace core::train {

namespace {

HeadLists noHeads(const ModelConfig& config) {
    return HeadLists(std::size_t(config.layers));
}

// Switches head h off in `off` (a set per layer, as engine/scene.h keeps them).
void switchOff(HeadLists& off, HeadRef h) {
    switchHead(off[std::size_t(h.layer)], h.head, true);
}

// Counts forward passes for the progress callback.
struct Progress {
    const std::function<void(int, int)>& report;
    int done = 0, total = 0;
    void tick() {
        if (report) report(++done, total);
    }
};

// The remaining head whose removal (on top of `off`) costs least; ties go to the first.
AblationPoint leastHarmful(const ModelConfig& config, const Params& params, const ProbeSet& probe,
                           const HeadLists& off, Progress& progress) {
    AblationPoint best;
    bool found = false;
    for (int l = 0; l < config.layers; ++l)
        for (int h = 0; h < config.heads; ++h) {
            if (containsHead(off[std::size_t(l)], h)) continue;
            HeadLists trial = off;
            switchOff(trial, {l, h});
            AblationPoint point = probeWithout(config, params, probe, trial);
            point.head = {l, h};
            progress.tick();
            if (!found || point.heldoutLoss < best.heldoutLoss) best = point, found = true;
        }
    return best;
}

// Removes heads in the order of their single-head loss, lowest first.
std::vector<AblationPoint> pruneBySingleLoss(const ModelConfig& config, const Params& params,
                                             const ProbeSet& probe,
                                             std::vector<AblationPoint> order, Progress& progress) {
    std::stable_sort(order.begin(), order.end(),
                     [](const AblationPoint& a, const AblationPoint& b) {
                         return a.heldoutLoss < b.heldoutLoss;
                     });
    std::vector<AblationPoint> curve;
    HeadLists off = noHeads(config);
    for (const AblationPoint& next : order) {
        switchOff(off, next.head);
        AblationPoint point = probeWithout(config, params, probe, off);
        point.head = next.head;
        curve.push_back(point);
        progress.tick();
    }
    return curve;
}

} // namespace

AblationPoint probeWithout(const ModelConfig& config, const Params& params, const ProbeSet& probe,
                           const HeadLists& ablated) {
    const ForwardPass pass = forwardPass(config, params, probe.task.batch, ablated);
    AblationPoint point;
    point.heldoutLoss = pass.loss;
    point.accuracy = taskAccuracy(pass, probe);
    return point;
}

AblationReport measureAblation(const ModelConfig& config, const Params& params,
                               const ProbeSet& probe,
                               const std::function<void(int, int)>& progress) {
    AblationReport report;
    const int n = config.layers * config.heads;
    report.totalHeads = n;
    report.greedy = n <= kMaxGreedyHeads;
    Progress counter{progress, 0, 1 + n + (report.greedy ? n * (n + 1) / 2 : n)};
    report.baseline = probeWithout(config, params, probe, noHeads(config));
    counter.tick();
    for (int l = 0; l < config.layers; ++l)
        for (int h = 0; h < config.heads; ++h) {
            HeadLists off = noHeads(config);
            switchOff(off, {l, h});
            AblationPoint point = probeWithout(config, params, probe, off);
            point.head = {l, h};
            report.single.push_back(point);
            counter.tick();
        }
    if (!report.greedy) {
        report.pruning = pruneBySingleLoss(config, params, probe, report.single, counter);
        return report;
    }
    HeadLists off = noHeads(config);
    for (int removed = 0; removed < n; ++removed) {
        const AblationPoint next = leastHarmful(config, params, probe, off, counter);
        switchOff(off, next.head);
        report.pruning.push_back(next);
    }
    return report;
}

} // namespace core::train
