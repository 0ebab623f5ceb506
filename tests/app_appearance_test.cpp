// app::messageColors and themeStyle: every warning, error and hint colour reads on its theme's
// window background (the colour the frame is cleared to) at WCAG's 4.5:1 or more.
#include "platform/appearance.h"

#include <gtest/gtest.h>

#include <string>

namespace {

struct Named {
    const char* what;
    ImVec4 color;
};

} // namespace

TEST(Appearance, ContrastRatioIsWcags) {
    const ImVec4 black(0, 0, 0, 1), white(1, 1, 1, 1);
    EXPECT_NEAR(app::contrastRatio(black, white), 21.0, 1e-9);
    EXPECT_NEAR(app::contrastRatio(white, black), 21.0, 1e-9);
    EXPECT_NEAR(app::contrastRatio(white, white), 1.0, 1e-9);
    EXPECT_NEAR(app::contrastRatio(ImVec4(0.5f, 0.5f, 0.5f, 1), white), 3.98, 0.01);
}

TEST(Appearance, EveryMessageColourReadsOnItsThemesBackground) {
    for (const auto& theme : core::kThemeNames) {
        const ImGuiStyle style = app::themeStyle(theme.value);
        const ImVec4 background = style.Colors[ImGuiCol_WindowBg];
        const app::MessageColors messages = app::messageColors(theme.value);
        for (const Named& n : {Named{"warning", messages.warning}, Named{"error", messages.error},
                               Named{"hint", style.Colors[ImGuiCol_TextDisabled]},
                               Named{"text", style.Colors[ImGuiCol_Text]}})
            EXPECT_GE(app::contrastRatio(n.color, background), 4.5)
                << std::string(theme.name) << " theme, " << n.what;
    }
}

// What the light theme had: the dark theme's amber on light grey, and ImGui's own hint grey.
TEST(Appearance, TheOldLightThemeColoursWouldFail) {
    const ImVec4 background = app::themeStyle(app::Theme::Light).Colors[ImGuiCol_WindowBg];
    EXPECT_LT(app::contrastRatio(ImVec4(1.0f, 0.8f, 0.3f, 1), background), 1.5);
    ImGuiStyle imguiLight;
    ImGui::StyleColorsLight(&imguiLight);
    EXPECT_LT(app::contrastRatio(imguiLight.Colors[ImGuiCol_TextDisabled], background), 4.5);
}
