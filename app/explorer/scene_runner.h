// Runs the scene when it changed; on bad input keeps the last good trace on screen. Any scene
// but the tiniest runs on a worker thread: the last trace stays on screen (with a "computing"
// note after a moment) and the frame never waits for the engine.
#pragma once

#include "engine/trace.h"

#include <future>
#include <memory>
#include <string>

namespace app {

// What the window says about the last run: a computation under way, why an edit could not be
// run (the previous maps stay), or a friendly hint (an empty sentence).
struct RunStatus {
    bool computing = false;    // a large scene runs on a worker; the maps shown are the last ones
    double computingSince = 0; // when it started (the `now` given to update)
    std::string sceneError;
    std::string sceneHint;
};

class SceneRunner {
  public:
    // True when `trace` was replaced (the maps must be uploaded again). Traces are shared and
    // never changed once made: an export on a worker thread keeps the one it started with.
    // With `allowWorker` false (start-up, --bench-frames) every run happens here and now.
    // `now` (seconds, ImGui's clock in the window) stamps status().computingSince; it comes in
    // as a value so that the runner needs no window and tests can drive it.
    bool update(const core::Scene& scene, std::shared_ptr<const core::Trace>& trace, double now,
                bool allowWorker);
    // computing is the worker itself (a running future), not a copy kept in step with it.
    RunStatus status() const {
        RunStatus status = status_;
        status.computing = worker_.valid();
        return status;
    }

    bool computing() const { return worker_.valid(); }
    ~SceneRunner(); // waits for a running worker (core::run cannot be interrupted)

  private:
    struct Outcome {
        std::shared_ptr<const core::Trace> trace;
        std::string error;
    };
    static Outcome runScene(const core::Scene& scene, std::shared_ptr<const core::Trace> previous);
    bool accept(Outcome outcome, std::shared_ptr<const core::Trace>& trace);

    core::Scene lastAttempt_;
    bool attempted_ = false;
    std::future<Outcome> worker_;
    core::Scene workerScene_; // what the worker is computing
    RunStatus status_;
};

// Rough floating-point work of running `scene` (its largest terms), from its text lengths:
// decides whether a run would hold up a frame.
double estimatedFlops(const core::Scene& scene);

} // namespace app
