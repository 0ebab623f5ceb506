#include "session/shortcuts.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace app {

namespace {

std::vector<KeyPress>& pendingPresses() {
    static std::vector<KeyPress> presses;
    return presses;
}

} // namespace

std::string& droppedPath() {
    static std::string path;
    return path;
}

void onDrop(GLFWwindow*, int count, const char** paths) {
    if (count > 0) droppedPath() = paths[0]; // one scene at a time: the first file
}

void addShortcutPress(int key, int mods, bool repeat) {
    pendingPresses().push_back({key, mods, repeat});
}

void installFileDrop(GLFWwindow* window) {
    glfwSetDropCallback(window, onDrop);
}

std::string takeDroppedPath() {
    return std::exchange(droppedPath(), std::string());
}

void interceptEscape() {
    ImGui::GetIO().KeysDown[GLFW_KEY_ESCAPE] = false;
} // InputText would revert

namespace {

// [ and ]: the previous / next head count that divides d_model.
int stepHeads(const core::Scene& scene, int direction) {
    return core::nextHeadCount(scene.d_model, scene.heads, direction);
}

// Ctrl+key: these work even while typing.
ShortcutAction controlShortcut(int key, bool shift) {
    if (key == GLFW_KEY_E)
        return shift ? ShortcutAction::ToggleExportPanel : ShortcutAction::ExportWindow;
    if (key == GLFW_KEY_S) return ShortcutAction::SaveScene;
    // Ctrl+plus / Ctrl+minus / Ctrl+0: zoom all type and maps for the back row.
    if (key == GLFW_KEY_EQUAL || key == GLFW_KEY_KP_ADD) return ShortcutAction::ZoomIn;
    if (key == GLFW_KEY_MINUS || key == GLFW_KEY_KP_SUBTRACT) return ShortcutAction::ZoomOut;
    if (key == GLFW_KEY_0) return ShortcutAction::ZoomReset;
    if (key == GLFW_KEY_O) return ShortcutAction::OpenScenes;
    if (key == GLFW_KEY_T) return ShortcutAction::ToggleTrain;
    return ShortcutAction::None;
}

// Keys without Ctrl, outside text fields: heads, rows, steps, tabs, theme, mask, H, layers.
ShortcutAction plainShortcut(int key, bool shift) {
    switch (key) {
    case GLFW_KEY_RIGHT:
        return ShortcutAction::NextHead;
    case GLFW_KEY_LEFT:
        return ShortcutAction::PreviousHead;
    case GLFW_KEY_DOWN:
        return ShortcutAction::PinnedRowDown;
    case GLFW_KEY_UP:
        return ShortcutAction::PinnedRowUp;
    case GLFW_KEY_N:
        return ShortcutAction::NextStep;
    case GLFW_KEY_P:
        return ShortcutAction::PreviousStep;
    case GLFW_KEY_SPACE:
        return ShortcutAction::TogglePin;
    case GLFW_KEY_V:
        return shift ? ShortcutAction::PreviousTab : ShortcutAction::NextTab;
    case GLFW_KEY_T:
        return ShortcutAction::NextTheme;
    case GLFW_KEY_M:
        return ShortcutAction::ToggleMask;
    case GLFW_KEY_LEFT_BRACKET:
        return ShortcutAction::FewerHeads;
    case GLFW_KEY_RIGHT_BRACKET:
        return ShortcutAction::MoreHeads;
    case GLFW_KEY_L:
        return shift ? ShortcutAction::PreviousLayer : ShortcutAction::NextLayer;
    default:
        return ShortcutAction::None;
    }
}

} // namespace

