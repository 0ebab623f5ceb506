#include "explorer/scene_runner.h"
#include "platform/background_task.h"

#include "engine/cost_model.h"
#include "text/tokenizer.h"

#include <algorithm>
#include <chrono>
#include <new>
#include <stdexcept>

namespace app {

namespace {

// Above this a run goes to the worker: ~0.1 ms of work, as long as handing it over takes. In a
// frame the engine competes with the GL driver's threads (llvmpipe draws on every core), so a
// 1 ms forward took 11 ms there at p95; on the worker the frame never waits for it.
constexpr double kInlineFlops = 1e7;

} // namespace

double estimatedFlops(const core::Scene& s) {
    return core::estimatedForwardFlops(s); // the Cost tab's model, on a bound of the sizes
}

SceneRunner::Outcome SceneRunner::runScene(const core::Scene& scene,
                                           std::shared_ptr<const core::Trace> previous) {
    try {
        return {std::make_shared<const core::Trace>(core::run(scene, previous.get())), {}};
    } catch (const std::bad_alloc&) {
        return {nullptr, "not enough memory for this scene; use fewer sentences, tokens or heads"};
    } catch (const std::exception& e) {
        return {nullptr, e.what()};
    }
}

bool SceneRunner::accept(Outcome outcome, std::shared_ptr<const core::Trace>& trace) {
    if (!outcome.trace) {
        status_.sceneError = outcome.error; // the previous trace stays on screen
        return false;
    }
    trace = std::move(outcome.trace); // the caller uploads its maps, which keeps the view in range
    return true;
}

bool SceneRunner::update(const core::Scene& scene, std::shared_ptr<const core::Trace>& trace,
                         double now, bool allowWorker) {
    bool replaced = false;
    if (worker_.valid()) {
        if (!taskReady(worker_)) {
            if (!(scene == lastAttempt_)) lastAttempt_ = scene, attempted_ = false; // run it next
            return false;
        }
        const bool current = workerScene_ == lastAttempt_ && attempted_;
        Outcome outcome = worker_.get();
        if (current || outcome.trace) replaced = accept(std::move(outcome), trace);
    }
    if (attempted_ && scene == lastAttempt_) return replaced;
    attempted_ = true;
    lastAttempt_ = scene;
    status_.sceneError.clear();
    status_.sceneHint.clear();
    if (std::any_of(scene.sentences.begin(), scene.sentences.end(), core::isBlank) ||
        std::any_of(scene.sources.begin(), scene.sources.end(), core::isBlank)) {
        status_.sceneHint = "Type a sentence to see its attention maps.";
        return replaced;
    }
    if (allowWorker && estimatedFlops(scene) > kInlineFlops) {
        workerScene_ = scene;
        worker_ = startTask([scene, trace] { return runScene(scene, trace); });
        status_.computingSince = now;
        return replaced;
    }
    return accept(runScene(scene, trace), trace) || replaced;
}

SceneRunner::~SceneRunner() {
    if (worker_.valid()) worker_.wait();
}

} // namespace app
