#include "session/session.h"

#include "explorer/explorer_tabs.h"
#include "explorer/panels.h"
#include "explorer/view_range.h"
#include "explorer/window_layout.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "io/scene_json.h"
#include "io/train_scene.h"
#include "models/analyses/real_model_export.h"
#include "models/analyses/real_model_figures.h"
#include "models/analyses/seq2seq_figures.h"
#include "models/formats/attention_file.h"
#include "models/formats/gguf_file.h"
#include "models/formats/recent_models.h"
#include "platform/file_offer.h"
#include "platform/input_queue.h"
#include "platform/user_paths.h"
#include "platform/window.h"
#include "platform/window_capture.h"
#include "session/shortcuts.h"
#include "session/state_file.h"
#include "session/typing_bench.h"
#include "widgets/heatmap_widget.h"

#include "platform/gl.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>
#include <iostream>
#include <utility>

namespace app {

namespace {

// --bench-frames: a different first word each frame, so every frame recomputes.
void varyForBenchmark(core::Scene& scene, int frame) {
    static const std::string base = scene.sentences.front();
    scene.sentences.front() = (frame % 2 ? "One " : "Two ") + base;
}

} // namespace

Session::Session(const CliOptions& options, float uiScale)
    : options_(options), uiScale_(uiScale),
      scene_(options.model || options.realModel || options.savedAttention || options.seq2seqModel
                 ? core::Scene{}
                 : options.scene), // with a
                                   // model: the explorer to come back to
      exportDir_(options.exportDir.empty() ? defaultExportDir() : options.exportDir) {
    if (!options.weightsGiven || options.model || options.realModel || options.savedAttention ||
        options.seq2seqModel)
        scene_.weights = core::WeightsKind::Designed; // the demo shows heads that specialise
    explorer_.saved = options.view;                   // --view, or a scene file's view settings
    explorer_.scenes.savedFolder = exportDir_;
    train_.settings = defaultTrainSettings();
}

Session::~Session() {
    if (model_.loading.valid()) model_.loading.wait(); // closing while a model loads: let it end
    if (model_.loadingSaved.valid()) model_.loadingSaved.wait();
    if (model_.loadingSeq2Seq.valid()) model_.loadingSeq2Seq.wait();
    if (model_.exportingSeq2Seq.valid()) model_.exportingSeq2Seq.wait(); // files half written
}

bool Session::init() {
    try {
        gl_.init();
        trainGl_.init();
        model_.gl.init();
    } catch (const std::exception& e) {
        std::cerr << "mha-viz: error: " << e.what() << '\n';
        return false;
    }
    runner_.update(scene_, trace_, ImGui::GetTime(), false); // the maps before frame 1
    model_.runner.setWake([] { glfwPostEmptyEvent(); });
    model_.comparison.setWake([] { glfwPostEmptyEvent(); });
    if (options_.model) { // --model: checked by parseCli
        showModel(options_.model, options_.scene.sentences);
        explorer_.model.layer = options_.modelLayer - 1; // --layer, from 1
        recompute(false);
    } else if (options_.realModel) { // its first trace comes from the worker, frames go on
        showRealModel(options_.realModel, options_.scene.sentences);
        explorer_.model.pairText = options_.real.pair; // --pair: sentence B of an encoder
        rememberRecentModel(options_.realModel->location.source);
        explorer_.model.layer = options_.modelLayer - 1;
        recompute(false);
        if (options_.benchTyping > 0) // it edits the sentence as typing would
            typingBench_ = std::make_unique<TypingBench>(*options_.realModel, options_.benchTyping);
    } else if (options_.seq2seqModel) { // --target or --generate: what the decoder does first
        scene_.sentences = options_.scene.sentences;
        showSeq2Seq(options_.seq2seqModel);
        if (options_.real.targetGiven) explorer_.model.targetText = options_.real.target;
        if (options_.real.generate > 0) explorer_.model.maxWritten = options_.real.generate;
        rememberRecentModel(options_.seq2seqModel->location.source);
        explorer_.model.layer = options_.modelLayer - 1;
        recompute(false);
    } else if (options_.savedAttention) { // read and checked by parseCli: shown at once
        showSavedAttention(options_.savedAttention);
        rememberRecentModel(options_.savedAttention->path);
        explorer_.model.layer = options_.modelLayer - 1;
        recompute(false);
    }
    if (explorer_.openModel.recent.empty()) // else --model has just read and written it
        explorer_.openModel.recent = core::models::readRecentModels(recentModelsPath());
    keepViewInRange(*trace_, explorer_.saved, explorer_.selection);
    uploadHeadMaps(*trace_, explorer_.selection.batchIndex, shownPairView(), gl_);
    if (options_.train) startTrainScene(*options_.train); // --scene with a "train" object
    return true;
}

// Training alone needs no more than 60 frames a second to draw its curves; the time a frame
// leaves over goes to the training worker instead of to drawing the same maps again.
constexpr double kTrainFrameSeconds = 1.0 / 60.0;
// ImGui's caret is on for 0.8 s and off for 0.4 s: a frame every 0.2 s shows each change
// within 0.2 s, at 5 frames a second instead of 60 while a field has the keyboard.
constexpr double kCaretFrameSeconds = 0.2;
// While a model loads: the spinner turns and the frame notices the load's end within 0.125 s.
constexpr double kSpinnerFrameSeconds = 0.125;
// A model's worker has ended but its result was not quite ready when its event woke the loop.
constexpr double kWorkerFrameSeconds = 0.002;

void Session::pollEvents() {
    const double now = ImGui::GetTime();
    const bool animating = explorer_.pipeline.animating(now);
    const bool exporting = explorer_.exportPanel.job || explorer_.exportPanel.captureCountdown > 0;
    // A focused text field stays the active item while the user reads: only its caret needs
    // frames then (see below), not the 60 a second a drag or an animation does.
    const bool onlyTyping = ImGui::GetIO().WantTextInput && !ImGui::IsAnyMouseDown();
    const bool interacting = frames_.toSettle > 0 || (ImGui::IsAnyItemActive() && !onlyTyping) ||
                             animating || exporting || runner_.computing() || inputPending();
    const bool training = trainMoving(train_);
    const bool busy = options_.benchFrames > 0 || (typingBench_ && !typingBench_->waiting()) ||
                      !options_.screenshotPath.empty() || interacting || training;
    const double sinceLast =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - frames_.start).count();
    if (busy && training && !interacting && sinceLast < kTrainFrameSeconds) {
        glfwWaitEventsTimeout(kTrainFrameSeconds - sinceLast); // input still wakes it at once
    } else if (busy) {
        glfwPollEvents();
        frames_.toSettle = std::max(0, frames_.toSettle - 1);
    } else {
        double timeout =
            window_.notice.visible(now) ? std::min(0.5, window_.notice.until - now) : 0.5;
        if (onlyTyping) timeout = std::min(timeout, kCaretFrameSeconds);
        if (loadingAny()) timeout = std::min(timeout, kSpinnerFrameSeconds);
        // A model's worker wakes the loop as it ends (setWake); frames meanwhile would take
        // its cores (llvmpipe draws on them).
        if (model_.runner.working() || model_.comparison.working())
            timeout = std::min(timeout, kSpinnerFrameSeconds);
        if (model_.runner.finishing()) timeout = std::min(timeout, kWorkerFrameSeconds);
        glfwWaitEventsTimeout(timeout);
        // ImGui needs a frame or two to settle after input; a caret's blink needs one frame.
        frames_.toSettle = onlyTyping && !inputPending() ? 0 : 2;
    }
    frames_.start = std::chrono::steady_clock::now(); // --bench-frames times the work, not the wait
    frames_.bench.startFrame(frames_.start);
    if (train_.run) train_.run->beginFrame();
}

