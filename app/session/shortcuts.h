// Window-wide keys. Ctrl+E works even while typing; arrows only outside text fields.
// Presses come from the input queue (input_queue.h) in the order they were typed, so a
// shortcut never overtakes the letters typed before it, and none is lost.
#pragma once

#include "engine/scene.h"
#include "explorer/view_state.h"
#include "widgets/head_maps.h"

#include <vector>

struct GLFWwindow;

namespace app {

// One key press (or repeat): a GLFW key and its GLFW_MOD_* bits.
struct KeyPress {
    int key = 0, mods = 0;
    bool repeat = false; // the key held down: GLFW's autorepeat
};

// What a key press does; each press does at most one thing.
enum class ShortcutAction {
    None,
    ExportWindow,      // Ctrl+E
    ToggleExportPanel, // Ctrl+Shift+E
    SaveScene,         // Ctrl+S
    ZoomIn,            // Ctrl+plus
    ZoomOut,           // Ctrl+minus
    ZoomReset,         // Ctrl+0
    OpenScenes,        // Ctrl+O
    ToggleTrain,       // Ctrl+T: the Train view
    Unpin,             // Esc
    ToggleFullscreen,  // F11
    ToggleKeys,        // F1
    NextHead,          // Right
    PreviousHead,      // Left
    PinnedRowDown,     // Down
    PinnedRowUp,       // Up
    NextStep,          // N
    PreviousStep,      // P
    TogglePin,         // Space
    NextTab,           // V
    PreviousTab,       // Shift+V
    NextTheme,         // T
    ToggleMask,        // M
    FewerHeads,        // [
    MoreHeads,         // ]
    NextLayer,         // L, a trained model's layers (--model)
    PreviousLayer,     // Shift+L
};

// The action of `press`. `typing`: a text field has the keyboard (then only the Ctrl keys, Esc,
// F1 and F11 act); `mapsShown`: there are heads on screen for the plain keys to work on.
ShortcutAction shortcutFor(const KeyPress& press, bool typing, bool mapsShown);

struct ShortcutActions {
    bool exportWindow = false;
    bool toggleFullscreen = false; // F11
    bool saveScene = false;        // Ctrl+S
    bool toggleTrain = false;      // Ctrl+T
    // This frame's presses without Ctrl, Alt or Super, outside text fields, in the order typed:
    // the Train view's keys. Taken from the queue like the rest, so none is lost (ImGui's own
    // key state drops a press when the window's focus flickers in the frame it arrives).
    std::vector<KeyPress> plainKeys;
};

// A key press (or repeat), queued for handleShortcuts; called by the input queue.
void addShortcutPress(int key, int mods, bool repeat);

// Scene files dropped onto the window (takeDroppedPath).
void installFileDrop(GLFWwindow* window);

// Call between the platform backend's NewFrame and ImGui::NewFrame: Escape is taken
// away from a focused text field here, so it unpins instead of reverting the typing.
void interceptEscape();

// Does `action` to the scene and the view; what only the window can do (export, fullscreen,
// saving) is set in `actions` for the frame loop. The plain keys' actions need heads on screen
// (`shown`), as shortcutFor gives them.
void applyShortcut(ShortcutAction action, core::Scene& scene, ViewState& view,
                   const HeadMaps& shown, ShortcutActions& actions);

// Call after ImGui::NewFrame: applies the queued presses to the view.
ShortcutActions handleShortcuts(core::Scene& scene, ViewState& view, const HeadMaps& shown);

// A scene file dropped onto the window, once (empty when none).
std::string takeDroppedPath();

// F1: the on-screen list of keys (drawn when view.ui.showKeys is set).
void drawKeyLegend(ViewState& view);

} // namespace app
