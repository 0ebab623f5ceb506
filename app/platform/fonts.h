// DejaVu Sans for the UI (accents, Greek, Cyrillic, Hebrew, Arabic, arrows, maths),
// ImGui's built-in font when it cannot be found. Characters of other scripts (CJK, Hangul,
// symbols) are added to the atlas when text that needs them appears, from DejaVu Sans or else
// the fallback fonts installed (WenQuanYi Micro Hei from fonts-wqy-microhei: Chinese, Japanese,
// Korean; or $MHA_VIZ_FALLBACK_FONT).
// U+FFFD is drawn for anything no font has, and for every character beyond U+FFFF (ImGui's
// characters are 16-bit here; platform/astral_proxy.h keeps the text itself exact).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace app {

// Adds the UI font at `pixelSize` to ImGui's atlas, with every glyph asked for so far;
// returns the file used or "built-in".
std::string loadUiFont(float pixelSize);

// Notes the characters of `utf8` the atlas has not been asked for yet. Cheap when there are
// none; call it for the text a field shows, every frame.
void requestGlyphs(std::string_view utf8);

// Characters were asked for since the atlas was built: rebuild it before the next frame
// (platform/appearance.h). Clears the request.
bool takeGlyphRequest();

// The fallback fonts' files, in the order they are merged (none when none is installed).
std::vector<std::string> findFallbackFonts();

} // namespace app
