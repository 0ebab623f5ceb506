#include "session/session.h"

#include "explorer/panels.h"
#include "explorer/view_range.h"
#include "explorer/window_layout.h"
#include "io/atomic_file.h"
#include "io/figure_export.h"
#include "io/scene_json.h"
#include "platform/input_queue.h"
#include "platform/user_paths.h"
#include "platform/window.h"
#include "platform/window_capture.h"
#include "session/shortcuts.h"
#include "session/state_file.h"
#include "widgets/heatmap_widget.h"

#include <glad/gl.h>

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>
#include <iostream>
#include <utility>

namespace app {

namespace {

void drawNotice(const ViewState& view, double now) {
    if (view.ui.notice.empty() || now > view.ui.noticeUntil) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y - 16.0f), ImGuiCond_Always,
                            ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.92f);
    ImGui::Begin("##notice", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav);
    ImGui::TextUnformatted(view.ui.notice.c_str());
    ImGui::End();
}

// --bench-frames: a different first word each frame, so every frame recomputes.
void varyForBenchmark(core::Scene& scene, int frame) {
    static const std::string base = scene.sentences.front();
    scene.sentences.front() = (frame % 2 ? "One " : "Two ") + base;
}

} // namespace

Session::Session(const CliOptions& options, float uiScale)
    : options_(options), uiScale_(uiScale),
      scene_(options.model ? core::Scene{} : options.scene), // with a model: the explorer to
                                                             // come back to
      exportDir_(options.exportDir.empty() ? defaultExportDir() : options.exportDir) {
    if (!options.weightsGiven || options.model)
        scene_.weights = core::WeightsKind::Designed; // the demo shows heads that specialise
    view_.saved = options.view;                       // --view, or a scene file's view settings
    train_.settings = defaultTrainSettings();
    view_.ui.pendingTrain = options.train; // --scene with a "train" object
}

bool Session::init() {
    try {
        gl_.init();
        trainGl_.init();
    } catch (const std::exception& e) {
        std::cerr << "mha-viz: error: " << e.what() << '\n';
        return false;
    }
    runner_.update(scene_, trace_, ImGui::GetTime(), false); // the maps before frame 1
    if (options_.model) {                                    // --model: checked by parseCli
        showModel(options_.model, options_.scene.sentences);
        view_.model.layer = options_.modelLayer - 1; // --layer, from 1
        recompute(false);
    }
    uploadHeadMaps(*trace_, view_, gl_);
    return true;
}

// Training alone needs no more than 60 frames a second to draw its curves; the time a frame
// leaves over goes to the training worker instead of to drawing the same maps again.
constexpr double kTrainFrameSeconds = 1.0 / 60.0;

void Session::pollEvents() {
    const double now = ImGui::GetTime();
    const bool animating = view_.ui.animStart >= 0 && now - view_.ui.animStart < 0.7;
    const bool exporting = view_.exportPanel.job || view_.exportPanel.captureCountdown > 0;
    const bool interacting = framesToSettle_ > 0 || ImGui::IsAnyItemActive() || animating ||
                             exporting || runner_.computing() || inputPending();
    const bool training = trainMoving(train_);
    const bool busy =
        options_.benchFrames > 0 || !options_.screenshotPath.empty() || interacting || training;
    const double sinceLast =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - frameStart_).count();
    if (busy && training && !interacting && sinceLast < kTrainFrameSeconds) {
        glfwWaitEventsTimeout(kTrainFrameSeconds - sinceLast); // input still wakes it at once
    } else if (busy) {
        glfwPollEvents();
        framesToSettle_ = std::max(0, framesToSettle_ - 1);
    } else {
        glfwWaitEventsTimeout(now < view_.ui.noticeUntil ? std::min(0.5, view_.ui.noticeUntil - now)
                                                         : 0.5);
        framesToSettle_ = 2; // ImGui needs a frame or two to settle after input
    }
    frameStart_ = std::chrono::steady_clock::now(); // --bench-frames times the work, not the wait
    benchStats_.startFrame(frameStart_);
    if (train_.run) train_.run->beginFrame();
}

