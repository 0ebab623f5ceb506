// Names of a closed set, stated once. Each enum that a file, a flag or the window names has one
// table beside its declaration, found by argument-dependent lookup:
//
//     enum class MaskKind { None, Causal };
//     inline constexpr EnumName<MaskKind> kMaskKindNames[] = {{MaskKind::None, "none"}, ...};
//     constexpr std::span<const EnumName<MaskKind>> enumNames(MaskKind) { return kMaskKindNames; }
//
// and everything else reads that table: toString and parseEnum (scene and model files, the
// trace JSON), enumNameList (the CLI's allowed values), describeEnumNames (error messages) and
// the labels the window shows in its combo boxes.
#pragma once

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace core {

template <class Enum>
struct EnumName {
    Enum value;
    std::string_view name;  // in files, flags and the trace: "sqrt_d_head"
    std::string_view label; // in the window, when it differs: "1 / sqrt(d_head)"; else empty

    constexpr std::string_view shown() const { return label.empty() ? name : label; }
};

// The enums that have a table: enumNames(Enum{}) finds it.
template <class Enum>
concept NamedEnum = requires(Enum value) {
    { enumNames(value) } -> std::convertible_to<std::span<const EnumName<Enum>>>;
};

template <NamedEnum Enum>
constexpr std::span<const EnumName<Enum>> namesOf() {
    return enumNames(Enum{});
}

// The value's name; "" for a value outside the table (a cast from a bad int).
template <NamedEnum Enum>
constexpr std::string_view toString(Enum value) {
    for (const EnumName<Enum>& entry : namesOf<Enum>())
        if (entry.value == value) return entry.name;
    return {};
}

// The value's label in the window (its name when it has none).
template <NamedEnum Enum>
constexpr std::string_view labelOf(Enum value) {
    for (const EnumName<Enum>& entry : namesOf<Enum>())
        if (entry.value == value) return entry.shown();
    return {};
}

// The value whose name is `text`, exactly; nothing for any other text.
template <NamedEnum Enum>
constexpr std::optional<Enum> parseEnum(std::string_view text) {
    for (const EnumName<Enum>& entry : namesOf<Enum>())
        if (entry.name == text) return entry.value;
    return std::nullopt;
}

// Every name, in the table's order: the CLI's allowed values.
template <NamedEnum Enum>
std::vector<std::string> enumNameList() {
    std::vector<std::string> names;
    for (const EnumName<Enum>& entry : namesOf<Enum>()) names.emplace_back(entry.name);
    return names;
}

// "none or causal", "previous-token, induction or agreement", and past three names "one of
// viridis, magma, cividis, greys or rdbu": what a one-line error says a value must be.
template <NamedEnum Enum>
std::string describeEnumNames() {
    const std::vector<std::string> names = enumNameList<Enum>();
    std::string text = names.size() > 3 ? "one of " : "";
    for (std::size_t i = 0; i < names.size(); ++i)
        text += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return text;
}

// The index of `value` in its table (the order the window lists them in); -1 when absent.
template <NamedEnum Enum>
constexpr int enumIndex(Enum value) {
    const auto names = namesOf<Enum>();
    for (std::size_t i = 0; i < names.size(); ++i)
        if (names[i].value == value) return int(i);
    return -1;
}

// The value `step` places after `value` in its table's order, wrapping around (the window's
// V / Shift+V through the tabs, T through the themes).
template <NamedEnum Enum>
constexpr Enum cycleEnum(Enum value, int step) {
    const auto names = namesOf<Enum>();
    const int n = int(names.size());
    const int at = std::max(enumIndex(value), 0);
    return names[std::size_t(((at + step) % n + n) % n)].value;
}

} // namespace core
