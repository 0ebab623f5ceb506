// DejaVu Sans for the UI (accents, Greek, Cyrillic, Hebrew, Arabic, arrows, maths),
// ImGui's built-in font when it cannot be found. U+FFFD is drawn for anything missing.
#pragma once

#include <string>

namespace app {

// Adds the UI font at `pixelSize` to ImGui's atlas; returns the file used or "built-in".
std::string loadUiFont(float pixelSize);

} // namespace app