void Session::followAppearance(GLFWwindow* window) {
    followScaleAndAppearance(window, options_.uiScale > 0, appearance(), uiScale_,
                             appliedAppearance_);
}

void Session::feedInput() {
    feedInputQueue(); // this frame's share of the queued keys, clicks and typing
    if (!options_.screenshotPath.empty()) // wherever the pointer rests, no hover in screenshots
        ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
    interceptEscape();
}

void Session::drawPanels(GLFWwindow* window) {
    gl_.beginFrame();
    trainGl_.beginFrame();
    model_.gl.beginFrame();
    explorer_.selection.beginFrame();
    static const HeadMaps none; // Train mode: the explorer's plain keys have no heads to act on
    const ShortcutActions actions =
        handleShortcuts({scene_, explorer_, window_}, train_.active ? none : gl_.maps);
    if (actions.toggleFullscreen) toggleFullscreen(window);
    if (!title_.next.empty()) glfwSetWindowTitle(window, std::exchange(title_.next, "").c_str());
    if (actions.toggleTrain) train_.active = !train_.active;
    followPendingModel(); // a model loaded off the frame thread is shown from this frame
    followPendingAttention();
    followPendingSeq2Seq();
    followSeq2SeqExport();
    if (const std::string dropped = takeDroppedPath(); !dropped.empty()) {
        std::error_code ec; // a folder, a GGUF file or an attention file (.safetensors) is
        // opened as a model, another file as a scene
        const bool model = std::filesystem::is_directory(dropped, ec) ||
                           core::models::isGgufName(dropped) ||
                           core::models::looksLikeAttentionFile(dropped);
        if (model && explorer_.openModel.open && !explorer_.openModel.choosingB.empty())
            openComparison(dropped); // the dialog picks model B (a page's chosen files too)
        else if (model)
            openModelPath(dropped);
        else
            openScene("", dropped);
    }
    if (actions.saveScene) saveScene();
    if (actions.undoScene) undoScene();
    exportWindowRequested_ = actions.exportWindow;
    if (train_.active) {
        const TrainViewLook look{explorer_.saved.colormap,
                                 explorer_.saved.theme != core::Theme::Light,
                                 uiScale_ * window_.zoom, exportDir_};
        followOpenInExplorer(
            drawTrainView(train_, look, window_.notice, trainGl_, actions.plainKeys));
    } else {
        // A run training behind the explorer still hands over its rows and snapshots, so the
        // timeline's bound holds (twice a second at least: the idle loop wakes that often).
        if (train_.run) train_.run->frame();
        drawExplorer();
    }
    // The scene picker belongs to the mode it was opened in: it does not follow into the other.
    if (std::exchange(frames_.trainShown, train_.active) != train_.active)
        explorer_.scenes.open = false;
    drawWindows();
    explorer_.selection.endFrame();
    frames_.bench.lap(FramePhase::Panels);
}

