// Reading the fields of one JSON object (a scene, its "train" object, model.json) into typed
// values. Every failure is one line that starts with what is being read ("scene: ",
// "model.json: ") and names the field, so the CLI and the window can show it as it is.
#pragma once

#include "base/enum_names.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace core {

// "not valid JSON (line 3, column 14)" for text nlohmann::json refuses, "" for valid JSON:
// where a hand-edited file (a config.json) went wrong, as an editor shows it.
std::string jsonSyntaxProblem(const std::string& text);

class JsonFields {
  public:
    // `where` starts every message; `object` must outlive the reader.
    JsonFields(const nlohmann::json& object, std::string where);

    [[noreturn]] void bad(const std::string& what) const;
    bool has(const char* name) const { return object_.contains(name); }
    const nlohmann::json& at(const char* name) const; // "missing "name"" when absent

    // A whole number in [low, high]: required, or `fallback` when absent.
    int integer(const char* name, int low, int high) const;
    int integer(const char* name, int low, int high, int fallback) const;
    double number(const char* name, double fallback) const;
    bool boolean(const char* name, bool fallback) const;
    std::string string(const char* name, const std::string& fallback) const;
    std::vector<std::string> strings(const char* name, bool required) const;
    // A whole number >= 0 that may use all 64 bits (a seed).
    std::uint64_t unsignedInteger(const char* name, std::uint64_t fallback) const;

    // One of the enum's names (its table in base/enum_names.h); `fallback` when absent.
    template <NamedEnum Enum>
    Enum oneOf(const char* name, Enum fallback) const {
        if (!has(name)) return fallback;
        const nlohmann::json& value = object_.at(name);
        if (value.is_string())
            if (const auto parsed = parseEnum<Enum>(value.get<std::string>())) return *parsed;
        bad(quoted(name) + " must be " + describeEnumNames<Enum>());
    }

  private:
    static std::string quoted(const char* name) { return std::string("\"") + name + "\""; }
    const nlohmann::json& object_;
    std::string where_;
};

} // namespace core
