// Dear ImGui as Debian builds it holds text in 16-bit characters (ImWchar), so an emoji or any
// other character beyond U+FFFF that was typed, pasted or edited in a field came back as U+FFFD.
// Such characters enter ImGui as stand-ins from the Private Use Area (U+E000 to U+F8FF), one
// per distinct character for the life of the process, and are turned back wherever text leaves
// ImGui (a field's edit, the clipboard). Private-use characters the user typed get stand-ins
// too, so the mapping is exact both ways. ImGui draws a stand-in as its missing-glyph mark.
#pragma once

#include <string>
#include <string_view>

namespace app {

// What ImGui is given for `cp`: cp itself, or its stand-in. U+FFFD once all 6,400 stand-ins
// are taken (6,400 distinct characters beyond U+FFFF in one session).
unsigned imguiChar(unsigned cp);

// `utf8` with each character beyond U+FFFF or in the Private Use Area as its stand-in; bytes
// that are not valid UTF-8 are copied as they are.
std::string toImGuiText(std::string_view utf8);

// The inverse: stand-ins back to what they stand for; everything else copied as it is.
std::string fromImGuiText(std::string_view text);

} // namespace app
