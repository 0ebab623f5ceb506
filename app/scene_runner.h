// Runs the scene when it changed; on bad input keeps the last good trace on screen.
#pragma once

#include "trace.h"
#include "view_state.h"

#include <memory>

namespace app {

class SceneRunner {
  public:
    // True when `trace` was replaced (the maps must be uploaded again). Traces are shared and
    // never changed once made: an export on a worker thread keeps the one it started with.
    bool update(const core::Scene& scene, std::shared_ptr<const core::Trace>& trace,
                ViewState& view);

  private:
    core::Scene lastAttempt_;
    bool attempted_ = false;
};

} // namespace app
