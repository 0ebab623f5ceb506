#include "figures/svg_text.h"

#include "text/utf8.h"

#include <cstdio>

namespace core::svg {

std::string xmlEscape(const std::string& text) {
    std::string out;
    for (char c : sanitizeUtf8(text)) { // a stray byte would make the whole file unreadable
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&apos;";
            break;
        default:
            // XML 1.0 forbids most control characters even escaped.
            if (static_cast<unsigned char>(c) >= 0x20 || c == '\t' || c == '\n') out += c;
        }
    }
    return out;
}

std::string hex(Rgb c) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "#%02x%02x%02x", c.r, c.g, c.b);
    return buf;
}

} // namespace core::svg
