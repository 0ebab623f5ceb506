#include "train_view/train_run.h"

#include "io/run_folder.h"

#ifdef _OPENMP
#include <omp.h>
#endif

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <stdexcept>

namespace app {

namespace train = core::train;

namespace {

// The timeline's memory: snapshots of a large model are few, of the lesson's models up to 150.
constexpr std::size_t kHistoryBytes = std::size_t(512) << 20;
constexpr int kMaxSnapshots = 150;

std::size_t paramsBytes(const train::Params& params) {
    return std::size_t(params.parameterCount()) * sizeof(core::Scalar);
}

int historyCapacity(const train::Params& params) {
    const std::size_t fit = kHistoryBytes / std::max<std::size_t>(paramsBytes(params), 1);
    return int(std::clamp<std::size_t>(fit, 8, kMaxSnapshots));
}

std::vector<double> metricsRow(train::Trainer& trainer) {
    std::vector<double> row = {double(trainer.step()), trainer.takeTrainLoss()};
    for (const train::Metric& m : trainer.probeMetrics()) row.push_back(m.value);
    return row;
}

double secondsNow() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

train::Batch mapSequence(const train::ProbeSet& probe) {
    const train::Batch& from =
        probe.kind == train::TaskKind::Agreement ? probe.task.batch : probe.repeated;
    return {{from.tokens.front()}, {from.lossMask.front()}};
}

ProbeMaps probeMaps(const train::ModelConfig& config, const train::Params& params,
                    const train::Batch& sequence, const std::vector<std::string>& vocab,
                    const train::HeadLists& ablated) {
    const train::ForwardPass pass = train::forwardPass(config, params, sequence, ablated);
    ProbeMaps maps;
    maps.layers = config.layers;
    maps.heads = config.heads;
    maps.length = sequence.length();
    for (const int token : sequence.tokens.front()) maps.labels.push_back(vocab.at(token));
    const std::size_t cells = std::size_t(maps.length) * maps.length;
    maps.weights.reserve(std::size_t(config.layers) * config.heads * cells);
    for (const core::Attention& layer : pass.heads) // attention: (1*H*n) x n, head after head
        for (int h = 0; h < config.heads; ++h)
            for (int i = 0; i < maps.length; ++i)
                for (int j = 0; j < maps.length; ++j)
                    maps.weights.push_back(float(layer.attention(layer.headRow(0, h, i), j)));
    return maps;
}

core::AttentionMap attentionMapOf(const ProbeMaps& maps, int layer, int head) {
    core::AttentionMap map;
    map.rows = map.cols = maps.length;
    map.queryLabels = map.keyLabels = maps.labels;
    const float* values = maps.map(layer, head);
    map.values.assign(values, values + std::size_t(maps.length) * maps.length);
    for (int i = 0; i < maps.length; ++i)
        for (int j = 0; j < maps.length; ++j) {
            float& cell = map.values[std::size_t(i) * maps.length + j];
            if (j > i)
                cell = core::kMaskedCell; // causal: the future is not seen
            else
                map.maxWeight = std::max(map.maxWeight, cell);
        }
    return map;
}

// --- SnapshotHistory -----------------------------------------------------------------------

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

// --- RunSetup ------------------------------------------------------------------------------

std::shared_ptr<const RunSetup> makeRunSetup(train::TrainSettings settings) {
    train::Task task(settings.task);
    settings.model.vocab = task.vocabSize();
    train::validate(settings);
    auto setup = std::make_shared<RunSetup>(RunSetup{settings, task, {}, {}, {}});
    setup->probe = train::makeProbeSet(task, train::probeSeed(settings.seed),
                                       train::kProbeSequences, settings.model.seq);
    setup->mapSequence = mapSequence(setup->probe);
    setup->columns = {"step", "train_loss"};
    for (std::string& c : train::probeColumns(settings.model, settings.task))
        setup->columns.push_back(std::move(c));
    return setup;
}

// --- TrainRun: the frame loop's side -------------------------------------------------------

TrainRun::TrainRun(const train::TrainSettings& settings) : TrainRun(makeRunSetup(settings)) {
    TrainSnapshot first;
    auto params = std::make_shared<train::Params>(
        train::initParams(setup_->settings.model, setup_->settings.seed));
    history_.setCapacity(historyCapacity(*params));
    first.maps =
        probeMaps(setup_->settings.model, *params, setup_->mapSequence, setup_->task.vocab());
    first.params = std::move(params);
    latest_ = first;
    history_.add(std::move(first));
}

TrainRun::TrainRun(std::shared_ptr<const RunSetup> setup)
    : setup_(std::move(setup)), history_(setup_->settings.evalEvery) {
    metrics_.names = setup_->columns;
    metrics_.columns.resize(metrics_.names.size());
    spacing_ = history_.spacing();
}

TrainRun::~TrainRun() {
    {
        std::lock_guard lock(mutex_);
        quit_ = true;
    }
    wake_.notify_all();
    if (worker_.joinable()) worker_.join();
}

void TrainRun::ensureWorker() {
    if (!worker_.joinable()) worker_ = std::thread([this] { work(); });
}

void TrainRun::start() {
    if (state_ != TrainState::Ready && state_ != TrainState::Paused) return;
    {
        std::lock_guard lock(mutex_);
        running_ = true;
        budget_ = stepsPerFrame_;
    }
    ensureWorker();
    wake_.notify_all();
    state_ = TrainState::Running;
}

void TrainRun::pause() {
    if (state_ != TrainState::Running) return;
    {
        std::lock_guard lock(mutex_);
        running_ = false;
        state_ = TrainState::Paused;
    }
    wake_.notify_all(); // a worker between updates owes the maps of the step it stopped at
}

void TrainRun::stepOnce() {
    if (state_ != TrainState::Ready && state_ != TrainState::Paused) return;
    {
        std::lock_guard lock(mutex_);
        ++singleSteps_;
    }
    ensureWorker();
    wake_.notify_all();
    state_ = TrainState::Paused;
}

void TrainRun::setStepsPerFrame(int steps) {
    std::lock_guard lock(mutex_);
    stepsPerFrame_ = std::max(steps, 0);
}

void TrainRun::setDrawing(bool drawing) {
    {
        std::lock_guard lock(mutex_);
        drawing_ = drawing;
        if (!drawing) startedAtFrameEnd_ = updatesStarted_;
    }
    if (!drawing) wake_.notify_all();
}

void TrainRun::beginFrame() {
    std::lock_guard lock(mutex_);
    // Hold the worker only if it got to start an update since the last frame, or has none to do.
    drawing_ = !hasWork() || updatesStarted_ != startedAtFrameEnd_;
}

bool TrainRun::workAsked() const {
    return singleSteps_ > 0 || (running_ && (stepsPerFrame_ == 0 || budget_ > 0));
}

// A run that stops between rows (a pause, whenever it lands, or a Step done) shows the last
// row's maps until the worker takes those of the step it stopped at: it owes them.
bool TrainRun::owesSnapshot() const {
    return !running_ && !stopped_ && latestStep_ != workerStep_;
}

bool TrainRun::busy() const {
    std::lock_guard lock(mutex_);
    const Published& p = published_;
    return updating_ || (running_ && state_ == TrainState::Running) || singleSteps_ > 0 ||
           owesSnapshot() || !p.rows.empty() || !p.snapshots.empty() || p.latest.has_value() ||
           p.done || !p.error.empty();
}

int TrainRun::workerStep() const {
    std::lock_guard lock(mutex_);
    return workerStep_;
}

bool TrainRun::frame() {
    Published item;
    {
        std::lock_guard lock(mutex_);
        item = std::move(published_);
        published_ = {};
        budget_ = stepsPerFrame_; // this frame's share; unused updates are not saved up
    }
    wake_.notify_all();
    for (const auto& row : item.rows) appendRow(row);
    for (TrainSnapshot& s : item.snapshots) history_.add(std::move(s));
    const bool fresh = item.latest.has_value() || !item.rows.empty();
    if (item.latest) latest_ = std::move(item.latest);
    if (history_.spacing() != spacing_) {
        std::lock_guard lock(mutex_);
        spacing_ = history_.spacing(); // the history thinned out: the worker keeps fewer
    }
    if (!item.error.empty())
        error_ = item.error, state_ = TrainState::Failed;
    else if (item.done)
        state_ = TrainState::Done;
    measureRate();
    return fresh || item.done || !item.error.empty();
}

void TrainRun::appendRow(const std::vector<double>& row) {
    for (std::size_t c = 0; c < metrics_.columns.size() && c < row.size(); ++c)
        metrics_.columns[c].push_back(row[c]);
}

void TrainRun::measureRate() {
    const double now = secondsNow();
    const int done = workerStep();
    if (state_ != TrainState::Running) {
        rateTime_ = -1;
        return;
    }
    if (rateTime_ < 0) rateTime_ = now, rateStep_ = done;
    if (now - rateTime_ < 0.5) return; // a rate over half a second reads steadily
    stepsPerSecond_ = (done - rateStep_) / (now - rateTime_);
    rateTime_ = now, rateStep_ = done;
}

std::unique_ptr<TrainRun> TrainRun::fromFolder(const std::string& dir) {
    const core::ModelInfo info = core::readModelInfo(dir);
    train::TrainSettings settings;
    settings.task = info.task;
    settings.model = info.config;
    settings.seed = info.seed;
    core::CsvTable metrics = core::readMetrics(dir);
    const std::vector<int> steps = core::checkpointSteps(dir);
    if (steps.empty()) throw std::invalid_argument("'" + dir + "' holds no checkpoint");
    settings.steps = std::max(steps.back(), 1);
    const std::vector<double>& rowSteps = metrics.column("step");
    settings.evalEvery = rowSteps.size() > 1 ? std::max(int(rowSteps[1] - rowSteps[0]), 1) : 1;
    std::unique_ptr<TrainRun> run(new TrainRun(makeRunSetup(settings)));
    run->metrics_ = std::move(metrics);
    run->history_.clear(1); // every checkpoint the folder has, thinned past the memory bound
    for (const int step : steps) {
        TrainSnapshot s;
        s.step = step;
        s.params = std::make_shared<const train::Params>(core::readCheckpoint(
            dir + "/" + core::checkpointFileName(step), run->settings().model));
        run->history_.setCapacity(historyCapacity(*s.params));
        s.maps = probeMaps(run->settings().model, *s.params, run->setup().mapSequence,
                           run->setup().task.vocab());
        run->latest_ = s;
        run->history_.add(std::move(s));
    }
    run->state_ = TrainState::Done;
    run->folder_ = dir;
    return run;
}

// --- TrainRun: the worker's side -----------------------------------------------------------

void TrainRun::work() {
    // Below the window's threads: a frame (and the GL rasteriser's threads) gets a core the
    // moment it needs one, and training takes the cycles left over. Linux nices threads.
    setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), 10);
#ifdef _OPENMP
    // One thread: the window renders on the other core (with two threads an update waits for a
    // core the renderer holds, and runs several times slower).
    omp_set_num_threads(1);
#endif
    try {
        train::Trainer trainer(setup_->settings);
        trainOn(trainer);
    } catch (const std::bad_alloc&) {
        Published failed;
        failed.error = "not enough memory for this model; use a smaller batch, seq or d_model";
        publish(std::move(failed));
    } catch (const std::exception& e) {
        Published failed;
        failed.error = e.what();
        publish(std::move(failed));
    }
    std::lock_guard lock(mutex_);
    stopped_ = true; // owes nothing more
}

