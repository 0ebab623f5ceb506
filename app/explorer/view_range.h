// Keeps the explorer's indices (heads, sentence, pinned row) inside the trace on screen.
#pragma once

#include "engine/trace.h"
#include "io/scene_json.h"
#include "widgets/selection.h"

namespace app {

// Brings the selected and compared heads, the shown sentence and the pinned row back inside
// the trace on screen. Keys, scene files and a smaller H can leave them outside; every panel
// after this call may index with them. Call every frame, after the trace may have changed.
void keepViewInRange(const core::Trace& trace, core::SceneView& saved, Selection& selection);

} // namespace app
