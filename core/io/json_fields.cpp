#include "io/json_fields.h"

#include <stdexcept>
#include <utility>

namespace core {

std::string jsonSyntaxProblem(const std::string& text) {
    try {
        [[maybe_unused]] const nlohmann::json parsed = nlohmann::json::parse(text);
        return {};
    } catch (const nlohmann::json::parse_error& e) {
        // e.byte counts from 1 and points at the character after the last one read.
        const std::size_t at = std::min(text.size(), e.byte > 0 ? e.byte - 1 : 0);
        std::size_t line = 1, column = 1;
        for (std::size_t i = 0; i < at; ++i, ++column)
            if (text[i] == '\n') ++line, column = 0;
        if (at == text.size())
            return "not valid JSON (it ends early, line " + std::to_string(line) + ")";
        return "not valid JSON (line " + std::to_string(line) + ", column " +
               std::to_string(column) + ")";
    } catch (const std::exception&) { // a number out of range, ...
        return "not valid JSON";
    }
}

using nlohmann::json;

JsonFields::JsonFields(const json& object, std::string where)
    : object_(object), where_(std::move(where)) {}

void JsonFields::bad(const std::string& what) const {
    throw std::invalid_argument(where_ + what);
}

const json& JsonFields::at(const char* name) const {
    if (!has(name)) bad("missing " + quoted(name));
    return object_.at(name);
}

int JsonFields::integer(const char* name, int low, int high) const {
    const json& value = at(name);
    if (!value.is_number_integer()) bad(quoted(name) + " must be a whole number");
    const long long n = value.get<long long>();
    if (n < low || n > high)
        bad(quoted(name) + " " + std::to_string(n) + " is out of range (" + std::to_string(low) +
            " to " + std::to_string(high) + ")");
    return int(n);
}

int JsonFields::integer(const char* name, int low, int high, int fallback) const {
    return has(name) ? integer(name, low, high) : fallback;
}

double JsonFields::number(const char* name, double fallback) const {
    if (!has(name)) return fallback;
    if (!object_.at(name).is_number()) bad(quoted(name) + " must be a number");
    return object_.at(name).get<double>();
}

bool JsonFields::boolean(const char* name, bool fallback) const {
    if (!has(name)) return fallback;
    if (!object_.at(name).is_boolean()) bad(quoted(name) + " must be true or false");
    return object_.at(name).get<bool>();
}

std::string JsonFields::string(const char* name, const std::string& fallback) const {
    if (!has(name)) return fallback;
    if (!object_.at(name).is_string()) bad(quoted(name) + " must be a string");
    return object_.at(name).get<std::string>();
}

std::vector<std::string> JsonFields::strings(const char* name, bool required) const {
    if (!has(name)) {
        if (required) bad("missing " + quoted(name));
        return {};
    }
    const json& value = object_.at(name);
    if (!value.is_array()) bad(quoted(name) + " must be a list of strings");
    std::vector<std::string> out;
    for (const json& item : value) {
        if (!item.is_string()) bad(quoted(name) + " must be a list of strings");
        out.push_back(item.get<std::string>());
    }
    return out;
}

std::uint64_t JsonFields::unsignedInteger(const char* name, std::uint64_t fallback) const {
    if (!has(name)) return fallback;
    const json& value = object_.at(name);
    // nlohmann reads a non-negative literal as unsigned, a negative one as signed.
    if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<long long>() >= 0))
        bad(quoted(name) + " must be a whole number >= 0");
    return value.get<std::uint64_t>();
}

} // namespace core
