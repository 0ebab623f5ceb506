// A trained model in the explorer (--model DIR, the Train view's "Open in explorer"): the runner
// that runs it on the sentences typed, as SceneRunner runs a scene (the run read from its folder,
// the traces of its layers), and what the panels show of it. No GL and no ImGui: unit tests
// drive it like the window does.
#pragma once

#include "engine/scene.h"
#include "explorer/scene_runner.h"
#include "io/trained_run.h"
#include "train/model_trace.h"

#include <memory>
#include <string>
#include <vector>

namespace app {

// What the panels show of the open model and which layer they show: filled by
// describeTrainedModel; `layer` is the one state the user sets here (L / Shift+L, the radio).
struct TrainedModelView {
    bool open = false;
    std::string title;        // task, step and run folder
    std::string architecture; // layers, d_model, heads, seq, vocab
    std::string vocabulary;   // the words that may be typed (or a sample of them)
    std::vector<int> steps;   // the run's checkpoints
    int step = 0;
    int layer = 0, layers = 0;                          // the layer every view shows, from 0
    std::vector<std::vector<std::string>> unknownWords; // per sentence: not in the vocabulary
    std::vector<std::vector<std::string>> predictions;  // per sentence and token: "t17 (0.93)"
};

class TrainedModelRunner {
  public:
    bool isOpen() const { return run_ != nullptr; }
    const core::TrainedRun& run() const { return *run_; } // only while open
    // Starts on `run`; its traces are made by the next update.
    void open(std::shared_ptr<const core::TrainedRun> run);
    void close();

    // Runs the model when the sentences changed since the last call (retyping is cheap: the
    // model is tiny); true when the traces were replaced. A blank sentence gives a hint, one the
    // model cannot read an error (status()); the last traces stay, as the explorer's do.
    bool update(const std::vector<std::string>& sentences);
    const RunStatus& status() const { return status_; }
    bool hasTrace() const { return !trace_.layers.empty(); }
    const core::train::ModelTrace& trace() const { return trace_; }

    // The scene the model fixes (sizes, causal mask, scale, seed) with these sentences: what the
    // controls show, read-only.
    core::Scene scene(const std::vector<std::string>& sentences) const;

  private:
    std::shared_ptr<const core::TrainedRun> run_;
    core::train::ModelTrace trace_;
    std::vector<std::string> lastAttempt_;
    bool attempted_ = false;
    RunStatus status_;
};

// What the panels show of the open model: title, architecture, vocabulary, steps, and per
// sentence its unknown words and the model's next-token guesses. Keeps the layer chosen (clamped
// to the model's layers).
void describeTrainedModel(const TrainedModelRunner& model, TrainedModelView& view);

// The window title while a model is open: "mha-viz — induction, step 1500 (runs/induction-2)".
std::string trainedModelWindowTitle(const core::TrainedRun& run);

} // namespace app
