#include "scene_runner.h"

#include <algorithm>
#include <new>
#include <stdexcept>

namespace app {

bool SceneRunner::update(const core::Scene& scene, std::shared_ptr<const core::Trace>& trace,
                         ViewState& view) {
    if (attempted_ && scene == lastAttempt_) return false;
    attempted_ = true;
    lastAttempt_ = scene;
    view.sceneError.clear();
    view.sceneHint.clear();
    if (std::any_of(scene.sentences.begin(), scene.sentences.end(), core::isBlank) ||
        std::any_of(scene.sources.begin(), scene.sources.end(), core::isBlank)) {
        view.sceneHint = "Type a sentence to see its attention maps.";
        return false;
    }
    try {
        trace = std::make_shared<const core::Trace>(core::run(scene, trace.get()));
    } catch (const std::bad_alloc&) {
        view.sceneError = "not enough memory for this scene; use fewer sentences, tokens or heads";
        return false;
    } catch (const std::exception& e) {
        view.sceneError = e.what();
        return false;
    }
    view.batchIndex = std::min(view.batchIndex, trace->batch() - 1);
    if (view.pinnedQuery >= trace->queryLen()) view.pinnedQuery = -1;
    return true;
}

} // namespace app
