// What the panels ask of the Session (ExplorerRequest, the Train view's "Open in explorer"),
// done in the frame they ask: open a scene, switch to the Train view, open the export panel,
// load another checkpoint or close the trained model.
#include "session/session.h"

#include "explorer/panels.h"
#include "io/scene_json.h"
#include "io/train_scene.h"

#include <imgui.h>

#include <optional>

namespace app {

void Session::applyRequest(const ExplorerRequest& request) {
    if (!request.openDemo.empty() || !request.openFile.empty())
        openScene(request.openDemo, request.openFile);
    if (request.openScenePicker) explorer_.scenes.open = true;
    if (request.openModelDialog) explorer_.openModel.open = true;
    if (!request.openModel.empty()) openModelPath(request.openModel);
    if (request.chooseModelB && model_.runner.isReal()) {
        explorer_.openModel.open = true;
        explorer_.openModel.choosingB = explorer_.comparison.nameA;
    }
    if (!request.compareWith.empty()) openComparison(request.compareWith);
    if (request.stopComparing) model_.comparison.close();
    if (request.exportComparison) exportComparison();
    if (request.openTrain) train_.active = true;
    if (request.openExport) openExportPanel(explorer_.exportPanel, *request.openExport);
    if (request.switchModelHead || request.allModelHeadsOn) switchModelHeads(request);
    if (request.generate && model_.runner.isSeq2Seq()) {
        explorer_.model.targetText.clear(); // the decoder writes: no target is read
        explorer_.model.generateNow = true;
    }
    if (request.showWritten >= 0 && model_.runner.isSeq2Seq() &&
        model_.runner.showWritten(request.showWritten))
        mapsStale_ = true, model_.shownLayer = -1;
    if (request.exportAlignment) exportAlignment();
    if (request.closeModel)
        closeModel();
    else if (request.modelStep >= 0 && model_.runner.isTrained() &&
             request.modelStep != model_.runner.run().step)
        openModel(model_.runner.run().dir, request.modelStep);
}

void Session::switchModelHeads(const ExplorerRequest& request) {
    // An encoder-decoder's switches belong to the stack shown (encoder, decoder, cross).
    core::train::HeadLists& ablated =
        model_.runner.isSeq2Seq()
            ? explorer_.model.stackAblated[std::size_t(explorer_.model.savedStack)]
            : explorer_.model.ablated;
    if (request.allModelHeadsOn)
        for (core::train::HeadLists& stack : explorer_.model.stackAblated)
            for (std::vector<int>& heads : stack) heads.clear(); // every stack's, if any
    if (request.allModelHeadsOn)
        for (std::vector<int>& heads : ablated) heads.clear();
    if (!request.switchModelHead) return;
    const auto [layer, head] = *request.switchModelHead;
    if (layer < 0 || layer >= explorer_.model.layers) return;
    ablated.resize(std::size_t(explorer_.model.layers));
    std::vector<int>& heads = ablated[std::size_t(layer)];
    core::switchHead(heads, head, !core::containsHead(heads, head));
    std::sort(heads.begin(), heads.end());
}

bool Session::openScene(const std::string& demo, const std::string& path) {
    core::SceneView settings;
    core::Scene next;
    std::optional<core::train::TrainSettings> train;
    try {
        if (!demo.empty()) {
            next = core::demoScene(demo, &settings); // embedded: always valid
            train = core::sceneTrainSettings(core::sceneAsset("scenes/" + demo + ".json"));
        } else {
            next = core::loadSceneFile(path, &settings);
            train = core::sceneFileTrainSettings(path); // a bad "train": not opened
        }
    } catch (const std::exception& e) {
        showNotice(e.what(), 5.0); // the current scene stays
        return false;
    }
    leaveModel(true); // a trained model on screen gives way to the scene
    replaced_ = ReplacedScene{scene_, explorer_.saved}; // what the user made: Ctrl+Z
    showScene(next, settings);
    showNotice("Opened " + (demo.empty() ? path : "demo scene " + demo) +
                   " · Ctrl+Z brings back the scene it replaced",
               4.0);
    if (train) startTrainScene(*train);
    return true;
}

void Session::undoScene() {
    if (model_.runner.isReal() && replacedText_) { // the sentences a model switch replaced
        std::swap(scene_.sentences, *replacedText_);
        showNotice("Back to the sentence before the switch \xC2\xB7 Ctrl+Z again: the model's "
                   "example",
                   4.0);
        return;
    }
    if (!replaced_) {
        showNotice("Nothing to undo: Ctrl+Z brings back a scene a demo or a file replaced, or a "
                   "sentence a model switch replaced",
                   3.0);
        return;
    }
    leaveModel(true);
    ReplacedScene back = std::move(*replaced_);
    replaced_ = ReplacedScene{scene_, explorer_.saved};
    showScene(back.scene, back.saved);
    showNotice("Back to the scene before · Ctrl+Z again returns to the one you left", 4.0);
}

void Session::showScene(const core::Scene& scene, const core::SceneView& settings) {
    scene_ = scene;
    explorer_.selection.pinnedQuery = -1;
    explorer_.selection.batchIndex = 0;
    explorer_.saved = settings; // tab, colours, theme, heads shown: the tab bar follows
    explorer_.scenes.open = false;
}

// The Train view's "Open in explorer": the run folder and step it asked for.
void Session::followOpenInExplorer(const std::optional<OpenInExplorer>& open) {
    if (open && openModel(open->dir, open->step)) train_.active = false; // the explorer shows it
}

} // namespace app
