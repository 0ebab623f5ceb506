// The Session's trained-model side (--model, "Open in explorer"): opening and closing a model,
// and each frame's recompute of the layer shown. Kept apart from session.cpp, which only calls
// recompute() and status().
#include "session/session.h"

#include <imgui.h>

#include <algorithm>
#include <iostream>
#include <utility>

namespace app {

bool Session::openModel(const std::string& runDir, int step) {
    try {
        auto run = std::make_shared<const core::TrainedRun>(core::loadTrainedRun(runDir, step));
        // The same vocabulary keeps what was typed; another gets the task's own sentence.
        const bool sameVocab = model_.isOpen() && model_.run().model.vocab == run->model.vocab;
        std::vector<std::string> sentences =
            sameVocab ? scene_.sentences
                      : std::vector<std::string>{core::train::defaultModelSentence(run->task)};
        showModel(std::move(run), std::move(sentences));
        showNotice(view_, "Opened " + view_.model.title, ImGui::GetTime(), 3.0);
        return true;
    } catch (const std::exception& e) {
        showNotice(view_, std::string("Model not opened: ") + e.what(), ImGui::GetTime(), 6.0);
        std::cerr << "mha-viz: " << view_.ui.notice << '\n';
        return false;
    }
}

void Session::showModel(std::shared_ptr<const core::TrainedRun> run,
                        std::vector<std::string> sentences) {
    if (!model_.isOpen()) { // remember the explorer to come back to
        explorerScene_ = scene_;
        explorerTrace_ = trace_;
    }
    windowTitle_ = modelWindowTitle(*run);
    const int layer = model_.isOpen() ? view_.model.layer : 0; // another step: the same layer
    model_.open(std::move(run));
    scene_ = model_.scene(sentences);
    view_.model.layer = layer;
    describeModel(model_, view_.model); // the title and controls before the first trace
    view_.selection.pinnedQuery = -1;
    view_.selection.batchIndex = 0;
    shownLayer_ = -1; // the next recompute shows the layer
}

void Session::closeModel() {
    leaveModel(false);
}

void Session::leaveModel(bool keepScene) {
    if (!model_.isOpen()) return;
    model_.close();
    view_.model = {};
    if (!keepScene) scene_ = explorerScene_; // else a scene opened over the model stays
    trace_ = explorerTrace_;                 // the runner recomputes when scene_ differs from it
    mapsStale_ = true;
    windowTitle_ = "mha-viz \xE2\x80\x94 multi-head attention";
}

void Session::followModelRequests() {
    if (std::exchange(view_.ui.sceneOpened, false)) leaveModel(true);
    if (!model_.isOpen()) return;
    if (std::exchange(view_.model.closeRequested, false)) {
        closeModel();
    } else if (const int step = std::exchange(view_.model.requestedStep, -1);
               step >= 0 && step != model_.run().step) {
        openModel(model_.run().dir, step);
    }
}

// The Train view's "Open in explorer": the run folder and step it asked for, once.
void Session::followOpenInExplorer() {
    if (train_.openModelDir.empty()) return;
    const std::string dir = std::exchange(train_.openModelDir, std::string());
    const int step = std::exchange(train_.openModelStep, core::kLastCheckpoint);
    if (openModel(dir, step)) train_.active = false; // the explorer shows it
}

bool Session::recompute(bool allowWorker) {
    followModelRequests();
    const bool stale = std::exchange(mapsStale_, false);
    if (!model_.isOpen())
        return runner_.update(scene_, trace_, ImGui::GetTime(), allowWorker) || stale;
    return followModel() || stale;
}

bool Session::followModel() {
    // The controls are read-only, but keys (M, [ and ]) and scene edits could still move them.
    const core::Scene fixed = model_.scene(scene_.sentences);
    if (!(scene_ == fixed)) {
        scene_ = fixed;
        showNotice(view_,
                   "A trained model fixes d_model, heads, mask and scale (Close model to "
                   "change them)",
                   ImGui::GetTime());
    }
    if (model_.update(scene_.sentences)) {
        describeModel(model_, view_.model);
        shownLayer_ = -1;
    }
    if (!model_.hasTrace()) return false;
    view_.model.layer = std::clamp(view_.model.layer, 0, view_.model.layers - 1);
    if (view_.model.layer == shownLayer_) return false;
    shownLayer_ = view_.model.layer;
    trace_ = model_.trace().layers[std::size_t(shownLayer_)];
    return true;
}

} // namespace app
