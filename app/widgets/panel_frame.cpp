#include "widgets/panel_frame.h"

#include "text/utf8.h"

namespace app {

const char* spinner() {
    static const char* const frames[] = {"|", "/", "-", "\\"};
    return frames[int(ImGui::GetTime() * 8.0) % 4];
}

void itemTooltip(const char* text) {
    if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled)) ImGui::SetTooltip("%s", text);
}

void keysHint(const char* keys) {
    if (ImGui::GetIO().WantTextInput)
        ImGui::TextDisabled("Esc, then %s", keys);
    else
        ImGui::TextDisabled("%s", keys);
    itemTooltip("Single keys act when no text field has the cursor; in a field they type. Esc "
                "leaves the field and keeps its text.");
}

namespace {

void textLine(const std::string& text, bool disabled) {
    if (disabled)
        ImGui::TextDisabled("%s", text.c_str());
    else
        ImGui::TextUnformatted(text.c_str());
}

} // namespace

// Cuts text to fit maxWidth, ending in an ellipsis; whole code points only.
std::string fitText(const std::string& text, float maxWidth) {
    if (ImGui::CalcTextSize(text.c_str()).x <= maxWidth) return text;
    const bool hasEllipsis = ImGui::GetFont()->FindGlyphNoFallback(0x2026) != nullptr;
    const std::string ellipsis = hasEllipsis ? "\xE2\x80\xA6" : "..";
    const std::u32string points = core::decodeUtf8(text);
    auto prefix = [&](std::size_t n) {
        std::string candidate;
        for (std::size_t k = 0; k < n; ++k) core::appendUtf8(candidate, points[k]);
        return candidate + ellipsis;
    };
    // The longest prefix that fits, by binary search: labels are measured every frame.
    std::size_t lo = 0, hi = points.size();
    while (lo < hi) {
        const std::size_t mid = (lo + hi + 1) / 2;
        if (ImGui::CalcTextSize(prefix(mid).c_str()).x <= maxWidth)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo == 0 ? std::string() : prefix(lo);
}

void fittedText(const std::string& text, bool disabled) {
    const std::string shown = fitText(text, ImGui::GetContentRegionAvail().x);
    textLine(shown, disabled);
    if (shown != text && ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
}

void sameLineIfFits(float width) {
    const ImGuiStyle& style = ImGui::GetStyle();
    if (ImGui::GetItemRectMax().x + style.ItemSpacing.x + width <=
        ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
        ImGui::SameLine();
}

void flowText(const std::vector<std::string>& pieces, bool disabled) {
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        if (i > 0) sameLineIfFits(ImGui::CalcTextSize(pieces[i].c_str()).x);
        fittedText(pieces[i], disabled);
    }
}

void sectionTitle(const char* text) {
    ImGui::Spacing();
    ImGui::TextUnformatted(text);
    ImGui::Separator();
}

bool beginNumberTable(const char* id, std::initializer_list<const char*> columns) {
    if (!ImGui::BeginTable(id, int(columns.size()),
                           ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg |
                               ImGuiTableFlags_SizingFixedFit))
        return false;
    for (const char* column : columns) ImGui::TableSetupColumn(column);
    ImGui::TableHeadersRow();
    return true;
}

} // namespace app
