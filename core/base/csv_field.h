// One CSV field as RFC 4180 writes it: quoted when it holds a comma, a quote or a line break,
// quotes doubled. Every CSV the app writes (figures, metrics, ablation) quotes through here.
#pragma once

#include <string>

namespace core {

inline std::string csvField(const std::string& text) {
    if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
    std::string quoted = "\"";
    for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    return quoted + "\"";
}

} // namespace core
