#include "platform/appearance.h"

#include "platform/fonts.h"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>

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

Theme appliedTheme = Theme::Dark; // applyAppearance's, for warningColor() and errorColor()

// sRGB component to linear light, as WCAG 2 defines relative luminance.
double linear(float c) {
    return c <= 0.04045f ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}

double luminance(const ImVec4& c) {
    return 0.2126 * linear(c.x) + 0.7152 * linear(c.y) + 0.0722 * linear(c.z);
}

} // namespace

ImGuiStyle themeStyle(Theme theme) {
    ImGuiStyle style;
    switch (theme) {
    case Theme::Dark:
        ImGui::StyleColorsDark(&style);
        break;
    case Theme::Light:
        ImGui::StyleColorsLight(&style);
        // ImGui's light grey hint text (0.6) reads at 2.4:1 on its background: too faint
        // for the explanations and hints drawn in it, on a projector above all.
        style.Colors[ImGuiCol_TextDisabled] = ImVec4(0.36f, 0.36f, 0.36f, 1.0f);
        break;
    case Theme::HighContrast:
        highContrast(style);
        break;
    }
    return style;
}

MessageColors messageColors(Theme theme) {
    switch (theme) {
    case Theme::Light: // dark amber and dark red: the dark theme's would be faint on light grey
        return {ImVec4(0.55f, 0.31f, 0.0f, 1.0f), ImVec4(0.72f, 0.08f, 0.06f, 1.0f)};
    case Theme::HighContrast:
        return {ImVec4(1.0f, 0.85f, 0.25f, 1.0f), ImVec4(1.0f, 0.55f, 0.5f, 1.0f)};
    case Theme::Dark:
        break;
    }
    return {ImVec4(1.0f, 0.8f, 0.3f, 1.0f), ImVec4(1.0f, 0.45f, 0.4f, 1.0f)};
}

ImVec4 warningColor() {
    return messageColors(appliedTheme).warning;
}

ImVec4 errorColor() {
    return messageColors(appliedTheme).error;
}

double contrastRatio(const ImVec4& a, const ImVec4& b) {
    const double la = luminance(a), lb = luminance(b);
    return (std::max(la, lb) + 0.05) / (std::min(la, lb) + 0.05);
}

void applyAppearance(const Appearance& appearance, float contentScale, bool recreateTexture) {
    ImGuiStyle style = themeStyle(appearance.theme);
    appliedTheme = appearance.theme;
    style.ScaleAllSizes(contentScale * appearance.zoom);
    ImGui::GetStyle() = style;

    ImGuiIO& io = ImGui::GetIO();
    if (recreateTexture) ImGui_ImplOpenGL3_DestroyFontsTexture();
    io.Fonts->Clear();
    loadUiFont(16.0f * contentScale * appearance.zoom);
    if (recreateTexture) ImGui_ImplOpenGL3_CreateFontsTexture();
}

} // namespace app