ShortcutAction shortcutFor(const KeyPress& press, bool typing, bool mapsShown) {
    const bool ctrl = (press.mods & GLFW_MOD_CONTROL) != 0;
    const bool shift = (press.mods & GLFW_MOD_SHIFT) != 0;
    if (ctrl) {
        if (const ShortcutAction action = controlShortcut(press.key, shift);
            action != ShortcutAction::None)
            return action;
    }
    if (press.key == GLFW_KEY_ESCAPE) return ShortcutAction::Unpin;
    if (press.key == GLFW_KEY_F11) return ShortcutAction::ToggleFullscreen;
    if (press.key == GLFW_KEY_F1) return ShortcutAction::ToggleKeys;
    if (typing || !mapsShown || ctrl) return ShortcutAction::None; // arrows move the caret
    return plainShortcut(press.key, shift);
}

namespace {

// The Ctrl keys, Esc, F1 and F11: what works while typing. Other actions are left alone.
void applyWindowShortcut(ShortcutAction action, ViewState& view, ShortcutActions& actions) {
    float& zoom = view.ui.zoom;
    switch (action) {
    case ShortcutAction::ExportWindow:
        actions.exportWindow = true;
        break;
    case ShortcutAction::ToggleExportPanel:
        view.exportPanel.open = !view.exportPanel.open;
        break;
    case ShortcutAction::SaveScene:
        actions.saveScene = true;
        break;
    case ShortcutAction::ToggleTrain:
        actions.toggleTrain = true;
        break;
    case ShortcutAction::ZoomIn:
        zoom = std::min(zoom + 0.25f, kMaxZoom);
        break;
    case ShortcutAction::ZoomOut:
        zoom = std::max(zoom - 0.25f, kMinZoom);
        break;
    case ShortcutAction::ZoomReset:
        zoom = kMinZoom;
        break;
    case ShortcutAction::OpenScenes:
        view.ui.showScenes = true;
        break;
    case ShortcutAction::Unpin:
        view.selection.pinnedQuery = -1;
        break;
    case ShortcutAction::ToggleFullscreen:
        actions.toggleFullscreen = true;
        break;
    case ShortcutAction::ToggleKeys:
        view.ui.showKeys = !view.ui.showKeys;
        break;
    default:
        break;
    }
}

// The plain keys, outside text fields and only with heads on screen (`shown`).
void applyPlainShortcut(ShortcutAction action, core::Scene& scene, ViewState& view,
                        const HeadMaps& shown) {
    const int heads = int(shown.heads.size());
    const int rows = shown.heads.empty() ? 0 : shown.heads.front().rows;
    const int tabs = int(ViewState::Tab::Cost) + 1;
    switch (action) {
    case ShortcutAction::NextHead:
        view.saved.selectedHead = (view.saved.selectedHead + 1) % heads;
        break;
    case ShortcutAction::PreviousHead:
        view.saved.selectedHead = (view.saved.selectedHead + heads - 1) % heads;
        break;
    // Up/Down walk the pinned query row through the sentence.
    case ShortcutAction::PinnedRowDown:
        view.selection.pinnedQuery = std::min(view.selection.pinnedQuery + 1, rows - 1);
        break;
    case ShortcutAction::PinnedRowUp:
        view.selection.pinnedQuery = std::max(view.selection.pinnedQuery - 1, 0);
        break;
    // N / P walk the step-through (the panel clamps the step).
    case ShortcutAction::NextStep:
        view.ui.step += 1;
        break;
    case ShortcutAction::PreviousStep:
        view.ui.step = std::max(view.ui.step - 1, 0);
        break;
    // Presenter keys: pin the hovered (or first) row, toggle the mask, change H.
    case ShortcutAction::TogglePin:
        view.selection.pinnedQuery =
            view.selection.pinnedQuery >= 0 ? -1 : std::max(view.selection.hover.query, 0);
        break;
    case ShortcutAction::NextTab:
    case ShortcutAction::PreviousTab: { // Shift+V: the previous one
        const bool shift = action == ShortcutAction::PreviousTab;
        view.saved.tab = ViewState::Tab((int(view.saved.tab) + (shift ? tabs - 1 : 1)) % tabs);
        view.ui.tabRequested = true;
        break;
    }
    case ShortcutAction::NextTheme: // cycle dark -> light -> high contrast
        view.saved.theme = Theme((int(view.saved.theme) + 1) % 3);
        break;
    case ShortcutAction::ToggleMask:
        scene.mask =
            scene.mask == core::MaskKind::Causal ? core::MaskKind::None : core::MaskKind::Causal;
        break;
    case ShortcutAction::FewerHeads:
    case ShortcutAction::MoreHeads:
        core::setHeads(scene, stepHeads(scene, action == ShortcutAction::MoreHeads ? +1 : -1));
        break;
    case ShortcutAction::NextLayer: // only a trained model has layers; wraps around like V
    case ShortcutAction::PreviousLayer:
        if (const int layers = view.model.layers; layers > 0)
            view.model.layer =
                (view.model.layer + (action == ShortcutAction::NextLayer ? 1 : layers - 1)) %
                layers;
        break;
    default:
        break;
    }
}

} // namespace

