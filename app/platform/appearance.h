// Themes and zoom for presenting: a light theme for projectors, a high-contrast one, and
// Ctrl+plus / Ctrl+minus scaling all type (the font atlas is rebuilt, so text stays sharp).
#pragma once

#include "io/scene_json.h" // core::Theme: saved with a scene

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

} // namespace app
