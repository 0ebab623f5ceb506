#include "shortcuts.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace app {

namespace {

struct KeyPress {
    int key = 0, mods = 0;
};

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

void addShortcutPress(int key, int mods) {
    pendingPresses().push_back({key, mods});
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

} // namespace

ShortcutActions handleShortcuts(core::Scene& scene, ViewState& view) {
    ShortcutActions actions;
    const bool typing = ImGui::GetIO().WantTextInput;
    const int heads = int(view.maps.size());
    const int rows = view.maps.empty() ? 0 : view.maps.front().rows;
    for (const KeyPress& press : pendingPresses()) {
        const bool ctrl = (press.mods & GLFW_MOD_CONTROL) != 0;
        const bool shift = (press.mods & GLFW_MOD_SHIFT) != 0;
        if (ctrl && !shift && press.key == GLFW_KEY_E) actions.exportWindow = true;
        if (ctrl && shift && press.key == GLFW_KEY_E)
            view.exportPanel.open = !view.exportPanel.open;
        if (ctrl && press.key == GLFW_KEY_S) actions.saveScene = true;
        // Ctrl+plus / Ctrl+minus / Ctrl+0: zoom all type and maps for the back row.
        float& zoom = view.appearance.zoom;
        if (ctrl && (press.key == GLFW_KEY_EQUAL || press.key == GLFW_KEY_KP_ADD))
            zoom = std::min(zoom + 0.25f, kMaxZoom);
        if (ctrl && (press.key == GLFW_KEY_MINUS || press.key == GLFW_KEY_KP_SUBTRACT))
            zoom = std::max(zoom - 0.25f, kMinZoom);
        if (ctrl && press.key == GLFW_KEY_0) zoom = kMinZoom;
        if (ctrl && press.key == GLFW_KEY_O) view.showScenes = true;
        if (press.key == GLFW_KEY_ESCAPE) view.pinnedQuery = -1;
        if (press.key == GLFW_KEY_F11) actions.toggleFullscreen = true;
        if (press.key == GLFW_KEY_F1) view.showKeys = !view.showKeys;
        if (typing || heads == 0 || ctrl) continue; // arrows move the caret in a text field
        if (press.key == GLFW_KEY_RIGHT) view.selectedHead = (view.selectedHead + 1) % heads;
        if (press.key == GLFW_KEY_LEFT) view.selectedHead = (view.selectedHead + heads - 1) % heads;
        // Up/Down walk the pinned query row through the sentence.
        if (press.key == GLFW_KEY_DOWN) view.pinnedQuery = std::min(view.pinnedQuery + 1, rows - 1);
        if (press.key == GLFW_KEY_UP) view.pinnedQuery = std::max(view.pinnedQuery - 1, 0);
        // N / P walk the step-through (the panel clamps the step).
        if (press.key == GLFW_KEY_N) view.step += 1;
        if (press.key == GLFW_KEY_P) view.step = std::max(view.step - 1, 0);
        // Presenter keys: pin the hovered (or first) row, toggle the mask, change H.
        if (press.key == GLFW_KEY_SPACE)
            view.pinnedQuery = view.pinnedQuery >= 0 ? -1 : std::max(view.hover.query, 0);
        if (press.key == GLFW_KEY_V) { // next view tab; Shift+V the previous one
            const int tabs = int(ViewState::Tab::Cost) + 1;
            view.tab = ViewState::Tab((int(view.tab) + (shift ? tabs - 1 : 1)) % tabs);
            view.tabRequested = true;
        }
        if (press.key == GLFW_KEY_T) // cycle dark -> light -> high contrast
            view.appearance.theme = Theme((int(view.appearance.theme) + 1) % 3);
        if (press.key == GLFW_KEY_M)
            scene.mask = scene.mask == core::MaskKind::Causal ? core::MaskKind::None
                                                              : core::MaskKind::Causal;
        if (press.key == GLFW_KEY_LEFT_BRACKET || press.key == GLFW_KEY_RIGHT_BRACKET) {
            core::setHeads(scene, stepHeads(scene, press.key == GLFW_KEY_RIGHT_BRACKET ? +1 : -1));
        }
    }
    pendingPresses().clear();
    return actions;
}

} // namespace app

namespace app {

void drawKeyLegend(ViewState& view) {
    if (!view.showKeys) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.5f), ImGuiCond_Always,
                            ImVec2(0.5f, 0.5f));
    ImGui::SetNextWindowBgAlpha(1.0f); // opaque: on a light projector theme the maps showed through
    ImGui::Begin("Keys (F1 closes)", &view.showKeys,
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
        {"N / P", "next / previous step in the step-through"},
        {"Ctrl+S / Ctrl+O", "save the scene / open one (demo scenes, a path; or drop a file)"},
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