void Session::drawWindows() {
    drawKeyLegend(window_.showKeys);
    applyRequest(drawScenesPanel(explorer_.scenes));
    applyRequest(drawOpenModelPanel(explorer_.openModel));
    // A scene just opened may name heads the trace on screen (until the next recompute) lacks.
    keepViewInRange(*trace_, explorer_.saved, explorer_.selection);
    ExportTarget target{explorer_.selection.batchIndex,
                        explorer_.saved.selectedHead,
                        explorer_.saved.compareHead,
                        explorer_.saved.colormap,
                        {},
                        shownPairView(),
                        {}};
    if (model_.runner.isReal() && model_.runner.realTrace()) {
        target.captionLines =
            core::models::realModelCaption(model_.runner.realModel(), *model_.runner.realTrace());
        target.modelName = core::models::modelDisplayName(model_.runner.realModel().location);
    } else if (model_.runner.isSeq2Seq() && model_.runner.seq2seqTrace()) {
        const core::models::Seq2SeqRealModel& m = model_.runner.seq2seqModel();
        target.captionLines = core::models::seq2seqCaption(m, *model_.runner.seq2seqTrace());
        target.captionLines.push_back(
            core::models::savedStackLine(model_.runner.savedStack()).empty()
                ? "decoder self-attention (causal)"
                : core::models::savedStackLine(model_.runner.savedStack()));
        target.modelName = core::models::modelDisplayName(m.location);
    } else if (model_.runner.isSaved()) { // where the maps come from, never a model's name
        target.captionLines = core::models::savedAttentionCaption(model_.runner.saved());
        if (const std::string line = core::models::savedStackLine(model_.runner.savedStack());
            !line.empty())
            target.captionLines.push_back(line); // which of the file's attentions
        target.modelName = std::filesystem::path(model_.runner.saved().name).stem().string();
    }
    if (!target.captionLines.empty())
        target.captionLines.push_back("layer " + std::to_string(explorer_.model.layer + 1) +
                                      " of " + std::to_string(explorer_.model.layers));
    drawExportPanel(trace_, explorer_.exportPanel, target, window_.notice, exportDir_);
    drawExportAllDialog(explorer_.exportPanel, window_.notice);
    drawNotice(window_.notice, ImGui::GetTime());
}

