// The window's keys, from one table (keyTable): the explorer's and the Train view's presses map
// to actions through it, and the F1 legend is drawn from it, so the legend cannot say what the
// keys do not do. Ctrl+E works even while typing; plain keys only outside text fields.
// Presses come from the input queue (platform/input_queue.h) in the order they were typed, so
// a shortcut never overtakes the letters typed before it, and none is lost.
#pragma once

#include "engine/scene.h"
#include "explorer/explorer_state.h"
#include "session/window_state.h"
#include "widgets/head_maps.h"

#include <span>
#include <string>
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
    // Anywhere, also while typing.
    ExportWindow,      // Ctrl+E
    ToggleExportPanel, // Ctrl+Shift+E
    SaveScene,         // Ctrl+S
    ZoomIn,            // Ctrl+plus
    ZoomOut,           // Ctrl+minus
    ZoomReset,         // Ctrl+0
    OpenScenes,        // Ctrl+O
    OpenModel,         // Ctrl+Shift+O
    CompareModel,      // Ctrl+Shift+B: model B for the A-B tab
    ToggleTrain,       // Ctrl+T: the Train view
    CloseOrUnpin,      // Esc: the open menu or window, else the pinned row
    ToggleFullscreen,  // F11
    ToggleKeys,        // F1
    // The explorer, outside text fields.
    NextHead,            // Right
    PreviousHead,        // Left
    PinnedRowDown,       // Down
    PinnedRowUp,         // Up
    NextStep,            // N
    PreviousStep,        // P
    TogglePin,           // Space
    NextTab,             // V
    PreviousTab,         // Shift+V
    NextTheme,           // T
    ToggleMask,          // M
    FewerHeads,          // [
    MoreHeads,           // ]
    FewerKvHeads,        // Shift+[
    MoreKvHeads,         // Shift+]
    NextLayer,           // L, a trained model's layers (--model)
    PreviousLayer,       // Shift+L
    NextModelView,       // G, a real model's middle panel: layer, every layer, detectors, ...
    PreviousModelView,   // Shift+G
    ToggleValueWeighted, // W, the model view: weights <-> value-weighted
    NextPairView,        // B, an encoder's sentence pair: all, A -> B, B -> A
    Generate,            // Ctrl+G, an encoder-decoder: the decoder writes again
    NextAttentionKind,   // K, an encoder-decoder's (or a file's) encoder / decoder / cross
    UndoScene,           // Ctrl+Z: back to the scene a demo or a file replaced
    // The Train view, outside text fields.
    TrainStartPause,   // Space
    TrainStep,         // S
    TrainUndo,         // Ctrl+Z: back to the run a reset, a demo or a load replaced
    TrainReset,        // R
    TimelineBack,      // Left
    TimelineOn,        // Right
    TimelineStart,     // Home
    TimelineLive,      // End
    TimelinePlay,      // P
    TrainExportCurves, // E
    TrainExportMaps,   // M
};

// Where a key works.
enum class KeyScope {
    Anywhere,  // also while a text field has the keyboard: the Ctrl keys, Esc, F1, F11
    Explorer,  // outside text fields, with heads on screen
    TrainView, // outside text fields, in the Train view
};

inline constexpr int kAnyMods = -1; // Esc, F1, F11: whatever else is held

struct KeyBinding {
    int key = 0;  // GLFW_KEY_*
    int mods = 0; // GLFW_MOD_CONTROL and GLFW_MOD_SHIFT as required, or kAnyMods
    ShortcutAction action = ShortcutAction::None;
    bool repeats = true;  // held down, it acts again on GLFW's autorepeat
    bool inLegend = true; // false for a second key of the same thing (the keypad's plus)
};

// One line of the legend: what it does and the keys that do it.
struct KeyRow {
    KeyScope scope;
    const char* does;
    std::vector<KeyBinding> keys;
};

// Every key of the window, in the legend's order.
std::span<const KeyRow> keyTable();
// "Ctrl+Shift+E", "Left", "[": how the legend names a binding.
std::string keyLabel(const KeyBinding& binding);
// The row's keys as the legend shows them: "V / Shift+V".
std::string keysText(const KeyRow& row);

// The action of `press` in the explorer. `typing`: a text field has the keyboard (then only the
// Anywhere keys act); `mapsShown`: there are heads on screen for the plain keys to work on.
ShortcutAction shortcutFor(const KeyPress& press, bool typing, bool mapsShown);
// The action of a plain press (no Ctrl) in the Train view.
ShortcutAction trainShortcutFor(const KeyPress& press);

struct ShortcutActions {
    bool exportWindow = false;
    bool toggleFullscreen = false; // F11
    bool saveScene = false;        // Ctrl+S
    bool toggleTrain = false;      // Ctrl+T
    bool undoScene = false;        // Ctrl+Z in the explorer
    // This frame's presses without Alt or Super, outside text fields, in the order typed:
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

// What the keys act on: the scene, the explorer's state and the window's.
struct KeyTargets {
    core::Scene& scene;
    ExplorerState& explorer;
    WindowState& window;
};

// Does `action`; what only the frame loop can do (export, fullscreen, saving, the Train view) is
// set in `actions`. The plain keys' actions need heads on screen (`shown`), as shortcutFor gives
// them.
void applyShortcut(ShortcutAction action, const KeyTargets& targets, const HeadMaps& shown,
                   ShortcutActions& actions);

// Call after ImGui::NewFrame: applies the queued presses.
ShortcutActions handleShortcuts(const KeyTargets& targets, const HeadMaps& shown);

// A scene file dropped onto the window, once (empty when none).
std::string takeDroppedPath();
// A file or folder given to the app as if dropped on the window (the browser's picker and drops).
void dropPath(std::string path);

// F1: the on-screen list of keys, from keyTable (drawn while `open`; its close button clears it).
void drawKeyLegend(bool& open);

} // namespace app
