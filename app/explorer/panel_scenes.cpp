// Ctrl+O: open a demo scene, a scene file (no file-dialog library on Debian: a path field; in
// the browser also the page's file picker) or a scene Ctrl+S saved.
// The session opens what is chosen (Session::openScene), as it does for a dropped file.
#include "explorer/panels.h"

#include "io/scene_json.h"
#include "platform/file_offer.h"
#include "widgets/text_field.h"

#include <algorithm>
#include <filesystem>

namespace app {

namespace {

// The scenes Ctrl+S wrote into `folder` (mha-viz-scene.json, -2, ...), newest first.
std::vector<std::string> savedScenes(const std::string& folder) {
    namespace fs = std::filesystem;
    std::vector<std::pair<fs::file_time_type, std::string>> found;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("mha-viz-scene", 0) == 0 && it->path().extension() == ".json")
            found.emplace_back(it->last_write_time(ec), it->path().string());
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a > b; });
    std::vector<std::string> paths;
    for (auto& f : found) paths.push_back(std::move(f.second));
    return paths;
}

void savedList(ScenePickerState& picker, ExplorerRequest& request) {
    if (ImGui::IsWindowAppearing()) picker.saved = savedScenes(picker.savedFolder);
    if (picker.saved.empty()) {
        ImGui::TextDisabled(
            kFilesAreDownloads
                ? "Ctrl+S saves the current scene in this browser; it is listed here."
                : "Ctrl+S saves the current scene into the export folder.");
        return;
    }
    ImGui::TextUnformatted(kFilesAreDownloads ? "Saved in this browser (Ctrl+S):"
                                              : "Saved with Ctrl+S:");
    for (std::size_t i = 0; i < picker.saved.size() && i < 8; ++i) {
        const std::string name = std::filesystem::path(picker.saved[i]).filename().string();
        if (ImGui::Selectable((name + "##saved").c_str())) request.openFile = picker.saved[i];
    }
}

} // namespace

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
    if (kFilesAreDownloads) { // in the browser: a file of the computer, through the page
        ImGui::SameLine();
        if (ImGui::Button("Choose a file...")) pickFilesToOpen();
    }
    savedList(picker, request);
    ImGui::Separator();
    if (ImGui::Button("Open a model... (Ctrl+Shift+O)")) { // GPT-2 or a run of mha-viz train
        request.openModelDialog = true;
        picker.open = false;
    }
    ImGui::End();
    return request;
}

} // namespace app
