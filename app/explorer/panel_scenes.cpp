// Ctrl+O: open a demo scene or a scene file (no file-dialog library on Debian: a path field).
// The session opens what is chosen (Session::openScene), as it does for a dropped file.
#include "explorer/panels.h"

#include "io/scene_json.h"
#include "widgets/text_field.h"

namespace app {

ExplorerRequest drawScenesPanel(ScenePickerState& picker) {
    ExplorerRequest request;
    if (!picker.open) return request;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.4f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    ImGui::Begin("Open a scene (Ctrl+O)", &picker.open,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse);
    ImGui::TextUnformatted("Demo scenes (or press 1-7):");
    int index = 0;
    for (const char* name : core::kDemoScenes) {
        ++index;
        const std::string label = std::to_string(index) + "  " + name;
        const bool key = !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed('0' + index, false);
        if (ImGui::Selectable(label.c_str()) || key) {
            request.openDemo = name;
            break;
        }
    }
    ImGui::Separator();
    ImGui::TextUnformatted("A scene file (.json), or drop one onto the window:");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 26);
    const bool enter = textField("##path", "/path/to/scene.json", picker.pathInput,
                                 ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if ((ImGui::Button("Open") || enter) && !picker.pathInput.empty())
        request.openFile = picker.pathInput;
    ImGui::TextDisabled("Ctrl+S saves the current scene into the export folder.");
    ImGui::Separator();
    if (ImGui::Button("Open a model... (Ctrl+Shift+O)")) { // GPT-2 or a run of mha-viz train
        request.openModelDialog = true;
        picker.open = false;
    }
    ImGui::End();
    return request;
}

} // namespace app