void Session::showNotice(std::string text, double seconds) {
    window_.notice.show(std::move(text), ImGui::GetTime(), seconds);
}

void Session::startTrainScene(const core::train::TrainSettings& settings) {
    train_.settings = settings;
    train_.active = true;
    if (resetRun(train_))
        train_.run->start();
    else
        showNotice("Not trained: " + train_.settingsError, 6.0);
}

// --screenshot of a training scene waits for the run's last step (or its failure), of a real
// model for its trace (the worker's first forward).
bool Session::screenshotReady() const {
    if (loadingAny()) return false;
    if ((model_.runner.isReal() || model_.runner.isSeq2Seq()) &&
        (model_.runner.computing() || !model_.runner.hasTrace()) &&
        model_.runner.status().sceneError.empty())
        return false;
    if (model_.runner.playing()) return false; // a generation still appearing, token by token
    // Every panel has drawn the trace on screen: one whole frame after it was replaced, and a
    // real model's layer shown (one its trace did not keep is made on a worker).
    if (!train_.active && (frames_.sinceTrace < 1 || (model_.runner.showsWholeModel() &&
                                                      model_.shownLayer != explorer_.model.layer)))
        return false;
    if (!options_.train) return true;
    const TrainState state = train_.run ? train_.run->state() : TrainState::Failed;
    return state == TrainState::Done || state == TrainState::Failed;
}

void Session::drawExplorer() {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const bool real = model_.runner.showsWholeModel(); // a checkpoint or an attention file
    const LayoutKind kind = !real ? LayoutKind::Explorer
                            : explorer_.model.grid == ModelGridMode::LayerHeads
                                ? LayoutKind::RealModel
                                : LayoutKind::ModelGrid;
    const WindowLayout layout = layoutFor(display.x, display.y, uiScale_ * window_.zoom, kind);
    applyRequest(drawSentencesPanel(layout.sentences, scene_, *trace_, status(), explorer_.model,
                                    explorer_.selection));
    applyRequest(drawControlsPanel(layout.controls, scene_, *trace_, gl_.maps, explorer_.saved,
                                   explorer_.model, explorer_.selection));
    const int headsBefore = trace_->attention.heads;
    frames_.bench.lap(FramePhase::Panels);
    // After the panels: the sentence field, while it has the keyboard, puts its own text back.
    // --bench-frames edits every frame as fast typing would; the run goes to the worker as
    // any edit's does, so the frames timed are the ones a user gets.
    if (options_.benchFrames > 0) varyForBenchmark(scene_, frames_.index);
    if (typingBench_) typingBench_->edit(scene_.sentences.front(), model_.runner);
    const bool recomputed = recompute(true);
    frames_.sinceTrace =
        recomputed ? 0 : frames_.sinceTrace + 1; // the panels above drew the trace before
    frames_.bench.lap(FramePhase::Engine);
    keepViewInRange(*trace_, explorer_.saved, explorer_.selection); // before any panel indexes
    const bool weighted = real && explorer_.model.valueWeighted;    // W: the Head view's maps too
    if (recomputed || !gl_.maps.showSentence(explorer_.selection.batchIndex) || // or another one
        weighted != model_.shownValueWeighted) {
        model_.shownValueWeighted = weighted;
        uploadHeadMaps(*trace_, explorer_.selection.batchIndex, shownPairView(), gl_, weighted);
        frames_.bench.lap(FramePhase::Upload);
        if (trace_->attention.heads != headsBefore && headsBefore > 0)
            noteHeadCountChange(explorer_.pipeline, headsBefore, ImGui::GetTime());
    }
    followComparison(); // model B's layer of the trace just recomputed
    drawHeadsOrModelGrid(layout.heads);
    drawExplorerTabs(layout.head);
}

