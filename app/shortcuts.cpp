#include "shortcuts.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
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

void onKey(GLFWwindow*, int key, int, int action, int mods) {
    if (action == GLFW_PRESS || action == GLFW_REPEAT) pendingPresses().push_back({key, mods});
}

} // namespace

void installShortcutKeys(GLFWwindow* window) {
    glfwSetKeyCallback(window, onKey);
}

void interceptEscape() {
    ImGui::GetIO().KeysDown[GLFW_KEY_ESCAPE] = false;
} // InputText would revert

ShortcutActions handleShortcuts(ViewState& view) {
    ShortcutActions actions;
    const bool typing = ImGui::GetIO().WantTextInput;
    const int heads = int(view.maps.size());
    const int rows = view.maps.empty() ? 0 : view.maps.front().rows;
    for (const KeyPress& press : pendingPresses()) {
        const bool ctrl = (press.mods & GLFW_MOD_CONTROL) != 0;
        if (ctrl && press.key == GLFW_KEY_E) actions.exportWindow = true;
        if (press.key == GLFW_KEY_ESCAPE) view.pinnedQuery = -1;
        if (typing || heads == 0 || ctrl) continue; // arrows move the caret in a text field
        if (press.key == GLFW_KEY_RIGHT) view.selectedHead = (view.selectedHead + 1) % heads;
        if (press.key == GLFW_KEY_LEFT) view.selectedHead = (view.selectedHead + heads - 1) % heads;
        // Up/Down walk the pinned query row through the sentence.
        if (press.key == GLFW_KEY_DOWN) view.pinnedQuery = std::min(view.pinnedQuery + 1, rows - 1);
        if (press.key == GLFW_KEY_UP) view.pinnedQuery = std::max(view.pinnedQuery - 1, 0);
        // N / P walk the step-through (the panel clamps the step).
        if (press.key == GLFW_KEY_N) view.step += 1;
        if (press.key == GLFW_KEY_P) view.step = std::max(view.step - 1, 0);
    }
    pendingPresses().clear();
    return actions;
}

} // namespace app
