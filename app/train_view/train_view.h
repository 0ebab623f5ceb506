// What the Train view shows and how, beside the run itself (train_run.h): the settings being
// edited, the step the timeline shows (live or scrubbed), the map shown large, the heads
// switched off and the jobs that measure them, and the files being written. The helpers below
// hold its logic without drawing, so tests drive the view's state as the window does.
#pragma once

#include "figures/attention_map.h"
#include "figures/curve_figure.h"
#include "platform/background_task.h"
#include "train/ablation.h"
#include "train_view/train_run.h"

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

namespace app {

// The held-out loss of the shown model with the heads switched off, and without them.
struct AblationResult {
    int step = -1;
    core::train::HeadLists ablated;
    core::train::AblationPoint with, without;
};

// The pruning curve of the shown model, measured on a worker (it takes (L*H)^2 / 2 passes).
struct PruningJob {
    int step = -1;
    std::shared_ptr<std::atomic<int>> done = std::make_shared<std::atomic<int>>(0);
    int total = 0;
    std::future<core::train::AblationReport> report;
};

// Files written on a worker: exports and a saved run. The notice says what was written.
struct TrainFileJob {
    std::string what; // "curves", "maps", "timeline", "run"
    std::shared_ptr<std::atomic<int>> done = std::make_shared<std::atomic<int>>(0);
    int total = 1;
    std::future<std::string> result; // the folder or file written; throws the error
    bool openAfter = false;          // a saved run opens in the explorer when written
    int openStep = -1;               // at this step
};

struct TrainView {
    bool active = false;                  // the Train mode is on screen (Ctrl+T)
    core::train::TrainSettings settings;  // the controls; a run starts from them
    std::unique_ptr<TrainRun> run;        // made on the first Start/Step (or a load)
    std::unique_ptr<TrainRun> replaced;   // the trained run the last reset/load replaced, paused
    std::string settingsError;            // why the controls cannot make a run
    int chosenHeads = 0;                  // the heads slider's last choice (0: the settings')
    int scrubStep = -1;                   // -1: live (the newest); else the step shown
    bool playing = false;                 // the timeline plays back
    double playClock = 0;                 // ImGui time of the last played frame
    int largeLayer = 0, largeHead = 0;    // the map shown large, 0-based
    bool logLoss = true;                  // loss curves on a log axis
    int scoreIndex = 0;                   // which head score the score chart shows
    core::train::HeadLists ablated;       // heads switched off, per layer
    std::future<AblationResult> ablation; // measuring `ablated` on the shown model
    AblationResult ablationShown;         // the last measured
    std::unique_ptr<PruningJob> pruning;
    core::train::AblationReport pruningShown; // empty until measured
    int pruningStep = -1;
    std::unique_ptr<TrainFileJob> files;
    std::string folderInput;                  // save / load path field
    std::uint64_t mapsKey = 0;                // what the uploaded map textures show (mapsKeyOf)
    core::train::ProbeMaps mapsShown;         // and the maps themselves
    std::vector<core::AttentionMap> mapViews; // the same per head (layer * H + head), labelled
};

// Train defaults for the window: the demo's settings, eval every 20 steps (a curve point several
// times a second) and the explorer's model sizes.
core::train::TrainSettings defaultTrainSettings();

// The run made from view.settings (Ready at step 0); on bad settings keeps the previous run and
// sets settingsError. Clears what belonged to the old run (scrub, ablation, pruning).
bool resetRun(TrainView& view);
// Shows `run` (made or loaded): the controls take its settings. The run it replaces, if it
// trained at all, is paused and kept in view.replaced (Ctrl+Z brings it back).
void adoptRun(TrainView& view, std::unique_ptr<TrainRun> run);

// Ctrl+Z: the replaced run comes back as it was (paused at its step, with its curves and
// timeline), and the run it replaces is kept in its place. False when there is none.
bool undoReplacedRun(TrainView& view);

// True when some head is switched off.
bool anyAblated(const core::train::HeadLists& ablated);
// A job's future has its result (or none is under way: false). Never waits.
template <class T>
bool finished(const std::future<T>& job) {
    return taskReady(job);
}

// Whether the view changes without input: training, playing back, measuring, writing files.
bool trainMoving(const TrainView& view);

// The snapshot the maps show: the scrubbed one, else the newest.
const core::train::TrainSnapshot* shownSnapshot(const TrainView& view);
// The step the curves stop at: the scrubbed step, else the newest row's.
int shownStep(const TrainView& view);
// Scrubs to the snapshot at or before `step` (the newest step: live again).
void scrubTo(TrainView& view, int step);
// Moves `delta` snapshots along the timeline (Left / Right).
void scrubBy(TrainView& view, int delta);
// Playback: advances one snapshot every `interval` seconds; stops at the newest.
void advancePlayback(TrainView& view, double now, double interval = 0.08);
// The rows at or before `step`: the curves as they were then.
core::CsvTable rowsUpTo(const core::CsvTable& metrics, int step);

// The metrics row of the step shown: the newest at or before it; -1 before the first. The run
// panel's numbers, the curves' cursor and the switch-off line all read this one row, so a step
// has one held-out loss on screen.
int shownRow(const TrainView& view);
// The held-out loss of the model at `step`: its metrics row's when the run has a row at that
// step (the same probe set and forward pass), else `measured` (a step between rows).
double heldoutAt(const TrainView& view, int step, double measured);

// ln V of the run's vocabulary: the loss of a uniform guess (chance).
double runChanceLoss(const TrainView& view);
// The loss axis of the Train view: fits every row trained so far and the chance level, on the
// log or linear scale, snapped out to ticks. It never depends on the step shown, so scrubbing
// and playing back do not rescale it.
core::AxisRange lossAxis(const TrainView& view);
// The loss chart: every row trained so far (the view dims the steps after the one shown), the
// chance line across the run, on lossAxis and the run's step axis.
core::CurveFigure lossChart(const TrainView& view);

// Where the step shown lies in the induction story (a run of the induction task with 2 or more
// layers; None for any other run, whose notes would not hold).
enum class InductionPhase { None, Plateau, Drop, After };
// The drop as measured on the run's accuracy: the first row at or past kDropStartAccuracy and
// the first at or past kDropEndAccuracy (-1: not reached yet). The plateau's accuracy is a
// guess among the context's tokens (about 0.1); a 1-layer model never passes 0.3.
inline constexpr double kDropStartAccuracy = 0.3, kDropEndAccuracy = 0.85;
struct MeasuredDrop {
    int start = -1, end = -1; // steps
};
MeasuredDrop measureDrop(const core::CsvTable& metrics);
InductionPhase inductionPhase(const TrainView& view);
// What the student is watching, in a sentence each, with the numbers of the step shown; empty
// where it would not hold. `curves`: the plateau or the drop (above the loss chart); `map`: the
// induction stripe, when the large map shows a later layer's head with an induction score of
// at least kStripeScore (below it).
inline constexpr double kStripeScore = 0.3;
struct TrainNotes {
    std::string curves, map;
};
TrainNotes trainNotes(const TrainView& view);

// Switches head (layer, head) on or off in view.ablated.
void toggleAblated(TrainView& view, int layer, int head);
bool isAblated(const TrainView& view, int layer, int head);
// Starts measuring the held-out loss with view.ablated on the shown model when it changed;
// takes a finished measurement. Never waits.
void updateAblation(TrainView& view);
// Starts the pruning curve of the shown model; takes it when finished. Never waits.
void startPruning(TrainView& view);
void updatePruning(TrainView& view);

// A key for what the map textures should show (run, step, ablation): upload when it changes.
std::uint64_t mapsKeyOf(const TrainView& view);
// The maps shown: the snapshot's, or recomputed with the switched-off heads.
core::train::ProbeMaps shownMaps(const TrainView& view);

} // namespace app
