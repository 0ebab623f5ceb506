// ImGui controls for a closed set, from its name table (base/enum_names.h): the labels the
// window shows are the table's, so a new value appears in every control without an edit here.
#pragma once

#include "base/enum_names.h"

#include <imgui.h>

#include <algorithm>
#include <span>
#include <string>

namespace app {

// A combo box of `choices` (every value when empty). True when the user picked another one.
template <core::NamedEnum Enum>
bool enumCombo(const char* label, Enum& value, std::span<const Enum> choices = {}) {
    bool changed = false;
    if (!ImGui::BeginCombo(label, std::string(core::labelOf(value)).c_str())) return false;
    for (const core::EnumName<Enum>& entry : core::namesOf<Enum>()) {
        if (!choices.empty() &&
            std::find(choices.begin(), choices.end(), entry.value) == choices.end())
            continue;
        if (ImGui::Selectable(std::string(entry.shown()).c_str(), entry.value == value)) {
            changed = entry.value != value;
            value = entry.value;
        }
    }
    ImGui::EndCombo();
    return changed;
}

// "label  (o) a  ( ) b": one radio button per value, on one line. `tooltips`, when given,
// holds one per value in the table's order. True when the user picked another one.
template <core::NamedEnum Enum>
bool enumRadios(const char* label, Enum& value, std::span<const char* const> tooltips = {}) {
    ImGui::TextUnformatted(label);
    bool changed = false;
    std::size_t i = 0;
    for (const core::EnumName<Enum>& entry : core::namesOf<Enum>()) {
        ImGui::SameLine();
        const std::string id = std::string(entry.shown()) + "##" + label;
        if (ImGui::RadioButton(id.c_str(), entry.value == value) && entry.value != value) {
            value = entry.value;
            changed = true;
        }
        if (i < tooltips.size() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
            ImGui::SetTooltip("%s", tooltips[i]);
        ++i;
    }
    return changed;
}

} // namespace app
