// Themes and zoom for presenting: a light theme for projectors, a high-contrast one, and
// Ctrl+plus / Ctrl+minus scaling all type (the font atlas is rebuilt, so text stays sharp).
#pragma once

#include "io/scene_json.h" // core::Theme: saved with a scene

#include <imgui.h>

namespace app {

using Theme = core::Theme;

struct Appearance {
    Theme theme = Theme::Dark;
    float zoom = 1.0f; // 1x .. 3x on top of the monitor's content scale
    bool operator==(const Appearance&) const = default;
};

inline constexpr float kMinZoom = 1.0f, kMaxZoom = 3.0f;

// Sets ImGui's colours and sizes and rebuilds the UI font at 16 px x contentScale x zoom.
// Call between frames; with `recreateTexture` the GL font texture is uploaded again.
void applyAppearance(const Appearance& appearance, float contentScale, bool recreateTexture);

// A theme's ImGui colours, as applyAppearance sets them (sizes unscaled). Its hint text
// (TextDisabled) reads at a contrast of 4.5 or more on its window background, like the
// message colours below.
ImGuiStyle themeStyle(Theme theme);

// The colours of messages in a theme, each readable on the theme's window background (WCAG's
// contrast ratio >= 4.5, app_appearance_test): warnings (a setting not honoured, input cut)
// and errors (input refused).
struct MessageColors {
    ImVec4 warning, error;
};
MessageColors messageColors(Theme theme);
// Those of the theme applyAppearance applied last: what the panels draw with.
ImVec4 warningColor();
ImVec4 errorColor();

// WCAG 2's contrast ratio of two colours (alpha ignored), from 1 (same) to 21 (black, white).
double contrastRatio(const ImVec4& a, const ImVec4& b);

} // namespace app