// The middle panel: the shown layer's heads, or with a real model its model view or detectors.
void Session::drawHeadsOrModelGrid(const PanelRect& rect) {
    const bool grid =
        model_.runner.showsWholeModel() && explorer_.model.grid != ModelGridMode::LayerHeads;
    if (!grid) {
        drawHeadsPanel(rect, *trace_, status(), explorer_.model,
                       {explorer_.saved, explorer_.selection, gl_});
        return;
    }
    if (explorer_.model.grid == ModelGridMode::LogitLens && model_.runner.isReal() &&
        model_.runner.hasTrace())
        model_.runner.requestLens(lensPositionShown(
            explorer_.model, int(model_.runner.trace().sentences.front().tokens.tokens.size())));
    if (explorer_.model.grid == ModelGridMode::Rollout) model_.runner.requestRollout();
    if (explorer_.model.valueWeighted && explorer_.model.grid == ModelGridMode::EveryLayer)
        model_.runner.requestValueWeighted(); // only while shown: as many maps as the weights
    if (const ModelMapsKey key = modelMapsKey(model_.runner, explorer_.model);
        !(key == model_.mapsOf)) {
        const bool heads = key.generation != model_.mapsOf.generation ||
                           key.valueWeighted != model_.mapsOf.valueWeighted ||
                           key.pairView != model_.mapsOf.pairView; // else the rollout's layer
        uploadModelMaps(model_.runner, explorer_.model, model_.gl, heads);
        model_.mapsOf = key;
    }
    const ExplorerRequest request = drawModelGridPanel(
        rect, model_.runner, explorer_.model, explorer_.saved, explorer_.selection, model_.gl);
    if (request.exportDetectors) exportDetectors();
    if (request.exportModel) exportModelViews();
    applyRequest(request); // a head switched off or on
}

// "Export all" of a real model: first the question (panel_export_all.cpp) of what goes into a
// new folder beside the other exports, then the export panel's job, the model shared so that
// one opened meanwhile does not pull it away.
void Session::exportModelViews() {
    ExportPanel& panel = explorer_.exportPanel;
    if (panel.job) {
        showNotice("An export is still being written; try again when it is done");
        return;
    }
    if (model_.runner.isSeq2Seq()) { // every layer of each kind and the alignments
        exportSeq2SeqViews();
        return;
    }
    const std::string folder = panel.folder.empty() ? exportDir_ : panel.folder;
    ExportAllDialog dialog;
    if (model_.runner.isSaved()) { // the file's maps: everything was made when it was read
        dialog.dir = core::freeStem(folder, "mha-viz-attention", {""});
        dialog.saved = model_.runner.savedShared();
        openExportAll(panel, std::move(dialog));
        return;
    }
    if (!model_.runner.realTrace()) return; // no trace yet: nothing to export
    dialog.dir = core::freeStem(folder, "mha-viz-model", {""});
    dialog.model = model_.runner.realModelShared();
    dialog.trace = model_.runner.realTrace();
    dialog.detectors = model_.runner.detectorsShown(); // with the sink on the sentence
    dialog.options.colormap = explorer_.saved.colormap;
    openExportAll(panel, std::move(dialog));
}

void Session::exportDetectors() {
    const std::string path = core::freePath(exportDir_, "mha-viz-head-detectors", ".csv");
    try {
        std::error_code ec;
        std::filesystem::create_directories(exportDir_, ec);
        core::writeFileAtomically(path,
                                  core::models::headScoresCsv(model_.runner.detectorsShown()));
        offerFiles({path});
        showNotice(kFilesAreDownloads
                       ? "Downloaded " + std::filesystem::path(path).filename().string()
                       : "Wrote " + path,
                   4.0);
    } catch (const std::exception& e) {
        showNotice(std::string("Not written: ") + e.what(), 6.0);
    }
}

void Session::drawExplorerTabs(const PanelRect& rect) {
    applyRequest(
        drawViewsPanel(rect, explorer_.saved.tab, explorer_.tabBar, [&](core::ViewTab tab) {
            return drawExplorerTab(tab, scene_, *trace_, explorer_, gl_);
        }));
}