void Session::followAppearance(GLFWwindow* window) {
    followScaleAndAppearance(window, options_.uiScale > 0, appearanceOf(view_), uiScale_,
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
    view_.selection.nextHover = {};
    view_.selection.nextHoverHead = -1;
    static const HeadMaps none; // Train mode: the explorer's plain keys have no heads to act on
    const ShortcutActions actions = handleShortcuts(scene_, view_, train_.active ? none : gl_.maps);
    if (actions.toggleFullscreen) toggleFullscreen(window);
    if (!windowTitle_.empty()) glfwSetWindowTitle(window, std::exchange(windowTitle_, "").c_str());
    if (actions.toggleTrain) train_.active = !train_.active;
    if (std::exchange(view_.ui.openTrain, false)) train_.active = true;
    if (const std::string dropped = takeDroppedPath(); !dropped.empty())
        openSceneFile(scene_, view_, dropped);
    if (actions.saveScene) saveScene();
    exportWindowRequested_ = actions.exportWindow;
    followTrainScene();
    if (train_.active) {
        drawTrainView(train_, view_, trainGl_, exportDir_, uiScale_, actions.plainKeys);
    } else {
        // A run training behind the explorer still hands over its rows and snapshots, so the
        // timeline's bound holds (twice a second at least: the idle loop wakes that often).
        if (train_.run) train_.run->frame();
        drawExplorer();
    }
    followOpenInExplorer();
    drawKeyLegend(view_);
    drawScenesPanel(scene_, view_);
    drawExportPanel(trace_, view_, exportDir_);
    drawNotice(view_, ImGui::GetTime());
    view_.selection.hover = view_.selection.nextHover;
    view_.selection.hoverHead = view_.selection.nextHoverHead;
    benchStats_.lap(FramePhase::Panels);
}

void Session::followTrainScene() {
    if (!view_.ui.pendingTrain) return;
    train_.settings = *view_.ui.pendingTrain;
    view_.ui.pendingTrain.reset();
    train_.active = true;
    if (resetRun(train_))
        train_.autoStart = true;
    else
        showNotice(view_, "Not trained: " + train_.settingsError, ImGui::GetTime(), 6.0);
}

// --screenshot of a training scene waits for the run's last step (or its failure).
bool Session::trainSettled() const {
    if (!options_.train) return true;
    const TrainState state = train_.run ? train_.run->state() : TrainState::Failed;
    return state == TrainState::Done || state == TrainState::Failed;
}

void Session::drawExplorer() {
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    const WindowLayout layout = layoutFor(display.x, display.y, uiScale_ * view_.ui.zoom);
    drawSentencesPanel(layout.sentences, scene_, *trace_, status(), view_);
    drawControlsPanel(layout.controls, scene_, *trace_, gl_.maps, view_);
    const int headsBefore = trace_->attention.heads;
    const bool benchmarking = options_.benchFrames > 0; // times the run in the edit's frame
    benchStats_.lap(FramePhase::Panels);
    // After the panels: the sentence field, while it has the keyboard, puts its own text back.
    if (benchmarking) varyForBenchmark(scene_, frame_);
    const bool recomputed = recompute(!benchmarking);
    benchStats_.lap(FramePhase::Engine);
    if (recomputed ||
        !gl_.maps.showSentence(view_.selection.batchIndex)) { // or another sentence is shown
        uploadHeadMaps(*trace_, view_, gl_);
        benchStats_.lap(FramePhase::Upload);
        if (trace_->attention.heads != headsBefore && headsBefore > 0)
            noteHeadCountChange(view_, headsBefore);
    }
    keepViewInRange(*trace_, view_); // before any panel indexes heads with it
    drawHeadsPanel(layout.heads, *trace_, status(), view_, gl_);
    drawViewsPanel(layout.head, scene_, *trace_, view_, gl_);
}

void Session::saveScene() {
    if (model_.isOpen()) { // a scene cannot hold a trained model's weights
        showNotice(view_,
                   "A trained model is not a scene: Ctrl+E saves the window and this "
                   "layer's trace (mha-viz --model DIR --json: every layer)",
                   ImGui::GetTime());
        return;
    }
    std::error_code ec;
    std::filesystem::create_directories(exportDir_, ec);
    const std::string path = core::freePath(exportDir_, "mha-viz-scene", ".json");
    try {
        core::saveSceneFile(path, scene_, &view_.saved);
        showNotice(view_, "Saved " + path, ImGui::GetTime());
    } catch (const std::exception& e) {
        showNotice(view_, std::string("Scene not saved: ") + e.what(), ImGui::GetTime());
    }
    std::cerr << "mha-viz: " << view_.ui.notice << '\n';
}

void Session::afterRender(GLFWwindow* window) {
    if (options_.benchFrames > 0) {
        glFinish(); // llvmpipe draws when the frame is finished: count it here, not in the swap
        benchStats_.lap(FramePhase::Draw);
    }
    int width = 0, height = 0;
    glfwGetFramebufferSize(window, &width, &height);
    if (ExportPanel& panel = view_.exportPanel; // drawn without the panel
        panel.captureCountdown > 0 && --panel.captureCountdown == 0) {
        try {
            finishWindowCapture(view_,
                                exportWindow(panel.folder, captureFramebuffer(width, height),
                                             *trace_, panel.formats.json),
                                "");
        } catch (const std::exception& e) {
            finishWindowCapture(view_, "", e.what());
        }
    }
    if (exportWindowRequested_) exportWholeWindow(width, height);
    if (!options_.screenshotPath.empty() && frame_ >= 5 && trainSettled()) { // fonts, layout, maps
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
        showNotice(view_, "Saved " + path + " (+ .json)", ImGui::GetTime());
    } catch (const std::exception& e) {
        showNotice(view_, std::string("Export failed: ") + e.what(), ImGui::GetTime());
    }
    std::cerr << "mha-viz: " << view_.ui.notice << '\n';
}

void Session::afterSwap(GLFWwindow* window) {
    if (!options_.stateFile.empty()) // after the swap: what the line says is on screen
        writeStateFile(options_.stateFile,
                       stateLine({frame_ + 1, inputPending(), runner_.computing(), syncMarks(),
                                  status().sceneError},
                                 scene_, *trace_, view_, train_));
    if (options_.benchFrames > 0) {
        glFinish(); // count the GPU's (llvmpipe's) work too
        benchStats_.lap(FramePhase::Swap);
        benchStats_.endFrame(std::chrono::duration<double, std::milli>(
                                 std::chrono::steady_clock::now() - frameStart_)
                                 .count());
        if (int(benchStats_.millis.size()) >= options_.benchFrames) {
            std::cout << benchStats_.summary() << '\n'
                      << benchStats_.phaseSummary(50) << '\n'
                      << benchStats_.phaseSummary(95) << std::endl;
            glfwSetWindowShouldClose(window, GLFW_TRUE);
        }
    }
    if (train_.run) train_.run->endFrame(); // the frame is drawn: updates may run
    ++frame_;
}

} // namespace app
