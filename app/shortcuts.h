// Window-wide keys. Ctrl+E works even while typing; arrows only outside text fields.
// Presses come from the input queue (input_queue.h) in the order they were typed, so a
// shortcut never overtakes the letters typed before it, and none is lost.
#pragma once

#include "engine/scene.h"
#include "view_state.h"

struct GLFWwindow;

namespace app {

struct ShortcutActions {
    bool exportWindow = false;
    bool toggleFullscreen = false; // F11
    bool saveScene = false;        // Ctrl+S
};

// A key press (or repeat), queued for handleShortcuts; called by the input queue.
void addShortcutPress(int key, int mods);

// Scene files dropped onto the window (takeDroppedPath).
void installFileDrop(GLFWwindow* window);

// Call between the platform backend's NewFrame and ImGui::NewFrame: Escape is taken
// away from a focused text field here, so it unpins instead of reverting the typing.
void interceptEscape();

// Call after ImGui::NewFrame: applies the queued presses to the view.
ShortcutActions handleShortcuts(core::Scene& scene, ViewState& view);

// A scene file dropped onto the window, once (empty when none).
std::string takeDroppedPath();

// F1: the on-screen list of keys (drawn when view.showKeys is set).
void drawKeyLegend(ViewState& view);

} // namespace app
