// A trained model in the window (--model DIR, the Train view's "Open in explorer"): the run read
// from its folder, the traces of its layers on the sentences typed, and what the panels show of
// it. No GL and no ImGui: unit tests drive it like the window does.
#pragma once

#include "engine/scene.h"
#include "explorer/scene_runner.h"
#include "explorer/view_state.h"
#include "io/trained_run.h"
#include "train/model_trace.h"

#include <memory>
#include <string>
#include <vector>

namespace app {

class ModelExplorer {
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
// to the model's layers) and clears the panel's requests.
void describeModel(const ModelExplorer& model, ModelView& view);

// The window title while a model is open: "mha-viz — induction, step 1500 (runs/induction-2)".
std::string modelWindowTitle(const core::TrainedRun& run);

} // namespace app