void applyShortcut(ShortcutAction action, core::Scene& scene, ViewState& view,
                   const HeadMaps& shown, ShortcutActions& actions) {
    applyWindowShortcut(action, view, actions); // each action is one of the two kinds
    applyPlainShortcut(action, scene, view, shown);
}

ShortcutActions handleShortcuts(core::Scene& scene, ViewState& view, const HeadMaps& shown) {
    ShortcutActions actions;
    const bool typing = ImGui::GetIO().WantTextInput;
    constexpr int kCommandMods = GLFW_MOD_CONTROL | GLFW_MOD_ALT | GLFW_MOD_SUPER;
    for (const KeyPress& press : pendingPresses()) { // with the heads on screen, as applied
        applyShortcut(shortcutFor(press, typing, !shown.heads.empty()), scene, view, shown,
                      actions);
        if (!typing && (press.mods & kCommandMods) == 0) actions.plainKeys.push_back(press);
    }
    pendingPresses().clear();
    return actions;
}

} // namespace app

namespace app {

void drawKeyLegend(ViewState& view) {
    if (!view.ui.showKeys) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Always,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(1.0f); // opaque: on a light projector theme the maps showed through
    ImGui::Begin("Keys (F1 closes)", &view.ui.showKeys,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse);
    const char* const keys[][2] = {
        {"Ctrl+E", "save a PNG of the window and the trace (works while typing)"},
        {"Ctrl+Shift+E", "export panel: a head, the grid, a view or the window as PNG/SVG/CSV"},
        {"V / Shift+V", "next / previous view (Head, Mean, A-B, Lines, Stats, ...)"},
        {"Left / Right", "previous / next head"},
        {"Up / Down", "move the pinned query row"},
        {"Space", "pin the hovered row, or unpin"},
        {"Esc", "unpin (never throws away what you typed)"},
        {"M", "mask: none <-> causal"},
        {"[ / ]", "fewer / more heads (divisors of d_model)"},
        {"L / Shift+L", "next / previous layer of a trained model (--model)"},
        {"N / P", "next / previous step in the step-through"},
        {"Ctrl+S / Ctrl+O", "save the scene / open one (demo scenes, a path; or drop a file)"},
        {"Ctrl+T", "Train view: train a tiny transformer and watch its heads learn"},
        {"Space / S / R", "Train view: start or pause / one step / reset"},
        {"Left / Right, Home / End, P", "Train view: timeline back, on, step 0, live, play"},
        {"E / M", "Train view: export the curves (SVG, PNG, CSV) / the maps (SVG, PNG)"},
        {"Ctrl+plus / minus / 0", "zoom all type and maps (1x to 3x) / reset"},
        {"T", "theme: dark, light (projectors), high contrast"},
        {"F11", "fullscreen"},
        {"F1", "this list"},
    };
    if (ImGui::BeginTable("keys", 2)) {
        for (const auto& [key, what] : keys) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(key);
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(what);
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled("Keys other than Ctrl+E work when no text field is being edited.");
    ImGui::End();
}

} // namespace app
