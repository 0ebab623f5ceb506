// The Train view's run: a core::train::Trainer stepped on a worker thread, so the window keeps
// its frame rate while the model learns (in the browser, which has no threads, frame() runs
// updates for a few milliseconds of each frame instead). The worker publishes what the view draws
// and the frame loop takes it once per frame (TrainRun::frame): the metrics rows (metrics.csv's
// columns, the same numbers `mha-viz train` writes) and snapshots of the model
// (core/train/probe_maps.h) for the timeline (core/train/snapshot_history.h). Nothing here draws:
// tests drive a TrainRun like the window does.
#pragma once

#include "base/enum_names.h"
#include "io/csv_table.h"
#include "train/probe_maps.h"
#include "train/snapshot_history.h"
#include "train/trainer.h"

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace app {

enum class TrainState { Ready, Running, Paused, Done, Failed };
inline constexpr core::EnumName<TrainState> kTrainStateNames[] = {
    {TrainState::Ready, "ready", ""},
    {TrainState::Running, "training", ""},
    {TrainState::Paused, "paused", ""},
    {TrainState::Done, "done", ""},
    {TrainState::Failed, "failed", ""}};
constexpr std::span<const core::EnumName<TrainState>> enumNames(TrainState) {
    return kTrainStateNames;
}

class TrainRun {
  public:
    // Validates (std::invalid_argument naming the flag, as `mha-viz train` does) and sets up
    // step 0: its maps are there before the first update.
    explicit TrainRun(const core::train::TrainSettings& settings);
    ~TrainRun(); // stops the worker after its current update
    TrainRun(const TrainRun&) = delete;
    TrainRun& operator=(const TrainRun&) = delete;

    void start();    // Ready or Paused: updates until paused or done
    void pause();    // after the update under way
    void stepOnce(); // Ready or Paused: one update, then Paused
    // 0: free running; else at most this many updates per frame (a slow motion to watch).
    void setStepsPerFrame(int steps);
    int stepsPerFrame() const { return stepsPerFrame_; }

    // The window draws a frame between these: the worker starts no update meanwhile, so the
    // frame has both cores (its own and the GL rasteriser's threads) and keeps its 60 Hz; the
    // updates fill the time between frames. When frames follow each other with no time between
    // them (a slow machine), a frame that finds the worker waiting since the last one does not
    // hold it: training never starves.
    void beginFrame();
    void endFrame() { setDrawing(false); }

    // Once per frame: takes what the worker published and grants this frame's updates. Never
    // waits for an update. True when something new arrived (the view redraws its maps).
    bool frame();

    TrainState state() const { return state_; }
    int step() const { return latest_ ? latest_->step : 0; } // of the newest snapshot
    int steps() const { return setup_->settings.steps; }
    int workerStep() const; // updates done so far (the worker may be ahead of the snapshot)
    // An update under way or asked for, the maps of the step a pause stopped at still to come,
    // or results not yet taken by frame(): the view will change.
    bool busy() const;
    double stepsPerSecond() const { return stepsPerSecond_; }
    const std::string& error() const { return error_; }
    const core::train::RunSetup& setup() const { return *setup_; }
    std::shared_ptr<const core::train::RunSetup> setupShared() const {
        return setup_;
    } // for workers
    const core::train::TrainSettings& settings() const { return setup_->settings; }
    const core::CsvTable& metrics() const { return metrics_; }
    const core::train::SnapshotHistory& history() const { return history_; }
    const core::train::TrainSnapshot& latest() const { return *latest_; }

    // A run read from a folder (`mha-viz train`'s or a saved one): its metrics and checkpoints,
    // to look at, scrub and prune; Done, nothing to continue.
    static std::unique_ptr<TrainRun> fromFolder(const std::string& dir);
    const std::string& folder() const { return folder_; } // loaded from; empty when trained here

  private:
    struct Published { // what the worker hands over, taken by frame()
        std::vector<std::vector<double>> rows;
        std::vector<core::train::TrainSnapshot>
            snapshots; // for the history (due) or only as the latest
        std::optional<core::train::TrainSnapshot> latest;
        bool done = false;
        std::string error;
    };
    TrainRun(std::shared_ptr<const core::train::RunSetup> setup);
    void ensureWorker();
    void work();
    enum class Work { Update, Snapshot, Quit };
    Work waitForWork();
    Work takeWork(); // under mutex_ (or with no worker), hasWork(): counts it as started
    void doWork(core::train::Trainer& trainer, Work work);
    // The browser's way (no threads): updates in the frame, for up to `seconds`.
    void workInFrame(double seconds);
    bool workAsked() const;    // under mutex_: an update is asked for (running, or a Step)
    bool owesSnapshot() const; // under mutex_: stopped at a step whose maps were not published
    bool hasWork() const { return workAsked() || owesSnapshot(); }
    void trainOn(core::train::Trainer& trainer);
    void publish(Published item);
    void appendRow(const std::vector<double>& row);
    void measureRate();
    void setDrawing(bool drawing);

    std::shared_ptr<const core::train::RunSetup> setup_;
    core::CsvTable metrics_;
    core::train::SnapshotHistory history_;
    std::optional<core::train::TrainSnapshot> latest_;
    TrainState state_ = TrainState::Ready;
    std::string error_, folder_;
    int stepsPerFrame_ = 0;
    double stepsPerSecond_ = 0;
    int rateStep_ = 0;
    double rateTime_ = -1;

    // Shared with the worker, under mutex_.
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool quit_ = false, running_ = false, drawing_ = false;
    bool updating_ = false; // an update (or snapshot) under way, until its results are published
    bool stopped_ = false;  // the worker has returned (done, or failed)
    long long updatesStarted_ = 0, startedAtFrameEnd_ = 0; // the worker's, counted for the gate
    int budget_ = 0, singleSteps_ = 0, spacing_ = 20, workerStep_ = 0;
    int latestStep_ = 0; // of the newest snapshot published as the latest
    Published published_;
    std::thread worker_;
#ifdef __EMSCRIPTEN__
    static constexpr bool kInline = true;
#else
    static constexpr bool kInline = false;
#endif
    // The share of a frame the browser's updates take: most of a 60 Hz frame is left to draw.
    static constexpr double kInlineSeconds = 0.008;
    std::unique_ptr<core::train::Trainer> inlineTrainer_;
};

} // namespace app
