#include "shortcuts.h"

#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>

namespace app {

void interceptEscape(ViewState& view) {
    ImGuiIO& io = ImGui::GetIO();
    if (!io.KeysDown[GLFW_KEY_ESCAPE]) return;
    if (io.KeysDownDuration[GLFW_KEY_ESCAPE] < 0.0f) view.pinnedQuery = -1; // first frame of the press
    io.KeysDown[GLFW_KEY_ESCAPE] = false; // ImGui's InputText would throw the edit away
}

ShortcutActions handleShortcuts(ViewState& view) {
    ImGuiIO& io = ImGui::GetIO();
    ShortcutActions actions;
    if (io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_E, false)) actions.exportWindow = true;
    const int heads = int(view.maps.size());
    if (!io.WantTextInput && heads > 0) {
        if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT)) view.selectedHead = (view.selectedHead + 1) % heads;
        if (ImGui::IsKeyPressed(GLFW_KEY_LEFT)) view.selectedHead = (view.selectedHead + heads - 1) % heads;
        // Up/Down walk the pinned query row through the sentence.
        const int rows = view.maps.front().rows;
        if (ImGui::IsKeyPressed(GLFW_KEY_DOWN)) view.pinnedQuery = std::min(view.pinnedQuery + 1, rows - 1);
        if (ImGui::IsKeyPressed(GLFW_KEY_UP)) view.pinnedQuery = std::max(view.pinnedQuery - 1, 0);
    }
    return actions;
}

} // namespace app
