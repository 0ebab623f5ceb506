// A text field on a std::string that holds exactly the UTF-8 typed or pasted: characters beyond
// U+FFFF (emoji) pass through ImGui as stand-ins (platform/astral_proxy.h), and the characters
// shown are asked of the font atlas (platform/fonts.h). Every field that takes the user's text
// goes through here.
#pragma once

#include <imgui.h>

#include <string>

namespace app {

// As ImGui::InputTextWithHint (ImGui's return value: edited, or Enter with EnterReturnsTrue).
bool textField(const char* id, const char* hint, std::string& text, ImGuiInputTextFlags flags = 0);

// "Kept as typed; no glyph in the UI font: U+1F600 U+1F44D" for the characters of `text` the
// window cannot draw, or "" when it draws them all.
std::string missingGlyphsNote(const std::string& text);

} // namespace app
