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

std::vector<double> metricsRow(train::Trainer& trainer) {
    std::vector<double> row = {double(trainer.step()), trainer.takeTrainLoss()};
    for (const train::Metric& m : trainer.probeMetrics()) row.push_back(m.value);
    return row;
}

constexpr const char* kOutOfMemory =
    "not enough memory for this model; use a smaller batch, seq or d_model";

double secondsNow() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

// --- TrainRun: the frame loop's side -------------------------------------------------------

TrainRun::TrainRun(const train::TrainSettings& settings) : TrainRun(train::makeRunSetup(settings)) {
    train::TrainSnapshot first =
        train::snapshotOf(0,
                          std::make_shared<const train::Params>(
                              train::initParams(setup_->settings.model, setup_->settings.seed)),
                          *setup_);
    history_.setCapacity(train::historyCapacity(*first.params));
    latest_ = first;
    history_.add(std::move(first));
}

TrainRun::TrainRun(std::shared_ptr<const core::train::RunSetup> setup)
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
    if (kInline) return; // frame() updates
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
    if (kInline) workInFrame(kInlineSeconds);
    Published item;
    {
        std::lock_guard lock(mutex_);
        item = std::move(published_);
        published_ = {};
        budget_ = stepsPerFrame_; // this frame's share; unused updates are not saved up
    }
    wake_.notify_all();
    for (const auto& row : item.rows) appendRow(row);
    for (train::TrainSnapshot& s : item.snapshots) history_.add(std::move(s));
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
    std::unique_ptr<TrainRun> run(new TrainRun(train::makeRunSetup(settings)));
    run->metrics_ = std::move(metrics);
    run->history_.clear(1); // every checkpoint the folder has, thinned past the memory bound
    for (const int step : steps) {
        auto params = std::make_shared<const train::Params>(core::readCheckpoint(
            dir + "/" + core::checkpointFileName(step), run->settings().model));
        run->history_.setCapacity(train::historyCapacity(*params));
        train::TrainSnapshot s = train::snapshotOf(step, std::move(params), run->setup());
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
#ifndef __EMSCRIPTEN__
    setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), 10);
#endif
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
        failed.error = kOutOfMemory;
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
    return quit_ ? Work::Quit : takeWork();
}

TrainRun::Work TrainRun::takeWork() {
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
    for (Work work; !trainer.done() && (work = waitForWork()) != Work::Quit;) doWork(trainer, work);
}

void TrainRun::doWork(train::Trainer& trainer, Work work) {
    Published item;
    if (work == Work::Snapshot) { // stopped (paused, or a Step done): where it stopped
        item.latest = train::snapshotOf(trainer, *setup_);
        publish(std::move(item));
        return;
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
        train::TrainSnapshot s = train::snapshotOf(trainer, *setup_);
        if (due) item.snapshots.push_back(s);
        item.latest = std::move(s);
    }
    item.done = trainer.done();
    publish(std::move(item));
}

void TrainRun::workInFrame(double seconds) {
    const double until = secondsNow() + seconds;
    try {
        if (!inlineTrainer_) {
            if (stopped_) return;
            inlineTrainer_ = std::make_unique<train::Trainer>(setup_->settings);
            Published first;
            first.rows.push_back(metricsRow(*inlineTrainer_));
            publish(std::move(first));
        }
        while (!inlineTrainer_->done() && hasWork() && secondsNow() < until)
            doWork(*inlineTrainer_, takeWork());
    } catch (const std::exception& e) {
        Published failed;
        failed.error = dynamic_cast<const std::bad_alloc*>(&e) ? kOutOfMemory : e.what();
        publish(std::move(failed));
        inlineTrainer_.reset();
        stopped_ = true;
        return;
    }
    if (inlineTrainer_->done()) stopped_ = true;
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
