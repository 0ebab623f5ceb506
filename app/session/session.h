// One run of the window: the Scene the user edits, the Trace drawn, the explorer's and the
// Train view's state, the runner that recomputes the trace and the textures that show it; and
// the steps of a frame that main.cpp's loop calls in order (poll -> input -> panels -> after
// render -> after swap). Panels return what they ask for; the session applies it in the same
// frame (applyRequest, openScene, openModel).
#pragma once

#include "cli/cli.h"
#include "explorer/explorer_state.h"
#include "explorer/model_runner.h"
#include "explorer/scene_runner.h"
#include "platform/appearance.h"
#include "platform/frame_stats.h"
#include "session/window_state.h"
#include "train_view/train_panels.h"
#include "train_view/train_view.h"
#include "widgets/gl_heatmaps.h"

#include <chrono>
#include <future>
#include <memory>
#include <optional>
#include <string>

struct GLFWwindow;

namespace app {

class TypingBench;

class Session {
  public:
    Session(const CliOptions& options, float uiScale);
    ~Session(); // waits for a model still being opened (its worker only reads files)

    // The textures and the first maps, before the first frame. False after printing why.
    bool init();

    // Polls when something moves (an active control, an animation, a computation, queued
    // input, a benchmark), else sleeps until input or half a second (to notice a stop signal).
    void pollEvents();
    // A theme, zoom or monitor-scale change since the last frame rebuilds style and fonts.
    void followAppearance(GLFWwindow* window);
    // This frame's share of the queued input, handed to ImGui before NewFrame.
    void feedInput();
    // Shortcuts, dropped files, every panel; recomputes the trace when the scene changed.
    void drawPanels(GLFWwindow* window);
    // Reads the rendered frame back where asked: window export, Ctrl+E, --screenshot.
    void afterRender(GLFWwindow* window);
    // The --state-file line and --bench-frames timings, once the frame is on screen.
    void afterSwap(GLFWwindow* window);

    void shutdown() {          // while the GL context still exists
        model_.runner.close(); // its workers wake the loop as they end: not once GLFW is gone
        model_.comparison.close();
        gl_.shutdown();
        trainGl_.shutdown();
        model_.gl.shutdown();
    }
    int exitCode() const { return exitCode_; }

    // A trained model in the explorer (the Train view's "Open in explorer"): reads the run
    // folder's checkpoint at `step` (core::kLastCheckpoint: the last one) and shows every layer
    // of it in every view, on the sentence typed. False, with the reason as a notice, when it
    // cannot be read; the window then keeps what it showed. Call it between frames or from a
    // panel (the maps follow in the same frame's recompute).
    bool openModel(const std::string& runDir, int step = core::kLastCheckpoint);
    // A folder or model name: a run folder of mha-viz train (opened now) or a Hugging Face
    // checkpoint (the folder says which). A checkpoint loads on a worker while the window goes
    // on showing what it showed ("Opening NAME ..."); a later frame shows it
    // (followPendingModel). False, with a notice, when it cannot be located or one is already
    // loading; what was shown stays.
    bool openModelPath(const std::string& dirOrName);
    // An attention file (docs/attention-files.md): read and checked on a worker like a
    // checkpoint, then shown without a model. False, with a notice, when one is loading.
    bool openAttentionFile(const std::string& path);
    bool modelNotOpened(const std::exception& e);
    // Back to the ordinary explorer, with the scene it had before the model opened.
    void closeModel();
    bool modelOpen() const { return model_.runner.isOpen(); }

  private:
    void saveScene();
    void drawExplorer();
    void drawExplorerTabs(const PanelRect& rect);
    void drawWindows(); // the legend, the scene picker, the export panel, the notice
    // What a panel asked for, done now.
    void applyRequest(const ExplorerRequest& request);
    // A real model's head switched off or on, or all on again (the model grid's right-click).
    void switchModelHeads(const ExplorerRequest& request);
    // A demo scene (by name) or a scene file: it replaces the scene (a trained model gives way),
    // with its view settings; a "train" object opens the Train view and trains. A file that
    // cannot be read leaves everything as it was, with a notice.
    bool openScene(const std::string& demo, const std::string& path);
    // Ctrl+Z: the scene openScene replaced comes back, and the one it replaced is kept in its
    // place, so Ctrl+Z again returns to it.
    void undoScene();
    void showScene(const core::Scene& scene, const core::SceneView& settings);
    void startTrainScene(const core::train::TrainSettings& settings);
    void followOpenInExplorer(const std::optional<OpenInExplorer>& open);
    Appearance appearance() const { return {explorer_.saved.theme, window_.zoom}; }
    void showNotice(std::string text, double seconds = 4.0);
    bool screenshotReady() const;
    void exportWholeWindow(int width, int height);
    // session_model.cpp: the trained model's side of the frame.
    void showModel(std::shared_ptr<const core::TrainedRun> run, std::vector<std::string> sentences);
    void showRealModel(std::shared_ptr<const core::models::RealModel> model,
                       std::vector<std::string> sentences);
    void showSavedAttention(std::shared_ptr<const core::models::SavedAttention> saved);
    // The attention file openAttentionFile started reading: shown once read, or the notice.
    void followPendingAttention();
    bool loadingAny() const {
        return model_.loading.valid() || model_.loadingSaved.valid() ||
               model_.loadingSeq2Seq.valid();
    }
    void followPendingSeq2Seq();
    template <class T>
    std::optional<std::string> finishedLoad(const std::future<T>& task);
    void showSeq2Seq(std::shared_ptr<const core::models::Seq2SeqRealModel> model);
    bool followSeq2Seq();       // the encoder-decoder's run of the source and target typed
    void exportAlignment();     // the alignment view's figure (session_seq2seq.cpp)
    void exportSeq2SeqViews();  // Export all of an encoder-decoder, on a worker
    void followSeq2SeqExport(); // its notice once written
    struct SeqExport {          // what it wrote, or why not
        std::string dir, error;
        std::vector<std::string> written;
    };
    void rememberExplorer(); // the scene to come back to when the model closes
    void leaveModel(bool keepScene);
    bool recompute(bool allowWorker); // the runner's or the model's trace; true when replaced
    bool followModel();
    // The checkpoint openModelPath started loading: shown once the worker has it, or the notice
    // of why not. Each frame, before the panels.
    void followPendingModel();
    void rememberRecentModel(const std::string& dirOrName); // the dialog's recent list
    // session_comparison.cpp: model B of the A-B tab. Opened off the frame thread; each frame
    // takes it once read, keeps its comparison in step with the trace shown and fills the tab's
    // state (ComparisonTabState); the tab's export writes the comparison's files.
    void openComparison(const std::string& dirOrName);
    void followComparison();
    void exportComparison();
    void setTitle(std::string title); // the window's title from the next frame on

