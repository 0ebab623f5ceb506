// Window-wide keys. Ctrl+E works even while typing; arrows only outside text fields.
// Presses are queued by a GLFW key callback, so a press and release that land in the
// same poll (fast typists, xdotool) are never lost (ImGui 1.86 only sees key state).
#pragma once

#include "scene.h"
#include "view_state.h"

struct GLFWwindow;

namespace app {

struct ShortcutActions {
    bool exportWindow = false;
    bool toggleFullscreen = false; // F11
    bool saveScene = false;        // Ctrl+S
};

// Install before ImGui's GLFW backend: it chains to this callback.
void installShortcutKeys(GLFWwindow* window);

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