void Session::saveScene() {
    if (model_.runner.isOpen()) { // a scene cannot hold a trained model's weights
        showNotice("A trained model is not a scene: Ctrl+E saves the window and this "
                   "layer's trace (mha-viz --model DIR --json: every layer)");
        return;
    }
    std::error_code ec;
    std::filesystem::create_directories(exportDir_, ec);
    const std::string path = core::freePath(exportDir_, "mha-viz-scene", ".json");
    try {
        core::saveSceneFile(path, scene_, &explorer_.saved);
        keepFiles();
        showNotice(kFilesAreDownloads ? "Saved " + std::filesystem::path(path).filename().string() +
                                            " in this browser (Ctrl+O lists it)"
                                      : "Saved " + path);
    } catch (const std::exception& e) {
        showNotice(std::string("Scene not saved: ") + e.what());
    }
    std::cerr << "mha-viz: " << window_.notice.text << '\n';
}

void Session::afterRender(GLFWwindow* window) {
    if (options_.benchFrames > 0) {
        glFinish(); // llvmpipe draws when the frame is finished: count it here, not in the swap
        frames_.bench.lap(FramePhase::Draw);
    }
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    if (ExportPanel& panel = explorer_.exportPanel; // drawn without the panel
        panel.captureCountdown > 0 && --panel.captureCountdown == 0) {
        try {
            finishWindowCapture(panel, window_.notice,
                                exportWindow(panel.folder, captureFramebuffer(width, height),
                                             *trace_, panel.formats.json),
                                "");
        } catch (const std::exception& e) {
            finishWindowCapture(panel, window_.notice, "", e.what());
        }
    }
    if (exportWindowRequested_) exportWholeWindow(width, height);
    if (!options_.screenshotPath.empty() && frames_.index >= 5 &&
        screenshotReady()) { // fonts, layout, maps
        try {
            core::writePng(options_.screenshotPath, captureFramebuffer(width, height));
        } catch (const std::exception& e) {
            std::cerr << "mha-viz: error: " << e.what() << '\n';
            exitCode_ = kExitBadInput;
        }
        glfwSetWindowShouldClose(window, GLFW_TRUE);
    }
}

void Session::exportWholeWindow(int width, int height) {
    try {
        const std::string path =
            exportWindow(exportDir_, captureFramebuffer(width, height), *trace_);
        const std::string json = std::filesystem::path(path).replace_extension(".json").string();
        offerFiles({path, json});
        const std::string name = std::filesystem::path(path).filename().string();
        showNotice((kFilesAreDownloads ? "Downloaded " + name : "Saved " + path) + " (+ .json)");
    } catch (const std::exception& e) {
        showNotice(std::string("Export failed: ") + e.what());
    }
    std::cerr << "mha-viz: " << window_.notice.text << '\n';
}

void Session::afterSwap(GLFWwindow* window) {
    if (!options_.stateFile.empty()) // after the swap: what the line says is on screen
        writeStateFile(options_.stateFile,
                       stateLine({frames_.index + 1, inputPending(),
                                  runner_.computing() || model_.runner.computing(), syncMarks(),
                                  status().sceneError, gl_.maps.valueWeighted},
                                 scene_, *trace_, explorer_, window_.notice, train_));
    if (options_.benchFrames > 0) {
        glFinish(); // count the GPU's (llvmpipe's) work too
        frames_.bench.lap(FramePhase::Swap);
        frames_.bench.endFrame(std::chrono::duration<double, std::milli>(
                                   std::chrono::steady_clock::now() - frames_.start)
                                   .count());
        if (int(frames_.bench.millis.size()) >= options_.benchFrames) {
            std::cout << frames_.bench.summary() << '\n'
                      << frames_.bench.phaseSummary(50) << '\n'
                      << frames_.bench.phaseSummary(95) << std::endl;
            glfwSetWindowShouldClose(window, GLFW_TRUE);
        }
    }
    if (typingBench_ &&
        typingBench_->frameShown(model_.runner, model_.mapsOf.generation, std::cout))
        glfwSetWindowShouldClose(window, GLFW_TRUE);
    if (train_.run) train_.run->endFrame(); // the frame is drawn: updates may run
    ++frames_.index;
}

} // namespace app