    // The pair view the maps and exports show: the open model's choice, or every cell.
    core::PairView shownPairView() const {
        return model_.runner.isReal() ? explorer_.model.pairView : core::PairView::All;
    }
    RunStatus status() const {
        return model_.runner.isOpen() ? model_.runner.status() : runner_.status();
    }

    const CliOptions& options_;
    float uiScale_;
    core::Scene scene_;
    std::shared_ptr<const core::Trace> trace_ = std::make_shared<const core::Trace>();
    ExplorerState explorer_;
    WindowState window_;
    SceneRunner runner_;
    Appearance appliedAppearance_;
    GlHeatmaps gl_;
    TrainView train_;    // Train mode (Ctrl+T)
    GlHeatmaps trainGl_; // its maps' textures
    void drawHeadsOrModelGrid(const PanelRect& rect);
    void exportDetectors();
    void exportModelViews();
    std::string exportDir_;
    bool exportWindowRequested_ = false;
    struct ReplacedScene { // what the last openScene replaced (undoScene)
        core::Scene scene;
        core::SceneView saved;
    };
    std::optional<ReplacedScene> replaced_;
    // The sentences a model switch replaced with the next model's example (undoScene).
    std::optional<std::vector<std::string>> replacedText_;
    // The sentence the next real model opens on: the one typed, else its example.
    std::string sentenceForModel(const core::models::RealModel& next) const;
    core::Scene explorerScene_; // what the explorer showed before the model, and comes back to
    std::shared_ptr<const core::Trace> explorerTrace_;
    bool mapsStale_ = false; // trace_ was swapped outside recompute: upload the maps
    // The open model (a trained run or a checkpoint): what runs it, what shows it, what loads.
    struct OpenModel {
        ModelRunner runner;
        GlHeatmaps gl;              // every head of every layer (the model view)
        ModelMapsKey mapsOf;        // what gl holds (the runner's generation, the view)
        int shownLayer = -1;        // the model's layer in trace_
        int describedAnalyses = -1; // the analyses' generation the panels' description has
        core::PairView shownPairView = core::PairView::All; // the pair view of trace_
        bool shownValueWeighted = false; // gl_ holds value-weighted maps of trace_ (W)
        std::future<std::unique_ptr<core::models::RealModel>> loading; // openModelPath's load
        std::future<std::shared_ptr<const core::models::SavedAttention>> loadingSaved; // a file's
        std::future<std::shared_ptr<const core::models::Seq2SeqRealModel>> loadingSeq2Seq;
        std::future<SeqExport> exportingSeq2Seq; // Export all of an encoder-decoder
        bool generateAgain = false;              // Generate pressed: the decoder writes again
        std::string loadingName;                 // what it loads
        ComparisonRunner comparison;             // model B of the A-B tab, and what moved
    };
    OpenModel model_;
    struct Title {        // the window's title, set by the next frame (its argument)
        std::string next; // "" when unchanged
        std::string shown = "mha-viz \xE2\x80\x94 multi-head attention"; // without "Opening"
    };
    Title title_;
    struct Frames { // counting frames: settling, benchmarks, the state file
        FrameStats bench;
        std::chrono::steady_clock::time_point start;
        int index = 0, toSettle = 3;
        int sinceTrace = 0;      // frames since trace_ was last replaced
        bool trainShown = false; // the Train view was on screen last frame
    };
    Frames frames_;
    std::unique_ptr<TypingBench> typingBench_; // --bench-typing
    int exitCode_ = 0;
};

} // namespace app
