// A model in the explorer: a trained run (--model RUN, the Train view's "Open in explorer") or a
// real checkpoint (--model DIR|NAME of a Hugging Face GPT-2, real_model_runner.cpp). The runner
// runs it on the sentences typed, as SceneRunner runs a scene (the traces of its layers), and
// says what the panels show of it. A real model runs on a worker thread: the frame never waits
// for it. No GL and no ImGui: unit tests drive it like the window does.
#pragma once

#include "engine/scene.h"
#include "explorer/scene_runner.h"
#include "io/trained_run.h"
#include "models/model_analysis.h"
#include "models/real_model.h"
#include "train/model_trace.h"

#include <future>
#include <memory>
#include <string>
#include <vector>

namespace app {

// The middle panel while a real model is open: this layer's heads, every head of every layer
// (the model view), or the head detectors' scores (panel_model_grid.cpp).
enum class ModelGridMode { LayerHeads, EveryLayer, Detectors };

// What the panels show of the open model and which layer they show: filled by
// describeTrainedModel; `layer` is the one state the user sets here (L / Shift+L, the radio).
struct TrainedModelView {
    bool open = false;
    bool real = false;        // a Hugging Face checkpoint: one sentence, any text, no steps
    std::string title;        // task, step and run folder
    std::string architecture; // layers, d_model, heads, seq, vocab
    std::string vocabulary;   // the words that may be typed (or a sample of them)
    std::vector<int> steps;   // the run's checkpoints
    int step = 0;
    int layer = 0, layers = 0;                      // the layer every view shows, from 0
    ModelGridMode grid = ModelGridMode::EveryLayer; // kept like the layer (a real model)
    int detector = 0;                               // the detectors grid's score
    bool detectorsReady = false;                    // the detectors' scores are computed
    float gridRect[4] = {0, 0, 0, 0}; // where the last model grid was drawn (x0 y0 x1 y1), for
                                      // the state file: a test clicks a cell as a user would
    float exportAt[2] = {0, 0};       // the centre of the detectors' "Export CSV" button
    std::vector<std::vector<std::string>> unknownWords; // per sentence: not in the vocabulary
    std::vector<std::vector<std::string>> predictions;  // per sentence and token: "t17 (0.93)"
};

class TrainedModelRunner {
  public:
    bool isOpen() const { return run_ != nullptr || real_ != nullptr; }
    bool isReal() const { return real_ != nullptr; }
    const core::TrainedRun& run() const { return *run_; }               // a trained run only
    const core::models::RealModel& realModel() const { return *real_; } // a real model only
    // Starts on `run` (or a real model); its traces are made by the next update.
    void open(std::shared_ptr<const core::TrainedRun> run);
    void openReal(std::shared_ptr<const core::models::RealModel> model);
    void close();
    ~TrainedModelRunner(); // waits for a running worker (a forward cannot be interrupted)

    // Runs the model when the sentences changed since the last call; true when the traces were
    // replaced. A trained model (tiny) runs here; a real one on a worker, whose result a later
    // call takes. A blank sentence gives a hint, one the model cannot read an error
    // (status()); the last traces stay, as the explorer's do. `now` stamps computingSince.
    bool update(const std::vector<std::string>& sentences, double now = 0);
    RunStatus status() const {
        RunStatus status = status_;
        status.computing = worker_.valid();
        return status;
    }
    bool computing() const { return worker_.valid(); }
    // The head detectors of a real model on a repeated random-token sequence (computed once,
    // with its first trace): previous_token, duplicate_token, induction, first_token.
    const std::vector<core::models::HeadDetectorScores>& detectors() const { return detectors_; }
    // Bumped whenever the traces are replaced: the model view uploads its maps again.
    int generation() const { return generation_; }
    bool hasTrace() const { return !trace_.layers.empty(); }
    const core::train::ModelTrace& trace() const { return trace_; }

    // The scene the model fixes (sizes, causal mask, scale, seed) with these sentences: what the
    // controls show, read-only.
    core::Scene scene(const std::vector<std::string>& sentences) const;

    // Per sentence and token, the real model's next-token guesses: "␣mat (0.31)".
    const std::vector<std::vector<std::string>>& realPredictions() const {
        return realPredictions_;
    }

  private:
    struct RealOutcome {
        core::train::ModelTrace trace;
        std::vector<std::vector<std::string>> predictions;
        std::vector<core::models::HeadDetectorScores> detectors; // empty when not asked for
        std::string error;
    };
    static RealOutcome runReal(std::shared_ptr<const core::models::RealModel> model,
                               std::vector<std::string> sentences, bool detect);
    bool updateReal(const std::vector<std::string>& sentences, double now);

    std::shared_ptr<const core::TrainedRun> run_;
    std::shared_ptr<const core::models::RealModel> real_;
    std::future<RealOutcome> worker_;
    std::vector<std::vector<std::string>> realPredictions_;
    std::vector<core::models::HeadDetectorScores> detectors_;
    int generation_ = 0;
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
// A guess as the token chips show it: "t17 (0.93)".
std::string withProbability(const std::string& token, float probability);
// "mha-viz — gpt2 (openai-community/gpt2)".
std::string realModelWindowTitle(const core::models::RealModel& model);
// The panels' view of a real model (describeTrainedModel calls it).
void describeRealModel(const TrainedModelRunner& model, TrainedModelView& view);

} // namespace app
