// The window's view settings as a scene file holds them (core::SceneView), both ways: a
// loaded scene shows as it was saved, and Ctrl+S saves what is on screen.
#pragma once

#include "io/scene_json.h"
#include "view_state.h"

namespace app {

core::SceneView sceneViewOf(const ViewState& view);
void applySceneView(const core::SceneView& settings, ViewState& view);

} // namespace app
