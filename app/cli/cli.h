// The command line: flags -> Scene + what to do with it (docs/cli.md).
#pragma once

#include "cli/real_model_cli.h"
#include "engine/scene.h"
#include "io/scene_json.h"
#include "io/trained_run.h"
#include "models/analyses/saved_attention.h"
#include "models/seq2seq_real_model.h"
#include "train/trainer.h"

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace app {

struct CliOptions {
    core::Scene scene;
    std::string jsonPath;        // --json FILE, "-" for stdout
    std::string exportPath;      // --export DIR: figures of every head, the grid, the trace
    int exportScale = 1;         // --export-scale K: PNG resolution x K (1..4)
    bool exportCaption = true;   // --export-caption on|off: figures with their caption
    bool exportFullSize = false; // --export-full-resolution: grids past kSlidePixels keep cells
    std::string exportDir;       // --export-dir: where the window's Ctrl+E goes (empty = default)
    std::string screenshotPath;  // --screenshot FILE: render until settled, save, exit
    int benchFrames = 0;         // --bench-frames N: recompute every frame, print timings, exit
    int benchTyping = 0;   // --bench-typing N: paste N tokens, type at the end, print times, exit
    std::string stateFile; // --state-file FILE: a JSON line per frame (state_file.h)
    float uiScale = 0;     // --ui-scale K: text and maps x K; 0 = the monitor's content scale
    bool weightsGiven = false; // --weights was given (else the window shows designed heads)
    core::SceneView view;      // --view sets the tab shown first; a scene file sets all of it
    std::string scenePath;     // --scene FILE: every setting from a saved scene
    std::string saveScenePath; // --save-scene FILE: write the settings as a scene
    // --model DIR [--step S]: a trained model instead of a scene, read (and its sentences
    // checked) by parseCli; scene.sentences holds the sentences to run it on.
    std::string modelDir;
    int modelStep = core::kLastCheckpoint;
    int modelLayer = 1; // --layer L: the layer the window shows first, from 1
    std::shared_ptr<const core::TrainedRun> model;
    // --model DIR|NAME naming a Hugging Face checkpoint (docs/real-models.md): opened by
    // parseCli, its sentence checked.
    RealModelFlags real;
    std::shared_ptr<const core::models::RealModel> realModel;
    // --model naming an encoder-decoder (T5, BART, Marian): opened by parseCli instead of
    // realModel, the source sentence checked.
    std::shared_ptr<const core::models::Seq2SeqRealModel> seq2seqModel;
    // --compare MODEL: a second checkpoint run on the same text, compared head by head.
    std::shared_ptr<const core::models::RealModel> compareModel;
    // --attention FILE: attention saved elsewhere (docs/attention-files.md), read and checked
    // by parseCli; what it shows needs no model.
    std::string attentionPath;
    std::shared_ptr<const core::models::SavedAttention> savedAttention;
    // --scene FILE with a "train" object: the window opens its Train view and trains; with
    // --screenshot it trains to the last step before capturing.
    std::optional<core::train::TrainSettings> train;
    bool headless() const {
        return !jsonPath.empty() || !exportPath.empty() || !saveScenePath.empty() ||
               real.benchForward > 0 || !real.compare.empty();
    }
};

// "PROGRAM: error: MESSAGE" on stderr, on one line (line breaks in the message become spaces):
// every command's way of naming bad input.
void printError(std::string_view program, std::string message);

// --json FILE|-: `write` into standard output (flushed and checked: a full disk behind a
// redirection is an error), or streamed into a temporary file beside FILE that is renamed into
// place when complete. Throws std::runtime_error naming what could not be written.
void writeJsonOutput(const std::string& path, const std::function<void(std::ostream&)>& write);

// Exit code for bad input, as the CLI contract says.
inline constexpr int kExitBadInput = 2;

// "" for a valid --seed, else the one-line error. CLI11 would wrap -1 to 2^64 - 1 and saturate
// what does not fit.
std::string seedError(const std::string& text);

// Parses argv. On --help prints usage and sets exitCode 0; on bad input prints one
// line to stderr and sets exitCode 2. Returns the options only when the program
// should go on.
std::optional<CliOptions> parseCli(int argc, char** argv, int& exitCode);

// Runs the headless part (--json; with --model the v2 trace). Returns the process exit code.
int runHeadless(const CliOptions& options);

} // namespace app
