#include "widgets/text_field.h"

#include "platform/astral_proxy.h"
#include "platform/fonts.h"
#include "text/utf8.h"

#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>
#include <vector>

namespace app {

bool textField(const char* id, const char* hint, std::string& text, ImGuiInputTextFlags flags) {
    requestGlyphs(text);
    std::string shown = toImGuiText(text); // the same stand-ins every frame: ImGui's copy agrees
    const bool result = ImGui::InputTextWithHint(id, hint, &shown, flags);
    if (std::string typed = fromImGuiText(shown); typed != text) text = std::move(typed);
    return result;
}

std::string missingGlyphsNote(const std::string& text) {
    const ImFont* font = ImGui::GetFont();
    std::vector<char32_t> missing;
    for (const char32_t cp : core::decodeUtf8(text)) {
        const bool drawn = cp < 0x20 || (cp <= 0xFFFF && !(cp >= 0xE000 && cp <= 0xF8FF) &&
                                         font->FindGlyphNoFallback(ImWchar(cp)));
        if (!drawn && std::find(missing.begin(), missing.end(), cp) == missing.end())
            missing.push_back(cp);
    }
    if (missing.empty()) return {};
    std::string note = "Kept as typed; no glyph in the UI font:";
    for (std::size_t i = 0; i < missing.size() && i < 8; ++i) {
        char code[16];
        std::snprintf(code, sizeof code, " U+%04X", unsigned(missing[i]));
        note += code;
    }
    if (missing.size() > 8) note += " and " + std::to_string(missing.size() - 8) + " more";
    return note;
}

} // namespace app
