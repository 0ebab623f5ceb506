#include "platform/appearance.h"

#include "platform/fonts.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

namespace app {

namespace {

void highContrast(ImGuiStyle& style) {
    ImGui::StyleColorsDark(&style);
    ImVec4* c = style.Colors;
    c[ImGuiCol_WindowBg] = c[ImGuiCol_ChildBg] = ImVec4(0, 0, 0, 1);
    c[ImGuiCol_Text] = ImVec4(1, 1, 1, 1);
    c[ImGuiCol_TextDisabled] = ImVec4(0.85f, 0.85f, 0.85f, 1);
    c[ImGuiCol_Border] = ImVec4(1, 1, 1, 0.9f);
    c[ImGuiCol_FrameBg] = ImVec4(0.12f, 0.12f, 0.12f, 1);
    c[ImGuiCol_Button] = ImVec4(0.05f, 0.25f, 0.55f, 1);
    c[ImGuiCol_TitleBg] = c[ImGuiCol_TitleBgActive] = ImVec4(0.1f, 0.1f, 0.1f, 1);
    style.FrameBorderSize = 1.0f;
}

} // namespace

void applyAppearance(const Appearance& appearance, float contentScale, bool recreateTexture) {
    ImGuiStyle style;
    switch (appearance.theme) {
    case Theme::Dark:
        ImGui::StyleColorsDark(&style);
        break;
    case Theme::Light:
        ImGui::StyleColorsLight(&style);
        break;
    case Theme::HighContrast:
        highContrast(style);
        break;
    }
    style.ScaleAllSizes(contentScale * appearance.zoom);
    ImGui::GetStyle() = style;

    ImGuiIO& io = ImGui::GetIO();
    if (recreateTexture) ImGui_ImplOpenGL3_DestroyFontsTexture();
    io.Fonts->Clear();
    loadUiFont(16.0f * contentScale * appearance.zoom);
    if (recreateTexture) ImGui_ImplOpenGL3_CreateFontsTexture();
}

} // namespace app
