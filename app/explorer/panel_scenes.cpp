// Ctrl+O: open a demo scene or a scene file (no file-dialog library on Debian: a path field).
#include "explorer/panels.h"

#include "io/scene_json.h"
#include "io/train_scene.h"

#include <imgui_stdlib.h>

namespace app {

namespace {

void loaded(core::Scene& scene, const core::Scene& next, const core::SceneView& settings,
            ViewState& view, const std::string& what) {
    scene = next;
    view.selection.pinnedQuery = -1;
    view.selection.batchIndex = 0;
    view.saved = settings; // tab, colours, theme, heads shown
    view.ui.tabRequested = true;
    view.ui.showScenes = false;
    view.ui.sceneOpened = true; // a trained model on screen gives way to the scene
    showNotice(view, "Opened " + what, ImGui::GetTime(), 3.0);
}

} // namespace

bool openSceneFile(core::Scene& scene, ViewState& view, const std::string& path) {
    core::SceneView settings;
    try {
        const core::Scene next = core::loadSceneFile(path, &settings);
        const auto train = core::sceneFileTrainSettings(path); // a bad "train": not opened
        loaded(scene, next, settings, view, path);
        view.ui.pendingTrain = train;
        return true;
    } catch (const std::exception& e) {
        showNotice(view, e.what(), ImGui::GetTime(), 5.0); // the current scene stays
        return false;
    }
}

void openDemoScene(core::Scene& scene, ViewState& view, const char* name) {
    core::SceneView settings;
    const core::Scene next = core::demoScene(name, &settings); // embedded: always valid
    loaded(scene, next, settings, view, std::string("demo scene ") + name);
    view.ui.pendingTrain =
        core::sceneTrainSettings(core::sceneAsset("scenes/" + std::string(name) + ".json"));
}

void drawScenesPanel(core::Scene& scene, ViewState& view) {
    if (!view.ui.showScenes) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y * 0.4f), ImGuiCond_Appearing,
                            ImVec2(0.5f, 0.5f));
    ImGui::Begin("Open a scene (Ctrl+O)", &view.ui.showScenes,
                 ImGuiWindowFlags_AlwaysAutoResize | ImGuiWindowFlags_NoCollapse);
    ImGui::TextUnformatted("Demo scenes (or press 1-7):");
    int index = 0;
    for (const char* name : core::kDemoScenes) {
        ++index;
        const std::string label = std::to_string(index) + "  " + name;
        const bool key = !ImGui::GetIO().WantTextInput && ImGui::IsKeyPressed('0' + index, false);
        if (ImGui::Selectable(label.c_str()) || key) {
            openDemoScene(scene, view, name);
            break;
        }
    }
    ImGui::Separator();
    ImGui::TextUnformatted("A scene file (.json), or drop one onto the window:");
    ImGui::SetNextItemWidth(ImGui::GetFontSize() * 26);
    const bool enter =
        ImGui::InputTextWithHint("##path", "/path/to/scene.json", &view.ui.scenePathInput,
                                 ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if ((ImGui::Button("Open") || enter) && !view.ui.scenePathInput.empty())
        openSceneFile(scene, view, view.ui.scenePathInput);
    ImGui::TextDisabled("Ctrl+S saves the current scene into the export folder.");
    ImGui::End();
}

} // namespace app
