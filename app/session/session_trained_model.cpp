// The Session's trained-model side (--model, "Open in explorer"): opening and closing a model,
// and each frame's recompute of the layer shown. Kept apart from session.cpp, which only calls
// recompute() and status().
#include "session/session.h"

#include <imgui.h>

#include <algorithm>
#include <iostream>
#include <utility>

namespace app {

// The notice (and stderr line) of a model that could not be opened; what was shown stays.
bool Session::modelNotOpened(const std::exception& e) {
    showNotice(std::string("Model not opened: ") + e.what(), 6.0);
    std::cerr << "mha-viz: " << window_.notice.text << '\n';
    return false;
}

bool Session::openModel(const std::string& runDir, int step) {
    try {
        auto run = std::make_shared<const core::TrainedRun>(core::loadTrainedRun(runDir, step));
        // The same vocabulary keeps what was typed; another gets the task's own sentence.
        const bool sameVocab = modelRunner_.isOpen() && !modelRunner_.isReal() &&
                               modelRunner_.run().model.vocab == run->model.vocab;
        std::vector<std::string> sentences =
            sameVocab ? scene_.sentences
                      : std::vector<std::string>{core::train::defaultModelSentence(run->task)};
        showModel(std::move(run), std::move(sentences));
        showNotice("Opened " + explorer_.model.title, 3.0);
        return true;
    } catch (const std::exception& e) {
        return modelNotOpened(e);
    }
}

bool Session::openModelPath(const std::string& dirOrName) {
    try {
        const core::models::ModelLocation where = core::models::locateModel(dirOrName);
        if (where.kind == core::models::ModelFolderKind::TrainRun) return openModel(where.dir);
        std::shared_ptr<const core::models::RealModel> model =
            core::models::openRealModel(dirOrName);
        const bool sameFamily = modelRunner_.isReal();
        showRealModel(std::move(model),
                      sameFamily ? scene_.sentences
                                 : std::vector<std::string>{core::models::kDefaultRealSentence});
        showNotice("Opened " + explorer_.model.title, 3.0);
        return true;
    } catch (const std::exception& e) {
        return modelNotOpened(e);
    }
}

void Session::rememberExplorer() {
    if (modelRunner_.isOpen()) return; // already remembered when the first model opened
    explorerScene_ = scene_;
    explorerTrace_ = trace_;
}

void Session::showRealModel(std::shared_ptr<const core::models::RealModel> model,
                            std::vector<std::string> sentences) {
    rememberExplorer();
    windowTitle_ = realModelWindowTitle(*model);
    if (sentences.size() != 1) sentences.resize(1); // one sentence: the model's batch is its own
    modelRunner_.openReal(std::move(model));
    scene_ = modelRunner_.scene(sentences);
    explorer_.model.layer = 0;
    explorer_.model.ablated.clear(); // another model's heads
    explorer_.model.lensPosition = -1;
    describeTrainedModel(modelRunner_, explorer_.model);
    explorer_.selection.pinnedQuery = -1;
    explorer_.selection.batchIndex = 0;
    shownLayer_ = -1;
}

void Session::showModel(std::shared_ptr<const core::TrainedRun> run,
                        std::vector<std::string> sentences) {
    const bool sameKind = modelRunner_.isOpen() && !modelRunner_.isReal();
    rememberExplorer();
    windowTitle_ = trainedModelWindowTitle(*run);
    const int layer = sameKind ? explorer_.model.layer : 0; // another step: that layer
    modelRunner_.open(std::move(run));
    scene_ = modelRunner_.scene(sentences);
    explorer_.model.layer = layer;
    describeTrainedModel(modelRunner_,
                         explorer_.model); // the title and controls before the first trace
    explorer_.selection.pinnedQuery = -1;
    explorer_.selection.batchIndex = 0;
    shownLayer_ = -1; // the next recompute shows the layer
}

void Session::closeModel() {
    leaveModel(false);
}

void Session::leaveModel(bool keepScene) {
    if (!modelRunner_.isOpen()) return;
    modelRunner_.close();
    explorer_.model = {};
    if (!keepScene) scene_ = explorerScene_; // else a scene opened over the model stays
    trace_ = explorerTrace_;                 // the runner recomputes when scene_ differs from it
    mapsStale_ = true;
    windowTitle_ = "mha-viz \xE2\x80\x94 multi-head attention";
}

bool Session::recompute(bool allowWorker) {
    const bool stale = std::exchange(mapsStale_, false);
    if (!modelRunner_.isOpen())
        return runner_.update(scene_, trace_, ImGui::GetTime(), allowWorker) || stale;
    return followModel() || stale;
}

bool Session::followModel() {
    // The controls are read-only, but keys (M, [ and ]) and scene edits could still move them.
    const core::Scene fixed = modelRunner_.scene(scene_.sentences);
    if (!(scene_ == fixed)) {
        scene_ = fixed;
        showNotice("A model fixes d_model, heads, mask and scale (Close model to change them)");
    }
    if (modelRunner_.update(scene_.sentences, ImGui::GetTime(), explorer_.model.ablated)) {
        describeTrainedModel(modelRunner_, explorer_.model);
        shownLayer_ = -1;
    }
    if (!modelRunner_.hasTrace()) return false;
    explorer_.model.layer = std::clamp(explorer_.model.layer, 0, explorer_.model.layers - 1);
    if (explorer_.model.layer == shownLayer_) return false;
    shownLayer_ = explorer_.model.layer;
    trace_ = modelRunner_.trace().layers[std::size_t(shownLayer_)];
    return true;
}

} // namespace app
