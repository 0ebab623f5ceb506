#include "train_view/train_view.h"

#include "engine/scene.h"

#include <algorithm>
#include <chrono>

namespace app {

namespace train = core::train;

namespace {

std::uint64_t mix(std::uint64_t hash, std::uint64_t value) {
    return (hash ^ value) * 1099511628211ull; // FNV-1a step
}

} // namespace

bool anyAblated(const train::HeadLists& ablated) {
    return std::any_of(ablated.begin(), ablated.end(), [](const auto& l) { return !l.empty(); });
}

train::TrainSettings defaultTrainSettings() {
    train::TrainSettings s; // the contract's model: 2 layers, d_model 64, 4 heads, seq 32
    s.steps = 2000;         // the induction drop comes at 800-1300 steps
    s.evalEvery = 20;
    return s;
}

bool resetRun(TrainView& view) {
    try {
        adoptRun(view, std::make_unique<TrainRun>(view.settings));
    } catch (const std::bad_alloc&) {
        view.settingsError =
            "not enough memory for this model; use a smaller batch, seq or d_model";
        return false;
    } catch (const std::exception& e) {
        view.settingsError = e.what();
        return false;
    }
    return true;
}

void adoptRun(TrainView& view, std::unique_ptr<TrainRun> run) {
    if (view.ablation.valid()) view.ablation.wait(); // it reads the old run's setup (shared)
    if (view.run && view.run->workerStep() > 0) {    // steps trained: not thrown away without undo
        view.run->pause();
        view.replaced = std::move(view.run);
    }
    view.run = std::move(run);
    view.settings = view.run->settings();
    view.settingsError.clear();
    view.chosenHeads = 0; // the run's settings are the choice now
    view.scrubStep = -1;
    view.playing = false;
    view.ablated.assign(std::size_t(view.settings.model.layers), {});
    view.ablationShown = {};
    view.pruning.reset();
    view.pruningShown = {};
    view.pruningStep = -1;
    // Large: a head of the last layer, where the task's heads form (induction: layer 2).
    view.largeLayer = view.settings.model.layers - 1;
    view.largeHead = std::min(view.largeHead, view.settings.model.heads - 1);
    // The score the task is about: induction, or the subject score of agreement.
    const std::vector<std::string> scores = train::headScoreNames(view.settings.task);
    view.scoreIndex =
        view.settings.task == train::TaskKind::PreviousToken ? 0 : int(scores.size()) - 1;
}

bool undoReplacedRun(TrainView& view) {
    if (!view.replaced) return false;
    std::unique_ptr<TrainRun> back = std::move(view.replaced);
    adoptRun(view, std::move(back)); // keeps the run on screen in view.replaced
    return true;
}

bool trainMoving(const TrainView& view) {
    return view.active && (view.playing || view.files || view.pruning || view.ablation.valid() ||
                           (view.run && view.run->busy()));
}

const core::train::TrainSnapshot* shownSnapshot(const TrainView& view) {
    if (!view.run) return nullptr;
    if (view.scrubStep < 0) return &view.run->latest();
    const auto& all = view.run->history().all();
    const int i = view.run->history().indexAtOrBefore(view.scrubStep);
    return i >= 0 ? &all[std::size_t(i)] : &view.run->latest();
}

int shownStep(const TrainView& view) {
    const core::train::TrainSnapshot* s = shownSnapshot(view);
    return s ? s->step : 0;
}

void scrubTo(TrainView& view, int step) {
    if (!view.run) return;
    const auto& all = view.run->history().all();
    const int newest = view.run->step();
    if (step >= newest || all.empty()) {
        view.scrubStep = -1; // live again
        return;
    }
    const int i = std::max(view.run->history().indexAtOrBefore(step), 0);
    view.scrubStep = all[std::size_t(i)].step;
}

void scrubBy(TrainView& view, int delta) {
    if (!view.run || view.run->history().empty()) return;
    const auto& all = view.run->history().all();
    const int newest = view.run->step();
    int i = view.run->history().indexAtOrBefore(shownStep(view));
    // Live between two snapshots counts as one place past the last.
    if (view.scrubStep < 0 && (i < 0 || all[std::size_t(i)].step < newest)) ++i;
    i = std::max(i + delta, 0);
    if (i >= int(all.size()))
        scrubTo(view, newest);
    else
        scrubTo(view, all[std::size_t(i)].step);
}

void advancePlayback(TrainView& view, double now, double interval) {
    if (!view.playing || !view.run) return;
    if (now - view.playClock < interval) return;
    view.playClock = now;
    scrubBy(view, 1);
    if (view.scrubStep < 0) view.playing = false; // reached the newest
}

core::CsvTable rowsUpTo(const core::CsvTable& metrics, int step) {
    core::CsvTable cut;
    cut.names = metrics.names;
    const std::vector<double>* steps = metrics.find("step");
    std::size_t rows = metrics.rows();
    if (steps)
        rows = std::size_t(std::upper_bound(steps->begin(), steps->end(), double(step)) -
                           steps->begin());
    for (const std::vector<double>& column : metrics.columns)
        cut.columns.emplace_back(column.begin(), column.begin() + std::ptrdiff_t(rows));
    return cut;
}

void toggleAblated(TrainView& view, int layer, int head) {
    if (int(view.ablated.size()) <= layer) view.ablated.resize(std::size_t(layer) + 1);
    std::vector<int>& heads = view.ablated[std::size_t(layer)];
    core::switchHead(heads, head, !core::containsHead(heads, head));
}

bool isAblated(const TrainView& view, int layer, int head) {
    if (layer >= int(view.ablated.size())) return false;
    return core::containsHead(view.ablated[std::size_t(layer)], head);
}

void updateAblation(TrainView& view) {
    if (finished(view.ablation)) view.ablationShown = view.ablation.get();
    const core::train::TrainSnapshot* shown = shownSnapshot(view);
    // Nothing off: the metrics row says it all, and training keeps the core to itself.
    if (!shown || view.ablation.valid() || !anyAblated(view.ablated)) return;
    if (view.ablationShown.step == shown->step && view.ablationShown.ablated == view.ablated)
        return;
    // Shared, never changed: the worker may outlive this snapshot in the history.
    std::shared_ptr<const train::Params> params = shown->params;
    std::shared_ptr<const core::train::RunSetup> setup = view.run->setupShared();
    view.ablation = startTask([params, setup, step = shown->step, ablated = view.ablated] {
        AblationResult r{step, ablated, {}, {}};
        r.without = train::probeWithout(setup->settings.model, *params, setup->probe, {});
        r.with = anyAblated(ablated)
                     ? train::probeWithout(setup->settings.model, *params, setup->probe, ablated)
                     : r.without;
        return r;
    });
}

void startPruning(TrainView& view) {
    const core::train::TrainSnapshot* shown = shownSnapshot(view);
    if (!shown || view.pruning) return;
    auto job = std::make_unique<PruningJob>();
    job->step = shown->step;
    const int heads = view.settings.model.layers * view.settings.model.heads;
    job->total = heads <= train::kMaxGreedyHeads ? heads * (heads + 1) / 2 + heads + 1 : 0;
    std::shared_ptr<const train::Params> params = shown->params;
    std::shared_ptr<const core::train::RunSetup> setup = view.run->setupShared();
    job->report = startTask([params, setup, done = job->done] {
        return train::measureAblation(setup->settings.model, *params, setup->probe,
                                      [&done](int d, int) { *done = d; });
    });
    view.pruning = std::move(job);
}

void updatePruning(TrainView& view) {
    if (!view.pruning || !finished(view.pruning->report)) return;
    view.pruningShown = view.pruning->report.get();
    view.pruningStep = view.pruning->step;
    view.pruning.reset();
}

std::uint64_t mapsKeyOf(const TrainView& view) {
    const core::train::TrainSnapshot* shown = shownSnapshot(view);
    if (!shown) return 0;
    std::uint64_t key = mix(14695981039346656037ull, std::uintptr_t(shown->params.get()));
    key = mix(key, std::uint64_t(shown->step));
    for (const auto& layer : view.ablated) {
        key = mix(key, 0xffff);
        for (int h : layer) key = mix(key, std::uint64_t(h));
    }
    return key;
}

core::train::ProbeMaps shownMaps(const TrainView& view) {
    const core::train::TrainSnapshot* shown = shownSnapshot(view);
    if (!shown) return {};
    if (!anyAblated(view.ablated)) return shown->maps;
    const core::train::RunSetup& setup = view.run->setup();
    return core::train::probeMaps(setup.settings.model, *shown->params, setup.mapSequence,
                                  setup.task.vocab(), view.ablated);
}

} // namespace app
