// Runs the scene when it changed; on bad input keeps the last good trace on screen.
#pragma once

#include "trace.h"
#include "view_state.h"

namespace app {

class SceneRunner {
  public:
    // True when `trace` was replaced (the maps must be uploaded again).
    bool update(const core::Scene& scene, core::Trace& trace, ViewState& view);

  private:
    core::Scene lastAttempt_;
    bool attempted_ = false;
};

} // namespace app
