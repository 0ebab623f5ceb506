#include "widgets/notice.h"

#include <imgui.h>

#include <utility>

namespace app {

void Notice::show(std::string message, double now, double seconds) {
    text = std::move(message);
    until = now + seconds;
}

void drawNotice(const Notice& notice, double now) {
    if (!notice.visible(now)) return;
    const ImVec2 display = ImGui::GetIO().DisplaySize;
    ImGui::SetNextWindowPos(ImVec2(display.x * 0.5f, display.y - 16.0f), ImGuiCond_Always,
                            ImVec2(0.5f, 1.0f));
    ImGui::SetNextWindowBgAlpha(0.92f);
    ImGui::Begin("##notice", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                     ImGuiWindowFlags_NoInputs | ImGuiWindowFlags_NoFocusOnAppearing |
                     ImGuiWindowFlags_NoNav);
    ImGui::TextUnformatted(notice.text.c_str());
    ImGui::End();
}

} // namespace app
