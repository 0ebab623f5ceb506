#include "widgets/panel_frame.h"

namespace app {

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

// The longest prefix of `text` (whole UTF-8 characters) that fits `width` pixels.
std::size_t fittingPrefix(const std::string& text, float width) {
    std::size_t best = 0;
    for (std::size_t end = 1; end <= text.size(); ++end) {
        if (end < text.size() && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80)
            continue; // inside a character
        if (ImGui::CalcTextSize(text.data(), text.data() + end).x > width) break;
        best = end;
    }
    return best;
}

void textLine(const std::string& text, bool disabled) {
    if (disabled)
        ImGui::TextDisabled("%s", text.c_str());
    else
        ImGui::TextUnformatted(text.c_str());
}

} // namespace

void fittedText(const std::string& text, bool disabled) {
    const float avail = ImGui::GetContentRegionAvail().x;
    if (ImGui::CalcTextSize(text.c_str()).x <= avail) {
        textLine(text, disabled);
        return;
    }
    const float dots = ImGui::CalcTextSize("...").x;
    textLine(text.substr(0, fittingPrefix(text, std::max(0.0f, avail - dots))) + "...", disabled);
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text.c_str());
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

} // namespace app