TrainRun::Work TrainRun::waitForWork() {
    std::unique_lock lock(mutex_);
    wake_.wait(lock, [&] { return quit_ || (!drawing_ && hasWork()); });
    if (quit_) return Work::Quit;
    ++updatesStarted_;
    updating_ = true;
    if (!workAsked()) return Work::Snapshot;
    if (singleSteps_ > 0)
        --singleSteps_;
    else if (stepsPerFrame_ > 0)
        --budget_;
    return Work::Update;
}

void TrainRun::trainOn(train::Trainer& trainer) {
    Published first;
    first.rows.push_back(metricsRow(trainer));
    publish(std::move(first));
    for (Work work; !trainer.done() && (work = waitForWork()) != Work::Quit;) {
        Published item;
        if (work == Work::Snapshot) { // stopped (paused, or a Step done): where it stopped
            item.latest = snapshotOf(trainer);
            publish(std::move(item));
            continue;
        }
        trainer.update();
        const int step = trainer.step();
        if (trainer.isEvalStep(step)) item.rows.push_back(metricsRow(trainer));
        bool due;
        {
            std::lock_guard lock(mutex_);
            workerStep_ = step;
            due = step % spacing_ == 0;
        }
        // The maps at every row and at the end: the latest the view shows. A run that stops
        // between rows is owed its maps (owesSnapshot), whenever the stop lands.
        if (!item.rows.empty() || trainer.done()) {
            TrainSnapshot s = snapshotOf(trainer);
            if (due) item.snapshots.push_back(s);
            item.latest = std::move(s);
        }
        item.done = trainer.done();
        publish(std::move(item));
    }
}

TrainSnapshot TrainRun::snapshotOf(const train::Trainer& trainer) const {
    TrainSnapshot s;
    s.step = trainer.step();
    s.params = std::make_shared<const train::Params>(trainer.params());
    s.maps =
        probeMaps(trainer.config(), trainer.params(), setup_->mapSequence, setup_->task.vocab());
    return s;
}

void TrainRun::publish(Published item) {
    std::lock_guard lock(mutex_);
    updating_ = false; // each update ends by publishing (maybe nothing)
    for (auto& row : item.rows) published_.rows.push_back(std::move(row));
    for (auto& s : item.snapshots) published_.snapshots.push_back(std::move(s));
    if (item.latest) latestStep_ = item.latest->step, published_.latest = std::move(item.latest);
    published_.done = published_.done || item.done;
    if (!item.error.empty()) published_.error = item.error;
}

} // namespace app
